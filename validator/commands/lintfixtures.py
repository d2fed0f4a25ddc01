"""`lint --fixtures`: cases without a trace and traces without a case, found exactly as `run`
finds them: the same plan (`inputs.plan_fixtures`) and, for traces whose content names
their case, the same reading (`evaluation.tracefile.TraceReader`, `CaseIdRule`).

Files whose name (or folder) gives their case are not read. Files whose traces name their
case themselves (`traces.case_id`, JSON Lines entries) are: lint reports a trace whose case
id cannot be read (`no-case-id`), names no case (`orphan-fixture`), and a file that cannot be
read or split into traces at all (`unreadable-trace`). A single trace run would only fail
(a JSON Lines entry that is not JSON) is left to run, which reports it.
"""

from __future__ import annotations

from pathlib import Path

from ..evaluation.tracefile import CaseIdRule, Trace, TraceReader, fields_case_id
from ..inputs import (
    AMBIGUOUS,
    BAD_PICK,
    CONTENT,
    EMPTY_FOLDER,
    OUTSIDE,
    Job,
    Plan,
    display_path,
    plan_fixtures,
)
from ..loading.suite import LoadResult
from ..loading.yamlfile import Position
from ..model import TraceFields, TraceSettings
from ..problems import WARNING, Problem, UsageError, did_you_mean
from ..traces import DEFAULT_MAX_TRACE_BYTES, TraceError, read_trace_file

CaseIds = dict[str, tuple[str, Position]]


def fixture_problems(
    fixtures: Path,
    loaded: LoadResult,
    settings: TraceSettings | None = None,
    follow_links: bool = False,
) -> list[Problem]:
    """Cases without a trace and traces without a case, found as `run` finds them."""
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
    )
    out = [_missing(plan, c, case_ids, loaded) for c in sorted(plan.missing)]
    for name, stem in plan.orphans:
        hint = did_you_mean(stem, case_ids)
        message = (
            f"this trace matches no case: no case has the id '{stem}'{hint}; rename it"
            " after its case id, or add the case (run lists it as matching no case, and fails)"
        )
        out.append(Problem(display_path(fixtures / name), 1, 1, WARNING, "orphan-fixture", message))
    found = {case for src in plan.sources if src.how != CONTENT for case in src.cases}
    if any(src.how == CONTENT for src in plan.sources):
        reading = _Reading(plan, settings, loaded.fields, case_ids, follow_links)
        out += reading.problems()
        found |= reading.found
    if settings.case_id is not None or plan.single:
        out += _no_trace(plan, settings, case_ids, found)
    return out


def _missing(plan: Plan, case_id: str, case_ids: CaseIds, loaded: LoadResult) -> Problem:
    kind = plan.missing[case_id]
    file, at = case_ids[case_id]
    shown = plan.shown
    if kind == OUTSIDE:
        code = "fixture-outside"
        msg = (
            f"case '{case_id}': {shown}/{case_id}/ is a symbolic link to a folder outside"
            f" {shown}; run refuses to read it (error) unless given --follow-symlinks"
        )
    elif kind == AMBIGUOUS:
        code = "ambiguous-fixture"
        msg = (
            f"case '{case_id}' has two fixtures, {plan.details[case_id]}: run reports an"
            " error for it; keep one"
        )
    elif kind == BAD_PICK:
        code = "no-fixture"
        at = loaded.picks[case_id][1]
        msg = f"case '{case_id}': {plan.details[case_id]} (run reports an error for the case)"
    else:
        code = "no-fixture"
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
        out.append(Problem(file, at.line, at.column, WARNING, "no-fixture", message))
    return out


class _Reading:
    """Reads the files whose traces name their own case, as the run's workers do."""

    def __init__(
        self,
        plan: Plan,
        settings: TraceSettings,
        fields: TraceFields | None,
        case_ids: CaseIds,
        follow_links: bool,
    ) -> None:
        self.plan = plan
        self.settings = settings
        self.fields = fields
        self.case_ids = case_ids
        self.rule = CaseIdRule(settings.case_id) if settings.case_id else None
        root = None if plan.single or follow_links else plan.fixtures
        self.reader = TraceReader(
            settings, lambda path: read_trace_file(path, root, DEFAULT_MAX_TRACE_BYTES), root
        )
        self.found: set[str] = set()

    def problems(self) -> list[Problem]:
        out: list[Problem] = []
        for job in self.plan.jobs(kinds=(CONTENT,)):
            try:
                for trace in self.reader.traces(job):
                    out += self._trace(job, trace)
            except TraceError as exc:
                if job.text is None or self.rule is not None:
                    out.append(self._problem(job, None, "unreadable-trace", str(exc)))
        return out

    def _problem(self, job: Job, trace: Trace | None, code: str, message: str) -> Problem:
        file = job.source or job.fixture
        line = trace.line if trace is not None else _line(job)
        where = f"{trace.label}: " if trace is not None and trace.label != file else ""
        return Problem(file, line, 1, WARNING, code, where + message)

    def _trace(self, job: Job, trace: Trace) -> list[Problem]:
        if trace.error is not None:
            if self.rule is None:
                return []  # a JSON Lines entry run cannot read: run reports it
            return [self._problem(job, trace, "unreadable-trace", trace.error)]
        case_id, error = self._case_id(job, trace)
        if error is not None:
            return [self._problem(job, trace, "no-case-id", error)]
        assert case_id is not None
        self.found.add(case_id)
        if case_id in self.case_ids:
            return []
        message = (
            f"this trace's case id '{case_id}' matches no case"
            f"{did_you_mean(case_id, self.case_ids)}: fix the trace, or add the case (run"
            " lists it as matching no case, and fails)"
        )
        return [self._problem(job, trace, "orphan-fixture", message)]

    def _case_id(self, job: Job, trace: Trace) -> tuple[str | None, str | None]:
        if self.rule is not None:
            return self.rule.case_id(trace.document, job.path or job.source or "")
        if self.fields is None:
            return None, "no usable trace-fields spec says where traces keep their case id"
        named, error = fields_case_id(self.fields, trace.document)
        if named is None and error is None:
            where = self.fields.expression("case_id")
            return None, f"the trace has no {where}, so no case can be matched"
        return named, error


def _line(job: Job) -> int:
    tail = job.fixture.rsplit(":", 1)[-1]
    return int(tail) if job.text is not None and tail.isdigit() else 1
