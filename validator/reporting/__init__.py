"""Reporters: one module per output format, all formatting the same report document.

A reporter is a function `render(report: dict) -> str` plus the file name it writes. Writing
is atomic for the whole set: every file is first written beside its target under a temporary
name, and only when all are complete are they renamed into place, so a run that fails or is
killed never leaves a half-written report, and the previous reports stay intact until then.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..problems import UsageError


@dataclass(frozen=True)
class Reporter:
    name: str
    filename: str
    render: Callable[[dict[str, Any]], str]


def _json(report: dict[str, Any]) -> str:
    from .json_report import render

    return render(report)


def _markdown(report: dict[str, Any]) -> str:
    from .markdown import render

    return render(report)


REPORTERS: dict[str, Reporter] = {
    "json": Reporter("json", "report.json", _json),
    "md": Reporter("md", "report.md", _markdown),
}


def write_reports(report: dict[str, Any], out_dir: Path, formats: list[str]) -> list[Path]:
    """Render every format, then move all files into place. Raises UsageError on I/O errors."""
    rendered = [(REPORTERS[f], REPORTERS[f].render(report)) for f in formats]
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(
            f"cannot create the output folder {out_dir}: {exc.strerror or exc}"
        ) from None
    temps: list[tuple[str, Path]] = []
    try:
        for reporter, text in rendered:
            fd, temp = tempfile.mkstemp(prefix=f".{reporter.filename}.", suffix=".tmp", dir=out_dir)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            temps.append((temp, out_dir / reporter.filename))
        for temp, target in temps:
            os.replace(temp, target)
    except OSError as exc:
        for temp, _ in temps:
            if os.path.exists(temp):
                os.unlink(temp)
        raise UsageError(f"cannot write reports to {out_dir}: {exc.strerror or exc}") from None
    return [target for _, target in temps]
