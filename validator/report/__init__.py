"""Reporters: one module per output format, all formatting the same report document.

`REPORTERS` is the one list of output formats (the command line's `--format` choices come
from it). A reporter is a function giving the file's text in pieces (`chunks(report)`, so a
large report is streamed to disk; a piece is text, or bytes already encoded as UTF-8, as
orjson writes report.json's rows) plus the file name it writes. Adding a format means one
module with a `chunks(report: Report) -> Iterable[str]` and one entry here. Writing
is atomic for the whole set: every file is first written beside its target under a temporary
name, and only when all are complete are they renamed into place, so a run that fails or is
killed never leaves a half-written report, and the previous reports stay intact until then.
"""

from __future__ import annotations

import codecs
import errno
import importlib
import os
import stat
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import suppress
from pathlib import Path
from typing import BinaryIO

from ..dataclass import dataclass
from ..problems import UsageError
from ..processes import map_in_processes
from ..signals import signals_held
from .document import Report


@dataclass(frozen=True)
class Reporter:
    """A report format: its `--format` name, its file, and the module that writes it."""

    name: str  # the --format name
    filename: str
    module: str  # the module (of this package) whose `chunks(report)` writes the file
    doc: str
    # What the format reads beyond the result records, which run and merge then provide:
    # EXTRAS (the shown runs' traces read again: answers, tool and model calls), SOURCES
    # (where each check's input is in the case and trace files, for locations), TIMES (the
    # seconds spent checking each run).
    needs: frozenset[str] = frozenset()
    # Written by C code that reads the report's rows without writing to them (orjson): a
    # forked child writing it copies few of this process's pages, where a format written in
    # Python writes to every row it reads (reference counts), and a child copies each page
    # it touches (~30 ms for 2,000 cases). Such formats go to the children first.
    light_in_child: bool = False

    def chunks(self, report: Report) -> Iterable[str | bytes]:
        """The file's text, piece by piece: text, or bytes already encoded as UTF-8 (what
        orjson writes). Reporter modules are imported when used: a run that writes JSON
        never imports the XML or HTML machinery."""
        module = importlib.import_module(f"{__name__}.{self.module}")
        pieces: Iterable[str | bytes] = module.chunks(report)
        return pieces

    def text(self, report: Report) -> str:
        """The whole file as text (a job summary, a test)."""
        return b"".join(_encoded(self.chunks(report))).decode("utf-8")


def _replacement(error: UnicodeError) -> tuple[bytes, int]:
    # Bytes, not text: the UTF-8 encoder takes only ASCII text back from a handler.
    if isinstance(error, UnicodeEncodeError):
        return "\ufffd".encode() * (error.end - error.start), error.end
    raise error


# A lone surrogate (a file name that is not UTF-8, a trace's "\ud800" escape) cannot be
# written as UTF-8: it becomes U+FFFD, so one such text never costs the whole report set.
REPLACE_SURROGATES = "trace-validator-replace"
codecs.register_error(REPLACE_SURROGATES, _replacement)


EXTRAS = "extras"  # the shown runs' traces read again (Report.extras)
SOURCES = "sources"  # where each check's input is in the files (Report.sources)
# The seconds spent checking each run, and the run's (Report.timing): kept for every run by
# (case, fixture), so a run times its traces only when a format it writes shows them.
TIMES = "times"

REPORTERS: dict[str, Reporter] = {
    r.name: r
    for r in (
        Reporter(
            "json", "report.json", "json", "the stable document, for machines", light_in_child=True
        ),
        Reporter("md", "report.md", "markdown", "for review in a pull request"),
        Reporter(
            "junit", "report.junit.xml", "junit", "JUnit XML, for CI test views", frozenset({TIMES})
        ),
        Reporter("html", "report.html", "html", "a page for people", frozenset({EXTRAS})),
        Reporter(
            "sarif",
            "report.sarif",
            "sarif",
            "SARIF 2.1.0, for code-scanning views",
            frozenset({SOURCES}),
        ),
    )
}


