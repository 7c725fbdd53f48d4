"""Intake (issue 11, class 5): a project tree is copied without following links, within limits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_e2ebench.isolation.intake import (
    MAX_SOURCE_BYTES,
    IntakeLimits,
    IntakeReport,
    copy_tree,
)


def tree(root: Path) -> dict[str, bytes]:
    """Every file under root (never following links) and its bytes."""
    found = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath, name)
            assert not path.is_symlink(), path
            found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


def reasons(report: IntakeReport) -> dict[str, str]:
    return dict(report.dropped)


@pytest.fixture
def src(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("x = 1\n")
    return root


def test_copies_files_folders_and_the_executable_bit(src: Path, tmp_path: Path) -> None:
    script = src / "run.sh"
    script.write_text("echo hi\n")
    script.chmod(0o775)
    (src / "pkg" / "data.txt").write_text("d")
    (src / "pkg" / "data.txt").chmod(0o600)
    (src / "empty").mkdir()
    dest = tmp_path / "dest"
    report = copy_tree(src, dest)
    assert tree(dest) == {
        "pkg/__init__.py": b"x = 1\n",
        "run.sh": b"echo hi\n",
        "pkg/data.txt": b"d",
    }
    assert (dest / "empty").is_dir()
    assert (dest / "run.sh").stat().st_mode & 0o777 == 0o755
    assert (dest / "pkg" / "data.txt").stat().st_mode & 0o777 == 0o644
    assert report.to_dict() == {"files": 3, "bytes": 15, "dropped": [], "exceeded": None}
    assert IntakeReport.from_dict(report.to_dict()) == report


def test_a_link_to_a_file_in_the_tree_becomes_a_copy(src: Path, tmp_path: Path) -> None:
    (src / "alias.py").symlink_to("pkg/__init__.py")
    (src / "pkg" / "up.py").symlink_to("../pkg/./__init__.py")
    report = copy_tree(src, tmp_path / "dest")
    assert tree(tmp_path / "dest") == {
        "alias.py": b"x = 1\n",
        "pkg/__init__.py": b"x = 1\n",
        "pkg/up.py": b"x = 1\n",
    }
    assert report.files == 3 and report.dropped == []


def test_links_leaving_the_tree_are_dropped(src: Path, tmp_path: Path) -> None:
    secret = tmp_path / "reference"
    secret.mkdir()
    (secret / "answer.py").write_text("SECRET")
    (src / "relative_out.py").symlink_to("../reference/answer.py")
    (src / "absolute.py").symlink_to(secret / "answer.py")
    (src / "pkg" / "folder").symlink_to(secret)
    (src / "environ").symlink_to("/proc/self/environ")
    (src / "zero").symlink_to("/dev/zero")
    (src / "dangling").symlink_to("nowhere")
    (src / "to_folder").symlink_to("pkg")
    report = copy_tree(src, tmp_path / "dest")
    assert tree(tmp_path / "dest") == {"pkg/__init__.py": b"x = 1\n"}
    assert set(reasons(report)) == {
        "relative_out.py",
        "absolute.py",
        "pkg/folder",
        "environ",
        "zero",
        "dangling",
        "to_folder",
    }
    assert "leaves the tree" in reasons(report)["relative_out.py"]
    assert "absolute" in reasons(report)["environ"]
    assert report.exceeded is None


def test_link_chains_and_loops_are_not_followed(src: Path, tmp_path: Path) -> None:
    (src / "a").symlink_to("b")
    (src / "b").symlink_to("a")
    (src / "self").symlink_to("self")
    (src / "hop").symlink_to("alias")  # a link to a link: only one hop is taken
    (src / "alias").symlink_to("pkg/__init__.py")
    (src / "through").symlink_to("linkdir/__init__.py")  # a path through a linked folder
    (src / "linkdir").symlink_to("pkg")
    report = copy_tree(src, tmp_path / "dest")
    assert tree(tmp_path / "dest") == {"pkg/__init__.py": b"x = 1\n", "alias": b"x = 1\n"}
    assert set(reasons(report)) == {"a", "b", "self", "hop", "through", "linkdir"}


def test_the_source_being_a_link_is_an_error(src: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(src)
    with pytest.raises(ValueError, match="symbolic link"):
        copy_tree(link, tmp_path / "dest")


def test_dest_must_be_new_or_empty(src: Path, tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "old").write_text("")
    with pytest.raises(ValueError, match="empty"):
        copy_tree(src, dest)


def test_fifo_and_socket_are_dropped_without_opening(src: Path, tmp_path: Path) -> None:
    import socket

    os.mkfifo(src / "pipe")  # opening it for reading would block forever
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(src / "sock"))
        report = copy_tree(src, tmp_path / "dest")
    finally:
        sock.close()
    assert set(reasons(report)) == {"pipe", "sock"}
    assert tree(tmp_path / "dest") == {"pkg/__init__.py": b"x = 1\n"}


def test_huge_file_stops_the_copy(src: Path, tmp_path: Path) -> None:
    with (src / "huge.bin").open("wb") as fh:
        fh.truncate(10_000)  # sparse: the size limit is what is tested
    limits = IntakeLimits(max_file_bytes=4_000)
    report = copy_tree(src, tmp_path / "dest", limits)
    assert report.exceeded == "max_file_bytes"
    assert not (tmp_path / "dest" / "huge.bin").exists()


def test_total_bytes_limit(src: Path, tmp_path: Path) -> None:
    for i in range(10):
        (src / f"f{i}.txt").write_bytes(b"x" * 100)
    report = copy_tree(src, tmp_path / "dest", IntakeLimits(max_bytes=550))
    assert report.exceeded == "max_bytes"
    assert report.bytes <= 550
    assert sum(len(b) for b in tree(tmp_path / "dest").values()) == report.bytes


def test_a_link_copy_counts_against_the_limits(src: Path, tmp_path: Path) -> None:
    (src / "big").write_bytes(b"y" * 300)
    for i in range(5):
        (src / f"l{i}").symlink_to("big")
    report = copy_tree(src, tmp_path / "dest", IntakeLimits(max_bytes=1_000))
    assert report.exceeded == "max_bytes"


def test_many_files_stop_at_the_file_limit(src: Path, tmp_path: Path) -> None:
    many = src / "many"
    many.mkdir()
    for i in range(200):
        (many / f"{i}.txt").touch()
    report = copy_tree(src, tmp_path / "dest", IntakeLimits(max_files=50))
    assert report.exceeded == "max_files"
    assert report.files < 50


def test_many_empty_folders_count_too(src: Path, tmp_path: Path) -> None:
    for i in range(100):
        (src / f"d{i}").mkdir()
    report = copy_tree(src, tmp_path / "dest", IntakeLimits(max_files=20))
    assert report.exceeded == "max_files"


def test_deep_nesting_stops_at_the_depth_limit(src: Path, tmp_path: Path) -> None:
    deep = src
    for _ in range(12):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "leaf.py").write_text("")
    report = copy_tree(src, tmp_path / "dest", IntakeLimits(max_depth=5))
    assert report.exceeded == "max_depth"
    assert copy_tree(src, tmp_path / "dest2", IntakeLimits(max_depth=12)).exceeded is None


def test_non_utf8_names_are_dropped(src: Path, tmp_path: Path) -> None:
    bad = os.fsencode(src) + b"/bad\xff.py"
    with open(bad, "wb") as fh:
        fh.write(b"")
    report = copy_tree(src, tmp_path / "dest")
    assert report.dropped == [("bad\\xff.py", "name is not valid UTF-8")]
    assert tree(tmp_path / "dest") == {"pkg/__init__.py": b"x = 1\n"}


def test_ignore_patterns_skip_silently(src: Path, tmp_path: Path) -> None:
    (src / "__pycache__").mkdir()
    (src / "__pycache__" / "x.pyc").write_bytes(b"")
    (src / "m.pyc").write_bytes(b"")
    report = copy_tree(src, tmp_path / "dest", ignore=("__pycache__", "*.pyc"))
    assert tree(tmp_path / "dest") == {"pkg/__init__.py": b"x = 1\n"}
    assert report.dropped == []


def test_a_folder_swapped_for_a_link_is_not_followed(
    src: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race: an entry is a real folder when looked at and a link when opened."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("SECRET")
    real_stat = os.stat

    def swapping_stat(path, *args, **kwargs):
        result = real_stat(path, *args, **kwargs)
        if path == "pkg" and kwargs.get("dir_fd") is not None:
            os.rename(src / "pkg", tmp_path / "moved")
            os.symlink(outside, src / "pkg")
        return result

    monkeypatch.setattr(os, "stat", swapping_stat)
    report = copy_tree(src, tmp_path / "dest")
    monkeypatch.undo()
    assert b"SECRET" not in b"".join(tree(tmp_path / "dest").values())
    assert reasons(report) == {"pkg": "changed while copying"}


def test_a_file_swapped_for_a_fifo_does_not_block(
    src: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_stat = os.stat
    target = src / "pkg" / "__init__.py"

    def swapping_stat(path, *args, **kwargs):
        result = real_stat(path, *args, **kwargs)
        if path == "__init__.py" and kwargs.get("dir_fd") is not None:
            target.unlink()
            os.mkfifo(target)
        return result

    monkeypatch.setattr(os, "stat", swapping_stat)
    report = copy_tree(src, tmp_path / "dest")
    monkeypatch.undo()
    assert reasons(report) == {"pkg/__init__.py": "changed while copying"}


# --- bounded reads of a project ------------------------------------------------------------


def test_read_bytes_follows_no_link_and_opens_no_fifo(src: Path, tmp_path: Path) -> None:
    from pytest_e2ebench.isolation.intake import read_bytes

    (src / "env").symlink_to("/proc/self/environ")
    (src / "linkdir").symlink_to(src / "pkg")
    os.mkfifo(src / "pipe")
    assert read_bytes(src, "pkg/__init__.py", 100) == b"x = 1\n"
    assert read_bytes(src, "pkg/__init__.py", 5) is None  # over the bound
    for rel in ("env", "linkdir/__init__.py", "pipe", "missing", "../src/pkg/__init__.py", "."):
        assert read_bytes(src, rel, 100) is None, rel


@pytest.mark.parametrize(
    "source",
    [
        "x = 1" + "+1" * 200_000,  # RecursionError while the AST is built
        "x = " + "-" * 200_000 + "1",  # MemoryError in the parser
        "x = " + "(" * 300 + ")" * 300,  # SyntaxError: too many nested parentheses
        "x = 1\0",  # ValueError: NUL byte
        "# -*- coding: nonsense -*-\n",  # an unknown coding cookie
    ],
)
def test_parse_python_never_raises(tmp_path: Path, source: str) -> None:
    from pytest_e2ebench.isolation.intake import parse_python

    (tmp_path / "m.py").write_text(source)
    assert parse_python(tmp_path, "m.py") is None


def test_parse_python_skips_a_file_over_the_bound(tmp_path: Path) -> None:
    from pytest_e2ebench.isolation.intake import parse_python

    (tmp_path / "m.py").write_text("x = 1\n" * 1000)
    assert parse_python(tmp_path, "m.py", max_bytes=100) is None
    assert parse_python(tmp_path, "m.py") is not None


def test_code_size_reads_no_link_and_skips_huge_files(src: Path) -> None:
    from pytest_e2ebench.environment.workspace import MAX_CODE_FILE_BYTES, code_size

    (src / "pkg" / "env.py").symlink_to("/proc/self/environ")
    with (src / "pkg" / "huge.py").open("w") as fh:
        fh.truncate(MAX_CODE_FILE_BYTES + 1)
    assert code_size(src) == {"code_files": 3, "code_lines": 1}


def test_tree_hash_reads_no_link_and_is_bounded(src: Path, tmp_path: Path) -> None:
    from pytest_e2ebench.run.cache import tree_hash

    before = tree_hash(src)
    (src / "env").symlink_to("/proc/self/environ")
    os.mkfifo(src / "pipe")  # would block if opened
    with_links = tree_hash(src)
    assert with_links != before
    (src / "env").unlink()
    (src / "env").symlink_to("/proc/self/environ")
    assert tree_hash(src) == with_links  # a link is its text, whatever it points at
    link = tmp_path / "link"
    link.symlink_to(src)
    assert tree_hash(link) == tree_hash(tmp_path / "missing")
    for i in range(30):
        (src / f"f{i}").write_text(str(i))
    small = IntakeLimits(max_files=10)
    assert tree_hash(src, small) == tree_hash(src, small)  # stops early, still a stable key
    (src / "f29").write_text("changed")
    assert tree_hash(src) != tree_hash(src, small)


# --- the pipeline's intake of a workspace ---------------------------------------------------


def test_take_in_swaps_in_a_clean_copy(tmp_path: Path) -> None:
    from pytest_e2ebench.environment.workspace import take_in

    ws = tmp_path / "repo"
    ws.mkdir()
    (ws / "a.py").write_text("x")
    (ws / "passwd").symlink_to("/etc/passwd")
    report = take_in(ws, IntakeLimits())
    assert tree(ws) == {"a.py": b"x"}
    assert [p for p, _ in report.dropped] == ["passwd"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repo"]


def test_take_in_merges_what_the_agent_dropped(tmp_path: Path) -> None:
    from pytest_e2ebench.environment.workspace import take_in

    ws = tmp_path / "repo"
    ws.mkdir()
    (ws / "a.py").write_text("x")
    earlier = IntakeReport(1, 1, [("fifo", "not a regular file or folder")], "max_files")
    report = take_in(ws, IntakeLimits(), earlier.to_dict())
    assert (report.exceeded, report.dropped[0][0], report.files) == ("max_files", "fifo", 0)
    assert list(ws.iterdir()) == []  # a limit exceeded: graded as an empty repository


@pytest.mark.parametrize("how", ["link", "removed", "fifo", "over_limit"])
def test_take_in_of_a_workspace_an_agent_broke(tmp_path: Path, how: str) -> None:
    from pytest_e2ebench.environment.workspace import take_in

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("SECRET")
    ws = tmp_path / "repo"
    if how == "link":
        ws.symlink_to(outside)
    elif how == "fifo":
        os.mkfifo(ws)
    elif how == "over_limit":
        ws.mkdir()
        (ws / "a.py").write_text("x" * 100)
    limits = IntakeLimits(max_bytes=10) if how == "over_limit" else IntakeLimits()
    report = take_in(ws, limits)
    assert ws.is_dir() and not ws.is_symlink() and list(ws.iterdir()) == []
    assert (outside / "secret.py").read_text() == "SECRET"
    assert report.exceeded == ("max_bytes" if how == "over_limit" else None)


# --- graded through dir: (pytester) --------------------------------------------------------


def _grade(pytester, *args: str):
    return pytester.runpytest("--e2e-agent=dir:out", "--e2e-tasks=tasks", *args)


def test_a_package_linked_to_the_reference_scores_zero(pytester, tasks, results) -> None:
    root = tasks.make()
    out = pytester.path / "out" / "calc"
    out.mkdir(parents=True)
    (out / "pyproject.toml").write_text((root / "reference" / "pyproject.toml").read_text())
    (out / "calc").symlink_to(root / "reference" / "calc")
    _grade(pytester).assert_outcomes(failed=3)
    run = results()["tasks"][0]
    assert ["calc", "link to an absolute path"] == [
        run["intake"]["dropped"][0][0],
        run["intake"]["dropped"][0][1].split(" (")[0],
    ]
    assert any("intake dropped 1 entry: calc" in n for n in run["notes"])


def test_a_run_folder_that_is_a_link_is_not_followed(pytester, tasks, results) -> None:
    root = tasks.make()
    (pytester.path / "out").mkdir()
    (pytester.path / "out" / "calc").symlink_to(root / "reference")
    _grade(pytester).assert_outcomes(failed=3)
    assert "is a symbolic link" in results()["tasks"][0]["notes"][0]


def test_hostile_entries_are_dropped_and_the_rest_is_graded(pytester, tasks, results) -> None:
    """Links out (environment, /dev/zero, a loop), a FIFO, a non-UTF-8 name, a module nested
    too deeply for the parser and one too large to parse: the run is graded like the correct
    calculator it also is, and nothing of the harness leaks into the copy."""
    from helpers.tasks import CALC_CODE

    tasks.make()
    out = tasks.reference(pytester.path / "out" / "calc", CALC_CODE)
    (out / "env.txt").symlink_to("/proc/self/environ")
    (out / "zero").symlink_to("/dev/zero")
    (out / "loop").symlink_to("loop")
    os.mkfifo(out / "pipe")
    with open(os.fsencode(out) + b"/caf\xe9.py", "wb") as fh:
        fh.write(b"x = 1\n")
    # RecursionError while the AST is built (not a SyntaxError), never imported by the tests
    (out / "calc" / "deep.py").write_text("x = 1" + "+1" * 200_000 + "\n")
    # 3.6 MB: over intake's parse bound (MAX_SOURCE_BYTES, decided on bytes alone). Long comment
    # lines, not 600,000 statements: coverage.py analyses every module of the project for the
    # run's json, xml and html reports, and on 600,000 statements each report took minutes
    # (~350 s in all; issue 27) without changing what this test checks.
    (out / "calc" / "big.py").write_text("x = 1\n" + ("# " + "padding " * 125 + "\n") * 3_600)
    assert (out / "calc" / "big.py").stat().st_size > MAX_SOURCE_BYTES
    _grade(pytester).assert_outcomes(passed=3)
    run = results()["tasks"][0]
    dropped = dict(run["intake"]["dropped"])
    assert set(dropped) == {"env.txt", "zero", "loop", "pipe", "caf\\xe9.py"}
    assert run["intake"]["exceeded"] is None
    repo = Path(run["dir"]) / "repo"
    assert not (repo / "env.txt").exists() and (repo / "calc" / "deep.py").is_file()
    assert run["status"] == "ok"


def test_a_40_mb_source_file_is_contained(pytester, tasks, results) -> None:
    from helpers.tasks import CALC_CODE

    tasks.make()
    out = tasks.reference(pytester.path / "out" / "calc", CALC_CODE)
    with (out / "calc" / "huge.py").open("w") as fh:
        for _ in range(40):
            fh.write("x = 1\n" * ((1 << 20) // 6))  # ~1 MB of statements per round
    _grade(pytester).assert_outcomes(failed=3)  # the agent's failure, not an error
    run = results()["tasks"][0]
    assert run["intake"]["exceeded"] == "max_file_bytes"
    assert "disk_quota" in run["test_run"]["containment"]
    assert any("max_file_bytes" in n for n in run["notes"])
    assert not any((Path(run["dir"]) / "repo").iterdir())
