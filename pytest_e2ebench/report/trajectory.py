"""The trajectory viewer of the HTML report (issue 42): a run's steps, its diff, two runs compared.

Everything is read from the run's folder through the bounded, link-free reader and cut to
lengths that keep a session of a hundred runs of 300 steps a page Chromium opens in seconds
(docs/reports.md has the figures, ``benchmarks/report_size.py`` measures them). The page has
no script: what is long is folded in ``<details>``.

* :func:`steps`: the run's ATIF document (``agent_run.details.atif``), per step its source,
  text, tool calls each with its arguments and result, tokens and time;
* :func:`files`: the diff of the project against the workspace the agent was given
  (``agent_run.details.diff``, :mod:`..environment.diff`), one entry per file;
* :func:`comparisons`: per task, two of its runs side by side and the first step where they
  differ.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..errors import AgentFileError
from ..isolation.intake import read_bytes
from ..untrusted.parse import loads_json

ATIF_BYTES = 32 << 20  # of a run's ATIF trajectory read
MAX_STEPS = 500  # steps of one run shown
STEP_TEXT = 4000  # characters of a step's text, a call's arguments or its result shown
FOLD = 240  # characters shown unfolded; past them a text is folded
PREVIEW = 100  # characters of a folded text's one-line preview
DIFF_BYTES = 512 << 10  # of a run's diff shown
DIFF_FILES = 300  # files of a run's diff shown
SIDE_TEXT = 160  # characters of a step's calls in the side-by-side table


def inside(run_dir: Path, path: str) -> str | None:
    """``path`` relative to ``run_dir`` when it lies inside it (lexically), else None."""
    try:
        rel = Path(os.path.normpath(path)).relative_to(run_dir)
    except ValueError:
        return None
    return str(rel)


def _detail_file(record: dict, key: str, limit: int) -> bytes | None:
    """The bytes of the file ``agent_run.details[key]`` names, if inside the run's folder."""
    path = ((record.get("agent_run") or {}).get("details") or {}).get(key)
    if not isinstance(path, str) or not isinstance(record.get("dir"), str):
        return None
    run_dir = Path(record["dir"])
    rel = inside(run_dir, path)
    return read_bytes(run_dir, rel, limit) if rel else None


def folded(text: str) -> dict:
    """A text as the page shows it: whole when short, else a preview and the text folded
    (cut at ``STEP_TEXT``, the cut said)."""
    shown = text[:STEP_TEXT]
    cut = len(text) - len(shown)
    return {
        "text": shown,
        "fold": len(shown) > FOLD or shown.count("\n") > 3,
        "preview": " ".join(shown[:PREVIEW].split()),
        "length": len(text),
        "cut": cut,
    }


def steps(record: dict) -> list[dict]:
    """The run's ATIF trajectory as the report shows it (``[]`` without one)."""
    try:
        document = loads_json(_detail_file(record, "atif", ATIF_BYTES) or b"", "an ATIF file")
    except AgentFileError:
        return []
    found = document.get("steps") if isinstance(document, dict) else None
    if not isinstance(found, list):
        return []
    return [step_view(s) for s in found[:MAX_STEPS] if isinstance(s, dict)]


