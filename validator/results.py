"""Results: plain, picklable records. Evaluation produces them; `report.document` shapes them
into the report's rows, and nothing else reads them.

A *run* is one trace evaluated against its case. A *case* has one run, or several when the
agent was run repeatedly (pass^k). Statuses are exactly: pass, fail, not_run, error.
It is over 600 lines as one concept: the records and `Runs`, which holds a case's runs
column-wise and gives them back field for field; the two change together.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import field, fields
from operator import attrgetter
from typing import Any, TypeVar, overload

from .dataclass import dataclass

PASS = "pass"
FAIL = "fail"
SKIPPED = "skipped"
NOT_RUN = "not_run"
ERROR = "error"
STATUSES = (PASS, FAIL, NOT_RUN, ERROR)

# A check's severity (its spec's `severity`, or the case's `severity_overrides`), most severe
# first. A failed check fails its run only when it is `blocking`: its severity is at least the
# run's --fail-severity (error by default), so a failed warning or info is reported and the run
# still passes.
SEVERITIES = ("error", "warning", "info")


def is_blocking(severity: str, fail_severity: str) -> bool:
    """Whether a failed check of `severity` fails its run under --fail-severity."""
    return SEVERITIES.index(severity) <= SEVERITIES.index(fail_severity)


_Record = TypeVar("_Record")


def _positional(cls: type[_Record]) -> type[_Record]:
    """Pickle a record as its class called with its fields in order. The runs of a run with
    --jobs N come back from the workers pickled: by default a slotted record is pickled as a
    dict of slot names, rebuilt one attribute at a time; as a tuple the 2,000 runs of
    `bench/run.py`'s corpus are 13 % fewer bytes, pickled 20 % and unpickled 10 % faster."""
    values = attrgetter(*(f.name for f in fields(cls)))  # type: ignore[arg-type]

    def __reduce__(self: _Record) -> tuple[Any, ...]:
        return (cls, values(self))

    cls.__reduce__ = __reduce__  # type: ignore[assignment,method-assign]
    return cls


@_positional
@dataclass(slots=True)
class ClauseResult:
    """The result of one clause of a check on one trace."""

    name: str
    status: str  # pass | fail | skipped
    message: str
    details: dict[str, Any] | None = (
        None  # coverage figures and the like, when the predicate has any
    )
    # True when `message` is the spec author's sentence (a `message:` template): it says
    # what is wrong by itself, so a check of several clauses does not prefix it with the name.
    worded: bool = False
    # 0 when the clause passed because its queries matched no node (it read nothing);
    # None otherwise (it examined something, or failed, or was skipped).
    examined: int | None = None


@_positional
@dataclass(slots=True)
class CheckResult:
    """The result of one check on one trace: its status, message and clauses."""

    check: str
    status: str  # pass | fail | skipped
    message: str
    clauses: list[ClauseResult] = field(default_factory=list)
    report_as: str | None = None
    severity: str = "error"
    blocking: bool = True  # a failure of this check fails the run (see SEVERITIES)
    # 0 when the check passed because a query matched no node (see ClauseResult.examined).
    examined: int | None = None

    @property
    def unexamined(self) -> bool:
        """Passed with nothing to examine: a query of it matched no node."""
        return self.examined == 0 and self.status == PASS

    @property
    def failed_blocking(self) -> bool:
        return self.status == FAIL and self.blocking

    @property
    def failed_nonblocking(self) -> bool:
        return self.status == FAIL and not self.blocking

    @property
    def details(self) -> dict[str, Any]:
        """The details of the first clause that has any (coverage figures and the like)."""
        for clause in self.clauses:
            if clause.details:
                return clause.details
        return {}


