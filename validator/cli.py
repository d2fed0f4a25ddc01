"""Command line: `python -m validator run | merge | lint | query | explain | schema | init`.

Exit codes (CI relies on them): 0 everything passed; 1 a case did not pass (or lint found
errors); 2 a usage error or an invalid case/spec file. Nothing here prints a traceback: an
unexpected error is reported as a bug, naming what was being processed.
"""

from __future__ import annotations

import argparse
import gc
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from types import FrameType
from typing import Any

from .commands import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from .loading.schema import SCHEMA_NAMES
from .problems import InternalError, ProblemsFound, UsageError, did_you_mean
from .report import DEFAULT_FORMATS, REPORTERS
from .report.gate import FAIL_ON, VACUOUS, parse_fail_on
from .report.shard import Shard
from .results import SEVERITIES
from .traces import DEFAULT_MAX_TRACE_BYTES
from .version import __version__

DESCRIPTION = """\
Validate saved LLM-agent diagnosis traces against YAML cases, offline and deterministically.

  python -m validator run                 evaluate fixtures/ against cases/, write reports/
  python -m validator merge A B ...       one report set from the reports of run --shard
  python -m validator lint                check case and spec files like a compiler
  python -m validator query JSONPATH F... print what a JSONPath finds in traces
  python -m validator explain CASE_ID     show how a case's checks were decided, step by step
  python -m validator schema case         print the JSON Schema of a case file
  python -m validator init                write a starter suite (validator.yaml, a case, a trace)
  python -m validator capture             ask the agent (validator.yaml's target) for traces

A suite's layout can be written once in validator.yaml (read from the working folder, or
given with --config FILE); command-line flags override it.
"""

RUN_EPILOG = """\
examples:
  python -m validator run
  python -m validator run --cases my-cases --fixtures traces/ --out out/
  python -m validator run --fixtures export.jsonl --jobs 4
  python -m validator run --case 'mysql-*' --tag smoke
  python -m validator run --baseline last/report.json --fail-on regression
  python -m validator run --format json,md,junit,html --min-pass-rate 0.9
  python -m validator run --baseline main/report.json --max-regression pass_rate:-0.02
  python -m validator run --quarantine quarantine.yaml --fail-on flaky --format json,sarif
  python -m validator run --shard 2/4 --out shard-2      (then: validator merge shard-*)

repeated runs: a case may have several traces, FIXTURES/<case-id>/*.json or several JSON
Lines entries with its caseId; it passes only when every run passes (pass^k), or when its
min_passes / min_pass_rate (or --min-run-pass-rate) many do.

validator.yaml (or --config FILE) sets cases, specs, fixtures, packs, checks and traces
(pattern, format, split, case_id, allow_unmatched); flags override it. A trace that matches
no case makes the run exit 1 unless --allow-unmatched; files not used are listed.

exit codes: 0 every case passed (or the --fail-on gate holds); 1 some case failed, was not
            run or errored, a regression (--fail-on regression), a flaky case (--fail-on
            flaky), a pass rate below --min-pass-rate, or a --max-regression gate
            (quarantined cases never count); 2 usage error or invalid case/spec file
            (nothing evaluated); 130 interrupted (Ctrl-C), 143 terminated (SIGTERM): no
            report written, the previous ones left as they were
"""

FORMATS = tuple(REPORTERS)


def parse_formats(text: str) -> tuple[str, ...]:
    """`json,md,junit,html` (any subset, any order) -> the names, without repeats."""
    names: list[str] = []
    for raw in text.split(","):
        name = raw.strip().lower()
        if not name:
            raise argparse.ArgumentTypeError(
                f"'{text}' has an empty entry: give a comma list of {', '.join(FORMATS)}"
            )
        if name not in FORMATS:
            raise argparse.ArgumentTypeError(
                f"unknown format '{name}'{did_you_mean(name, FORMATS)}; choose from"
                f" {', '.join(FORMATS)}"
            )
        if name not in names:
            names.append(name)
    return tuple(names)


