"""Nothing of a killed session outlives it on the host (issue 40, item 6): four sessions ended
by SIGTERM or SIGKILL left 8 mounts (each sandbox's tmpfs and its overlays, holding what the
project wrote, which rm cannot remove). The next session sweeps every harness tmpfs whose
owner is gone, and leaves those of a session still running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_e2ebench.isolation import mounts

HOLD = """
import sys, time
from pytest_e2ebench.isolation.limits import sized_tmpfs
with sized_tmpfs(1 << 20, 100, ("scratch",)) as where:
    (where / "scratch" / "held").write_bytes(b"x" * 1000)
    print(where, flush=True)
    time.sleep(600)
"""

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="only root mounts the sandboxes' tmpfs")


def _holder() -> tuple[subprocess.Popen, str]:
    child = subprocess.Popen([sys.executable, "-c", HOLD], stdout=subprocess.PIPE, text=True)
    return child, child.stdout.readline().strip()


def _mounted(point: str) -> bool:
    return any(p == point for _, p in mounts._mounts())


def test_a_killed_sessions_tmpfs_is_swept_and_a_live_ones_kept():
    killed, gone = _holder()
    live, kept = _holder()
    try:
        assert gone and _mounted(gone) and _mounted(kept)
        killed.send_signal(signal.SIGKILL)  # no finally runs: the mount stays, as before
        killed.wait(10)
        assert _mounted(gone)
        swept = mounts.sweep()
        assert gone in swept and kept not in swept
        assert not _mounted(gone) and not Path(gone).exists()
        assert not mounts.owner_file(Path(gone)).exists()
        assert _mounted(kept) and (Path(kept) / "scratch" / "held").is_file()
    finally:
        for child in (killed, live):
            if child.poll() is None:
                child.terminate()
                child.wait(10)
            child.stdout.close()
        deadline = time.monotonic() + 10
        while _mounted(kept) and time.monotonic() < deadline:
            time.sleep(0.1)
        mounts.sweep()
