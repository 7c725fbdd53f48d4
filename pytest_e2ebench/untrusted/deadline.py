"""A wall-clock bound on work the harness does in its own process over untrusted input.

Some work cannot be bounded by size: a regular expression an agent or a peer wrote, matched
against text it also wrote, backtracks for years on 60 characters (``(a|aa)+b``). Python's
``re`` engine checks for signals while it backtracks, so ``SIGALRM`` interrupts it.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time


class TooSlow(Exception):
    """The bounded work ran past its time."""


def _raise_too_slow(signum, frame):
    raise TooSlow


@contextlib.contextmanager
def time_bound(seconds: float):
    """Yield True, and raise TooSlow in the block after ``seconds``; yield False where no timer
    can interrupt it (not the main thread, no ``setitimer``): the caller decides then.

    A timer already armed (pytest-timeout's) is put back with what remains of it.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "setitimer"
    ):
        yield False
        return
    previous = signal.signal(signal.SIGALRM, _raise_too_slow)
    start = time.monotonic()
    armed = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if armed[0] > 0:
            left = max(armed[0] - (time.monotonic() - start), 0.001)
            signal.setitimer(signal.ITIMER_REAL, left, armed[1])
