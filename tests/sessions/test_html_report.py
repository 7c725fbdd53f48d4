"""The HTML report (--e2e-html): self-contained, renders in Chromium, shows results.json's numbers."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest
from helpers.report import hostile_document

from pytest_e2ebench.probe.e2ebench_web import CHROMIUM_FLAGS, OFFLINE_FLAG

DATA = Path(__file__).resolve().parents[1] / "data"


def _pct(value):
    return "-" if value is None else f"{100 * value:.1f}%"


def _run_section(html: str, run_id: str) -> str:
    """The HTML of one run's section of the page."""
    start = html.index(f'data-run="{run_id}"')
    end = html.find("<details id=", start + 1)
    return html[start : end if end != -1 else len(html)]


@pytest.mark.slow
@pytest.mark.shares_session("calc_session")
class TestSharedCalc:
    """Readers of tests/conftest.py's one calc session, which writes report.html (reference,
    nop, ``dir:out`` with R2 broken in run 1, two runs each): on one xdist worker with every
    other ``TestSharedCalc``."""

    def test_html_report_is_self_contained(self, calc_session):
        calc_session.lines().fnmatch_lines(["html report: *report.html"])
        html = (calc_session.root / "report.html").read_text()
        # nothing is fetched at view time: no script, no stylesheet link, no remote source
        assert "<script" not in html and "<link" not in html
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
        assert html.count("<svg") >= 4  # Impl-Rate bars, scatter, heatmap, taxonomy
        # both directions of an agent's tokens, as in the terminal table (issue 44)
        assert "Tokens sent" in html and "Tokens generated" in html
        doc = calc_session.results()
        assert doc["summary"]["reference"]["impl_rate"]["ci95"] == [1.0, 1.0]  # identical runs
        assert doc["summary"]["dir-out"]["pass_at_k"]["1"] == pytest.approx(5 / 6)
        assert doc["summary"]["dir-out"]["best_of_n"] == {"impl_rate": 1.0, "runs": 2}
        for rec in doc["tasks"]:
            assert f'data-run="{rec["agent"]}--{rec["task"]}--run-{rec["run"]}"' in html
        # the mutant's failing test and its message are in its run's section
        assert "test_sub" in html and "assert" in html

    @pytest.mark.browser
    @pytest.mark.skipif(not shutil.which("chromedriver"), reason="needs chromedriver")
    def test_html_report_renders_in_chromium_with_results_numbers(self, calc_session, tmp_path):
        from selenium import webdriver
        from selenium.webdriver.common.by import By

        doc = calc_session.results()
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        # the web tasks' switches, offline included: the page must need no network at view time
        for flag in (*CHROMIUM_FLAGS, OFFLINE_FLAG, f"--user-data-dir={tmp_path / 'profile'}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
        driver = webdriver.Chrome(options=options, service=service)
        try:
            start = time.monotonic()
            driver.get((calc_session.root / "report.html").as_uri())
            loaded = time.monotonic() - start
            assert driver.title == "e2ebench report"
            driver.save_screenshot(str(tmp_path / "report.png"))
            errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            assert errors == []
            for agent, stats in doc["summary"].items():
                row = driver.find_element(
                    By.CSS_SELECTOR, f"#overview-table tr[data-agent='{agent}']"
                )
                for key in ("impl_rate", "req_acc", "pass_rate", "balanced"):
                    shown = row.find_element(By.CSS_SELECTOR, f"[data-metric='{key}']").text
                    assert shown == _pct(stats[key]["mean"]), (agent, key)
                ci = stats["impl_rate"]["ci95"]
                shown = row.find_element(By.CSS_SELECTOR, "[data-ci='impl_rate']").text
                assert shown == f"[{_pct(ci[0])}, {_pct(ci[1])}]"
                assert row.find_element(By.CSS_SELECTOR, "[data-field='runs']").text == "2"
                pooled = driver.find_element(
                    By.CSS_SELECTOR, f"#pooled-table tr[data-agent='{agent}']"
                )
                for k, value in stats["pass_at_k"].items():
                    shown = pooled.find_element(By.CSS_SELECTOR, f"[data-pass-at='{k}']").text
                    assert shown == f"pass@{k} {_pct(value)}"
            heatmap = driver.find_element(By.CSS_SELECTOR, "figure[data-task='calc'] svg")
            assert heatmap.size["height"] > 40
            print(json.dumps({"load_s": round(loaded, 3), "bytes": len(driver.page_source)}))
        finally:
            driver.quit()

    def test_each_run_shows_the_files_it_wrote_as_a_diff(self, calc_session):
        html = (calc_session.root / "report.html").read_text()
        doc = calc_session.results()
        for rec in doc["tasks"]:
            written = rec["agent_run"]["details"]["diff"]
            assert written.startswith(rec["dir"]) and written.endswith("repo.diff")
        reference = _run_section(html, "reference--calc--run-1")
        assert "Files written" in reference
        assert re.search(r'data-file="[^"]*add\.py"', reference)
        assert '<span class="add">+    return a + b</span>\n' in reference  # a line each
        # run 1 of dir:out is the mutant: its sub adds; run 2's subtracts
        assert '<span class="add">+    return a + b</span>' in re.sub(
            r"def add.*?</pre>", "", _run_section(html, "dir-out--calc--run-1"), flags=re.S
        )
        assert "+    return a - b" in _run_section(html, "dir-out--calc--run-2")
        assert "Files written" not in _run_section(html, "nop--calc--run-1")  # nothing written


def test_html_report_escapes_and_embeds_only_the_runs_own_screenshots(tmp_path):
    from pytest_e2ebench.report.html import render

    html = render(hostile_document(tmp_path))
    assert "<script" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("data:image/png;base64,") == 1  # ok.png only: no fake, link or outside
    assert "screenshot: tests/t.feature::test_ok" in html


def test_ini_twins_write_the_report_and_the_coverage_xml(pytester, tasks):
    tasks.make()
    pytester.makeini("[pytest]\ne2ebench_html = out/report.html\ne2ebench_cov_xml = out/cov.xml\n")
    result = pytester.runpytest("--e2e-agent=reference", "--e2e-tasks=tasks")
    result.stdout.fnmatch_lines(["coverage xml of 1 runs: *out/cov.xml", "html report: *"])
    assert 'data-agent="reference"' in (pytester.path / "out" / "report.html").read_text()


# -- the trajectory viewer (issue 42, item 2) -------------------------------------------------


def _steps(run_dir, calls):
    """An ATIF trajectory written by the built-in agents' writer from a step log of ``calls``
    ((tool, arguments, output) per step); its path."""
    from pytest_e2ebench.agents.trajectory import write_atif

    log = run_dir / "agent" / "trajectory.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for n, (tool, arguments, output) in enumerate(calls, 1):
        completion = {"content": f"step {n}", "prompt_tokens": 100 * n, "completion_tokens": 7}
        observation = {"id": f"c{n}", "name": tool, "arguments": json.dumps(arguments),
                       "output": output}  # fmt: skip
        lines.append({"step": n, "time": 1.7e9 + n, "seconds": 1.25, "completion": completion,
                      "observations": [observation]})  # fmt: skip
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return write_atif(log, "a", "m")


def _session_file(out, agent, calls):
    """``out/results.json`` with one run of task ``t`` by ``agent`` whose trajectory is
    ``calls``, as a session would leave it."""
    from pytest_e2ebench.report.results import build, write

    run_dir = out / agent / "t" / "run-1"
    # a stored session's run (a record the schema takes, as e2ebench report now checks), made
    # this run: its task, agent, folder and trajectory
    stored = json.loads((DATA / "results" / "tipcalc-reference-nop-dir.json").read_text())
    record = {k: v for k, v in stored["tasks"][0].items() if k not in ("level", "projecteval")}
    record.update(task="t", agent=agent, run=1, requirements=[], dir=str(run_dir))
    record["agent_run"] = {
        **record["agent_run"],
        "details": {"atif": str(_steps(run_dir, calls))},
    }
    write(out / "results.json", build([record]))
    return out / "results.json"


LONG = "x" * 3000 + "<tail>" + "y" * 7000  # past the fold and past the cut


def test_report_of_two_files_shows_where_two_runs_of_a_task_diverged(tmp_path):
    from pytest_e2ebench import cli

    same = [("list_files", {"path": "."}, "a.py"), ("read_file", {"path": "a.py"}, "x = 1")]
    a = _session_file(tmp_path / "A", "alpha", [*same, ("write_file", {"path": "b.py"}, "ok")])
    b = _session_file(
        tmp_path / "B", "beta", [*same, ("run_tests", {"command": "pytest"}, LONG), same[0]]
    )
    page = tmp_path / "report.html"
    assert cli.main(["report", str(a), str(b), "--html", str(page)]) == 0
    html = page.read_text()
    assert "<script" not in html
    compared = html[html.index('data-compare="t"') : html.index('<h2 id="runs">')]
    assert 'data-diverged="3"' in compared and "steps 1–2: the same in both runs" in compared
    row = compared[compared.index('class="diverged"') :].split("</tr>")[0]
    assert "write_file" in row and "run_tests" in row  # the first differing step, both sides
    assert 'href="#alpha--t--run-1-s3"' in row and 'href="#beta--t--run-1-s3"' in row
    assert "(no step)" in compared  # beta took a fourth step, alpha did not
    beta = _run_section(html, "beta--t--run-1")
    assert 'id="beta--t--run-1-s3"' in beta  # the link's target
    # per step its tokens and time; a long result folded, cut, and said to be cut
    assert "300 in, 7 out · 1.25 s" in beta
    folded_result = beta[beta.index("run_tests</b>") :].split("</div>")[0]
    assert '<details class="fold">' in folded_result and "&lt;tail&gt;" in folded_result
    assert "y" * 1000 not in folded_result and "cut: 6006 more characters" in folded_result
    short = beta[beta.index("list_files</b>") :].split("</div>")[0]
    assert "fold" not in short and "<pre>a.py</pre>" in short  # short ones are not folded


def test_two_runs_with_the_same_steps_did_not_diverge(tmp_path):
    from pytest_e2ebench import cli

    calls = [("list_files", {"path": "."}, "a.py")]
    a = _session_file(tmp_path / "A", "alpha", calls)
    b = _session_file(tmp_path / "B", "beta", calls)
    page = tmp_path / "report.html"
    assert cli.main(["report", str(a), str(b), "--html", str(page)]) == 0
    assert 'data-diverged="none"' in page.read_text()


def test_the_diff_follows_no_link_and_bounds_what_it_shows(tmp_path):
    """The files written, taken after intake but still the agent's: a link is not followed,
    a binary file is named, a large one is not read whole, a removed ``-- x`` line is no file
    header, and a changed file of the given workspace shows only its change."""
    from pytest_e2ebench.environment import diff
    from pytest_e2ebench.report.html import render

    document = hostile_document(tmp_path)
    record = document["tasks"][0]
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "q.sql").write_text("select 1;\n-- x\nselect 2;\n")
    (workspace / "kept.txt").write_text("k\n" * diff.FILE_BYTES)  # large, left as given
    given = diff.snapshot(workspace)
    (workspace / "q.sql").write_text("select 1;\nselect 2;\n")
    (workspace / "blob.bin").write_bytes(b"\x00\x01\x02")
    (workspace / "huge.txt").write_text("h\n" * (diff.FILE_BYTES // 2 + 10))
    (tmp_path / "secret.txt").write_text("SECRET\n")
    (workspace / "peek.txt").symlink_to(tmp_path / "secret.txt")
    (workspace / "new.py").write_text("<script>alert(1)</script>\n")
    written = diff.write(Path(record["dir"]), given, workspace)
    record["agent_run"] = {"details": {"diff": str(written)}}
    html = render(document)
    assert "SECRET" not in html and "peek.txt" not in html and "kept.txt" not in html
    assert "Binary files /dev/null and b/blob.bin differ" in html
    assert f"huge.txt: larger than {diff.FILE_BYTES} bytes, not shown" in html
    assert '<span class="del">--- x</span>' in html  # a line of q.sql, not a header
    sql = html[html.index('data-file="q.sql"') :].split("</details>")[0]
    assert "−1" in sql and "+0" in sql and "select 1;" in sql
    assert '<span class="add">+&lt;script&gt;alert(1)&lt;/script&gt;</span>' in html
    # a diff named outside the run's folder is not read
    record["agent_run"] = {"details": {"diff": str(tmp_path / "secret.txt")}}
    assert "SECRET" not in render(document)


def test_a_session_too_long_for_one_page_gives_each_run_its_own(tmp_path, monkeypatch):
    """Past ``INLINE_TEXT`` characters of trajectories the report links each run's own page
    (a script-free page beside it, escaped alike), and the side-by-side rows link into it."""
    from pytest_e2ebench import cli
    from pytest_e2ebench.report import html as report_html

    monkeypatch.setattr(report_html, "INLINE_TEXT", 1000)
    hostile = "<script>alert(1)</script>" + "z" * 2000
    a = _session_file(tmp_path / "A", "alpha", [("read_file", {"path": "a.py"}, hostile)])
    b = _session_file(tmp_path / "B", "beta", [("list_files", {"path": "."}, "a.py")])
    page = tmp_path / "out" / "report.html"
    assert cli.main(["report", str(a), str(b), "--html", str(page)]) == 0
    main = page.read_text()
    assert "z" * 100 not in main and 'href="report.runs/alpha--t--run-1.html"' in main
    assert 'href="report.runs/beta--t--run-1.html#beta--t--run-1-s1"' in main
    run_page = (page.parent / "report.runs" / "alpha--t--run-1.html").read_text()
    assert "<script" not in run_page and "&lt;script&gt;alert(1)" in run_page
    assert (
        'id="alpha--t--run-1-s1"' in run_page
        and 'href="../report.html#alpha--t--run-1"' in run_page
    )
