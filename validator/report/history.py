"""History across reports: `run --history DIR` (and `merge --history DIR`).

DIR holds earlier report.json files, e.g. kept as CI artifacts: every `*.json` file in DIR
and every `report.json` one folder down (`DIR/run-123/report.json`) is read; other files and
hidden ones are not. Each is checked as a baseline is; one that cannot be used (unreadable,
not JSON, not a trace-validator report, another report schema version, damaged, the report
of one shard) is skipped with a warning naming it and why, so one bad file never stops the
others. History never decides the exit code.

Order: by each report's recorded time (`generated_at`), equal times by name in natural order
(`run-9` before `run-10`); when a report has no usable time, every report is ordered by name.
The newest `depth` are kept, and the current run comes last. A report is named by its path
under DIR, a `report.json` one folder down by its folder (`run-123`). A folder of more than
`depth` reports is read as `load_history` says: the time from each file's first lines, and
only the newest read whole, so a folder CI adds to at every run costs the same each run.

The section (`Report.history`, report.json's `history`): `reports` (name, pass_rate; oldest
first, this run last), `cases` (this run's cases in report order, each with its status in
each report, null where the report does not have the case), `changed` (a status in the
previous report other than now), `flaky` (passed in one report of the window, failed or
errored in another), `skipped` (the files not used, and why). A report's pass rate is over
its cases the current --case/--tag selection keeps (as a baseline's is), null when none.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import field
from pathlib import Path
from typing import Any

from ..dataclass import dataclass
from ..files import FileRefused, read_file
from ..globs import run_order
from ..problems import UsageError
from ..results import ERROR, FAIL, PASS
from .baseline import MAX_BASELINE_BYTES, baseline_problem

DEFAULT_DEPTH = 10
CURRENT = "this run"  # the current run's name in `reports`
REPORT_FILE = "report.json"

_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")  # generated_at as every version writes it
_AGAIN = "it is left out of the history (history reads reports of this version)"


@dataclass(frozen=True)
class Earlier:
    """What the history needs of one earlier report (the document itself is not kept)."""

    name: str
    time: str | None  # generated_at, when usable
    pass_rate: float | None
    statuses: dict[str, str]  # case id -> status


@dataclass
class History:
    """The earlier reports of DIR, read and ordered (oldest first, at most `depth`)."""

    earlier: list[Earlier] = field(default_factory=list)
    # (file as shown, why, `:line:col` in it when known) of each file not used
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # said on stderr, not errors

    def warnings(self) -> list[str]:
        """One line per file skipped, naming it (where in it, when known) and why, then the
        notes."""
        skipped = [f"warning: {file}{at}: skipped: {why}" for file, why, at in self.skipped]
        return skipped + [f"note: {note}" for note in self.notes]

    def section(self, rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
        """The `history` section for this run's case rows."""
        rows = list(rows)
        reports = [{"name": e.name, "pass_rate": e.pass_rate} for e in self.earlier]
        reports.append({"name": CURRENT, "pass_rate": _pass_rate(r["status"] for r in rows)})
        cases: dict[str, list[str | None]] = {}
        changed, flaky = [], []
        previous = self.earlier[-1].statuses if self.earlier else {}
        for row in rows:
            case_id, now = row["case_id"], row["status"]
            marks = [e.statuses.get(case_id) for e in self.earlier] + [now]
            cases[case_id] = marks
            if previous.get(case_id, now) != now:
                changed.append(case_id)
            if PASS in marks and (FAIL in marks or ERROR in marks):
                flaky.append(case_id)
        return {
            "reports": reports,
            "cases": cases,
            "changed": changed,
            "flaky": flaky,
            "skipped": [{"file": file, "reason": why} for file, why, _ in self.skipped],
        }


def _pass_rate(statuses: Iterable[str]) -> float | None:
    listed = list(statuses)
    return round(listed.count(PASS) / len(listed), 4) if listed else None


# --------------------------------------------------------------------------------------------
# Reading


def check_folder(folder: Path, shown: str) -> None:
    """--history DIR must be a folder. Raises UsageError."""
    if folder.is_dir():
        return
    what = "is not a folder" if folder.exists() else "does not exist"
    raise UsageError(
        f"--history {shown} {what}",
        "pass --history with the folder of earlier report.json files (each in its own"
        " sub-folder, e.g. history/run-123/report.json, or side by side), e.g. --history"
        " history",
    )


def candidates(folder: Path) -> list[tuple[str, Path]]:
    """(name, path) of every file history reads in `folder`, in natural name order."""
    found: list[tuple[str, Path]] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: run_order(e.name))
    except OSError as exc:
        raise UsageError(
            f"cannot list the history folder {folder}: {exc.strerror or exc}"
        ) from None
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        if entry.is_dir():
            inner = path / REPORT_FILE
            if inner.exists() or inner.is_symlink():
                found.append((entry.name, inner))
        elif entry.name.endswith(".json"):
            found.append((entry.name, path))
    return found


