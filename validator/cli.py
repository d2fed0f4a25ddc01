"""Command line: `python -m validator run | lint | schema`.

Exit codes (CI relies on them): 0 everything passed; 1 a case did not pass (or lint found
errors); 2 a usage error or an invalid case/spec file. Nothing here prints a traceback: an
unexpected error is reported as a bug, naming what was being processed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from . import __version__
from .problems import ProblemsFound, UsageError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

DESCRIPTION = """\
Validate saved LLM-agent diagnosis traces against YAML cases, offline and deterministically.

  python -m validator run                 evaluate fixtures/ against cases/, write reports/
  python -m validator lint                check case and spec files like a compiler
  python -m validator schema case         print the JSON Schema of a case file
"""

RUN_EPILOG = """\
examples:
  python -m validator run
  python -m validator run --cases my-cases --fixtures traces/ --out out/
  python -m validator run --fixtures export.jsonl --jobs 4

exit codes: 0 every case passed; 1 some case failed, was not run or errored;
            2 usage error or invalid case/spec file (nothing evaluated)
"""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m validator",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser(
        "run",
        help="evaluate saved traces against the cases and write reports",
        description="Evaluate each case's saved trace(s) and write report.json and report.md.",
        epilog=RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "--cases", default="cases", metavar="PATH", help="case folder or file (default: cases/)"
    )
    run.add_argument(
        "--specs",
        action="append",
        default=None,
        metavar="DIR",
        help="spec folder adding to or overriding the standard specs by id; repeatable"
        " (default: specs/ when it exists)",
    )
    run.add_argument(
        "--fixtures",
        default="fixtures",
        metavar="PATH",
        help="folder of traces (<case-id>.json or <case-id>/*.json), or a .jsonl file (default: fixtures/)",
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
        help="worker processes (default: the number of usable cores)",
    )
    run.add_argument(
        "--max-trace-bytes",
        type=_positive_int,
        default=64 * 1024 * 1024,
        metavar="N",
        help="refuse trace files larger than this, before reading them (default: 64 MiB)",
    )
    run.add_argument("-q", "--quiet", action="store_true", help="print only the summary line")

    lint = sub.add_parser(
        "lint",
        help="check case and spec files for mistakes, with line and column",
        description="Check case and spec files like a compiler: every problem with file, line, column and a fix.",
    )
    lint.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="case/spec files or folders (default: cases/ and specs/)",
    )
    lint.add_argument(
        "--specs", action="append", default=None, metavar="DIR", help="spec folder (repeatable)"
    )
    lint.add_argument(
        "--fixtures",
        metavar="PATH",
        help="also report cases without a trace and traces without a case",
    )
    lint.add_argument(
        "--format",
        choices=("text", "json", "github"),
        default="text",
        help="output format (default: text)",
    )
    lint.add_argument("--strict", action="store_true", help="exit 1 on warnings too")

    schema = sub.add_parser(
        "schema",
        help="print a JSON Schema (for editors and other tools)",
        description="Print the JSON Schema of a case file, a spec file, a trace or report.json.",
    )
    schema.add_argument("which", choices=("case", "spec", "trace", "report"))
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        if args.command == "run":
            return cmd_run(args)
        if args.command == "lint":
            from .lint import cmd_lint

            return cmd_lint(args)
        return cmd_schema(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ProblemsFound as exc:
        for problem in exc.problems:
            print(problem.format(), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted: no report was written", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_FAILED
    except Exception as exc:  # never a traceback: say it is our bug and where it happened
        print(
            f"internal error (a bug in trace-validator {__version__}, please report it):"
            f" {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        return EXIT_USAGE


def cmd_schema(args: Any) -> int:
    import json

    from .loading.schema import load_schema

    print(json.dumps(load_schema(args.which), indent=2, ensure_ascii=False))
    return EXIT_OK


def cmd_run(args: Any) -> int:
    from .app import RunOptions, execute_run

    options = RunOptions(
        cases=Path(args.cases),
        specs=[Path(s) for s in args.specs] if args.specs else None,
        fixtures=Path(args.fixtures),
        out=Path(args.out),
        jobs=args.jobs or default_jobs(),
        max_trace_bytes=args.max_trace_bytes,
        quiet=args.quiet,
    )
    return execute_run(options)