@_positional
@dataclass(slots=True)
class RunResult:
    """One trace evaluated against its case."""

    case_id: str
    status: str
    # Why the trace could not be evaluated (error, not_run). A failed run's reason is derived
    # from its failed checks instead (see `reason`): thousands of runs share a few check names.
    error_reason: str | None = None
    fixture: str | None = None
    verdict: str | None = None
    verdict_key: str | None = None  # for the distribution: the verdict, MISSING or INVALID
    checks: list[CheckResult] = field(default_factory=list)
    tool_call_count: int | None = None
    duration_ms: float | None = None
    notes: list[str] = field(default_factory=list)
    # The file the trace was read from, as shown (a trace's `fixture` may add its place in
    # the file: `x.jsonl:3`, `x.json#2`); None when it was not read from a file.
    source: str | None = None
    # How many of the run's checks were applied (passed or failed) and skipped (a guard, or
    # `when_input` naming an input the case does not set): kept as counts because compacted
    # runs drop their passing and skipped checks.
    checks_applied: int = 0
    checks_skipped: int = 0
    # Of the applied checks, those that passed with nothing to examine (`examined: 0`).
    checks_unexamined: int = 0
    # What the view ($.view) left unread in this trace, when a check or a figure read the
    # view: its `unread` entries, each with `gated` (content of a kind checks read: `--fail-on
    # unread` counts it; see view.read_by_checks). Empty when the view read everything or was
    # not made.
    unread: list[dict[str, Any]] = field(default_factory=list)

    @property
    def unread_gated(self) -> bool:
        """Whether the view left content of a kind checks read unread (`--fail-on unread`)."""
        return any(entry.get("gated") for entry in self.unread)

    # Seconds spent checking this trace (the evaluation, not the reading): JUnit's `time`.
    # Never part of report.json, which stays the same from one run to the next.
    check_seconds: float | None = field(default=None, compare=False)
    # The fields of the report's case row this run gives when it represents its case
    # (report.document's run fields), made by the compaction that keeps it whole (in a
    # worker with --jobs 2: `Compactor`'s `kept`); None: made with the report. Derived
    # from the fields above, so never compared nor written to a shard file (`cache`); a
    # compacted run has none.
    row_fields: dict[str, Any] | None = field(
        default=None, compare=False, repr=False, metadata={"cache": True}
    )

    @property
    def vacuous(self) -> bool:
        """Passed without any check applied: every check was skipped (the vacuity guard)."""
        return self.status == PASS and self.checks_applied == 0

    @property
    def unexamined(self) -> bool:
        """Passed with a check that had nothing to examine (its query matched no node)."""
        return self.status == PASS and self.checks_unexamined > 0

    @property
    def reason(self) -> str | None:
        """Why the run did not pass, in one line; None when it passed."""
        if self.error_reason is None and self.status == FAIL:
            failed = [c.check for c in self.checks if c.failed_blocking]
            checks = (
                "check" if len(failed) == 1 else "checks"
            )  # results imports nothing to count with
            return f"{len(failed)} {checks} failed: {', '.join(failed)}"
        return self.error_reason

    @property
    def evaluated(self) -> bool:
        return self.status in (PASS, FAIL)

    def judged(self, fail_severity: str) -> str:
        """The status this run's record supports under --fail-severity: an evaluated run
        (no error reason) fails when a check of a blocking severity failed, and passes
        otherwise; a run that could not be evaluated keeps its status (error, not_run).
        `merge` compares it with the recorded status. Raises ValueError on a check whose
        severity is not one of SEVERITIES, or whose recorded `blocking` its severity does
        not give."""
        if self.error_reason is not None and self.status in (ERROR, NOT_RUN):
            return self.status
        if self.error_reason is not None:
            return ERROR  # an evaluated run has no error reason
        failed = False
        for check in self.checks:
            if check.severity not in SEVERITIES:
                raise ValueError(f"check {check.check} has an unknown severity")
            blocking = is_blocking(check.severity, fail_severity)
            if check.blocking != blocking:
                raise ValueError(
                    f"check {check.check} ({check.severity}) is recorded as"
                    f" {'' if check.blocking else 'not '}failing its run, which"
                    f" --fail-severity {fail_severity} does not give"
                )
            if check.status == FAIL and blocking:
                failed = True
        return FAIL if failed else PASS


