"""The HTML report's side channel (`Report.extras`, shaped in `report/extras.py`), collected
after evaluation by reading the shown runs' traces a second time.

Evaluation keeps no trace text (a run of 100,000 traces must stay flat in memory), and the
report rows keep to report.json's schema, so the question, the final answer and the tool
calls the page shows are read again here: a case's representative run and its first
MAX_RUNS_READ runs, each clipped to the page's limits as soon as it is read. Only `run`
with `--format html` pays for it.

Highlights (`marks`) use the checks' normalization (`normalize_plain`: invisible characters
removed, NFKC, case folding), applied character by character so that each match maps back
to the answer as written. Whitespace and the Markdown markup characters ``* _ ` ~ \\`` are
skipped on both sides, so `**slow** query` and `customer\\_ref` are highlighted for the
keywords `slow query` and `customer_ref`, as the checks (which render Markdown first) count
them. That rule can only add highlights next to what the checks count, never hide one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import compress
from pathlib import Path
from typing import Any

from ..evaluation.text import normalize_plain
from ..evaluation.tracefile import TraceReader
from ..inputs import Job
from ..model import Suite, TraceSettings
from ..problems import UsageError
from ..report.extras import BAD, HIT, MAX_RUNS_READ, run_extra, unreadable
from ..results import ERROR, NOT_RUN, PASS, CaseResult, RunResult
from ..traces import TraceError, read_trace_file

_SKIPPED = frozenset("*_`~\\")


@lru_cache(maxsize=16384)
def _fold(char: str) -> str:
    return "".join(c for c in normalize_plain(char) if not c.isspace() and c not in _SKIPPED)


class _AsciiFolds:
    """How each ASCII character folds, as tables C code applies: `table` for str.translate,
    `kept` the characters that fold to one (every other folds to none: whitespace, the
    skipped markup, invisible controls). Made on first use (it normalizes 128 characters)."""

    def __init__(self) -> None:
        folds = {chr(code): _fold(chr(code)) for code in range(128)}
        if any(len(folded) > 1 for folded in folds.values()):  # pragma: no cover
            raise AssertionError("an ASCII character folds to more than one character")
        self.table = str.maketrans({char: folded or None for char, folded in folds.items()})
        self.kept = frozenset(char for char, folded in folds.items() if folded)


_ascii_folds: _AsciiFolds | None = None
_ASCII_OR_NOT = re.compile(r"[\x00-\x7f]+|[^\x00-\x7f]+")  # runs of either


def _folded(text: str) -> tuple[str, list[int]]:
    """`text` folded for matching, and for each folded character the index it came from.

    A run of ASCII characters (most of any answer, all of an English one) is folded by
    str.translate and its kept positions picked by itertools.compress, at C speed (an answer
    of ~1,000 characters: ~50 us instead of ~120); other characters one by one."""
    global _ascii_folds
    if _ascii_folds is None:
        _ascii_folds = _AsciiFolds()
    table, kept = _ascii_folds.table, _ascii_folds.kept
    if text.isascii():
        where = list(compress(range(len(text)), map(kept.__contains__, text)))
        return text.translate(table), where
    out: list[str] = []
    where = []
    for run in _ASCII_OR_NOT.finditer(text):
        piece, start = run.group(), run.start()
        if piece.isascii():
            out.append(piece.translate(table))
            where += compress(range(start, run.end()), map(kept.__contains__, piece))
            continue
        for i, char in enumerate(piece, start):
            for folded in _fold(char):
                out.append(folded)
                where.append(i)
    return "".join(out), where


def marks(text: str, keywords: Iterable[tuple[str, str]]) -> list[list[Any]]:
    """Disjoint [start, end, kind] spans of `text` where a (keyword, kind) occurs."""
    folded, where = _folded(text)
    spans: list[tuple[int, int, str]] = []
    for keyword, kind in keywords:
        needle = "".join(
            c for c in normalize_plain(keyword) if not c.isspace() and c not in _SKIPPED
        )
        start = folded.find(needle) if needle else -1
        while start >= 0:
            end = start + len(needle)
            spans.append((where[start], where[end - 1] + 1, kind))
            start = folded.find(needle, end)
    # Overlaps (a synonym inside another, a forbidden phrase around a keyword): the earliest,
    # then the longest, wins, so every character is inside one mark at most.
    spans.sort(key=lambda s: (s[0], s[0] - s[1]))
    out: list[list[Any]] = []
    for start, end, kind in spans:
        if not out or start >= out[-1][1]:
            out.append([start, end, kind])
    return out


def _texts(value: Any) -> list[str]:
    """The keywords of a case key: a list of keywords and lists of synonyms."""
    found: list[str] = []
    for entry in value if isinstance(value, list) else []:
        if isinstance(entry, str):
            found.append(entry)
        elif isinstance(entry, list):
            found.extend(e for e in entry if isinstance(e, str))
    return found


def case_keywords(fields: dict[str, Any]) -> list[tuple[str, str]]:
    """What to highlight in a case's answers: every root-cause keyword and synonym, and
    every forbidden keyword (the standard case keys; other checks' keys are not known)."""
    return [(k, HIT) for k in _texts(fields.get("root_cause_keywords"))] + [
        (k, BAD) for k in _texts(fields.get("forbidden_keywords"))
    ]


def _shown_runs(case: CaseResult) -> list[RunResult]:
    runs = case.runs[:MAX_RUNS_READ]
    rep = case.representative
    if rep is not None and all(r is not rep for r in runs):
        runs.append(rep)
    return [r for r in runs if r.fixture and r.status not in (NOT_RUN, ERROR)]


def _reader(settings: TraceSettings, root: Path | None, max_bytes: int) -> TraceReader:
    """The traces of a job as evaluation read them (`traces.split`, `traces.group`, JSON
    Lines, OpenTelemetry exports), each named by its run's label (`file`, `file#N`...)."""
    return TraceReader(
        settings, lambda path: read_trace_file(path, root, max_bytes), root, max_bytes
    )


def _run_extra(
    document: Any, settings: TraceSettings, keywords: list[tuple[str, str]], status: str
) -> dict[str, Any]:
    from ..evaluation.view import ViewOptions, make_view  # here: only formats that show runs

    try:
        view, _ = make_view(document, settings.view, ViewOptions(messages=settings.messages))
    except ValueError as exc:  # an unknown adapter name: the run has said so already
        return unreadable(str(exc))
    extra = run_extra(view, conversation=status != PASS)  # the conversation behind a failure
    if extra["answer"] and keywords:
        extra["marks"] = marks(extra["answer"], keywords)
    if keywords:  # the conversation's messages get the answer's keyword marks too
        for call in extra.get("llm_calls") or []:
            for message in call.get("messages") or []:
                if isinstance(message, dict) and isinstance(message.get("text"), str):
                    message["marks"] = marks(message["text"], keywords)
    return extra


def _job_traces(
    job: Job, labels: dict[str, tuple[str, str]], reader: TraceReader
) -> Iterator[tuple[str, tuple[str, str], Any, str | None]]:
    """(label, (case id, status), the trace's document, why it could not be read) for the
    wanted runs of one job, in file order; `labels` is emptied of what is found."""
    try:
        for trace in reader.traces(job):
            wanted = labels.pop(trace.label, None)
            if wanted is None:
                continue
            yield trace.label, wanted, trace.document, trace.error
            if not labels:
                return
        return
    except TraceError as exc:
        reason = str(exc)
    except MemoryError:
        reason = "not enough memory"
    if job.text is None:  # the whole file is unreadable (a JSON Lines line: only itself)
        for label in list(labels):
            yield label, labels.pop(label), None, reason
    elif job.fixture in labels:
        yield job.fixture, labels.pop(job.fixture), None, reason


def _wanted(
    suite: Suite, cases: list[CaseResult]
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, tuple[str, str]]]]:
    """Each case's extras with no run read yet, and the runs the page shows: source (the file
    as the plan lists it) -> run label (`file`, `file#N`) -> (case id, status)."""
    extras: dict[str, dict[str, Any]] = {}
    wanted: dict[str, dict[str, tuple[str, str]]] = {}
    for case in cases:
        fields = suite.cases[case.case_id].fields if case.case_id in suite.cases else {}
        extras[case.case_id] = {
            "question": fields.get("question"),
            "description": fields.get("description"),
            "runs": {},
        }
        for run in _shown_runs(case):
            label = str(run.fixture)
            wanted.setdefault(str(run.source or label), {})[label] = (case.case_id, run.status)
    return extras, wanted


