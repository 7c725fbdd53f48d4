"""Table cells and aligned tables for the terminal reports (the run summary, the commands'
output, the HTML report's cells and the method sections)."""

from __future__ import annotations


def fmt(value: float | None, kind: str, std: float | None = None) -> str:
    """A metric value for a table cell: ``kind`` is ``pct``, ``money``, ``secs`` or a count;
    ``std`` (a fraction, for ``pct``) follows as ``±``; a metric that does not apply is ``-``."""
    if value is None:
        return "-"
    if kind == "pct":
        text = f"{100 * value:.1f}%"
        return text if std is None else f"{text}±{100 * std:.1f}"
    if kind == "money":
        return f"{value:.4f}"
    if kind == "secs":  # an agent that copies files takes no measurable time
        return f"{value:.1f}" if value >= 0.05 else "<0.1"
    return f"{value:.0f}"


def write_table(tr, headers: list[str], sections: list[list[list[str]]], left: int) -> None:
    """Aligned columns (the first ``left`` to the left, the rest right), a rule between sections."""
    body = [row for section in sections for row in section]
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        first = [c.ljust(w) for c, w in zip(cells[:left], widths[:left], strict=True)]
        rest = [c.rjust(w) for c, w in zip(cells[left:], widths[left:], strict=True)]
        return "  ".join(first + rest).rstrip()

    tr.write_line(line(headers))
    for index, section in enumerate(sections):
        if index:
            tr.write_line("-" * len(line(headers)))
        for row in section:
            tr.write_line(line(row))
