"""The writable folders' overlays (pytest_e2ebench/isolation/overlay.py): what a command did through
the
overlay reaches the folder, bounded by the tmpfs, and applying it never follows a link."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

import pytest

from pytest_e2ebench.isolation import overlay
from pytest_e2ebench.isolation.limits import sized_tmpfs


@contextlib.contextmanager
def _overlay(folder: Path, size: int):
    """The overlay of ``folder`` on a tmpfs of ``size`` bytes (root only), applied on exit."""
    with sized_tmpfs(size, 1000) as volume:
        if volume is None:
            pytest.skip("tmpfs cannot be mounted here (needs root)")
        with overlay.overlays(volume, [folder]) as views:
            if views is None:
                pytest.skip("overlayfs cannot be mounted here")
            yield views[folder]


def test_applied_after_unmounting(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "gone.txt").write_text("old")
    (folder / "changed.txt").write_text("old")
    (folder / "replaced").mkdir()
    (folder / "replaced" / "stale.txt").write_text("stale")
    outside = tmp_path / "outside"
    outside.mkdir()
    (folder / "escape").symlink_to(outside)
    with _overlay(folder, 64 << 20) as view:
        (view / "new.txt").write_text("new")
        (view / "changed.txt").write_text("changed")
        (view / "gone.txt").unlink()
        shutil.rmtree(view / "replaced")
        (view / "replaced").mkdir()
        (view / "replaced" / "fresh.txt").write_text("fresh")
        (view / "link").symlink_to("/etc/passwd")
        (view / "escape").unlink()
        (view / "escape").mkdir()
        (view / "escape" / "planted.txt").write_text("planted")
        with open(view / "sparse.bin", "wb") as fh:
            fh.truncate(1 << 30)  # 1 GiB apparent, no blocks
        (view / "setuid").write_text("#!/bin/sh\n")
        os.chmod(view / "setuid", 0o6755)
    assert (folder / "new.txt").read_text() == "new"
    assert (folder / "changed.txt").read_text() == "changed"
    assert not (folder / "gone.txt").exists()
    assert sorted(p.name for p in (folder / "replaced").iterdir()) == ["fresh.txt"]
    assert os.readlink(folder / "link") == "/etc/passwd"
    assert (folder / "escape").is_dir() and not (folder / "escape").is_symlink()
    assert (folder / "escape" / "planted.txt").read_text() == "planted"
    assert list(outside.iterdir()) == []  # never written through the old link
    assert oct(os.stat(folder / "setuid").st_mode & 0o7777) == "0o755"  # no set-ID bits
    sparse = os.stat(folder / "sparse.bin")
    assert sparse.st_size == 1 << 30 and sparse.st_blocks * 512 < 1 << 20


def test_writes_beyond_the_volume_fail_even_for_unlinked_files(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    with _overlay(folder, 16 << 20) as view:
        fd = os.open(view / "held", os.O_CREAT | os.O_WRONLY)
        os.unlink(view / "held")
        try:
            with pytest.raises(OSError) as caught:
                for _ in range(32):
                    os.write(fd, b"x" * (1 << 20))
            assert caught.value.errno == 28  # ENOSPC
        finally:
            os.close(fd)
    assert list(folder.iterdir()) == []


def test_hard_links_stay_one_file(tmp_path):
    # links cost the tmpfs no blocks: copied one by one they would multiply on the host disk
    folder = tmp_path / "folder"
    folder.mkdir()
    with _overlay(folder, 16 << 20) as view:
        (view / "sub").mkdir()
        (view / "data").write_bytes(b"x" * (4 << 20))
        for i in range(20):
            os.link(view / "data", view / "sub" / f"link-{i}")
    first = os.stat(folder / "data")
    assert first.st_nlink == 21
    assert all(os.stat(folder / "sub" / f"link-{i}").st_ino == first.st_ino for i in range(20))