def needed(formats: Iterable[str], what: str) -> bool:
    """Whether any of `formats` needs `what` (EXTRAS, SOURCES, TIMES) to be written."""
    return any(what in REPORTERS[name].needs for name in formats if name in REPORTERS)


DEFAULT_FORMATS = ("json", "md")

# GitHub refuses a job summary over 1 MiB; a longer report is cut at a line, with a note.
STEP_SUMMARY_LIMIT = 1024 * 1024


# A file's text in pieces (text, or UTF-8 bytes), made when the file is written.
Pieces = Callable[[], Iterable[str | bytes]]

# A file written with the reports, in the same all-or-nothing set: (file name, its pieces,
# made after every report of the set).
ExtraFile = tuple[str, Pieces]


def write_reports(
    report: Report,
    out_dir: Path,
    formats: list[str],
    extra: Sequence[ExtraFile] = (),
    processes: int = 1,
) -> list[Path]:
    """Write every format (and `extra` files) to a temporary file, then move all into place
    together.

    Raises UsageError on I/O errors, after removing the temporary files; the reports of an
    earlier run stay as they were unless every new one was complete. Every target is checked
    before anything is written, and a rename that fails puts back the targets already
    replaced, so the folder holds either the whole old set or the whole new one.
    `processes` > 1 (run --jobs N): the formats are written by up to that many processes at
    once, this one and forked children (see `_write_formats`), with the same bytes; `extra`
    files are written here, after every report."""
    _make_out_dir(out_dir)
    writers: list[ExtraFile] = [
        (REPORTERS[name].filename, _pieces(name, report)) for name in formats
    ]
    targets = [out_dir / name for name, _ in [*writers, *extra]]
    for target in targets:
        _check_target(target)
    temps: list[str] = []
    try:
        many = processes > 1 and _rows(report) >= CONCURRENT_MIN_ROWS
        syncs = _Syncs()
        made = _write_formats(writers, out_dir, temps, processes if many else 1, syncs)
        made += [_write_temp(name, p, out_dir, temps, syncs) for name, p in extra]
        syncs.wait()
        _move_into_place(list(zip(made, targets, strict=True)))
    except BaseException as exc:  # SIGTERM and Ctrl-C too (see cli): no temp file stays
        _remove(temps)  # any child writing one was ended first (see map_in_processes)
        if isinstance(exc, OSError):
            raise UsageError(f"cannot write reports to {out_dir}: {exc.strerror or exc}") from None
        raise
    return targets[: len(formats)]


# A report of fewer cases and runs is written in one process: forking would cost about as
# much as it saves.
CONCURRENT_MIN_ROWS = 200


def _rows(report: Report) -> int:
    """Cases plus runs: what the size of every format follows."""
    summary = report.summary
    runs = summary.get("runs")
    return int(summary.get("total") or 0) + int(
        runs.get("total") or 0 if isinstance(runs, dict) else 0
    )


def _write_formats(
    writers: Sequence[ExtraFile], out_dir: Path, temps: list[str], processes: int, syncs: _Syncs
) -> list[str]:
    """Each format into a new temporary file beside its target (recorded in `temps`), in
    order. With `processes` > 1 the formats are shared out (`_dealt`) between this process
    and forked children (`processes.map_in_processes`); the temporary files are all
    created here first, so the cleanup knows them, and a child that fails leaves its files
    to be written again here."""
    count = min(processes, len(writers))
    if count < 2:
        return [_write_temp(name, pieces, out_dir, temps, syncs) for name, pieces in writers]
    files: list[tuple[str, Pieces]] = []
    for name, pieces in writers:
        fd, temp = _create_temp(name, out_dir, temps)
        os.close(fd)
        files.append((temp, pieces))
    light = [_LIGHT.get(name, False) for name, _ in writers]
    map_in_processes(_write_files, [[files[i] for i in part] for part in _dealt(light, count)])
    return [temp for temp, _ in files]