def collect_extras(
    suite: Suite,
    cases: list[CaseResult],
    jobs: Iterable[Job],
    root: Path | None,
    max_bytes: int,
    settings: TraceSettings | None = None,
) -> dict[str, dict[str, Any]]:
    """`Report.extras` for these cases. `jobs`: the run's jobs once more (their traces are
    read only for the runs the page shows), read with `settings` (the run's `traces:`
    section, options applied; default the suite's). Never raises for a trace: what cannot be read
    again is an `unreadable` reason."""
    extras, wanted = _wanted(suite, cases)
    keywords = {
        c: case_keywords(suite.cases[c].fields)
        for labels in wanted.values()
        for c, _ in labels.values()
        if c in suite.cases
    }
    settings = settings if settings is not None else suite.traces
    reader = _reader(settings, root, max_bytes)
    try:
        for job in jobs:
            labels = wanted.get(job.source or job.fixture)
            if not labels:
                continue
            for label, (case_id, status), document, error in _job_traces(job, labels, reader):
                shown = (
                    unreadable(f"the trace could not be read again: {error}")
                    if error is not None
                    else _run_extra(document, settings, keywords.get(case_id, []), status)
                )
                shown["status"] = status
                extras[case_id]["runs"][label] = shown
            if not any(wanted.values()):
                break
    except (UsageError, OSError):  # the input went away since evaluation: show what was read
        pass
    return extras
