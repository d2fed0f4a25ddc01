"""Reporters: one module per output format, all formatting the same report document.

A reporter is a function giving the file's text in pieces (`chunks(report)`, so a large report
is streamed to disk) plus the file name it writes. Writing
is atomic for the whole set: every file is first written beside its target under a temporary
name, and only when all are complete are they renamed into place, so a run that fails or is
killed never leaves a half-written report, and the previous reports stay intact until then.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..problems import UsageError


@dataclass(frozen=True)
class Reporter:
    name: str
    filename: str
    chunks: Callable[[dict[str, Any]], Iterable[str]]  # the file's text, piece by piece


def _json(report: dict[str, Any]) -> Iterable[str]:
    from .json_report import chunks

    return chunks(report)


def _markdown(report: dict[str, Any]) -> Iterable[str]:
    from .markdown import chunks

    return chunks(report)


def _junit(report: dict[str, Any]) -> Iterable[str]:
    from .junit import render

    return [render(report)]


def _html(report: dict[str, Any]) -> Iterable[str]:
    from .html import render

    return [render(report)]


REPORTERS: dict[str, Reporter] = {
    "json": Reporter("json", "report.json", _json),
    "md": Reporter("md", "report.md", _markdown),
    "junit": Reporter("junit", "report.junit.xml", _junit),
    "html": Reporter("html", "report.html", _html),
}
DEFAULT_FORMATS = ("json", "md")

# GitHub refuses a job summary over 1 MiB; a longer report is cut at a line, with a note.
STEP_SUMMARY_LIMIT = 1024 * 1024


def write_reports(report: dict[str, Any], out_dir: Path, formats: list[str]) -> list[Path]:
    """Write every format to a temporary file, then move all into place together.

    Raises UsageError on I/O errors, after removing the temporary files; the reports of an
    earlier run stay as they were unless every new one was complete."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(
            f"cannot create the output folder {out_dir}: {exc.strerror or exc}"
        ) from None
    temps: list[tuple[str, Path]] = []
    try:
        for name in formats:
            reporter = REPORTERS[name]
            temp = str(out_dir / f".{reporter.filename}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
            # O_EXCL: never write through a file or link someone else put there; mode 0o666
            # less the umask, like any file the user creates (mkstemp's 0600 would hide CI
            # artifacts from other users).
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            temps.append((temp, out_dir / reporter.filename))
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.writelines(reporter.chunks(report))
                handle.flush()
                os.fsync(handle.fileno())
        for temp, target in temps:
            os.replace(temp, target)
    except BaseException as exc:
        for temp, _ in temps:
            if os.path.exists(temp):
                os.unlink(temp)
        if isinstance(exc, OSError):
            raise UsageError(f"cannot write reports to {out_dir}: {exc.strerror or exc}") from None
        raise
    return [target for _, target in temps]


def append_step_summary(
    report: dict[str, Any], path: Path, written: list[Path] | None = None
) -> bool:
    """Append the Markdown report to a GitHub Actions job summary file (`GITHUB_STEP_SUMMARY`).

    `written`: the report files just written; when report.md is among them it is copied
    rather than rendered again. Returns False when the file cannot be written (the caller
    warns; the reports are already in place, so this never fails the run)."""
    markdown = next((p for p in written or () if p.name == REPORTERS["md"].filename), None)
    try:
        text = markdown.read_text("utf-8") if markdown else "".join(_markdown(report))
    except OSError:
        text = "".join(_markdown(report))
    data = text.encode("utf-8")
    if len(data) > STEP_SUMMARY_LIMIT:
        note = "\n_The report is longer than a job summary may be: read report.md for the rest._\n"
        keep = data[: STEP_SUMMARY_LIMIT - len(note.encode("utf-8")) - 1]
        text = keep[: keep.rfind(b"\n") + 1].decode("utf-8", errors="ignore") + note
    try:
        with open(path, "a", encoding="utf-8", newline="\n") as handle:
            if handle.tell() > 0:  # earlier steps wrote to it: keep our heading on its own line
                handle.write("\n")
            handle.write(text)
    except OSError:
        return False
    return True