@dataclass(slots=True)
class CaseResult:
    """A case and its runs. Its status is pass only when every run passed (pass^k), or, with
    `required_passes` set (the case's min_passes / min_pass_rate), when at least that many
    runs passed. `runs` given as a list becomes a `Runs`."""

    case_id: str
    runs: Runs
    file: str | None = None
    tags: list[str] = field(default_factory=list)
    # Set when the case never got a run (no fixture) or its fixtures are unusable as a whole.
    status_override: str | None = None
    reason_override: str | None = None
    # How many runs must pass (from min_passes / min_pass_rate); None: every run (pass^k).
    required_passes: int | None = None
    notes: list[str] = field(default_factory=list)  # about the case as a whole

    def __post_init__(self) -> None:
        if not isinstance(self.runs, Runs):
            self.runs = Runs(self.runs)

    @property
    def status(self) -> str:
        if self.status_override:
            return self.status_override
        statuses = self.runs.statuses
        if not statuses:
            return NOT_RUN
        if self.required_passes is not None:
            # A threshold tolerates runs that did not pass, a run in error among them; when
            # too few passed, a run in error still makes it error (a broken trace is looked at).
            if self.passed_runs >= self.required_passes:
                return PASS
            return ERROR if ERROR in statuses else FAIL
        for s in (ERROR, NOT_RUN, FAIL):
            if s in statuses:
                return s
        return PASS

    @property
    def representative(self) -> RunResult | None:
        """The run the case-level fields describe: the first that did not pass, else the first."""
        return self.runs.representative

    @property
    def reason(self) -> str | None:
        if self.reason_override:
            return self.reason_override
        run = self.representative
        if run is None:
            return None
        why = f"{run.fixture}: {run.reason}" if len(self.runs) > 1 and run.reason else run.reason
        if self.required_passes is None:
            return why
        count = (
            f"{self.passed_runs} of {len(self.runs)} runs passed ({self.required_passes} required)"
        )
        return f"{count}; {why}" if why and self.status != PASS else count

    @property
    def passed_runs(self) -> int:
        return self.runs.passed

    @property
    def vacuous_runs(self) -> int:
        return self.runs.vacuous

    @property
    def unexamined_runs(self) -> int:
        return self.runs.unexamined

    @property
    def unread(self) -> UnreadTally | None:
        """What the view left unread in the case's runs; None when it read everything."""
        return self.runs.unread

    @property
    def flaky(self) -> bool:
        statuses = self.runs.statuses
        return PASS in statuses and FAIL in statuses


# --------------------------------------------------------------------------------------------
# A case's runs, held in a few bytes each


# How a compact run's fixture is made again (`RunKinds`): None, its own text (kept by the
# `Runs`), or its source, this separator and the run's number (a JSON Lines line
# `x.jsonl:12`, the second trace of a split file `x.json#2`).
_NO_FIXTURE, _OWN_FIXTURE = 0, 1
_SEPARATORS = (":", "#")
_SOURCE_IS_FIXTURE = 1  # the run's source is its fixture (a trace file of its own)
_WHOLE = 0xFFFFFFFF  # in `Runs._kind`: the run is held whole
# Places in a kind (the tuple `RunKinds.kind` makes) read without unpacking it all.
_STATUS, _VERDICT_KEY, _LABEL, _NO_CALLS, _DURATION_TYPE = 1, 4, 8, 12, 13
_INT64 = 2**63
_EXACT = 2**53  # an integer duration up to this is exact as a float


