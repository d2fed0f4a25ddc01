"""`python -m validator`: see validator.cli."""

import os
import sys
from contextlib import suppress

from .cli import main

code = main()
# The command is done: its reports are written, renamed and closed, its worker processes
# ended. Tearing the interpreter down would free every object of the run one by one (50 ms
# and more after a run over 2,000 cases, on one core while the others idle), so the process
# ends here, once what it printed is out (a closed pipe, `| head`: nothing more can reach it).
# Not under a profiler or a tracer (`python -m cProfile -m validator`, coverage): they write
# their data at exit.
if sys.getprofile() is None and sys.gettrace() is None:
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
raise SystemExit(code)
