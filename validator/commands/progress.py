"""How long commands (run, capture) show their progress on stderr: on a terminal, a bar
redrawn on one line (`ProgressBar`); off a terminal (a CI log), a line every tenth of the
traces or every 10 seconds (`ProgressLines`, run only), which a log keeps."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from ..problems import counted

PROGRESS_MIN_TRACES = 200
PROGRESS_SECONDS = 10.0


class ProgressBar:
    """`evaluating [#####-----] 412/1000` on one terminal line, redrawn at most 10 times a
    second and erased when done."""

    def __init__(
        self,
        total: int,
        stream: TextIO,
        width: int = 30,
        label: str = "evaluating",
        unit: str = "traces",
    ) -> None:
        self.label = label
        self.unit = unit
        self.total = max(total, 1)
        self.stream = stream
        self.width = width
        self.last = 0.0
        self.shown = 0

    def __call__(self, done: int, failed: int = 0) -> None:
        """Show `done` of the total (`failed`: how many of them did not pass, not shown)."""
        now = time.monotonic()
        if done < self.total and now - self.last < 0.1:
            return
        self.last = now
        fraction = min(done / self.total, 1.0)
        filled = int(self.width * fraction)
        line = (
            f"{self.label} [{'#' * filled}{'-' * (self.width - filled)}]"
            f" {done}/{self.total} {self.unit} {fraction * 100:3.0f}%"
        )
        self.stream.write("\r" + line)
        self.stream.flush()
        self.shown = len(line)

    def retotal(self, total: int | None) -> None:
        """Go on against another total (the run's, once its plan is made)."""
        self.total = max(total or 1, 1)

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * self.shown + "\r")
            self.stream.flush()


def interactive(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed, or not a real stream
        return False


class ProgressLines:
    """Off a terminal: `progress: 400/2000 traces checked (20%), 12 did not pass so far` on
    stderr every tenth of the traces (when there are over PROGRESS_MIN_TRACES of them, and
    their total is known) and whenever 10 seconds have passed since the last line, printed
    as the traces are checked, so a CI log shows where a long run is."""

    def __init__(self, total: int | None, stream: TextIO | None = None) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.last = time.monotonic()
        self.next_tenth = 1
        self.done = 0  # the traces checked, as last told

    def __call__(self, done: int, failed: int = 0, decided: int | None = None) -> None:
        """The line for `done` traces checked, `failed` of them not passed, and, when known,
        `decided` cases, if one is due."""
        self.done = done
        now = time.monotonic()
        total = self.total
        tenth = (
            total is not None
            and total > PROGRESS_MIN_TRACES
            and done * 10 >= (self.next_tenth * total)
        )
        if not tenth and now - self.last < PROGRESS_SECONDS:
            return
        if total:
            while done * 10 >= self.next_tenth * total:
                self.next_tenth += 1
        self.last = now
        of = f"/{total}" if total else ""
        share = f" ({done * 100 // total}%)" if total else ""
        cases = f", {counted(decided, 'case')} decided" if decided is not None else ""
        print(
            f"progress: {done}{of} traces checked{share}{cases}, {failed} did not pass so far",
            file=self.stream,
            flush=True,
        )

    def retotal(self, total: int | None) -> None:
        """Go on against another total (the run's, once its plan is made, where the lines so
        far counted the traces evaluated before it): the next line is at its next tenth."""
        if total != self.total:
            self.total = total
            self.next_tenth = self.done * 10 // total + 1 if total else 1

    def close(self) -> None:
        """Nothing to erase: the lines stay in the log."""


# What a run shows its progress with, when it shows it: a bar, or lines.
Progress = ProgressBar | ProgressLines


def make_progress(total: int | None, quiet: bool, stream: TextIO | None = None) -> Progress | None:
    """How a run shows its progress on stderr: a bar on a terminal, for over ~200 traces;
    else lines (`ProgressLines`: a CI log keeps them); None with -q."""
    stream = stream or sys.stderr
    if quiet:
        return None
    if total is not None and total > PROGRESS_MIN_TRACES and interactive(stream):
        return ProgressBar(total, stream)
    return ProgressLines(total, stream)
