"""The progress bar of long commands (run, capture): one terminal line on stderr, shown
only on a terminal, so logs and pipes stay clean."""

from __future__ import annotations

import sys
import time
from typing import TextIO

PROGRESS_MIN_TRACES = 200


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

    def __call__(self, done: int) -> None:
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

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * self.shown + "\r")
            self.stream.flush()


def interactive(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed, or not a real stream
        return False


def make_progress(
    total: int | None, quiet: bool, stream: TextIO | None = None
) -> ProgressBar | None:
    """A progress bar when the stream (stderr) is a terminal and the run has over ~200
    traces; None otherwise, so logs and pipes stay clean."""
    stream = stream or sys.stderr
    if quiet or total is None or total <= PROGRESS_MIN_TRACES or not interactive(stream):
        return None
    return ProgressBar(total, stream)
