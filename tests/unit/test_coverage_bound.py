"""A project file too big to parse is left out of coverage, and the run record says so.

coverage.py analyses every file it reports in a harness process: a huge dense module made that
take minutes (issue 26). Real coverage data of a real import, reported by the harness's own
``coverage_totals``.
"""

from __future__ import annotations

import subprocess
import sys

from coverage.files import GlobMatcher

from pytest_e2ebench.evaluation.coverage_bound import omit_patterns, omitted_note, oversized
from pytest_e2ebench.evaluation.runner import COVERAGE_SOURCE, coverage_totals
from pytest_e2ebench.isolation.intake import MAX_SOURCE_BYTES
from pytest_e2ebench.report.coverage import combined

SMALL = "def twice(x):\n    if x:\n        return 2 * x\n    return 0\n\n\nassert twice(2) == 4\n"
# just over the bound, and valid Python (coverage would parse and report it)
BIG = "x = 1\n" * (MAX_SOURCE_BYTES // 6 + 1)


def _project(tmp_path):
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "small.py").write_text(SMALL)
    (repo / "pkg" / "big.py").write_text(BIG)
    (repo / "big[1] x.py").write_text(BIG)  # a name that is a bad glob, never imported
    return repo


def test_a_file_over_the_parse_bound_is_neither_measured_nor_reported(tmp_path):
    repo = _project(tmp_path)
    data = tmp_path / "suite-coverage"
    data.mkdir()
    # the tests imported the big module too, so the data names it
    script = tmp_path / "suite.py"
    script.write_text(f"import sys\nsys.path.insert(0, {str(repo)!r})\nimport pkg.small, pkg.big\n")
    subprocess.run(
        [sys.executable, "-m", "coverage", "run", "--branch", "--parallel-mode"]
        + [f"--source={repo}", f"--data-file={data / 'data'}", str(script)],
        cwd=repo,
        check=True,
    )
    where = tmp_path / "report"
    found = coverage_totals(where, repo, [data], reports=True)
    assert found["omitted"] == {
        "files": ["big[1] x.py", "pkg/big.py"],
        "total": 2,
        "limit": MAX_SOURCE_BYTES,
    }
    # only the small modules: 5 statements and 2 branches of small.py, none of big.py's 350,000
    assert (found["statements"], found["branches"]) == (5, 2)
    html = (where / "htmlcov" / "index.html").read_text()
    assert "small.py" in html and "big.py" not in html
    note = omitted_note(found)
    assert note == (
        "coverage leaves out 2 project file(s) over 2 MB, too big to analyse: "
        "big[1] x.py, pkg/big.py"
    )
    assert oversized(where / COVERAGE_SOURCE) == ["big[1] x.py", "pkg/big.py"]
    # the session's report of all runs leaves them out too
    record = {"suites": {"extended": {"coverage_reports": found["reports"]}}}
    session = tmp_path / "session"
    lines = combined([record], session, None, session / "html")
    assert lines == [f"coverage html of 1 runs: {session / 'html'}"]
    index = (session / "html" / "index.html").read_text()
    assert "small.py" in index and "big" not in index


def test_a_project_within_the_bound_has_no_note():
    assert omitted_note({"statements": 5}) is None
    assert omitted_note(None) is None


def test_omit_patterns_match_the_file_and_not_its_neighbours(tmp_path):
    names = ["a]b*.py", "new\nline.py", "sub/x%y.py"]
    patterns = omit_patterns(tmp_path, names)
    assert all("\n" not in p and "*" not in p and "[" not in p for p in patterns)
    matcher = GlobMatcher(patterns)
    for name in names:
        assert matcher.match(f"{tmp_path}/{name}"), name
    assert not matcher.match(f"{tmp_path}/sub/other.py")
    assert not matcher.match(f"{tmp_path}/a]b*.py/deeper.py")
