"""The report, and the two errors (their messages are the agent's parameter values)."""

import pytest

SCORES = [
    ("Student", "Subject", "Score"),
    ("Mia", "Maths", 90),
    ("Ben", "Maths", 71),
    ("Mia", "Art", 75),
    ("Ben", "Art", 80),
    ("Ada", "Maths", 66.5),
    ("Mia", "History", 82),
]
BAD_HEADER = [("Name", "Course", "Mark"), ("Ann", "Art", 3)]


@pytest.mark.requirement("R1")
def test_report_rows(workdir, run, make_sheet):
    from openpyxl import load_workbook

    make_sheet(workdir / "scores.xlsx", SCORES)
    run()
    sheet = load_workbook(workdir / "report.xlsx").active
    rows = [tuple(r) for r in sheet.iter_rows(values_only=True)]
    assert rows[0] == ("Student", "Count", "Average")
    assert [r[0] for r in rows[1:]] == ["Ada", "Ben", "Mia"]
    assert [r[1] for r in rows[1:]] == [1, 2, 3]
    assert [r[2] for r in rows[1:]] == pytest.approx([66.5, 75.5, 82.33])


@pytest.mark.requirement("R1")
def test_report_single_student(workdir, run, make_sheet):
    from openpyxl import load_workbook

    make_sheet(workdir / "scores.xlsx", [SCORES[0], ("Zoe", "Art", 10), ("Zoe", "Art", 11)])
    run()
    rows = list(load_workbook(workdir / "report.xlsx").active.iter_rows(values_only=True))
    assert rows[1:] == [("Zoe", 2, 10.5)]


@pytest.mark.requirement("R2")
def test_missing_input(workdir, run, pv_in, run_case):
    output = run()
    # the control: the message is not printed on good input, nor for the other error
    pv_in("missing_file_message", output, control=run_case(SCORES) + run_case(BAD_HEADER))
    assert not (workdir / "report.xlsx").exists()


@pytest.mark.requirement("R3")
def test_wrong_header(workdir, run, pv_in, make_sheet, run_case):
    make_sheet(workdir / "scores.xlsx", BAD_HEADER)
    output = run()
    pv_in("bad_header_message", output, control=run_case(SCORES) + run_case(None))
    assert not (workdir / "report.xlsx").exists()
