"""The worker: reads one job (a trace file, a JSON Lines line), parses it and evaluates each
of its traces against its case; one per process (this one, or a worker process's).

Traces are read one at a time, in the worker that evaluates them, so memory does not grow
with the number of traces.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from ..dependencies import missing_dependency
from ..inputs import Job
from ..model import Suite, TraceSettings
from ..results import ERROR, RunResult
from ..traces import DEFAULT_MAX_TRACE_BYTES, ParsedTrace, TraceError, read_trace_file
from .compaction import Compactor
from .evaluator import Evaluator, set_aside
from .tracefile import CaseIdRule, Trace, TraceReader


def guess_case_id(job: Job, text: str | None = None) -> str | None:
    """For a JSON Lines trace that cannot be parsed (the job's line, or `text`): the caseId
    it seems to name, if any (JSON escapes decoded, so `"c\\u0032"` names case c2, as a
    parsed line would)."""
    match = _CASE_ID.search(text or job.text or "")
    if match is None:
        return None
    try:
        found = json.loads(f'"{match.group(1)}"')
    except ValueError:
        return match.group(1)
    return found if isinstance(found, str) else None


_CASE_ID = re.compile(r'"caseId"\s*:\s*"((?:[^"\\]|\\.)*)"')
_PLAIN_CASE_ID = re.compile(r'"caseId"\s*:\s*"([^"\\]*)"')
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def top_case_id(text: str) -> str | None:
    """The caseId a JSON Lines line names at its top level, read without parsing the line,
    when that is certain: `"caseId"` written once, as a key whose value is text without
    escapes, one bracket deep by the brackets before it (strings left out). None when not
    certain (the line is then parsed as usual). A line that turns out not to be JSON would
    name the same case by `guess_case_id`, so its run goes where this says."""
    found = _PLAIN_CASE_ID.search(text)
    if found is None or text.count('"caseId"') != 1:
        return None
    head = _STRING.sub("", text[: found.start()]).strip()
    depth = head.count("{") + head.count("[") - head.count("}") - head.count("]")
    return found.group(1) if head[:1] == "{" and depth == 1 else None


class Worker:
    """Reads, parses and evaluates traces: one per process (this one, or a pool's).

    A job is a file (or one JSON Lines line) read here, once, whatever it holds: one trace,
    or several (`traces.split`, OpenTelemetry exports), each for the case the plan gave the
    file, or for the case it names itself (`traces.case_id`, JSON Lines' case id). Its runs
    come back together, in file order, so results are in the same order for any --jobs."""

    def __init__(
        self,
        suite: Suite,
        max_bytes: int = DEFAULT_MAX_TRACE_BYTES,
        root: Path | None = None,
        settings: TraceSettings | None = None,
        aside: frozenset[str] = frozenset(),
    ) -> None:
        self.settings = settings or suite.traces
        self.evaluator = Evaluator(suite, self.settings, aside)
        self.max_bytes = max_bytes
        self.root = root
        self.reader = TraceReader(self.settings, self._read_object, root, max_bytes)
        self.rule = CaseIdRule(self.settings.case_id) if self.settings.case_id else None
        # A JSON Lines line of a case set aside is known from its text, unparsed, when its
        # case is read from a plain top-level caseId (see `top_case_id`).
        plain = (
            self.rule is None
            and self.settings.split is None
            and self.settings.group is None
            and suite.fields.expression("case_id") == "$.caseId"
        )
        self.aside = aside if plain else frozenset()

    def _read_object(self, path: str) -> ParsedTrace:
        # Looked up in this module when called, so tests can stand in for the disk.
        return read_trace_file(path, self.root, self.max_bytes)

    def __call__(self, job: Job) -> RunResult:
        """The run of a job that holds one trace (a JSON file, a JSON Lines line); for a
        file that may hold several, `runs` gives them all. Never raises."""
        return self.runs(job)[0]

    def runs(self, job: Job, compact: Compactor | None = None) -> list[RunResult]:
        """Read one job and evaluate each of its traces, in file order. Never raises.
        `compact`: the compaction its runs go to next, which says what it will keep of
        each, so that what it would drop is not made (`Compactor.brevity`)."""
        aside = self._set_aside(job)
        if job.unmatched is not None:  # known from its name alone: not read
            out = [RunResult(job.case_id or "?", ERROR, job.unmatched, job.fixture)]
        elif aside is not None:
            out = [set_aside(aside, job.fixture)]
        elif job.problem is not None:  # known before reading: a JSON Lines line too long
            out = self._errors(job, job.problem, job.fixture)
        else:
            out = self._read_and_evaluate(job, compact)
        source = job.source or job.fixture
        for run in out:
            run.source = source
        return out

    def _set_aside(self, job: Job) -> str | None:
        """The case id of a JSON Lines line of a case set aside, read from its text; None
        when the line is to be read (its case is evaluated here, or not known unparsed)."""
        if not self.aside or job.text is None or job.case_id is not None or job.problem:
            return None
        case_id = top_case_id(job.text)
        return case_id if case_id in self.aside else None

    def _read_and_evaluate(self, job: Job, compact: Compactor | None) -> list[RunResult]:
        out: list[RunResult] = []
        try:
            for trace in self.reader.traces(job):
                out.extend(self._trace_runs(job, trace, compact))
        except TraceError as exc:
            out.extend(self._errors(job, str(exc), job.fixture))
        except MemoryError:
            reason = "not enough memory to read and parse this trace: raise the memory limit, or split the trace"
            out.extend(self._errors(job, reason, job.fixture))
        except Exception as exc:  # a bug must cost one file, not the run
            missing = missing_dependency(exc)
            reason = (
                f"cannot read this trace: {missing}"
                if missing is not None
                else f"internal error while reading this trace (please report it as a bug): {exc!r}"
            )
            out.extend(self._errors(job, reason, job.fixture, guess=False))
        if not out:
            out.extend(self._errors(job, "the file holds no trace (only blank lines)", job.fixture))
        return out

    def _errors(
        self, job: Job, reason: str, label: str, guess: bool = True, text: str | None = None
    ) -> list[RunResult]:
        """An error run for each case the job is for (or the one a broken line seems to name)."""
        if job.case_id is not None:
            cases: tuple[str, ...] = (job.case_id, *job.more_cases)
        else:
            named = guess_case_id(job, text) if guess and self.rule is None else None
            cases = (named or "?",)
        return [RunResult(case_id, ERROR, reason, label) for case_id in cases]

    def _trace_runs(self, job: Job, trace: Trace, compact: Compactor | None) -> list[RunResult]:
        if trace.error is not None:
            return self._errors(job, trace.error, trace.label, text=trace.text)
        own_id = not job.picked
        cases: tuple[str | None, ...] = (job.case_id, *job.more_cases)
        if job.names_cases and job.case_id is not None:
            cases = self._picked_and_named(job, trace, (job.case_id, *job.more_cases))
        elif job.case_id is None and self.rule is not None:
            found, problem = self.rule.case_id(
                trace.document, job.path or job.source or "", trace.place
            )
            if problem is not None:
                return [RunResult("?", ERROR, problem, trace.label)]
            cases, own_id = (found,), False  # traces.case_id replaces the trace's own id
        brevity = compact.brevity if compact is not None else None
        out = []
        for case_id in cases:
            run = self.evaluator.evaluate(
                trace.document, case_id, trace.label, trace.parent, own_id=own_id, brevity=brevity
            )
            run.notes[:0] = trace.notes
            out.append(run)
        return out

    def _picked_and_named(self, job: Job, trace: Trace, picked: tuple[str, ...]) -> tuple[str, ...]:
        """The cases of a trace that cases' `fixture:` keys pick and whose traces name their
        case (`traces.case_id`, or a JSON Lines case id): the picking cases, then the case
        it names, once, as the usual rule takes it (one that is no case is an unmatched
        trace). A trace that names none is the picking cases' only: the pick gives it one."""
        if self.rule is not None:
            where = job.path or job.source or ""
            named, _ = self.rule.case_id(trace.document, where, trace.place)
        else:
            named, _ = self.evaluator.case_id_of(trace.document)
        return picked if named is None or named in picked else (*picked, named)

    def chunk(self, jobs: list[Job]) -> list[RunResult]:
        """Evaluate a chunk. Runs that cannot be their case's representative are compacted
        here already (see `Compactor`), so less is sent back to the parent."""
        compact = Compactor()
        return [compact(run) for job in jobs for run in self.runs(job, compact)]


def chunk_evaluator(
    suite: Suite,
    max_bytes: int,
    root: Path | None,
    settings: TraceSettings | None,
    aside: frozenset[str] = frozenset(),
) -> Callable[[list[Job]], list[RunResult]]:
    """A worker process's function from a chunk of jobs to their runs (see
    `processes.Workers.make`): made in the process, so only these arguments travel."""
    return Worker(suite, max_bytes, root, settings, aside).chunk