def _text(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def step_view(step: dict) -> dict:
    """One ATIF step: its calls paired with their results by call id, tokens and time."""
    metrics = step.get("metrics") if isinstance(step.get("metrics"), dict) else {}
    observation = step.get("observation") if isinstance(step.get("observation"), dict) else {}
    results = {
        r.get("source_call_id"): _text(r.get("content") or "")
        for r in observation.get("results") or ()
        if isinstance(r, dict)
    }
    calls = [
        {
            "name": str(c.get("function_name", "")),
            "arguments": folded(_text(c.get("arguments"))),
            "result": folded(results.get(c.get("tool_call_id"), "")),
            "key": str(c.get("function_name", "")) + " " + _text(c.get("arguments")),
        }
        for c in step.get("tool_calls") or ()
        if isinstance(c, dict)
    ]
    latency = (metrics.get("extra") or {}).get("latency_s")
    message = _text(step.get("message") or "")
    return {
        "n": step.get("step_id"),
        "source": str(step.get("source", "")),
        "text": folded(message),
        "calls": calls,
        "tokens": f"{metrics.get('prompt_tokens') or 0} in, "
        f"{metrics.get('completion_tokens') or 0} out",
        "time": f"{latency:.2f} s" if isinstance(latency, int | float) else "",
        # what the agent did, for the comparison of two runs (its own run folder's paths aside)
        "key": [str(step.get("source", "")), message, [c["key"] for c in calls]],
    }


def files(record: dict) -> list[dict]:
    """The run's diff against its starting workspace, per file: its path, lines added and
    removed, and its lines each with its kind (``add``, ``del``, ``hunk`` or plain)."""
    data = _detail_file(record, "diff", DIFF_BYTES + (64 << 10))
    if not data:
        return []
    text = data.decode("utf-8", "replace")
    out: list[dict] = []
    left = [0, 0]  # lines of the current hunk still to come, old and new side
    cut = len(text) > DIFF_BYTES
    for line in text[:DIFF_BYTES].splitlines():
        if left == [0, 0] and line.startswith(("--- ", "Binary files ")) or not out:
            if len(out) >= DIFF_FILES:
                cut = True
                break
            out.append({"path": "", "added": 0, "removed": 0, "lines": []})
        _diff_line(out[-1], line, left)
    if cut:
        out.append({"path": f"(the diff is cut at {DIFF_BYTES} bytes)", "added": 0,
                    "removed": 0, "lines": []})  # fmt: skip
    return out


def _diff_line(entry: dict, line: str, left: list[int]) -> None:
    """Add one line of a unified diff to its file's ``entry`` (``left``: the hunk's lines to
    come, read from its ``@@ -a,b +c,d @@`` header, so a removed ``-- x`` is no header)."""
    kind = ""
    if left != [0, 0]:
        mark = line[:1]
        kind = {"+": "add", "-": "del"}.get(mark, "")
        if mark in " -":
            left[0] = max(0, left[0] - 1)
        if mark in " +":
            left[1] = max(0, left[1] - 1)
        if kind:
            entry["added" if kind == "add" else "removed"] += 1
    elif line.startswith("--- "):
        entry["path"] = line[4:].removeprefix("a/")
    elif line.startswith("+++ ") and line[4:] != "/dev/null":
        entry["path"] = line[4:].removeprefix("b/")
    elif line.startswith("Binary files "):
        entry["path"] = line.split(" and ")[-1].removesuffix(" differ").removeprefix("b/")
    elif line.startswith("@@"):
        kind = "hunk"
        sides = line.split(" ")[1:3] if line.count("@@") >= 2 else []
        for n, side in enumerate(sides):
            length = side[1:].split(",")[1] if "," in side else "1"
            left[n] = int(length) if length.isdigit() else 0
    entry["lines"].append((kind, line))


def text_size(view: dict) -> int:
    """Characters of a run view's trajectory and diff as the page would hold them."""
    size = sum(len(line) for f in view["files"] for _, line in f["lines"])
    for step in view["steps"]:
        size += len(step["text"]["text"])
        size += sum(len(c["arguments"]["text"]) + len(c["result"]["text"]) for c in step["calls"])
    return size


def _normal(key: list, run_dir: str) -> str:
    """A step's key with the run's own folder named alike in every run."""
    text = json.dumps(key, ensure_ascii=False)
    return text.replace(run_dir, "<run>") if run_dir else text


def _cell(step: dict | None) -> dict | None:
    if step is None:
        return None
    said = step["text"]["preview"]
    calls = ", ".join(f"{c['name']} {c['arguments']['preview']}" for c in step["calls"])
    return {"n": step["n"], "source": step["source"], "text": said[:SIDE_TEXT],
            "calls": calls[:SIDE_TEXT], "tokens": step["tokens"]}  # fmt: skip


def compare(a: dict, b: dict) -> dict:
    """Two run views side by side: the steps both took alike, then the first differing step
    (``diverged``, 1-based; None when the runs are the same) and the rest, row by row."""
    dir_a, dir_b = (str(v["record"].get("dir") or "") for v in (a, b))
    keys_a = [_normal(s["key"], dir_a) for s in a["steps"]]
    keys_b = [_normal(s["key"], dir_b) for s in b["steps"]]
    same = 0
    while same < min(len(keys_a), len(keys_b)) and keys_a[same] == keys_b[same]:
        same += 1
    diverged = None if same == len(keys_a) == len(keys_b) else same + 1
    rows = [
        {
            "index": i + 1,
            "a": _cell(a["steps"][i] if i < len(a["steps"]) else None),
            "b": _cell(b["steps"][i] if i < len(b["steps"]) else None),
        }
        for i in range(same, max(len(keys_a), len(keys_b)))
    ]
    return {"a": a, "b": b, "same": same, "diverged": diverged, "rows": rows}


def comparisons(runs: list[dict]) -> list[dict]:
    """Per task with two runs that have a trajectory: those two compared (the first run of
    each of its first two agents, else its first two runs)."""
    by_task: dict[str, list[dict]] = {}
    for view in runs:
        if view["steps"]:
            by_task.setdefault(str(view["record"].get("task")), []).append(view)
    out = []
    for task, views in sorted(by_task.items()):
        if len(views) < 2:
            continue
        first = views[0]
        other = next((v for v in views if v["record"].get("agent") != first["record"].get("agent")),
                     views[1])  # fmt: skip
        out.append({"task": task, **compare(first, other)})
    return out
