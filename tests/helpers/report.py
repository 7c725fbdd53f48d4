"""Shared by the tests (moved from test_html_report.py)."""

from __future__ import annotations

PNG_BYTES = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def hostile_document(tmp_path):
    from pytest_e2ebench.grading.metrics import METRIC_KEYS
    from pytest_e2ebench.report.results import build

    run_dir = tmp_path / "out" / "a" / "t" / "run-1"
    shots = run_dir / "eval" / "extended" / "artifacts"
    shots.mkdir(parents=True)
    (shots / "ok.png").write_bytes(PNG_BYTES)
    (shots / "not-a-png.png").write_bytes(b"<svg onload=alert(1)>")
    outside = tmp_path / "outside.png"
    outside.write_bytes(PNG_BYTES + b"outside")
    (shots / "link.png").symlink_to(outside)
    failing = [
        {
            "nodeid": f"tests/t.feature::test_{name}",
            "outcome": "failed",
            "message": "<img src=x onerror=alert(1)>",
            "properties": {"screenshot": str(path)},
        }
        for name, path in (
            ("ok", shots / "ok.png"),
            ("fake", shots / "not-a-png.png"),
            ("link", shots / "link.png"),
            ("outside", outside),
            ("dotdot", shots / ".." / ".." / ".." / ".." / ".." / ".." / "outside.png"),
        )
    ]
    metrics = dict.fromkeys(METRIC_KEYS)
    metrics["impl_rate"] = 0.0
    record = {
        "task": "t",
        "agent": "a",
        "run": 1,
        "status": "ok",
        "metrics": metrics,
        "requirements": [
            {
                "id": "R1",
                "title": "<script>alert(1)</script>",
                "verdict": "not_implemented",
                "tests": 5,
                "passed": 0,
                "failing": failing,
            }
        ],
        "notes": ["</pre><script>alert(2)</script>"],
        "task_meta": {"kind": "web", "created": "2026-01-01"},
        "dir": str(run_dir),
    }
    return build([record])