# Report file name -> whether a child writes it cheaply (Reporter.light_in_child).
_LIGHT = {r.filename: r.light_in_child for r in REPORTERS.values()}


def _dealt(light: list[bool], count: int) -> list[list[int]]:
    """The formats (by index) each of `count` processes writes, this one first: those
    `light` in a child dealt round the children, the others round every process from this
    one (json and md: md here, json in a child); each process's in the given order."""
    parts: list[list[int]] = [[] for _ in range(count)]
    heavy = [i for i, is_light in enumerate(light) if not is_light]
    for turn, i in enumerate(i for i, is_light in enumerate(light) if is_light):
        parts[1 + turn % (count - 1)].append(i)
    for turn, i in enumerate(heavy):
        parts[turn % count].append(i)
    return [sorted(part) for part in parts]


def _write_files(files: list[tuple[str, Pieces]]) -> None:
    """Write each (temporary file, its text) from the start, complete and synced."""
    for temp, pieces in files:
        _write_into(os.open(temp, os.O_WRONLY | os.O_TRUNC), pieces)


def _pieces(name: str, report: Report) -> Pieces:
    reporter = REPORTERS[name]
    return lambda: reporter.chunks(report)


def check_out_dir(out_dir: Path, fixtures: Path | None = None) -> None:
    """Refuse, before any work, an --out that can hold no reports: a file, a link that leads
    nowhere, or a folder inside the fixtures folder (its report.json would be read as a
    trace by the next run)."""
    if out_dir.is_symlink() and not out_dir.exists():
        raise UsageError(
            f"--out {out_dir} is a link to {os.readlink(out_dir)}, which does not exist",
            "create the folder it points to, or remove the link (the folder is then created)",
        )
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(
            f"--out {out_dir} is a file, not a folder", "pass a folder (it is created if missing)"
        )
    if fixtures is not None and fixtures.is_dir():
        where, inside = out_dir.resolve(), fixtures.resolve()
        if where == inside or inside in where.parents:
            raise UsageError(
                f"--out {out_dir} is inside the fixtures folder {fixtures}: the next run would"
                " read its reports as traces",
                "write the reports elsewhere, e.g. --out reports",
            )


