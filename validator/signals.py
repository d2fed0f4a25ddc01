"""Holding SIGINT and SIGTERM for a moment: forking a child (validator.processes), renaming a
set of reports (validator.report).

The command line turns both signals into exceptions (see cli); between two system calls that
must happen together (a fork and recording it, renaming a set of reports), such an exception
would leave what the cleanup cannot undo, so the signal waits until the block is done.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM are held until the block is done (where the OS allows it)."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