def parse_rate(text: str) -> Fraction:
    """A pass rate: a fraction 0..1 (`0.9`) or a percentage (`90%`), kept exact."""
    raw = text.strip()
    percent = raw.endswith("%")
    try:
        value = Fraction(Decimal(raw[:-1] if percent else raw))
    except (InvalidOperation, ValueError):
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a number: give a fraction such as 0.9, or 90%"
        ) from None
    if percent:
        value /= 100
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(
            f"'{text}' is outside 0..1: give a fraction such as 0.9, or 90%"
        )
    return value


def parse_shard(text: str) -> Shard:
    """`--shard I/N`, 1-based: 1/4 .. 4/4."""
    try:
        return Shard.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _fail_on(text: str) -> tuple[str, bool]:
    try:
        return parse_fail_on(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


# The suite's paths, as every command that reads a suite takes them (the help text says what
# each command does with them).
_PATH_OPTIONS: dict[str, dict[str, Any]] = {
    "--cases": {"metavar": "PATH"},
    "--specs": {"metavar": "DIR", "action": "append"},
    "--fixtures": {"metavar": "PATH"},
}


def _path_option(
    parser: argparse.ArgumentParser, name: str, help: str, metavar: str | None = None
) -> None:
    settings = dict(_PATH_OPTIONS[name])
    if metavar is not None:
        settings["metavar"] = metavar
    parser.add_argument(name, default=None, help=help, **settings)


def _max_trace_bytes(
    parser: argparse.ArgumentParser,
    help: str = "refuse trace files larger than this, before reading them (default: 64 MiB)",
) -> None:
    parser.add_argument(
        "--max-trace-bytes",
        type=_positive_int,
        default=DEFAULT_MAX_TRACE_BYTES,
        metavar="N",
        help=help,
    )


def _selection(parser: argparse.ArgumentParser, verb: str, tag_more: str = "") -> None:
    """--case and --tag: which cases a command works on."""
    parser.add_argument(
        "--case",
        dest="case_patterns",
        action="append",
        default=[],
        metavar="ID",
        help=f"{verb} only this case; a glob like 'mysql-*' is allowed; repeatable",
    )
    parser.add_argument(
        "--tag",
        dest="tags",
        action="append",
        default=[],
        metavar="TAG",
        help=f"{verb} only cases with this tag; repeatable{tag_more}",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m validator",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # Every command takes --config, so a wrapper script can pass it to each of them.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--config",
        metavar="FILE",
        help="the suite config (default: ./validator.yaml when it exists); flags override it",
    )

    run = sub.add_parser(
        "run",
        parents=[common],
        help="evaluate saved traces against the cases and write reports",
        description="Evaluate each case's saved trace(s) and write the reports"
        " (report.json and report.md by default).",
        epilog=RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _path_option(run, "--cases", "case folder or file (default: the config's cases, else cases/)")
    _path_option(
        run,
        "--specs",
        "spec folder adding to or overriding the standard specs by id; repeatable"
        " (default: specs/ when it exists)",
    )
    _path_option(
        run,
        "--fixtures",
        "folder of traces (<case-id>.json or <case-id>/*.json), or one file such as a"
        " .jsonl export (default: the config's fixtures, else fixtures/)",
    )
    run.add_argument(
        "--out",
        default="reports",
        metavar="DIR",
        help="where reports are written (default: reports/)",
    )
    run.add_argument(
        "--jobs",
        type=_positive_int,
        default=None,
        metavar="N",
        help="processes evaluating traces, this one included (default: the usable cores);"
        " never more than the usable cores, nor more than one per 32 traces: up to N x 32"
        " traces are read before any process starts, which settles the count without"
        " counting a JSON Lines file first; a note says when N is lowered. A worker that"
        " dies (out of memory) has its traces evaluated again once; if that worker dies"
        " too, they are errors",
    )
    _max_trace_bytes(run)
    run.add_argument(
        "--format",
        dest="formats",
        type=parse_formats,
        default=DEFAULT_FORMATS,
        metavar="LIST",
        help="comma list of report formats: "
        + ", ".join(f"{r.name} ({r.filename})" for r in REPORTERS.values())
        + f"; default: {','.join(DEFAULT_FORMATS)}",
    )
    _selection(run, "evaluate", " (any tag counts; with --case, a case must match both)")
    run.add_argument(
        "--baseline",
        metavar="PATH",
        help="an earlier report.json (or its folder) to compare with: report.json gets"
        " 'comparison' (regressions, fixes, new and removed cases, changes)",
    )
    run.add_argument(
        "--fail-on",
        type=_fail_on,
        default=("any", False),
        metavar="MODE",
        help=f"when to exit 1, one of {', '.join(FAIL_ON)}: any case not passing (default),"
        " only a regression since --baseline, a case not passing or flaky (some runs pass,"
        f" some fail), or never; add ',{VACUOUS}' (e.g. any,{VACUOUS}; {VACUOUS} alone is"
        f" any,{VACUOUS}) to exit 1 also when a case has a run whose every check was skipped",
    )
    run.add_argument(
        "--fail-severity",
        choices=SEVERITIES[:2],
        default="error",
        help="the least severity whose failed checks fail a case: error (default; failed"
        " warning and info checks are reported, not failing) or warning (failed warnings"
        " fail too; info never does)",
    )
    run.add_argument(
        "--min-pass-rate",
        type=parse_rate,
        default=None,
        metavar="F",
        help="exit 1 when the pass rate is below F (0.9 or 90%%), whatever --fail-on says",
    )
    _reliability_arguments(run)
    run.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="read traces through symbolic links that lead outside the fixtures folder"
        " (refused by default, so a link cannot make a run read and report other files)",
    )
    run.add_argument(
        "--allow-unmatched",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="traces that match no case are listed but do not fail the run (default: they"
        " fail it; the config's traces.allow_unmatched)",
    )
    run.add_argument(
        "--shard",
        type=parse_shard,
        default=None,
        metavar="I/N",
        help="evaluate only shard I of N (1/4 .. 4/4) of the selected cases, chosen by a hash"
        " of each case id (a case keeps its shard when cases are added), and write"
        " report.shard.json beside the reports for `validator merge`",
    )
    run.add_argument(
        "-q", "--quiet", action="store_true", help="print only the summary line (no progress bar)"
    )
    run.add_argument(
        "--capture",
        action="store_true",
        help="first capture the missing traces from the config's target (as `capture` does,"
        " with --repeat, --overwrite, --case and --tag), then run on what was captured; a"
        " failed capture is that run's error",
    )
    _capture_arguments(run, with_selection=False)
    _merge_parser(sub)

    lint = sub.add_parser(
        "lint",
        parents=[common],
        help="check case and spec files for mistakes, with line and column",
        description="Check case and spec files like a compiler: every problem with file, line, column and a fix.",
        epilog=(
            "examples:\n"
            "  python -m validator lint\n"
            "  python -m validator lint cases/mysql-slow-query.yaml\n"
            "  python -m validator lint --specs my-specs --fixtures fixtures --strict\n"
            "  python -m validator lint --format github     (annotations in GitHub Actions)\n"
            "\n"
            "with a suite config (validator.yaml, or --config), lint checks it too, and its\n"
            "cases and spec folders by default; when it names fixtures, they are checked too.\n"
            "\n"
            "spec or case: a file under a --specs folder is a spec; otherwise the nearest\n"
            "folder named specs/ or cases/ decides; otherwise a file with query, predicate,\n"
            "clauses or fields is a spec, and any other file a case.\n"
            "\n"
            "exit codes: 0 no errors (warnings allowed); 1 errors found (or warnings with\n"
            "            --strict); 2 usage error (a PATH that matches no file, a missing folder)\n"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lint.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="case/spec files or folders (default: cases/ and specs/, whichever exist)",
    )
    _path_option(
        lint,
        "--specs",
        "spec folder, as given to run: its specs are checked, and cases may name them in"
        " 'checks'; repeatable (default: specs/ when it exists)",
    )
    _path_option(
        lint,
        "--fixtures",
        "saved traces (folder or file): also report cases without a trace and traces"
        " without a case (warnings), matched as run matches them (default: the config's"
        " fixtures, when it names them)",
    )
    lint.add_argument(
        "--format",
        choices=("text", "json", "github"),
        default="text",
        help="output format (default: text)",
    )
    lint.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="with --fixtures: read traces through links leading outside the fixtures folder,"
        " as run --follow-symlinks does",
    )
    lint.add_argument("--strict", action="store_true", help="exit 1 on warnings too")

    schema = sub.add_parser(
        "schema",
        parents=[common],
        help="print a JSON Schema (for editors and other tools)",
        description="Print the JSON Schema of a case file, a spec file, a trace, report.json"
        " or the suite config (validator.yaml). A case's keys come from the specs in use"
        " (their 'inputs'), so `schema case` reads the spec folders as run does.",
    )
    schema.add_argument("which", choices=SCHEMA_NAMES)
    _path_option(
        schema,
        "--specs",
        "spec folder whose inputs a case may use, as given to run; repeatable"
        " (default: specs/ when it exists)",
    )

    _query_parser(sub, common)
    _explain_parser(sub, common)
    _capture_parser(sub, common)

    init = sub.add_parser(
        "init",
        help="write a starter suite: validator.yaml, a case and its trace",
        description="Write a starter suite into DIR: validator.yaml (a comment per key),"
        " cases/example.yaml and fixtures/example.json, which pass `lint` and `run`."
        " Existing files are never overwritten.",
    )
    init.add_argument("dir", nargs="?", default=".", metavar="DIR", help="(default: .)")
    return parser


MERGE_EPILOG = """\
examples:
  python -m validator merge shard-1 shard-2 shard-3 --out reports
  python -m validator merge shards/*/report.json --out reports

each REPORT is a folder written by `run --shard I/N`, its report.json, or its
report.shard.json. The shards must be of one run: the same N, the same cases and specs, the
same flags (formats, gates, --baseline, --quarantine, --k); every shard 1..N must be given
once, unless --allow-partial (the missing shards' cases are then not_run). The reports are
those `run` without --shard writes (the same bytes, apart from generated_at), in the formats
the shards were asked for, and the exit code applies the shards' gates to every case.

exit codes: 0 every case passed (or the --fail-on gate holds); 1 as for run (a case failed,
            a gate did not hold, a shard missing with --allow-partial); 2 a REPORT that is
            not a shard report, of another version, a shard missing, given twice or of
            another run (nothing written)
"""


def _merge_parser(sub: Any) -> None:
    merge = sub.add_parser(
        "merge",
        help="combine the reports of `run --shard I/N` into one report set",
        description="Combine shard reports (run --shard I/N) into the report set and exit code"
        " an unsharded run of the same inputs gives.",
        epilog=MERGE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    merge.add_argument(
        "reports",
        nargs="+",
        metavar="REPORT",
        help="a shard's output folder, report.json or report.shard.json; one per shard",
    )
    merge.add_argument(
        "--out",
        default="reports",
        metavar="DIR",
        help="where the merged reports are written (default: reports/)",
    )
    merge.add_argument(
        "--allow-partial",
        action="store_true",
        help="merge even when shards are missing: their cases are reported not_run",
    )
    merge.add_argument(
        "--annotations",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="print GitHub Actions ::error lines for failed checks (default: when"
        " GITHUB_ACTIONS=true)",
    )
    merge.add_argument("-q", "--quiet", action="store_true", help="print only the summary line")


QUERY_EPILOG = """\
examples:
  python -m validator query '$.toolInvocations[*].toolName' fixtures/mysql-slow-query.json
  python -m validator query '$.view.tool_calls[*].name' fixtures/*.json
  python -m validator query --config examples/tau2-bench '$.view.final_answer' results.json
  python -m validator query --json '$.finalAnswer' export.jsonl | jq '.matches[].value'

each trace is read as run reads it: a JSON Lines file or a file split by the config's
traces.split gives one block per trace (file:LINE, file#N); $.view is made by the
configured adapter (traces.view) or the detected one.

exit codes: 0 something matched; 1 nothing matched in any trace; 2 a bad JSONPath (or
            config), or no trace could be read
"""

EXPLAIN_EPILOG = """\
examples:
  python -m validator explain mysql-slow-query
  python -m validator explain agno --config examples/otel-genai
  python -m validator explain redis-memory-eviction --fixtures runs/ --json

for each run of the case: every applied check, its guards (and why they held or not),
each parameter's resolved value and where it came from (the spec file, the case file's
line and column, a default), the values each query found, and the predicate's verdict and
message; the same evaluation as run, which it does not change.

exit codes: 0 the case passed, as run would say (every run, or its min_passes); 1 it did
            not (a run failed or errored), or it has no trace; 2 unknown case id, usage error, or an invalid case,
            spec or config file
"""


def _query_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    query = sub.add_parser(
        "query",
        parents=[common],
        help="print what a JSONPath finds in saved traces (to write specs by trying)",
        description="Evaluate a JSONPath on saved traces as checks do, and print each match"
        " with its concrete path and value. The suite config's traces: settings (split,"
        " format, view) are honoured, so $.view works as in run.",
        epilog=QUERY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    query.add_argument(
        "jsonpath", metavar="JSONPATH", help="the query, e.g. '$.view.tool_calls[*].name'"
    )
    query.add_argument(
        "traces", nargs="+", metavar="TRACE", help="trace files (.json, .jsonl, ...)"
    )
    query.add_argument(
        "--json",
        action="store_true",
        help="print one JSON document: matches as {trace, path, value}",
    )
    _max_trace_bytes(query)


def _explain_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    explain = sub.add_parser(
        "explain",
        parents=[common],
        help="show how one case's checks were decided on its trace(s), step by step",
        description="Evaluate one case as run does and show, for each of its runs, each"
        " applied check: its guards, its resolved parameters with their origin, the values"
        " its queries found, and the predicate's verdict and message.",
        epilog=EXPLAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    explain.add_argument("case_id", metavar="CASE_ID", help="the id of the case to explain")
    _path_option(
        explain, "--cases", "case folder or file (default: the config's cases, else cases/)"
    )
    _path_option(
        explain,
        "--specs",
        "spec folder, as given to run; repeatable (default: specs/ when it exists)",
    )
    _path_option(
        explain,
        "--fixtures",
        "folder of traces, or one file (default: the config's fixtures, else fixtures/)",
    )
    explain.add_argument("--json", action="store_true", help="print one JSON document instead")
    explain.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the verdicts: auto (default) on a terminal unless NO_COLOR is set",
    )
    explain.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="read traces through links leading outside the fixtures folder, as run does",
    )
    _max_trace_bytes(explain)


def _capture_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    capture = sub.add_parser(
        "capture",
        parents=[common],
        help="ask the agent (the config's target) for a trace per case and run",
        description="Send one request per selected case and run to the suite config's"
        " target (an HTTP endpoint or a command) and save each trace atomically where run"
        " finds it: FIXTURES/<id>.json, or FIXTURES/<id>/run-1.json ... run-K.json with"
        " --repeat K. Saved traces are kept (a second capture does only the missing runs)"
        " unless --overwrite. Writes a log, OUT/capture.json.",
        epilog=(
            "examples:\n"
            "  DIAG_API_TOKEN=... python -m validator capture\n"
            "  python -m validator capture --repeat 5 --tag smoke\n"
            "  python -m validator run --capture --repeat 3 --format json,junit\n"
            "\n"
            "exit codes: 0 every run captured (or saved before); 1 some captures failed;\n"
            "            2 bad config or usage (nothing sent); 130/143 interrupted: the traces\n"
            "            saved are whole and kept, none is partial\n"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _path_option(capture, "--cases", "case folder or file (default: the config's)")
    _path_option(
        capture,
        "--specs",
        "spec folder, as for run (their inputs are case keys a template may name)",
    )
    _path_option(
        capture,
        "--fixtures",
        "the folder traces are saved in (default: the config's fixtures, else fixtures/)",
        metavar="DIR",
    )
    capture.add_argument(
        "--out",
        default="reports",
        metavar="DIR",
        help="where the log capture.json is written (default: reports/)",
    )
    _selection(capture, "capture")
    _max_trace_bytes(
        capture, "an answer larger than this fails its run, unread past N (default: 64 MiB)"
    )
    capture.add_argument(
        "-q", "--quiet", action="store_true", help="print only the summary line (no progress bar)"
    )
    _capture_arguments(capture, with_selection=True)


def _capture_arguments(parser: argparse.ArgumentParser, with_selection: bool) -> None:
    """--repeat and --overwrite, for capture and run --capture."""
    parser.add_argument(
        "--repeat",
        type=_positive_int,
        default=None,
        metavar="K",
        help="capture K runs of each case, FIXTURES/<id>/run-1.json ... run-K.json"
        " (default: 1, FIXTURES/<id>.json)" + ("" if with_selection else "; with --capture"),
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="capture every run again, replacing saved traces (default: keep them and"
        " capture only the missing runs)" + ("" if with_selection else "; with --capture"),
    )


def _reliability_arguments(run: argparse.ArgumentParser) -> None:
    """run's flags for repeated runs, quarantine, metric gates and CI annotations."""
    from .commands.gating import parse_ks, parse_limit_arg

    run.add_argument(
        "--k",
        dest="ks",
        type=parse_ks,
        default=None,
        metavar="LIST",
        help="the k of summary.pass_hat / pass_at (pass^k, pass@k), e.g. 1,3,5"
        " (default: 1 to the fewest runs a case has)",
    )
    run.add_argument(
        "--min-run-pass-rate",
        type=parse_rate,
        default=None,
        metavar="F",
        help="a case passes when this share of its runs pass (0.8 or 80%%), for every case"
        " without its own min_pass_rate or min_passes (default: every run must pass)",
    )
    run.add_argument(
        "--quarantine",
        metavar="FILE",
        help="YAML list of {id, reason}: these cases are evaluated and reported but never"
        " fail the run",
    )
    run.add_argument(
        "--max-regression",
        dest="max_regression",
        action="append",
        type=parse_limit_arg,
        default=[],
        metavar="METRIC:LIMIT",
        help="exit 1 when a summary figure worsened past LIMIT since --baseline, e.g."
        " pass_rate:-0.02, avg_duration_ms:+20%%, avg_tool_calls:+1; repeatable",
    )
    run.add_argument(
        "--annotations",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="print GitHub Actions ::error lines for failed checks (default: when"
        " GITHUB_ACTIONS=true)",
    )


# Python's cyclic garbage collector runs a young-generation pass every 700 net new container
# objects and, now and then, a pass over every live object. A run creates hundreds of
# thousands of small objects that live to its end (cases, results, report rows) and almost
# no cycles, so those passes find nothing and cost ~0.1 s of a 2.4 s run over 2,000 cases
# (bench/run.py). Like other batch tools (mypy, for one), a command raises the threshold
# while it runs; memory is still freed by reference counting as soon as it is unused.
_BATCH_GC_THRESHOLD = (50_000, 20, 20)


@contextmanager
def batch_gc() -> Iterator[None]:
    """Collect cyclic garbage less often for the duration of one command."""
    before = gc.get_threshold()
    gc.set_threshold(*_BATCH_GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*before)


EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a Ctrl-C
EXIT_TERMINATED = 143  # 128 + SIGTERM, what CI runners send to cancel a step


class Terminated(BaseException):
    """SIGTERM, raised in the main thread as KeyboardInterrupt is for SIGINT, so that one
    cleanup serves both: temporary report files removed (report.write_reports), worker
    processes killed (evaluation.runner), the previous reports left as they were. Not an
    Exception, so that no `except Exception` on the way swallows it."""


@contextmanager
def signals_as_exceptions() -> Iterator[None]:
    """SIGTERM raises Terminated and SIGINT KeyboardInterrupt, once: a second signal while
    the first one's cleanup runs is ignored, so the cleanup is never cut short (it is bounded
    in time; SIGKILL still ends everything). A signal ignored when the command started (nohup,
    a background job) stays ignored; handlers are restored afterwards (the library, tests)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers (and only it receives them)
        return
    raised = False

    def handler(signum: int, frame: FrameType | None) -> None:
        nonlocal raised
        if raised:
            return
        raised = True
        raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()

    previous = {}
    for number in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(number) is not signal.SIG_IGN:
            previous[number] = signal.signal(number, handler)
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old if old is not None else signal.SIG_DFL)


def _stop_workers() -> None:
    """Kill any worker process still running. A run stops its own when its generator is
    closed; this covers a signal that arrived between two of its results. Workers exist
    only if the runner was imported, which this does not do for lint or schema."""
    runner = sys.modules.get("validator.evaluation.runner")
    if runner is not None:
        runner.stop_workers()


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    given = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(given)
    except SystemExit as exc:  # a usage error argparse reports (exit 2), or --help (exit 0)
        if exc.code == EXIT_USAGE and given[:1] == ["run"]:
            from .commands.run import no_report_line

            print(no_report_line(Path(_out_given(given))), file=sys.stderr)
        raise
    args.argv = given
    args.long_options = _long_options(parser, args.command)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return _dispatch(args)
    finally:
        _stop_workers()


def _command(args: Any) -> int:
    if args.command == "run":
        return cmd_run(args)
    if args.command == "merge":
        from .commands.merge import cmd_merge

        return cmd_merge(args)
    if args.command == "lint":
        from .commands.lint import cmd_lint

        return cmd_lint(args)
    if args.command == "query":
        from .commands.query import cmd_query

        return cmd_query(args)
    if args.command == "explain":
        from .commands.explain import cmd_explain

        return cmd_explain(args)
    if args.command == "init":
        from .commands.init import cmd_init

        return cmd_init(args)
    if args.command == "capture":
        from .commands.capture import cmd_capture

        args.repeat = args.repeat or 1
        return cmd_capture(args)
    return cmd_schema(args)


def _dispatch(args: Any) -> int:
    """The command, its errors turned into exit codes and one line each."""
    try:
        with batch_gc(), signals_as_exceptions():
            return _command(args)
    except UsageError as exc:
        print(f"error: {exc.cli_text()}", file=sys.stderr)
    except ProblemsFound as exc:
        for problem in exc.problems:
            print(problem.format(), file=sys.stderr)
    except Terminated:
        _stop_workers()
        print(f"terminated: {_no_report(args)}", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        _stop_workers()
        print(f"interrupted: {_no_report(args)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_FAILED
    except Exception as exc:  # never a traceback: say it is our bug and where it happened
        detail = str(exc) if isinstance(exc, InternalError) else f"{type(exc).__name__}: {exc}"
        print(
            f"internal error (a bug in trace-validator {__version__}, please report it): {detail}",
            file=sys.stderr,
        )
    if args.command == "run":  # the run could not be done: say so last, and what is stale
        print(_no_report(args), file=sys.stderr)
    return EXIT_USAGE


def _no_report(args: Any) -> str:
    """For `run`: that no report was written and what the output folder holds instead."""
    if args.command != "run":
        return "no report was written"
    from .commands.run import no_report_line

    return no_report_line(Path(args.out))


def _what_was_kept(args: Any) -> str:
    if args.command == "capture":
        return "the traces saved are whole and kept; none is partial"
    if getattr(args, "capture", False):
        return "no report was written; the traces captured are whole and kept"
    return "no report was written"


def cmd_schema(args: Any) -> int:
    import json

    from .loading.schema import load_schema

    if args.which == "case":
        from .api import case_schema

        schema = case_schema([Path(s) for s in args.specs] if args.specs else None)
    else:
        schema = load_schema(args.which)
    print(json.dumps(schema, indent=2, ensure_ascii=False))
    return EXIT_OK


def cmd_run(args: Any) -> int:
    from .commands.layout import config_errors, read_config, resolve
    from .commands.run import RunOptions, command_line, execute_run

    fail_on, fail_vacuous = args.fail_on
    if fail_on == "regression" and not args.baseline:
        raise UsageError(
            "--fail-on regression needs --baseline PATH (the report.json of an earlier run)"
            " to know what regressed"
        )
    if not args.capture and (args.repeat is not None or args.overwrite):
        flag = "--repeat" if args.repeat is not None else "--overwrite"
        raise UsageError(
            f"{flag} is a capture option", "add --capture, or run `python -m validator capture`"
        )
    config = read_config(args)
    errors = config_errors(args, config)
    if errors:
        raise ProblemsFound(errors)  # nothing is evaluated with a broken config
    layout = resolve(args, config)
    failures = _capture_first(args) if args.capture else ()
    if args.max_regression and not args.baseline:
        raise UsageError(
            "--max-regression needs --baseline PATH (the report.json of an earlier run)"
            " to compare the figures with"
        )
    options = RunOptions(
        cases=layout.cases,
        specs=layout.specs,
        fixtures=layout.fixtures,
        out=Path(args.out),
        jobs=args.jobs,  # None: the usable cores (evaluate_all caps an explicit N, with a note)
        max_trace_bytes=args.max_trace_bytes,
        quiet=args.quiet,
        formats=args.formats,
        baseline=Path(args.baseline) if args.baseline else None,
        fail_on=fail_on,
        fail_vacuous=fail_vacuous,
        fail_severity=args.fail_severity,
        min_pass_rate=args.min_pass_rate,
        case_patterns=list(args.case_patterns),
        tags=list(args.tags),
        follow_symlinks=args.follow_symlinks,
        config=config,
        packs=layout.packs,
        traces=layout.traces,
        ks=args.ks,
        min_run_pass_rate=args.min_run_pass_rate,
        quarantine=Path(args.quarantine) if args.quarantine else None,
        max_regression=tuple(args.max_regression),
        annotations=args.annotations,
        shard=args.shard,
        capture_failures=failures,
        command=command_line(args.argv, _program(), args.long_options),
    )
    return execute_run(options)


def _capture_first(args: Any) -> tuple[tuple[str, str, str], ...]:
    """run --capture: the capture (its errors raise: exit 2, nothing evaluated), and the
    runs that failed to capture."""
    from .commands.capture import capture_options, execute_capture

    return execute_capture(capture_options(args, "run --capture", warn=False)).failures()


def _out_given(argv: list[str]) -> str:
    """The --out of a command line argparse could not read (the default when not found)."""
    for at, token in enumerate(argv):
        if token.startswith("--out="):
            return token[len("--out=") :]
        if token == "--out" and at + 1 < len(argv):
            return argv[at + 1]
    return "reports"


def _long_options(parser: argparse.ArgumentParser, command: str | None) -> list[str]:
    """Every long option of `command`, to tell which one an abbreviation stands for."""
    for action in parser._actions:  # argparse keeps its subcommands nowhere public
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            sub = action.choices[command]
            return [s for a in sub._actions for s in a.option_strings if s.startswith("--")]
    return []


def _program() -> str:
    """How the user started the tool, for the command line the reports show."""
    return (
        "trace-validator" if Path(sys.argv[0]).name == "trace-validator" else "python -m validator"
    )
