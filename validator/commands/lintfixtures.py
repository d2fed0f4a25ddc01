"""`lint --fixtures`: the traces, found and read exactly as `run` finds and reads them: the
same plan (`inputs.plan_fixtures`) and the same reading (`evaluation.tracefile.TraceReader`,
`CaseIdRule`).

Every trace file the plan uses is read (and the strays, whose name names no case): a file
that is not JSON (`trace-json`, at the character at fault: a trailing comma at the comma)
or not UTF-8 (`trace-encoding`, naming the encoding found) is an error, since run can only
report its case as an error; one that cannot be read or split into traces otherwise is
`unreadable-trace`. Lint reports cases without a trace (`no-fixture`), traces without a case
(`orphan-fixture`), strays whose case id field names a case (`misnamed-trace`), and traces
whose case id cannot be read (`no-case-id`). A JSON Lines entry of an export whose only
fault is not being an object is left to run, which reports it. Just over 600 lines, one
concept: every finding needs the same plan and the same reading as run's.

Without a `tools:` declaration, the tool names the readable traces call are what is known
of the agent's tools: a tool name a case writes that none of them calls is
`tool-never-called`. A trace tells which tools it calls through its view (`$.view`
tool calls, when an adapter reads its shape) and through the queries of the checks that
read a tool-name input (`items: {case: required_tools}` over
`$[*].message.content[?(@.type == 'tool_use')].name`: the text they find is tool names).
A trace that tells nothing either way (no adapter reads it, no such query finds text in it)
teaches nothing, as a trace that cannot be read; when no trace tells, nothing is said.
The calls each trace holds also meet the call entries' `ignore` lists (`lintignore`).
The specs' queries and item keys are evaluated on the readable traces too
(`lintqueries`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .. import codes
from ..display import shorten
from ..evaluation.context import TraceContext
from ..evaluation.query import QueryEvaluationError, reads_view
from ..evaluation.tracefile import (
    CaseIdRule,
    Trace,
    TraceReader,
    fields_case_id,
    reads_whole_files,
)
from ..evaluation.view import LEFT_NULL, NO_ADAPTER, read_by_checks, unread_text
from ..inputs import (
    AMBIGUOUS,
    BAD_PICK,
    CONTENT,
    EMPTY_FOLDER,
    HARD_KINDS,
    OUTSIDE,
    Job,
    Plan,
    display_path,
    plan_fixtures,
)
from ..loading.suite import LoadResult
from ..loading.tools import ToolName, is_glob, is_known, listing, remembered_suggestion
from ..loading.yamlfile import Position
from ..model import Binding, Finder, TraceFields, TraceSettings
from ..problems import ERROR, WARNING, Names, Problem, UsageError, counted, did_you_mean
from ..traces import (
    DEFAULT_MAX_TRACE_BYTES,
    ParsedTrace,
    TraceError,
    has_utf8_bom,
    parse_trace,
    read_trace_bytes,
)
from .lintignore import IgnoreLint
from .lintqueries import QueryProbes
from .strays import misnamed_advice, named_case

CaseIds = dict[str, tuple[str, Position]]


def fixture_problems(
    fixtures: Path,
    loaded: LoadResult,
    settings: TraceSettings | None = None,
    follow_links: bool = False,
    config: Any = None,
) -> list[Problem]:
    """Cases without a trace and traces without a case, found as `run` finds them.
    `config`: the suite config (a `traces.split` that matches one list of traces is reported
    at its line)."""
    settings = settings or TraceSettings()
    shown = display_path(fixtures)
    if not (fixtures.is_dir() or fixtures.is_file()):
        raise UsageError(
            f"fixtures {fixtures} is neither a folder nor a file: pass --fixtures with the"
            " folder of saved traces"
        )
    case_ids = loaded.case_ids
    plan = plan_fixtures(
        sorted(case_ids),
        fixtures,
        shown,
        follow_links=follow_links,
        patterns=settings.pattern,
        by_name=settings.case_id is None,
        picks={case_id: pick for case_id, (pick, _) in loaded.picks.items()},
        format=settings.format,
        group=settings.group,
        whole_files=reads_whole_files(settings),
        ignore=settings.ignore,
    )
    probes = QueryProbes(loaded.suite, settings)
    reading = _Reading(plan, settings, loaded.fields, case_ids, follow_links, probes)
    reading.tool_queries = _tool_queries(loaded)
    reading.ignores = IgnoreLint(loaded)
    out = reading.problems()
    out += probes.problems()
    # A case a JSON Lines entry names has a trace, whatever its name finds (as in run).
    out += [
        _missing(plan, c, case_ids, loaded)
        for c in sorted(plan.missing)
        if plan.missing[c] in HARD_KINDS or c not in reading.found
    ]
    out += _orphans(
        plan, fixtures, reading.suggested, reading.misnamed, settings, _unreadable(loaded)
    )
    found = {case for src in plan.sources if src.how != CONTENT for case in src.cases}
    found |= reading.found
    if settings.case_id is not None or plan.single:
        out += _no_trace(plan, settings, case_ids, found)
    if loaded.tools is None:
        out += _never_called(_not_wrong(loaded), reading)
    if _checks_read_the_view(loaded):  # else nothing unread can pass a check unseen
        out += reading.views.problems()
    out += reading.ignores.problems()
    out += _split_lists(reading, settings, config, bool(reading.found & set(case_ids)))
    return out


def _checks_read_the_view(loaded: LoadResult) -> bool:
    """Whether a check of the suite reads `$.view` (a query, or a guard's)."""
    suite = loaded.suite
    if suite is None:
        return False
    for spec in suite.specs.values():
        for clause in spec.clauses:
            conditions = [clause.condition, *(g for g in (clause.when, clause.unless) if g)]
            for condition in conditions:
                if any(reads_view(q.expression) for q in condition.queries):
                    return True
    return False


class ViewTally:
    """Per view adapter, over the traces lint read: how many it viewed, how many held unread
    content, the unread entries summed (in the order met), and the first trace holding
    content of a kind checks read (where `view-unread` is reported)."""

    def __init__(self) -> None:
        self.viewed: dict[str, int] = {}
        self.holding: dict[str, int] = {}
        self.entries: dict[str, dict[tuple[str, str], int]] = {}
        self.first: dict[str, tuple[str, Trace]] = {}

    def add(self, adapter: str, unread: list[dict[str, Any]], where: tuple[str, Trace]) -> None:
        self.viewed[adapter] = self.viewed.get(adapter, 0) + 1
        if not unread:
            return
        self.holding[adapter] = self.holding.get(adapter, 0) + 1
        summed = self.entries.setdefault(adapter, {})
        for entry in unread:
            key = (str(entry.get("what")), str(entry.get("reason")))
            summed[key] = summed.get(key, 0) + (entry.get("count") or 0)
        if adapter not in self.first and any(read_by_checks(e) for e in unread):
            self.first[adapter] = where

    def problems(self) -> list[Problem]:
        """One `view-unread` warning per adapter that left content of a kind checks read
        unread, listing everything it left unread (content that is no call included)."""
        out = []
        for adapter, (file, trace) in self.first.items():
            entries = [
                {"what": what, "reason": reason, "count": count}
                for (what, reason), count in self.entries[adapter].items()
            ]
            gated = [e for e in entries if read_by_checks(e)]
            null = [e for e in entries if e["what"] in LEFT_NULL]
            other = [e for e in entries if not read_by_checks(e) and e not in null]
            viewed, holding = self.viewed[adapter], self.holding[adapter]
            message = (
                f"the {adapter} adapter made the view ($.view) of {counted(viewed, 'trace')}; in"
                f" {holding} of them it could not read content of a kind checks read:"
                f" {unread_text(gated)}"
                + (f"; read for errors and times only: {unread_text(other)}" if other else "")
                + (f"; left null (a check on it fails): {unread_text(null)}" if null else "")
                + f" (first in {trace.label}). A check on $.view may pass without seeing it:"
                " run --fail-on unread fails such runs; name the adapter that reads this shape"
                " with traces.view (docs/VIEW.md)"
            )
            out.append(Problem(file, trace.line, 1, WARNING, codes.VIEW_UNREAD, message))
        return out


def _split_lists(
    reading: _Reading, settings: TraceSettings, config: Any, any_case: bool
) -> list[Problem]:
    """`split: $.simulations` where `$.simulations[*]` was meant: the one match is a list of
    objects, each a trace, read as one trace. An error when then no case matches a trace
    (run would run none), else a warning."""
    if not reading.split_lists or settings.split is None:
        return []
    count = reading.split_lists[0]
    doc = getattr(config, "doc", None)
    file = getattr(config, "file", "validator.yaml")
    at = doc.value_at(("traces", "split")) if doc is not None else Position(1, 1)
    meant = settings.split.rstrip() + "[*]"
    message = (
        f"split's match is one list of {count} objects that each look like a trace:"
        f" did you mean {meant}? (each match of split is one trace; this one reads the whole"
        " list as a single trace)"
    )
    severity = WARNING if any_case else ERROR
    return [
        Problem(
            file,
            at.line,
            at.column,
            severity,
            codes.SPLIT_MATCHES_A_LIST,
            message,
            fix=f"split: {meant}",
        )
    ]


def _run_says(settings: TraceSettings) -> str:
    """What run does with a trace that matches no case, as the suite's settings decide."""
    if settings.allow_unmatched:
        return "run lists it as matching no case; traces.allow_unmatched: true, so it does not fail"
    return "run lists it as matching no case, and fails"


def _unreadable(loaded: LoadResult) -> dict[str, str]:
    """The files with an error whose id was not read (file name stem -> file): a trace
    named after one is not a stray, its case is the file to fix."""
    read = {file for file, _ in loaded.case_ids.values()}
    return {
        Path(p.file).stem: p.file
        for p in loaded.problems
        if p.severity == ERROR and p.file not in read and p.file.endswith((".yaml", ".yml"))
    }


def _orphans(
    plan: Plan,
    fixtures: Path,
    suggested: Names,
    misnamed: set[str],
    settings: TraceSettings,
    unreadable: dict[str, str] | None = None,
) -> list[Problem]:
    """Files whose name names no case (a misnamed one is said by misnamed-trace)."""
    out = []
    for name, stem in plan.orphans:
        if plan.label(name) in misnamed:
            continue
        hint = did_you_mean(stem, suggested)
        message = (
            f"this trace matches no case: no case has the id '{stem}'{hint}; rename it"
            f" after its case id, or add the case ({_run_says(settings)})"
        )
        broken = (unreadable or {}).get(stem)
        if broken is not None and not hint:
            message = (
                f"this trace matches no case because its case file, {broken}, has an error:"
                " fix that file first (its error is listed with it)"
            )
        out.append(
            Problem(display_path(fixtures / name), 1, 1, WARNING, codes.ORPHAN_FIXTURE, message)
        )
    return out


def _tool_queries(loaded: LoadResult) -> tuple[Finder, ...]:
    """The queries of the checks that read a tool-name input (a parameter bound to
    `{case: required_tools}`), but for those on the view, which the view already tells."""
    keys = {tool.key for tool in loaded.tool_names}
    if loaded.suite is None or not keys:
        return ()
    out: dict[str, Finder] = {}
    for spec in loaded.suite.specs.values():
        for clause in spec.clauses:
            condition = clause.condition
            if any(isinstance(v, Binding) and v.case in keys for v in condition.params.values()):
                for query in condition.queries:
                    if not reads_view(query.expression):
                        out.setdefault(query.expression, query)
    return tuple(out.values())


def _not_wrong(loaded: LoadResult) -> list[ToolName]:
    """The tool names written, less those already an error where they stand
    (`-mysql_slow_log`): one mistake is told once, there."""
    wrong = {(p.file, p.line, p.column) for p in loaded.problems if p.severity == ERROR}
    return [t for t in loaded.tool_names if (t.file, t.line, t.column) not in wrong]


def _never_called(names: list[ToolName], reading: _Reading) -> list[Problem]:
    """Without a `tools:` declaration, the tools the traces that tell call are what is
    known: a tool name a case writes that none of them calls is a warning."""
    if not reading.told:
        return []  # nothing learned: no trace told which tools it calls
    called = reading.tools
    partly = (
        f"; {reading.failed} could not be read, see their own problems" if reading.failed else ""
    )
    seen = f"the traces call {listing(called)}" if called else "no trace calls any tool"
    out = []
    hints: dict[str, str] = {}
    for tool in names:
        if is_known(tool.name, called) or (not tool.globs and is_glob(tool.name)):
            continue  # a glob where none may stand is a tool-glob error already
        what = (
            f"the pattern '{tool.name}' matches no tool"
            if is_glob(tool.name)
            else f"no trace calls a tool '{tool.name}'"
        )
        hint = remembered_suggestion(hints, tool.name, called)
        message = (
            f"{tool.key}: {what}{hint}: lint read"
            f" {reading.told} trace{'' if reading.told == 1 else 's'} ({seen}{partly}); fix"
            " the name, or declare the agent's tools with `tools:` in validator.yaml"
        )
        out.append(
            Problem(tool.file, tool.line, tool.column, WARNING, codes.TOOL_NEVER_CALLED, message)
        )
    return out


def _missing(plan: Plan, case_id: str, case_ids: CaseIds, loaded: LoadResult) -> Problem:
    kind = plan.missing[case_id]
    file, at = case_ids[case_id]
    shown = plan.shown
    if kind == OUTSIDE:
        code = codes.FIXTURE_OUTSIDE
        msg = (
            f"case '{case_id}': {shown}/{case_id}/ is a symbolic link to a folder outside"
            f" {shown}; run refuses to read it (error) unless given --follow-symlinks"
        )
    elif kind == AMBIGUOUS:
        code = codes.AMBIGUOUS_FIXTURE
        msg = (
            f"case '{case_id}' has two fixtures, {plan.details[case_id]}: run reports an"
            " error for it; keep one"
        )
    elif kind == BAD_PICK:
        code = codes.NO_FIXTURE
        at = loaded.picks[case_id][1]
        msg = f"case '{case_id}': {plan.details[case_id]} (run reports an error for the case)"
    else:
        code = codes.NO_FIXTURE
        looked = (
            f"{shown}/{case_id}/ holds no {plan.pattern_words()}"
            if kind == EMPTY_FOLDER
            else f"there is no {shown}/{case_id}.json (nor {shown}/{case_id}/*.json)"
        )
        msg = (
            f"case '{case_id}' has no saved trace: {looked}; save its trace there, or"
            " run reports the case as not run"
        )
    return Problem(file, at.line, at.column, WARNING, code, msg)


def _no_trace(
    plan: Plan, settings: TraceSettings, case_ids: CaseIds, found: set[str]
) -> list[Problem]:
    """Cases no trace names, when traces name their cases (no file names to look for)."""
    out = []
    how = (
        f"traces.case_id {settings.case_id}"
        if settings.case_id is not None
        else "their case id field"
    )
    for case_id, (file, at) in sorted(case_ids.items()):
        if case_id in found or case_id in plan.missing:
            continue
        message = (
            f"case '{case_id}' has no saved trace: no trace under {plan.shown} names it (by"
            f" {how}); add one, or run reports the case as not run"
        )
        out.append(Problem(file, at.line, at.column, WARNING, codes.NO_FIXTURE, message))
    return out


class _Reading:
    """Reads every trace file the plan uses (and the strays), as the run's workers do: JSON
    and encoding mistakes at their place, each trace's case where its content names it, and
    the tool names the traces call."""

    def __init__(
        self,
        plan: Plan,
        settings: TraceSettings,
        fields: TraceFields | None,
        case_ids: CaseIds,
        follow_links: bool,
        probes: QueryProbes | None = None,
    ) -> None:
        self.plan = plan
        self.probes = probes
        self.settings = settings
        self.fields = fields
        self.case_ids = case_ids
        self.suggested = Names(case_ids)  # a did-you-mean for each id that names no case
        self.rule = CaseIdRule(settings.case_id) if settings.case_id else None
        self.root = None if plan.single or follow_links else plan.fixtures
        self.reader = TraceReader(settings, self._read_object, self.root)
        self.found: set[str] = set()
        self.split_lists: list[int] = []  # a split match that is a list of traces: its size
        self.tools: set[str] = set()  # every tool name a readable trace calls
        self.read = 0  # traces read
        self.told = 0  # traces that told which tools they call (see the module's docstring)
        self.tool_queries: tuple[Finder, ...] = ()
        self.ignores = IgnoreLint(None)  # the call entries' `ignore` lists, and what they meet
        self.failed = 0  # files (or JSON Lines entries) that could not be read
        self.out: list[Problem] = []
        self.misnamed: set[str] = set()  # stray files (as shown) whose case id names a case
        self.views = ViewTally()  # per adapter: traces viewed, and what was left unread

    def _read_object(self, path: str) -> ParsedTrace:
        data = read_trace_bytes(path, self.root, DEFAULT_MAX_TRACE_BYTES)
        if has_utf8_bom(data):
            message = (
                "the file starts with a UTF-8 byte-order mark: run reads it, but many JSON"
                " tools refuse it; re-save it as UTF-8 without a byte-order mark"
            )
            self.out.append(
                Problem(display_path(path), 1, 1, WARNING, codes.TRACE_ENCODING, message)
            )
        return parse_trace(data)

    def problems(self) -> list[Problem]:
        for job in self.plan.jobs():
            try:
                for trace in self.reader.traces(job):
                    self.out += self._trace(job, trace)
            except TraceError as exc:
                self.failed += 1
                self._unreadable(job, exc)
        return self.out

    def _unreadable(self, job: Job, exc: TraceError) -> None:
        if exc.kind in _READ_CODES:
            line = (exc.line or 1) + _line(job) - 1
            self.out.append(_read_problem(job.source or job.fixture, line, exc, _effect(job)))
        elif job.text is None or self.rule is not None:
            self.out.append(self._problem(job, None, codes.UNREADABLE_TRACE, str(exc)))

    def _problem(self, job: Job, trace: Trace | None, code: str, message: str) -> Problem:
        file = job.source or job.fixture
        line = trace.line if trace is not None else _line(job)
        where = f"{trace.label}: " if trace is not None and trace.label != file else ""
        return Problem(file, line, 1, WARNING, code, where + message)

    def _trace(self, job: Job, trace: Trace) -> list[Problem]:
        if trace.error is not None:
            self.failed += 1
            if trace.error_kind in _READ_CODES:
                exc = TraceError(trace.error, 1, trace.column, trace.error_kind)
                return [_read_problem(job.source or job.fixture, trace.line, exc, _effect(job))]
            if self.rule is None:
                return []  # a JSON Lines entry run cannot read: run reports it
            return [self._problem(job, trace, codes.UNREADABLE_TRACE, trace.error)]
        self.read += 1
        self._note_split_list(trace)
        self._learn(job, trace)
        if self.probes is not None:
            self.probes.see(trace)
        if job.unmatched is not None:
            return self._stray(job, trace)
        if job.case_id is not None and not job.names_cases:
            return self._other_case(job, trace)  # its name gives its case
        case_id, error = self._case_id(job, trace)
        if error is not None:
            if job.names_cases:
                return []  # a case's fixture: key picks it: it has a case (as in run)
            return [self._problem(job, trace, codes.NO_CASE_ID, error)]
        assert case_id is not None
        self.found.add(case_id)
        if case_id in self.case_ids or self.settings.allow_unmatched:
            return []  # traces.allow_unmatched: run lists it without failing, as it was told
        message = (
            f"this trace's case id '{shorten(case_id)}' matches no case"
            f"{did_you_mean(case_id, self.suggested)}: fix the trace, or add the case"
            f" ({_run_says(self.settings)})"
        )
        return [self._problem(job, trace, codes.ORPHAN_FIXTURE, message)]

    def _note_split_list(self, trace: Trace) -> None:
        """A split match that is a list of objects (each a trace): `[*]` was left out."""
        document = trace.document
        if (
            trace.parent is not None
            and isinstance(document, list)
            and len(document) > 1
            and all(isinstance(d, dict) and d for d in document)
        ):
            self.split_lists.append(len(document))

    def _learn(self, job: Job, trace: Trace) -> None:
        ctx = TraceContext(trace.document, self.settings.view, self.settings.messages, trace.parent)
        try:
            view = ctx.view_document()["view"]
        except ValueError:  # an unknown adapter: the config's own problem says so
            return
        adapter = ctx.view_adapter or NO_ADAPTER
        self.views.add(adapter, view.get("unread") or [], (job.source or job.fixture, trace))
        told = adapter != NO_ADAPTER
        for call in view.get("tool_calls") or ():
            if isinstance(call, dict) and isinstance(call.get("name"), str):
                self.tools.add(call["name"])
        for query in self.tool_queries:
            try:
                names = [v for v in ctx.find(query) if isinstance(v, str)]
            except QueryEvaluationError:
                continue  # run reports the check that cannot be evaluated
            told = told or bool(names)
            self.tools.update(names)
        self.told += told
        self.ignores.see(ctx)

    def _other_case(self, job: Job, trace: Trace) -> list[Problem]:
        """A file its name files under one case whose case id field names another: run
        reports that run as an error (a case's `fixture:` key picks files whatever they say)."""
        named = named_case(trace.document, self.fields)
        if job.picked or named is None or named == job.case_id or job.path is None:
            return []
        line, column = _key_position(job.path, self.fields) if trace.line <= 1 else (trace.line, 1)
        where = self.fields.expression("case_id") if self.fields is not None else "case_id"
        if named in self.case_ids:
            known = f"case '{named}'"
            fix = f", or move it to {self.plan.shown}/{named}.json (or {self.plan.shown}/{named}/)"
        else:
            known = f"'{shorten(named)}', which is no case{did_you_mean(named, self.suggested)}"
            fix = ""
        message = (
            f"its file name files it under case '{job.case_id}', but its {where} names"
            f" {known}: run reports this run as an error; fix the trace's {where}{fix}"
        )
        return [Problem(job.fixture, line, column, ERROR, codes.TRACE_CASE_MISMATCH, message)]

    def _stray(self, job: Job, trace: Trace) -> list[Problem]:
        """A file whose name names no case, whose case id field may name one."""
        case_id = named_case(trace.document, self.fields)
        if case_id is None or case_id not in self.case_ids:
            return []  # the orphan-fixture warning from its name says it all
        assert job.path is not None
        self.misnamed.add(job.fixture)
        rel = (
            Path(job.path).relative_to(self.plan.fixtures).as_posix()
            if self.plan.fixtures
            else job.fixture
        )
        line, column = _key_position(job.path, self.fields)
        message = misnamed_advice(rel, case_id, self.plan.shown)
        return [Problem(job.fixture, line, column, WARNING, codes.MISNAMED_TRACE, message)]

    def _case_id(self, job: Job, trace: Trace) -> tuple[str | None, str | None]:
        if self.rule is not None:
            return self.rule.case_id(trace.document, job.path or job.source or "", trace.place)
        if self.fields is None:
            return None, "no usable trace-fields spec says where traces keep their case id"
        named, error = fields_case_id(self.fields, trace.document)
        if named is None and error is None:
            where = self.fields.expression("case_id")
            return None, f"the trace has no {where}, so no case can be matched"
        return named, error


_READ_CODES = {
    "json": codes.TRACE_JSON,
    "extra-data": codes.TRACE_JSON,
    "encoding": codes.TRACE_ENCODING,
}
_INVALID_AT = re.compile(r"^invalid JSON at line \d+ column \d+: ")


def _effect(job: Job) -> str:
    if job.unmatched is not None:
        return "it matches no case either"
    if job.case_id is not None:
        return f"run reports case '{job.case_id}' as an error until it is fixed"
    return "run cannot tell which case it belongs to, and fails"


def _read_problem(file: str, line: int, exc: TraceError, effect: str) -> Problem:
    """A trace that is not valid JSON, or not UTF-8: an error at the character at fault."""
    code = _READ_CODES[exc.kind or "json"]
    text = _INVALID_AT.sub("not valid JSON: ", str(exc))
    return Problem(file, line, exc.column or 1, ERROR, code, f"{text} ({effect})")


def _key_position(path: str, fields: TraceFields | None) -> tuple[int, int]:
    """Where the case id field's key is written (`"caseId"`) when the field is a plain
    `$.name`; else the start of the file."""
    expression = fields.expression("case_id") if fields is not None else ""
    match = re.fullmatch(r"\$\.([A-Za-z_][A-Za-z0-9_]*)", expression)
    if match is None:
        return 1, 1
    try:
        text = Path(path).read_text("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return 1, 1
    at = text.find(f'"{match.group(1)}"')
    if at < 0:
        return 1, 1
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


def _line(job: Job) -> int:
    tail = job.fixture.rsplit(":", 1)[-1]
    return int(tail) if job.text is not None and tail.isdigit() else 1