def _make_out_dir(out_dir: Path) -> None:
    check_out_dir(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(
            f"cannot create the output folder {out_dir}: {exc.strerror or exc}"
        ) from None


def _check_target(target: Path) -> None:
    """A target must be a file (or a link, which is replaced, never written through) or
    missing: os.replace cannot replace a folder, and would fail only after the reports
    before it in the set were replaced."""
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
        return
    kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
    raise UsageError(
        f"{target} is {kind}, so no report was written",
        "remove it or pass another --out folder",
    )


def _create_temp(filename: str, out_dir: Path, temps: list[str]) -> tuple[int, str]:
    """A new temporary file beside its target, open for writing, recorded in `temps`."""
    temp = str(out_dir / f".{filename}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    # O_EXCL: never write through a file or link someone else put there; mode 0o666 less the
    # umask, like any file the user creates (mkstemp's 0600 would hide CI artifacts from other
    # users). Signals wait, so that a file created is always recorded for the cleanup.
    with signals_held():
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        temps.append(temp)
    return fd, temp


def _encoded(pieces: Iterable[str | bytes]) -> Iterator[bytes]:
    """Each piece as UTF-8 bytes (a lone surrogate in a text: U+FFFD)."""
    for piece in pieces:
        yield piece.encode("utf-8", REPLACE_SURROGATES) if isinstance(piece, str) else piece


# Bytes a report file is written in, a write(2) each (a longer piece in slices: `_sliced`).
# Measured on the project's machine (Linux 6.18, ext4): 6 MB written to a new file in
# write(2)s of 1 MiB took 2-40 ms, in write(2)s of 64 KiB 2-2.5 ms every time (not on tmpfs:
# the file system's allocation for large writes, it seems). A run of 2,000 cases wrote its
# reports in ~95 ms with 1 MiB, ~52 with 64 KiB (bench/RESULTS.md).
_WRITE_BUFFER = 1 << 16


def _sliced(pieces: Iterable[bytes]) -> Iterator[bytes | memoryview]:
    """The pieces, each longer than _WRITE_BUFFER in slices of that size (a buffered file
    writes such a piece in one write(2) of its own; the slices are views, not copies)."""
    for piece in pieces:
        if len(piece) <= _WRITE_BUFFER:
            yield piece
            continue
        view = memoryview(piece)
        for start in range(0, len(piece), _WRITE_BUFFER):
            yield view[start : start + _WRITE_BUFFER]


def _write_into(fd: int, pieces: Pieces, syncs: _Syncs | None = None) -> None:
    """Write the file and close it, on disk (fsync) before it is renamed into place: now,
    or in a thread of `syncs` while the next file is written."""
    handle = os.fdopen(fd, "wb", buffering=_WRITE_BUFFER)
    try:
        handle.writelines(_sliced(_encoded(pieces())))
        handle.flush()
    except BaseException:
        with suppress(OSError):
            handle.close()
        raise
    if syncs is None:
        _sync_and_close(handle)
    else:
        syncs.start(handle)


def _sync_and_close(handle: BinaryIO) -> None:
    try:
        os.fsync(handle.fileno())
    finally:
        handle.close()


class _Syncs:
    """The fsync of each file written, in a thread of its own: fsync waits for the disk
    without holding the interpreter, so the next file is written meanwhile (report.json's
    ~15-20 ms for 2,000 cases, hidden behind report.md's writing). `wait` before renaming."""

    def __init__(self) -> None:
        self._threads: list[threading.Thread] = []
        self._errors: list[OSError] = []

    def start(self, handle: BinaryIO) -> None:
        thread = threading.Thread(target=self._run, args=(handle,), name="fsync")
        try:
            thread.start()
        except RuntimeError:  # no thread to be had (a process limit): synced here, now
            _sync_and_close(handle)
            return
        self._threads.append(thread)

    def _run(self, handle: BinaryIO) -> None:
        try:
            _sync_and_close(handle)
        except OSError as exc:
            self._errors.append(exc)

    def wait(self) -> None:
        """Every file on disk and closed; the first error of any raised (OSError)."""
        for thread in self._threads:
            thread.join()
        if self._errors:
            raise self._errors[0]


def _write_temp(
    filename: str, pieces: Pieces, out_dir: Path, temps: list[str], syncs: _Syncs | None = None
) -> str:
    """One file into a new temporary file beside its target (recorded in `temps`)."""
    fd, temp = _create_temp(filename, out_dir, temps)
    _write_into(fd, pieces, syncs)
    return temp


def write_file(target: Path, text: str) -> None:
    """Write one file as the reports are written: to a temporary file beside it, then
    renamed into place, so the file is whole or as it was (a trace `capture` saves, its
    log). Raises OSError, after removing the temporary file."""
    temps: list[str] = []
    try:
        _write_temp(target.name, lambda: [text], target.parent, temps)
        with signals_held():
            os.replace(temps[0], target)
            temps.clear()
    except BaseException:  # SIGTERM and Ctrl-C too: no temporary file stays
        _remove(temps)
        raise


def _move_into_place(pairs: list[tuple[str, Path]]) -> None:
    """Rename every temporary file onto its target, or none.

    Each existing target is first linked to a backup name; if a rename fails, the targets
    already replaced get their backups back (or are removed, when there was none). Signals
    wait meanwhile: the renames and their undoing take microseconds, and a signal between
    two renames would leave a mixed set."""
    with signals_held():
        backups: dict[Path, str] = {}
        done: list[Path] = []
        try:
            for _, target in pairs:
                if os.path.lexists(target):
                    backups[target] = _backup(target)
            for temp, target in pairs:
                os.replace(temp, target)
                done.append(target)
        except OSError:
            _undo(done, backups)
            raise
        finally:
            _remove(backups.values())


def _backup(target: Path) -> str:
    backup = str(target.with_name(f".{target.name}.{os.getpid()}.{os.urandom(4).hex()}.old"))
    try:
        os.link(target, backup, follow_symlinks=False)
    except (OSError, NotImplementedError):  # no hard links here (FAT, some network shares)
        import shutil  # here: rarely needed, and it imports bz2 and lzma (~2 ms of a start-up)

        shutil.copy2(target, backup, follow_symlinks=False)
    return backup


def _undo(done: list[Path], backups: dict[Path, str]) -> None:
    failed = []
    for target in reversed(done):
        try:
            if target in backups:
                os.replace(backups[target], target)
            else:
                os.unlink(target)
        except OSError:
            failed.append(str(target))
    if failed:
        raise UsageError(
            f"a report could not be renamed into place, and {', '.join(failed)} could not be"
            " put back: the reports in the folder are a mix of this run and the last one"
        )


def _remove(paths: Iterable[str]) -> None:
    # A path already gone was renamed into place (or put back as the old report); any other
    # failure matters less than the run's own outcome, so it is not raised over it.
    for path in paths:
        with suppress(OSError):
            os.unlink(path)


def append_step_summary(report: Report, path: Path, written: list[Path] | None = None) -> bool:
    """Append the Markdown report to a GitHub Actions job summary file (`GITHUB_STEP_SUMMARY`).

    `written`: the report files just written; when report.md is among them it is copied
    rather than rendered again. Returns False when the file cannot be written (the caller
    warns; the reports are already in place, so this never fails the run): when it is not a
    regular file (a FIFO would block the run for good, a device swallow the text), or when it
    cannot grow (the file is then cut back to the size it had, never left with a fragment)."""
    data = _summary_text(report, written).encode("utf-8", REPLACE_SURROGATES)
    try:
        # O_NONBLOCK: opening a FIFO that nobody reads fails at once instead of waiting.
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(path, flags, 0o666)
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return False
        # Earlier steps wrote to it: keep our heading on its own line.
        return _append(fd, info.st_size, b"\n" + data if info.st_size > 0 else data)
    except OSError:
        return False
    finally:
        os.close(fd)


def _summary_text(report: Report, written: list[Path] | None) -> str:
    markdown = next((p for p in written or () if p.name == REPORTERS["md"].filename), None)
    try:
        text = markdown.read_text("utf-8") if markdown else REPORTERS["md"].text(report)
    except OSError:
        text = REPORTERS["md"].text(report)
    data = text.encode("utf-8", REPLACE_SURROGATES)
    if len(data) > STEP_SUMMARY_LIMIT:
        note = "\n_The report is longer than a job summary may be: read report.md for the rest._\n"
        keep = data[: STEP_SUMMARY_LIMIT - len(note.encode("utf-8")) - 1]
        text = keep[: keep.rfind(b"\n") + 1].decode("utf-8", errors="ignore") + note
    return text


# Bytes per write(2) of the job summary: a full disk shows up after some of them.
_APPEND_PIECE = 64 * 1024


def _append(fd: int, size: int, data: bytes) -> bool:
    """Append all of `data` with write(2), continuing short writes; on any failure (or a
    signal) truncate back to `size`, so the file is exactly as it was."""
    view = memoryview(data)
    try:
        while view:
            count = os.write(fd, view[:_APPEND_PIECE])
            if count <= 0:
                raise OSError(errno.ENOSPC, "the file does not grow")
            view = view[count:]
    except BaseException as exc:
        with suppress(OSError):
            os.ftruncate(fd, size)
        if isinstance(exc, OSError):
            return False
        raise
    return True