class UnreadTally:
    """What the view left unread over several runs: how many runs held unread content, how
    many of a kind checks read (`gated`), how many runs held each kind, and the entries
    summed by kind and reason (in the order met)."""

    __slots__ = ("entries", "gated_runs", "kinds", "runs")

    def __init__(self) -> None:
        self.runs = 0
        self.gated_runs = 0
        self.kinds: dict[str, int] = {}
        self.entries: dict[tuple[str, str], list[Any]] = {}  # (what, reason) -> [count, gated]

    def add(self, unread: list[dict[str, Any]]) -> None:
        self.runs += 1
        self.gated_runs += any(entry.get("gated") for entry in unread)
        for what in dict.fromkeys(str(entry.get("what")) for entry in unread):
            self.kinds[what] = self.kinds.get(what, 0) + 1
        for entry in unread:
            key = (str(entry.get("what")), str(entry.get("reason")))
            held = self.entries.setdefault(key, [0, bool(entry.get("gated"))])
            held[0] += entry.get("count") or 0

    def as_dict(self) -> dict[str, Any]:
        """A case row's `unread`: runs, gated_runs, kinds, entries."""
        return {
            "runs": self.runs,
            "gated_runs": self.gated_runs,
            "kinds": dict(self.kinds),
            "entries": [
                {"what": what, "count": count, "reason": reason, "gated": gated}
                for (what, reason), (count, gated) in self.entries.items()
            ],
        }


class RunKinds:
    """What runs have in common, held once: every field but the fixture's number, the tool
    calls and the duration, as one tuple (a *kind*) a run names by its index. 100,000 runs
    of 2,000 cases come in a few thousand kinds (a few statuses, verdicts and failed-check
    sets each). One table serves every case of a report (`group_results`)."""

    __slots__ = ("_checks", "_index", "table")

    def __init__(self) -> None:
        self.table: list[tuple[Any, ...]] = []
        self._index: dict[tuple[Any, ...], int] = {}
        # A check's fields -> (those fields, the check): a kind names its checks by their
        # fields, each held once however many kinds share the check.
        self._checks: dict[tuple[Any, ...], tuple[tuple[Any, ...], CheckResult]] = {}

    def _check(self, check: CheckResult) -> tuple[Any, ...]:
        key = (
            check.check,
            check.status,
            check.message,
            check.report_as,
            check.severity,
            check.blocking,
            check.examined,
        )
        return self._checks.setdefault(key, (key, check))[0]

    def kind(self, run: RunResult) -> tuple[int, int, int, float] | None:
        """(kind, number, tool calls, duration) of a run, or None when a run of this shape
        is held whole (a check with clauses, a count or duration no column holds exactly)."""
        calls, duration = run.tool_call_count, run.duration_ms
        if not _fits(calls, duration) or any(c.clauses for c in run.checks):
            return None
        label, number, source_form = _label(run.fixture, run.source)
        try:
            key = (
                run.case_id,
                run.status,
                run.error_reason,
                run.verdict,
                run.verdict_key,
                tuple(self._check(c) for c in run.checks),
                tuple(run.notes),
                source_form,
                label,
                run.checks_applied,
                run.checks_skipped,
                run.checks_unexamined,
                calls is None,
                type(duration),
                tuple(tuple(entry.items()) for entry in run.unread),
            )
            index = self._index.get(key)
        except TypeError:  # a field of a type no key can hold: the run stays whole
            return None
        if index is None:
            index = self._index[key] = len(self.table)
            self.table.append(key)
        return index, number, calls or 0, 0.0 if duration is None else float(duration)

    def run(
        self, kind: int, number: int, text: str | None, calls: int, duration: float
    ) -> RunResult:
        """The run of a kind and its numbers (`text`: its fixture, when the kind says so)."""
        (
            case_id,
            status,
            reason,
            verdict,
            verdict_key,
            checks,
            notes,
            source,
            label,
            applied,
            skipped,
            unexamined,
            no_calls,
            duration_type,
            unread,
        ) = self.table[kind]
        if label == _NO_FIXTURE:
            fixture = None
        elif label == _OWN_FIXTURE:
            fixture = text
        else:
            fixture = f"{source}{label}{number}"
        if source == _SOURCE_IS_FIXTURE:
            source = fixture
        return RunResult(
            case_id,
            status,
            reason,
            fixture,
            verdict,
            verdict_key,
            [self._checks[c][1] for c in checks],
            None if no_calls else calls,
            None if duration_type is type(None) else duration_type(duration),
            list(notes),
            source,
            applied,
            skipped,
            unexamined,
            [dict(entry) for entry in unread],
        )


