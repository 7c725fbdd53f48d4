"""Shared by the tests (moved from test_boundary_honeypot.py)."""

from __future__ import annotations


def probe_run(pytester, monkeypatch, project: str, tests: str) -> dict:
    from pytest_e2ebench.evaluation.runner import read_probe
    from pytest_e2ebench.probe import PROBE_DIR

    out = pytester.path / "probe.jsonl"
    monkeypatch.setenv("PYTHONPATH", f"{PROBE_DIR}:{pytester.path}")
    monkeypatch.setenv("E2EBENCH_PROBE_OUT", str(out))
    monkeypatch.setenv("E2EBENCH_PROBE_SUITE", str(pytester.path / "tests"))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(project=project)
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_it.py").write_text(tests)
    pytester.runpytest_subprocess("-p", "e2ebench_probe", "-p", "no:cacheprovider", "tests")
    probe = read_probe(out, "")
    return {
        "changed": [c for rec in probe["tamper"] for c in rec["changed"]],
        "outcomes": {t["nodeid"].rpartition("::")[2]: t["outcome"] for t in probe["tests"]},
    }
