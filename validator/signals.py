"""Holding SIGINT and SIGTERM for a moment, shared by the workers and the report writer.

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


_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
ORPHANED = 70  # the exit code of a child whose parent died (nobody reads it: any will do)


def become_child(parent: int) -> None:
    """The first thing a forked child of the run does (a worker, a loading process, a
    report writer): Ctrl-C reaches the whole process group, so it ignores SIGINT (the
    parent decides, and ends its children); SIGTERM ends it at once; both are unblocked
    (they were held while forking). On Linux the kernel kills it when the parent dies
    (PR_SET_PDEATHSIG), even in the middle of its work, so no child outlives the run
    holding a CI step's output open; a parent already gone ends it here."""
    import os
    import sys

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    if sys.platform.startswith("linux"):
        import ctypes
        from contextlib import suppress

        with suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it died before the above took effect
        os._exit(ORPHANED)
