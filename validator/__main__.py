"""`python -m validator`: see validator.cli."""

import errno
import os
import sys
from contextlib import suppress
from typing import Any

from . import commands
from .cli import main


class _Stdout:
    """Standard output that cannot fail the command half way: a write that fails (a full
    device, a disk error) is remembered, later writes are dropped, and the command ends with
    one clear error once its work (its reports) is done. A closed pipe (`| head`) stays quiet."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.failure: OSError | None = None

    def _guard(self, call: Any, *args: Any) -> Any:
        if self.failure is not None:
            return None
        try:
            return call(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            self.failure = exc
            return None

    def write(self, text: str) -> int:
        self._guard(self._stream.write, text)
        return len(text)

    def flush(self) -> None:
        self._guard(self._stream.flush)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _write_failure(failure: OSError) -> str:
    why = os.strerror(failure.errno) if failure.errno else str(failure)
    hint = (
        ": free space there, or send the output elsewhere" if failure.errno == errno.ENOSPC else ""
    )
    return f"error: cannot write to standard output ({why}){hint}"


def _observed() -> bool:
    """Whether a profiler, a tracer or a debugger watches this process (`python -m cProfile`,
    coverage, pdb): they write their data when the interpreter exits. Python 3.12 on, they
    may use `sys.monitoring` instead of `sys.setprofile`/`settrace` (cProfile does from
    3.12 on)."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)
    tools = range(6)  # sys.monitoring's tool ids: debugger, coverage, profiler, 3, 4, optimizer
    return monitoring is not None and any(monitoring.get_tool(i) is not None for i in tools)


stdout = sys.stdout = _Stdout(sys.stdout)
observed = _observed()
# The process ends with os._exit below: a command leaves its objects to it (see commands).
if not observed:
    commands.KEPT_TO_EXIT = []
code = main()
with suppress(OSError, ValueError):
    stdout.flush()
if stdout.failure is not None:
    with suppress(OSError, ValueError):
        print(_write_failure(stdout.failure), file=sys.stderr)
    code = 2
# The command is done: its reports are written, renamed and closed, its worker processes
# ended. Tearing the interpreter down would free every object of the run one by one (50 ms
# and more after a run over 2,000 cases, on one core while the others idle), so the process
# ends here, once what it printed is out (a closed pipe, `| head`: nothing more can reach it).
# Not under a profiler or a tracer (`python -m cProfile -m validator`, coverage): they write
# their data at exit.
if not observed:
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
raise SystemExit(code)