def _fits(calls: Any, duration: Any) -> bool:
    """The tool calls and the duration fit their columns, to be read back as they are."""
    if calls is not None and not (type(calls) is int and -_INT64 <= calls < _INT64):
        return False
    exact = duration is None or type(duration) is float
    return exact or (type(duration) is int and -_EXACT <= duration <= _EXACT)


def _label(fixture: str | None, source: str | None) -> tuple[Any, int, Any]:
    """How a run's fixture is held (label, number) and its source (the text, or
    _SOURCE_IS_FIXTURE)."""
    if fixture is None:
        return _NO_FIXTURE, 0, source
    if source is not None and fixture != source:
        label, number = _numbered(fixture, source)
        if label != _OWN_FIXTURE:
            return label, number, source
    if source is not None and source == fixture:
        return _OWN_FIXTURE, 0, _SOURCE_IS_FIXTURE  # one trace file a run: not a kind a run
    return _OWN_FIXTURE, 0, source


def _numbered(fixture: str, source: str) -> tuple[Any, int]:
    """(separator, number) when `fixture` is `source` + separator + a number, as a JSON Lines
    line or a trace of a split file is named; else (_OWN_FIXTURE, 0)."""
    if len(fixture) > len(source) + 1 and fixture.startswith(source):
        separator, digits = fixture[len(source)], fixture[len(source) + 1 :]
        if separator in _SEPARATORS and digits.isascii() and digits.isdigit():
            number = int(digits)
            if str(number) == digits and number < _INT64:
                return separator, number
    return _OWN_FIXTURE, 0