def load_history(
    folder: Path,
    shown: str,
    depth: int = DEFAULT_DEPTH,
    keep: Callable[[dict[str, Any]], bool] | None = None,
) -> History:
    """The earlier reports of `folder` (checked: `check_folder`), read and ordered: the newest
    `depth` that can be used.

    A folder of more reports than that (CI keeps adding one a run) has each one's recorded
    time read from its first lines, where the tool writes it (`_head_time`), and only the
    newest are read whole, until `depth` of them can be used: a run reads the same few
    reports however long the folder grows. A file read whole that cannot be used is
    skipped with its reason; an older one is not read. Any doubt (a report with no time in
    its first lines, or whose body records another time) reads every file, as a folder of
    at most `depth` reports always is.

    `keep`: the current --case/--tag selection (each report is restricted to it)."""
    check_folder(folder, shown)
    history = History()
    files = [
        _File(name, path, f"{shown.rstrip('/')}/{path.relative_to(folder).as_posix()}")
        for name, path in candidates(folder)
    ]
    window = _newest(files, depth, keep, history) if len(files) > depth else None
    if window is None:  # _newest names no skipped file when it gives up
        window = _every(files, depth, keep, history, shown)
    history.earlier = window
    if not window:
        why = (
            "holds no earlier report (no *.json in it, no report.json one folder down)"
            if not files
            else "holds no report that could be used (each is named above)"
        )
        history.notes.append(f"the history folder {shown} {why}: the history has this run only")
    return history


@dataclass(frozen=True)
class _File:
    """A file of the history folder (in name order): its name, path and name as shown."""

    name: str
    path: Path
    where: str


def _every(
    files: list[_File],
    depth: int,
    keep: Callable[[dict[str, Any]], bool] | None,
    history: History,
    shown: str,
) -> list[Earlier]:
    """Every file read whole, ordered (see the module's docstring), the newest `depth` kept."""
    read: list[Earlier] = []
    for file in files:
        try:
            read.append(_earlier(file.name, file.path, file.where, keep))
        except _Skip as skip:
            history.skipped.append((file.where, str(skip), skip.at))
    untimed = [e.name for e in read if e.time is None]
    if untimed:
        history.notes.append(
            f"the history report {untimed[0]!r} in {shown} has no recorded time"
            " (generated_at): the reports are ordered by name"
        )
        read.sort(key=lambda e: run_order(e.name))
    else:
        read.sort(key=lambda e: (e.time, run_order(e.name)))
    return read[-depth:]


def _newest(
    files: list[_File],
    depth: int,
    keep: Callable[[dict[str, Any]], bool] | None,
    history: History,
) -> list[Earlier] | None:
    """The newest `depth` usable reports, read whole newest first by the times their first
    lines record, the files read whole that cannot be used skipped (in name order); None
    when a file's first lines record no time, or its body another (`_every` then)."""
    times = [_head_time(file.path) for file in files]
    if None in times:
        return None
    order = sorted(range(len(files)), key=lambda i: (times[i], run_order(files[i].name)))
    kept: list[Earlier] = []
    skipped: list[tuple[int, tuple[str, str, str]]] = []
    for index in reversed(order):
        if len(kept) == depth:
            break
        file = files[index]
        try:
            earlier = _earlier(file.name, file.path, file.where, keep)
        except _Skip as skip:
            skipped.append((index, (file.where, str(skip), skip.at)))
            continue
        if earlier.time != times[index]:
            return None
        kept.append(earlier)
    history.skipped.extend(entry for _, entry in sorted(skipped))
    return kept[::-1]


# How much of a report is read for its recorded time: the tool writes `generated_at` as the
# head's third key, at two spaces (a nested one is deeper; a string's line break is `\n`).
_HEAD_BYTES = 4096
_HEAD_TIME = re.compile(rb'\n  "generated_at": "(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"[,\n]')


def _head_time(path: Path) -> str | None:
    """The time a report records in its first lines, as the tool writes them; None when
    they record none that way (or it is no regular file: reading it whole says why)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError:
        return None
    found = _HEAD_TIME.findall(head)
    return found[0].decode("ascii") if len(found) == 1 else None


class _Skip(Exception):
    """Why one file of the history folder is not used; `at`: `:line:col` when known."""

    def __init__(self, why: str, at: str = "") -> None:
        super().__init__(why)
        self.at = at


def _earlier(
    name: str, path: Path, where: str, keep: Callable[[dict[str, Any]], bool] | None
) -> Earlier:
    document = _document(path, where)
    problem = _problem(document)
    if problem:
        raise _Skip(problem)
    rows = [c for c in document["cases"] if keep is None or keep(c)]
    generated = document.get("generated_at")
    usable = isinstance(generated, str) and _TIME.fullmatch(generated) is not None
    return Earlier(
        name,
        generated if usable else None,
        _pass_rate(c["status"] for c in rows),
        {c["case_id"]: c["status"] for c in rows},
    )


def _document(path: Path, where: str) -> Any:
    try:
        data = read_file(path, MAX_BASELINE_BYTES, "the history report", where)
    except FileRefused as exc:
        raise _Skip(f"cannot read it: {exc.why}") from None
    try:
        return json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise _Skip("it is not UTF-8 text, so not a report.json") from None
    except json.JSONDecodeError as exc:
        raise _Skip(
            f"not valid JSON at line {exc.lineno} column {exc.colno} ({exc.msg}), so not a"
            " report.json (was it cut short?)",
            f":{exc.lineno}:{exc.colno}",
        ) from None
    except (RecursionError, ValueError):
        raise _Skip("it nests too deeply to be a report.json") from None


def _problem(document: Any) -> str | None:
    problem = baseline_problem(document, _AGAIN)
    if problem:
        return problem
    inputs = document.get("inputs")
    shard = inputs.get("shard") if isinstance(inputs, dict) else None
    if shard is not None:
        return (
            f"it is the report of shard {shard} only: keep the report `merge` writes from"
            " every shard"
        )
    return None
