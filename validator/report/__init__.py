"""Reporters: one module per output format, all formatting the same report document.

`REPORTERS` is the one list of output formats (the command line's `--format` choices come
from it). A reporter is a function giving the file's text in pieces (`chunks(report)`, so a
large report is streamed to disk) plus the file name it writes. Adding a format means one
module with a `chunks(report: Report) -> Iterable[str]` and one entry here. Writing
is atomic for the whole set: every file is first written beside its target under a temporary
name, and only when all are complete are they renamed into place, so a run that fails or is
killed never leaves a half-written report, and the previous reports stay intact until then.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..problems import UsageError
from .document import Report


@dataclass(frozen=True)
class Reporter:
    name: str  # the --format name
    filename: str
    module: str  # the module (of this package) whose `chunks(report)` writes the file
    doc: str

    def chunks(self, report: Report) -> Iterable[str]:
        """The file's text, piece by piece. Reporter modules are imported when used: a run
        that writes JSON never imports the XML or HTML machinery."""
        module = importlib.import_module(f"{__name__}.{self.module}")
        pieces: Iterable[str] = module.chunks(report)
        return pieces


REPORTERS: dict[str, Reporter] = {
    r.name: r
    for r in (
        Reporter("json", "report.json", "json", "the stable document, for machines"),
        Reporter("md", "report.md", "markdown", "for review in a pull request"),
        Reporter("junit", "report.junit.xml", "junit", "JUnit XML, for CI test views"),
        Reporter("html", "report.html", "html", "a page for people"),
        Reporter("sarif", "report.sarif", "sarif", "SARIF 2.1.0, for code-scanning views"),
    )
}
DEFAULT_FORMATS = ("json", "md")

# GitHub refuses a job summary over 1 MiB; a longer report is cut at a line, with a note.
STEP_SUMMARY_LIMIT = 1024 * 1024


def write_reports(report: Report, out_dir: Path, formats: list[str]) -> list[Path]:
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


def append_step_summary(report: Report, path: Path, written: list[Path] | None = None) -> bool:
    """Append the Markdown report to a GitHub Actions job summary file (`GITHUB_STEP_SUMMARY`).

    `written`: the report files just written; when report.md is among them it is copied
    rather than rendered again. Returns False when the file cannot be written (the caller
    warns; the reports are already in place, so this never fails the run)."""
    markdown = next((p for p in written or () if p.name == REPORTERS["md"].filename), None)
    try:
        text = markdown.read_text("utf-8") if markdown else "".join(REPORTERS["md"].chunks(report))
    except OSError:
        text = "".join(REPORTERS["md"].chunks(report))
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