class Runs(Sequence[RunResult]):
    """A case's runs, in order: read like a list of `RunResult`s, held in a few bytes a run.

    The runs the report may describe in full (the first, and the first that did not pass:
    see `representative`) are kept whole, as given, and so is a run no column can hold
    exactly; every other run is held column-wise: its kind (`RunKinds`: the fields many runs
    share) and its fixture's number, tool calls and duration in arrays, ~30 bytes instead of
    ~460. Reading such a run gives a new `RunResult` equal to the one appended, field for
    field and type for type (its checks are shared with other runs). Appended runs are
    read-only: the counts the case's status and the summary need (statuses, passed and
    vacuous runs, `totals`) are kept as runs are appended, so they cost nothing to read."""

    __slots__ = (
        "_calls",
        "_duration",
        "_first_not_passed",
        "_kind",
        "_kinds",
        "_number",
        "_texts",
        "_whole",
        "passed",
        "statuses",
        "totals",
        "unexamined",
        "unexamined_checks",
        "unread",
        "vacuous",
    )

    def __init__(self, runs: Iterable[RunResult] = (), kinds: RunKinds | None = None) -> None:
        self._kinds = kinds if kinds is not None else RunKinds()
        self._kind = array("I")
        self._number = array("q")
        self._calls = array("q")
        self._duration = array("d")
        self._whole: dict[int, RunResult] = {}
        self._texts: list[str] = []  # the fixtures of runs whose kind holds none (by number)
        self._first_not_passed: int | None = None
        self.statuses: dict[str, int] = {}  # status -> how many runs have it
        self.passed = 0
        self.vacuous = 0
        self.unexamined = 0  # runs that passed with a check that examined nothing
        self.unexamined_checks = 0  # over every run: checks that passed with nothing to examine
        # Over every run: checks applied, checks skipped, failed checks that did not fail
        # their run (the report's summary counts).
        self.totals = [0, 0, 0]
        # What the view left unread, over every run (`UnreadTally`); None until a run has some.
        self.unread: UnreadTally | None = None
        for run in runs:
            self.append(run)

    def append(self, run: RunResult) -> None:
        index = len(self._kind)
        self.statuses[run.status] = self.statuses.get(run.status, 0) + 1
        self.passed += run.status == PASS
        self.vacuous += run.vacuous
        self.unexamined += run.unexamined
        if run.unread:
            if self.unread is None:
                self.unread = UnreadTally()
            self.unread.add(run.unread)
        totals = self.totals
        totals[0] += run.checks_applied
        totals[1] += run.checks_skipped
        for check in run.checks:  # `failed_nonblocking`, inlined: this is per run
            if check.status == FAIL and not check.blocking:
                totals[2] += 1
        self.unexamined_checks += run.checks_unexamined
        found = None
        if run.status != PASS and self._first_not_passed is None:
            self._first_not_passed = index
        elif index:
            found = self._kinds.kind(run)
        if found is None:
            self._whole[index] = run
            found = (_WHOLE, 0, 0, 0.0)
        kind, number, calls, duration = found
        self._kind.append(kind)
        self._number.append(self._numbered(kind, number, run))
        self._calls.append(calls)
        self._duration.append(duration)

    def compact_first(self, run: RunResult) -> None:
        """Hold the first run as `run`, a copy of it with less kept (`Compactor.shrink`),
        once it no longer represents the case (a later run did not pass): it is then held
        like any other run. Nothing changes when the first run is the representative, or
        `run` is of a shape held whole."""
        if not self._kind or self._first_not_passed in (None, 0) or self._kind[0] != _WHOLE:
            return
        first = self._whole[0]
        if (run.status, run.checks_applied) != (first.status, first.checks_applied):
            return  # not the same run: the counts kept would no longer be its
        found = self._kinds.kind(run)
        if found is None:
            return
        kind, number, calls, duration = found
        del self._whole[0]
        self._kind[0], self._number[0] = kind, self._numbered(kind, number, run)
        self._calls[0], self._duration[0] = calls, duration

    def _numbered(self, kind: int, number: int, run: RunResult) -> int:
        """The number column's value: the run's own, or, when its kind holds no fixture,
        the index of its fixture kept in `_texts`."""
        if kind == _WHOLE or self._kinds.table[kind][_LABEL] != _OWN_FIXTURE:
            return number
        self._texts.append(run.fixture or "")
        return len(self._texts) - 1

    @property
    def representative(self) -> RunResult | None:
        """The first run that did not pass, else the first; None without runs."""
        if self._first_not_passed is not None:
            return self._whole[self._first_not_passed]
        return self._whole.get(0)

    def figures(self) -> Iterator[tuple[str, str | None, int | None, float | None]]:
        """(status, verdict_key, tool_call_count, duration_ms) of each run, in order: what the
        summary reads, without making each run's record."""
        table = self._kinds.table
        for index, kind in enumerate(self._kind):
            if kind == _WHOLE:
                r = self._whole[index]
                yield r.status, r.verdict_key, r.tool_call_count, r.duration_ms
                continue
            entry = table[kind]
            dtype = entry[_DURATION_TYPE]
            yield (
                entry[_STATUS],
                entry[_VERDICT_KEY],
                None if entry[_NO_CALLS] else self._calls[index],
                None if dtype is type(None) else dtype(self._duration[index]),
            )

    def __len__(self) -> int:
        return len(self._kind)

    def _run(self, index: int) -> RunResult:
        kind = self._kind[index]
        if kind == _WHOLE:
            return self._whole[index]
        number = self._number[index]
        kinds = self._kinds
        text = self._texts[number] if kinds.table[kind][_LABEL] == _OWN_FIXTURE else None
        return kinds.run(kind, number, text, self._calls[index], self._duration[index])

    @overload
    def __getitem__(self, index: int) -> RunResult: ...
    @overload
    def __getitem__(self, index: slice) -> list[RunResult]: ...
    def __getitem__(self, index: int | slice) -> RunResult | list[RunResult]:
        if isinstance(index, slice):
            return [self._run(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("run index out of range")
        return self._run(index)

    def __iter__(self) -> Iterator[RunResult]:
        for index in range(len(self._kind)):
            yield self._run(index)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Runs({list(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Runs, (list(self),))
