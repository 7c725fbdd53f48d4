"""Intake (issue 11, class 5): a project tree is copied without following links, within limits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_e2ebench.intake import IntakeLimits, IntakeReport, copy_tree


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
