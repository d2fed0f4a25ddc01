"""`python -m validator capture`: one request to the agent per selected case and run, each
trace saved atomically where `run` finds it, and a log (`capture.json`).

Worker threads (`target.concurrency`) only ask the agent; this thread alone writes files,
each to a temporary file renamed into place, so an interrupt (Ctrl-C, SIGTERM) keeps every
trace finished and leaves none partial. Saved traces are kept unless `--overwrite`: a second
capture does only the runs still missing.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import sys
import threading
import time
from contextlib import suppress
from dataclasses import field
from pathlib import Path
from typing import Any

from ..capture.runs import (
    RenderError,
    Slot,
    make_request,
    plan_slots,
    trace_of,
    values_of,
)
from ..capture.transport import (
    MIN_SECRET,
    Answer,
    Limits,
    RateLimiter,
    Redactor,
    Request,
    fetch,
    utc_now,
)
from ..dataclass import dataclass
from ..display import one_line
from ..globs import Globs
from ..inputs import display_path, find_case_files, spec_folders
from ..loading.config import Config
from ..loading.suite import load_suite_and_problems
from ..loading.target import Target
from ..model import Case, Suite, TraceSettings
from ..problems import ERROR, WARNING, Problem, ProblemsFound, UsageError, counted
from ..report import write_file
from ..traces import DEFAULT_MAX_TRACE_BYTES
from ..version import __version__
from . import EXIT_FAILED, EXIT_OK, options
from .layout import SuiteFlags, config_errors, read_config, resolve
from .progress import ProgressBar, interactive
from .selection import Selection, select_cases

LOG_NAME = "capture.json"
CAPTURED, KEPT, FAILED, INTERRUPTED = "captured", "kept", "failed", "interrupted"


@dataclass
class CaptureOptions:
    """Everything `capture` was asked for, read from its flags and the config."""

    config: Config
    cases: Path
    specs: list[Path] | None
    packs: tuple[str, ...]
    fixtures: Path
    out: Path
    traces: TraceSettings = field(default_factory=TraceSettings)
    repeat: int = 1
    case_patterns: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    overwrite: bool = False
    quiet: bool = False
    max_trace_bytes: int = DEFAULT_MAX_TRACE_BYTES
    warn: bool = True  # print the suite's warnings (run --capture: run prints them)
    # The config's errors that stop a capture: all but those of a path a flag replaces
    # (None: all of them).
    errors: tuple[Problem, ...] | None = None


@dataclass
class Record:
    """One run in the log."""

    case_id: str
    run: int
    fixture: str
    status: str = INTERRUPTED
    http_status: int | None = None
    attempts: int = 0
    duration_ms: int | None = None
    error: str | None = None
    note: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "case_id": self.case_id,
            "run": self.run,
            "fixture": self.fixture,
            "status": self.status,
            "http_status": self.http_status,
            "attempts": self.attempts,
            "duration_ms": self.duration_ms,
            "error": self.error,
            **({"note": self.note} if self.note else {}),
        }


@dataclass
class Outcome:
    """What a capture did: a record per run (in case and run order) and its exit code."""

    records: list[Record]
    log: Path
    code: int

    def failures(self) -> tuple[tuple[str, str, str], ...]:
        """Every run that failed: its case, its fixture (as `run` names it), why."""
        return tuple(
            (r.case_id, r.fixture, r.error or r.status) for r in self.records if r.status == FAILED
        )


def main(args: argparse.Namespace) -> int:
    return execute_capture(capture_options(args, "capture")).code


def capture_options(args: argparse.Namespace, command: str, warn: bool = True) -> CaptureOptions:
    """The options of `capture` (or of `run --capture`: `warn` False, run prints the
    suite's warnings) from the command line and the suite config, which must exist."""
    flags = SuiteFlags.of(args)
    config = read_config(flags)
    layout = resolve(flags, config)
    if config is None:
        raise UsageError(
            f"{command} needs a suite config with a target: there is no validator.yaml here",
            f"write one ({options.program()} init makes a starter) with a `target:` naming"
            " your agent, or pass --config FILE",
        )
    return CaptureOptions(
        config=config,
        cases=layout.cases,
        specs=layout.specs,
        packs=layout.packs,
        fixtures=layout.fixtures,
        out=Path(args.out),
        traces=layout.traces,
        repeat=args.repeat or 1,
        case_patterns=tuple(args.case_patterns),
        tags=tuple(args.tags),
        overwrite=args.overwrite,
        quiet=args.quiet,
        max_trace_bytes=args.max_trace_bytes,
        warn=warn,
        errors=tuple(config_errors(flags, config)),
    )


def execute_capture(options: CaptureOptions) -> Outcome:
    """Capture every missing run. Raises UsageError or ProblemsFound (exit 2) before any
    request when the config, the suite or the environment is not right."""
    target = _target(options.config, options.errors)
    suite, defaults = _suite(options)
    chosen = select_cases(suite, Selection(options.case_patterns, options.tags))
    _check_fixtures(options)
    env = _environment(target)
    redact = Redactor(env.values())
    for name, value in env.items():
        if len(value) < MIN_SECRET:
            print(
                f"warning: ${{{name}}} is shorter than {MIN_SECRET} characters: it is sent,"
                " but not redacted from what capture writes (it would match ordinary text)",
                file=sys.stderr,
            )
    if not target.verify:
        line, column = target.verify_at
        print(
            f"warning: {one_line(target.file)}:{line}:{column}: target.verify is false: the"
            " agent's TLS certificate is not checked [tls-unverified]",
            file=sys.stderr,
        )
    slots, moves = plan_slots(list(chosen.cases), options.fixtures, options.repeat)
    options.fixtures.mkdir(parents=True, exist_ok=True)
    for move in moves:
        move.target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(move.source, move.target)
        if not options.quiet:
            print(f"moved {display_path(move.source)} to {display_path(move.target)} (run 1)")
    limits = Limits(
        timeout=target.timeout,
        max_bytes=options.max_trace_bytes,
        retries=target.retries,
        verify=target.verify,
        limiter=RateLimiter(target.rate),
        redact=redact,
    )
    capture = _Capture(target, chosen, defaults, env, limits, options)
    records = capture.run(slots)
    log = options.out / LOG_NAME
    code = EXIT_FAILED if any(r.status == FAILED for r in records) else EXIT_OK
    _write_log(log, target, records, options)
    _print_summary(records, log, options.quiet)
    return Outcome(records, log, code)


def _target(config: Config, given: tuple[Problem, ...] | None) -> Target:
    errors = config.errors if given is None else list(given)
    if errors:
        raise ProblemsFound(errors)
    if config.target is None:
        raise UsageError(
            f"{config.file} has no target: capture does not know which agent to ask",
            "add `target:` with `url: https://...` (and its headers and body) or `command:"
            " [...]`; docs/capture.md has an example",
        )
    return config.target


def _suite(options: CaptureOptions) -> tuple[Suite, dict[str, Any]]:
    """The suite (printing its warnings; its errors raise), and the inputs' defaults."""
    folders = spec_folders(options.specs, options.packs)
    loaded = load_suite_and_problems(find_case_files(options.cases), folders, options.config)
    for problem in loaded.problems if options.warn else ():
        if problem.severity == WARNING:
            print(problem.format(), file=sys.stderr)
    errors = [p for p in loaded.problems if p.severity == ERROR]
    if errors or loaded.suite is None:
        raise ProblemsFound(errors)
    defaults = {
        name: schema["default"]
        for name, schema in loaded.format.inputs.items()
        if isinstance(schema, dict) and "default" in schema
    }
    return loaded.suite, defaults


def _check_fixtures(options: CaptureOptions) -> None:
    """Capture writes FIXTURES/<id>.json and FIXTURES/<id>/run-N.json: the fixtures must be
    a folder, and `run` must read those files by their names."""
    fixtures = options.fixtures
    if fixtures.exists() and not fixtures.is_dir():
        raise UsageError(
            f"fixtures {display_path(fixtures)} is a file: capture saves one file per run in"
            " a folder",
            "pass --fixtures with a folder (it is created when missing)",
        )
    settings = options.traces
    problems = []
    if settings.case_id is not None:
        problems.append("traces.case_id (capture names each file after its case)")
    if settings.split is not None:
        problems.append("traces.split (a captured file is one trace)")
    if settings.group is not None:
        problems.append("traces.group (each captured run is a trace of its own)")
    if settings.format not in (None, "json"):
        problems.append(f"traces.format {settings.format} (a captured file is JSON)")

    if not (
        Globs(settings.pattern).matches("x.json")
        and Globs(settings.pattern).matches("x/run-1.json")
    ):
        problems.append(f"traces.pattern {', '.join(settings.pattern)} (it must match *.json)")
    if problems:
        raise UsageError(
            f"run would not read the traces capture saves in {display_path(fixtures)}, because"
            f" of {'; '.join(problems)}",
            "capture into a fixtures folder of its own, read with the default traces settings",
        )


def _environment(target: Target) -> dict[str, str]:
    """The environment variables the target reads. Raises UsageError naming every one
    that is unset or empty, before any request."""
    names = target.env_names()
    missing = [n for n in names if not os.environ.get(n)]
    if missing:
        listed = ", ".join(missing)
        raise UsageError(
            f"the target reads the environment variable{'s' if len(missing) > 1 else ''}"
            f" {listed}, which {'are' if len(missing) > 1 else 'is'} not set (or empty);"
            " nothing was sent",
            f"export {missing[0]}=... before capturing (in CI, from a secret)",
        )
    return {n: os.environ[n] for n in names}


class _Capture:
    """The worker threads and this thread's writing of what they bring back."""

    def __init__(
        self,
        target: Target,
        suite: Suite,
        defaults: dict[str, Any],
        env: dict[str, str],
        limits: Limits,
        options: CaptureOptions,
    ) -> None:
        self.target = target
        self.suite = suite
        self.defaults = defaults
        self.env = env
        self.limits = limits
        self.options = options
        self.jobs: queue.Queue[tuple[int, Request] | None] = queue.Queue()
        self.results: queue.Queue[tuple[int, Answer, float]] = queue.Queue()

    def run(self, slots: list[Slot]) -> list[Record]:
        records = [Record(s.case_id, s.run, s.shown) for s in slots]
        pending = self._queue(slots, records)
        bar = _bar(len(pending), self.options.quiet)
        threads = [
            threading.Thread(target=self._work, daemon=True, name=f"capture-{i}")
            for i in range(min(self.target.concurrency, len(pending)))
        ]
        for _ in threads:
            self.jobs.put(None)  # one end marker each
        try:
            for thread in threads:
                thread.start()
            done = 0
            while done < len(pending):
                try:
                    index, answer, seconds = self.results.get(timeout=0.1)
                except queue.Empty:
                    continue
                self._save(slots[index], records[index], answer, seconds)
                done += 1
                if bar is not None:
                    bar(done)
        except BaseException:
            # Ctrl-C or SIGTERM: no new request; a command running is killed; what was
            # written stays (every file is whole), the rest is logged as interrupted.
            self.limits.stop.set()
            self.limits.kill_children()
            if bar is not None:
                bar.close()
            self._interrupted_log(records)
            raise
        if bar is not None:
            bar.close()
        for thread in threads:
            thread.join(timeout=1)
        return records

    def _queue(self, slots: list[Slot], records: list[Record]) -> list[int]:
        pending = []
        for index, slot in enumerate(slots):
            record = records[index]
            if slot.saved and not self.options.overwrite:
                record.status = KEPT
                continue
            case: Case = self.suite.cases[slot.case_id]
            try:
                values = values_of(case, slot.run, self.defaults)
                request = make_request(self.target, case, values, self.env)
            except RenderError as exc:
                record.status, record.error = FAILED, self.limits.redact(str(exc))
                continue
            pending.append(index)
            self.jobs.put((index, request))
        return pending

    def _work(self) -> None:
        while not self.limits.stop.is_set():
            job = self.jobs.get()
            if job is None:
                return
            index, request = job
            started = time.monotonic()
            try:
                answer = fetch(request, self.limits)
            except Exception as exc:  # a bug here must not hang the capture
                answer = Answer(error=f"internal error: {type(exc).__name__}: {exc}")
            self.results.put((index, answer, time.monotonic() - started))

    def _save(self, slot: Slot, record: Record, answer: Answer, seconds: float) -> None:
        record.http_status = answer.http_status
        record.attempts = answer.attempts
        record.duration_ms = round(seconds * 1000)
        if answer.body is None:
            record.status = INTERRUPTED if answer.interrupted else FAILED
            record.error = self.limits.redact(answer.error or "no answer")
            return
        what = "the answer" if self.target.url is not None else "the command's output"
        trace = trace_of(answer.body, self.target.trace, self.limits.redact, what)
        record.note = trace.note
        if trace.text is None:
            record.status, record.error = FAILED, (trace.error or "") + answer.stderr
            return
        try:
            slot.path.parent.mkdir(parents=True, exist_ok=True)
            write_file(slot.path, trace.text)
        except OSError as exc:
            record.status = FAILED
            record.error = f"cannot write {slot.shown}: {exc.strerror or exc}"
            return
        record.status = CAPTURED

    def _interrupted_log(self, records: list[Record]) -> None:
        with suppress(OSError, UsageError):  # the interrupt is what the user must hear of
            _write_log(self.options.out / LOG_NAME, self.target, records, self.options)
        saved = sum(r.status == CAPTURED for r in records)
        left = sum(r.status == INTERRUPTED for r in records)
        print(
            f"capture stopped: {counted(saved, 'trace')} saved, {counted(left, 'run')} not done"
            " (capture again to do only those); log: "
            + one_line(display_path(self.options.out / LOG_NAME)),
            file=sys.stderr,
        )


def _bar(total: int, quiet: bool) -> ProgressBar | None:
    if quiet or total == 0 or not interactive(sys.stderr):
        return None
    return ProgressBar(total, sys.stderr, label="capturing", unit="runs")


def _write_log(log: Path, target: Target, records: list[Record], options: CaptureOptions) -> None:
    counts = {
        status: sum(r.status == status for r in records)
        for status in (CAPTURED, KEPT, FAILED, INTERRUPTED)
    }
    document = {
        "tool": f"trace-validator {__version__}",
        "finished_at": utc_now(),
        "target": target.shown(),  # as written: templates unfilled, so no secret
        "fixtures": display_path(options.fixtures),
        "repeat": options.repeat,
        "summary": {"runs": len(records), **counts},
        "runs": [r.as_dict() for r in records],
    }
    if log.parent.exists() and not log.parent.is_dir():
        raise UsageError(f"--out {log.parent} is a file, not a folder")
    log.parent.mkdir(parents=True, exist_ok=True)
    try:
        write_file(log, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise UsageError(f"cannot write {log}: {exc.strerror or exc}") from None


def _print_summary(records: list[Record], log: Path, quiet: bool) -> None:
    if not quiet:
        for r in records:
            if r.status == FAILED:
                print(f"{'FAILED':8} {one_line(r.case_id)} run {r.run}: {one_line(r.error)}")
    counts = {s: sum(r.status == s for r in records) for s in (CAPTURED, KEPT, FAILED)}
    cases = len({r.case_id for r in records})
    print(
        f"capture: {counted(len(records), 'run')} of {counted(cases, 'case')}:"
        f" {counts[CAPTURED]} captured,"
        f" {counts[KEPT]} kept (saved before), {counts[FAILED]} failed; log:"
        f" {one_line(display_path(log))}"
    )


# --------------------------------------------------------------------------------------------
# The command line

CAPTURE_EPILOG = """\
examples:
  DIAG_API_TOKEN=... %(prog)s
  %(prog)s --repeat 5 --tag smoke
  run --capture --repeat 3 --format json,junit     (capture, then run)

exit codes: 0 every run captured (or saved before); 1 some captures failed;
            2 bad config or usage (nothing sent); 130/143 interrupted: the traces
            saved are whole and kept, none is partial
"""


def build_parser(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Send one request per selected case and run to the suite config's target (an HTTP"
        " endpoint or a command) and save each trace atomically where run finds it:"
        " FIXTURES/<id>.json, or FIXTURES/<id>/run-1.json ... run-K.json with --repeat K."
        " Saved traces are kept (a second capture does only the missing runs) unless"
        " --overwrite. Writes a log, OUT/capture.json."
    )
    parser.epilog = CAPTURE_EPILOG
    options.config_option(parser)
    options.path_option(parser, "--cases", "case folder or file (default: the config's)")
    options.path_option(
        parser,
        "--specs",
        "spec folder, as for run (their inputs are case keys a template may name)",
    )
    options.path_option(
        parser,
        "--fixtures",
        "the folder traces are saved in (default: the config's fixtures, else fixtures/)",
        metavar="DIR",
    )
    parser.add_argument(
        "--out",
        default="reports",
        metavar="DIR",
        help="where the log capture.json is written (default: reports/)",
    )
    options.selection(parser, "capture")
    options.max_trace_bytes(
        parser, "an answer larger than this fails its run, unread past N (default: 64 MiB)"
    )
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print only the summary line (no progress bar)"
    )
    options.capture_arguments(parser, with_selection=True)
