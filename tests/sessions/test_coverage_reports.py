"""Coverage files for CI: per-run Cobertura XML and HTML, read by the harness from copies."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import coverage
import pytest

from pytest_e2ebench.evaluation.runner import coverage_totals


def _project(tmp_path):
    repo = tmp_path / "repo"
    (repo / "calc").mkdir(parents=True)
    (repo / "calc" / "__init__.py").write_text("def add(a, b):\n    return a + b\n\n\nX = 1\n")
    return repo


def _data(folder, measured: dict[str, list[int]]):
    folder.mkdir()
    data = coverage.CoverageData(basename=str(folder / "data.run1"))
    data.add_lines(measured)
    data.write()


def test_run_reports_are_cobertura_xml_and_html(tmp_path):
    repo = _project(tmp_path)
    _data(tmp_path / "cov", {str(repo / "calc" / "__init__.py"): [1, 5]})
    found = coverage_totals(tmp_path / "out", repo, [tmp_path / "cov"], reports=True)
    assert found["statements"] == 3 and found["covered_lines"] == 2
    xml_path, html_path = found["reports"]["xml"], found["reports"]["html"]
    root = ET.parse(xml_path).getroot()
    # Cobertura's shape (coverage-04.dtd): coverage > sources, packages > package > classes
    assert root.tag == "coverage"
    assert {"line-rate", "branch-rate", "lines-valid", "lines-covered", "version"} <= set(
        root.attrib
    )
    assert float(root.attrib["line-rate"]) == round(2 / 3, 4)
    (cls,) = root.iter("class")
    assert cls.attrib["filename"] == "calc/__init__.py"
    lines = {int(line.attrib["number"]): int(line.attrib["hits"]) for line in cls.iter("line")}
    assert lines == {1: 1, 2: 0, 5: 1}
    (page,) = Path(html_path).parent.glob("*__init___py.html")
    assert '<span class="nam">add</span>' in page.read_text()  # the source, highlighted


def test_reports_read_only_the_copied_project(tmp_path):
    """A data file naming a host file, or a link in the project, puts no host byte in a report."""
    secret = tmp_path / "secret.py"
    secret.write_text("TOKEN = 'do-not-leak'\n")
    repo = _project(tmp_path)
    (repo / "calc" / "leak.py").symlink_to(secret)
    _data(
        tmp_path / "cov",
        {
            str(repo / "calc" / "__init__.py"): [1],
            str(secret): [1],  # forged by the sandboxed run
            str(repo / "calc" / "leak.py"): [1],
        },
    )
    found = coverage_totals(tmp_path / "out", repo, [tmp_path / "cov"], reports=True)
    assert found["statements"] == 3
    written = b"".join(p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert b"do-not-leak" not in written
    root = ET.parse(found["reports"]["xml"]).getroot()
    assert [c.attrib["filename"] for c in root.iter("class")] == ["calc/__init__.py"]


def test_the_tests_are_not_measured_as_the_project(tmp_path):
    """Issue 48: the suite's tests, run where it copies the project (a folder of the run's) and
    named like the project's own test files, were mapped onto them and counted: pysemver's
    1,048 statements, 604 of them test code. The project's code alone is the denominator."""
    repo = _project(tmp_path)
    for name in ("tests/test_calc.py", "test_top.py", "calc/conftest.py"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text("import calc\n\n\ndef test_add():\n    assert calc.add(1, 2)\n")
    copy = tmp_path / "run" / "work"  # where the run put its tests, beside a copy of the code
    measured = {str(copy / name): [1, 4, 5] for name in ("tests/test_calc.py", "test_top.py")}
    measured[str(copy / "calc" / "__init__.py")] = [1, 5]
    measured[str(repo / "calc" / "conftest.py")] = [1, 4, 5]
    _data(tmp_path / "cov", measured)
    found = coverage_totals(tmp_path / "out", repo, [tmp_path / "cov"], reports=True)
    assert (found["statements"], found["covered_lines"]) == (3, 2), found
    root = ET.parse(found["reports"]["xml"]).getroot()
    assert [c.attrib["filename"] for c in root.iter("class")] == ["calc/__init__.py"]


@pytest.mark.slow
@pytest.mark.shares_session("calc_session")
class TestSharedCalc:
    """A reader of tests/conftest.py's one calc session (with --e2e-cov-report=term,html and
    --e2e-cov-xml=ci/coverage.xml): on one xdist worker with every other ``TestSharedCalc``."""

    def test_session_coverage_files_for_ci(self, calc_session):
        calc_session.lines().fnmatch_lines(
            [
                "*e2ebench coverage (reference tests)*",
                "coverage of reference calc run-1:",
                "Name*Stmts*Miss*Branch*BrPart*Cover",
                "source/calc/*",
                "TOTAL *",
                "coverage xml of 4 runs: *ci/coverage.xml",  # nop's runs have no code
                "coverage html of 4 runs: *htmlcov",
            ]
        )
        run = calc_session.record("calc", 1, "reference")
        per_run = run["suites"]["extended"]["coverage_reports"]
        assert Path(per_run["xml"]).is_relative_to(run["dir"])
        assert Path(per_run["html"]).is_file()
        root = ET.parse(calc_session.root / "ci" / "coverage.xml").getroot()
        names = [c.attrib["filename"] for c in root.iter("class")]
        runs = {"/".join(n.split("/")[:3]) for n in names}
        assert runs == {f"{a}/calc/run-{n}" for a in ("reference", "dir-out") for n in (1, 2)}
        # the reference's run 1 in the session's file is what its own record says
        hits = [
            int(line.attrib["hits"])
            for c in root.iter("class")
            if c.attrib["filename"].startswith("reference/calc/run-1/")
            for line in c.iter("line")
        ]
        covered = sum(1 for h in hits if h > 0) / len(hits)
        assert covered == pytest.approx(run["metrics"]["line_coverage"])
        assert (calc_session.root / ".e2ebench" / "htmlcov" / "index.html").is_file()

    def test_the_same_code_is_covered_the_same_in_every_run(self, calc_session):
        """Issue 48: coverage figures moved between identical sessions (lines that ran read as
        not run). Three runs of the same code, the reference's two and dir:out's run 2, cover
        the same lines and branches of every file, and the body of ``add`` is covered."""

        def covered(agent: str, run: int) -> dict:
            record = calc_session.record("calc", run, agent)
            report = Path(record["dir"]) / "eval" / "extended-coverage" / "coverage.json"
            files = json.loads(report.read_text())["files"]
            return {
                name.split("/calc/", 1)[-1]: (f["executed_lines"], f.get("executed_branches"))
                for name, f in files.items()
            }

        runs = [covered("reference", 1), covered("reference", 2), covered("dir-out", 2)]
        assert runs[0] == runs[1] == runs[2], runs
        assert 2 in runs[0]["add.py"][0], runs[0]  # return a + b


def test_unknown_coverage_report_is_a_usage_error(pytester, tasks):
    tasks.make()
    result = pytester.runpytest(
        "--e2e-agent=reference", "--e2e-tasks=tasks", "--e2e-cov-report=pdf"
    )
    result.stderr.fnmatch_lines(
        ["*--e2e-cov-report=pdf: unknown report 'pdf'; use *term, xml, html*"]
    )
