"""Small inline SVG charts for the HTML report: bars (with CI whiskers), a heatmap, a scatter.

Plain SVG text, no script and no external reference, so the report opens offline. Every label
is escaped: task, requirement and agent names come from files users and agents wrote.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f")
FONT = 'font-family="system-ui, sans-serif" font-size="11"'


def color(index: int) -> str:
    """The series color of the ``index``-th agent."""
    return PALETTE[index % len(PALETTE)]


def _svg(width: float, height: float, body: list[str], label: str) -> Markup:
    return Markup(
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(label)}" '
        f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
        f"{FONT}>{''.join(body)}</svg>"
    )


def bars(
    items: Sequence[tuple[str, float | None, list[float] | None]],
    label: str,
    unit_max: float = 1.0,
    percent: bool = True,
) -> Markup:
    """Horizontal bars ``(name, value, ci)``; a CI draws a whisker, a None value draws '-'."""
    left, bar_w, row = 160, 320, 22
    top = 6
    body = []
    scale = max([unit_max, *(v or 0 for _, v, _ in items)]) or 1.0
    for i, (name, value, ci) in enumerate(items):
        y = top + i * row
        body.append(
            f'<text x="{left - 6}" y="{y + 14}" text-anchor="end">{escape(name[:28])}</text>'
        )
        if value is None:
            body.append(f'<text x="{left + 4}" y="{y + 14}">-</text>')
            continue
        w = bar_w * value / scale
        text = f"{100 * value:.1f}%" if percent else f"{value:g}"
        body.append(
            f'<rect x="{left}" y="{y + 3}" width="{w:.1f}" height="{row - 8}" '
            f'fill="{color(i)}"><title>{escape(name)}: {text}</title></rect>'
        )
        if ci:
            x0, x1 = (left + bar_w * c / scale for c in ci)
            mid = y + row / 2 - 1
            body.append(
                f'<path d="M{x0:.1f},{mid - 5}v10M{x0:.1f},{mid}H{x1:.1f}M{x1:.1f},{mid - 5}v10" '
                f'stroke="#222" fill="none"/>'
            )
        body.append(f'<text x="{left + bar_w + 8}" y="{y + 14}">{text}</text>')
    return _svg(left + bar_w + 70, top * 2 + row * max(len(items), 1), body, label)


def _shade(value: float | None) -> str:
    """Red (0) through yellow to green (1); grey for no verdict."""
    if value is None:
        return "#ddd"
    red = int(230 - 150 * max(0.0, value - 0.5) * 2) if value > 0.5 else 230
    green = int(80 + 150 * min(1.0, value * 2))
    return f"rgb({red},{green},90)"


def heatmap(rows: Sequence[str], columns: Sequence[str], cells: dict, label: str) -> Markup:
    """A grid of ``cells[(row, column)]`` shares in [0, 1] (None: not run), labelled by value."""
    left, top, cw, ch = 70, 22, 90, 20
    body = []
    for j, col in enumerate(columns):
        body.append(
            f'<text x="{left + j * cw + cw / 2}" y="14" text-anchor="middle">'
            f"{escape(col[:14])}</text>"
        )
    for i, row in enumerate(rows):
        y = top + i * ch
        body.append(f'<text x="{left - 6}" y="{y + 14}" text-anchor="end">{escape(row)}</text>')
        for j, col in enumerate(columns):
            value = cells.get((row, col))
            text = "-" if value is None else f"{100 * value:.0f}%"
            x = left + j * cw
            body.append(
                f'<rect x="{x}" y="{y}" width="{cw - 2}" height="{ch - 2}" fill="{_shade(value)}">'
                f"<title>{escape(row)} × {escape(col)}: {text}</title></rect>"
                f'<text x="{x + cw / 2 - 1}" y="{y + 13}" text-anchor="middle">{text}</text>'
            )
    return _svg(left + cw * max(len(columns), 1) + 4, top + ch * len(rows) + 4, body, label)


def scatter(
    points: Sequence[tuple[str, float, float, int]], x_label: str, y_label: str, label: str
) -> Markup:
    """Points ``(name, x, y, series)`` with y a share in [0, 1]; x from 0 to the largest x."""
    left, top, w, h = 50, 10, 360, 200
    x_max = max((p[1] for p in points), default=0) or 1.0
    body = [
        f'<path d="M{left},{top}V{top + h}H{left + w}" stroke="#444" fill="none"/>',
        f'<text x="{left + w / 2}" y="{top + h + 30}" text-anchor="middle">'
        f"{escape(x_label)}</text>",
        f'<text x="12" y="{top + h / 2}" transform="rotate(-90 12 {top + h / 2})" '
        f'text-anchor="middle">{escape(y_label)}</text>',
        f'<text x="{left - 4}" y="{top + 4}" text-anchor="end">100%</text>',
        f'<text x="{left - 4}" y="{top + h}" text-anchor="end">0%</text>',
        f'<text x="{left + w}" y="{top + h + 14}" text-anchor="end">{x_max:.4g}</text>',
    ]
    for name, x, y, series in points:
        cx, cy = left + w * x / x_max, top + h * (1 - y)
        body.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="5" fill="{color(series)}" fill-opacity="0.8">'
            f"<title>{escape(name)}: {x:.4g}, {100 * y:.1f}%</title></circle>"
        )
    return _svg(left + w + 20, top + h + 40, body, label)
