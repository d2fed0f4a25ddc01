"""The command line's shared argument types and flags: what several commands take alike
(--config, --cases/--specs/--fixtures, --case/--tag, --max-trace-bytes, --color, -v) and the
value parsers argparse calls (a format list, a rate, a shard, a whole number). Each command
module builds its own parser from these (`add_arguments`), so a flag common to several
commands is written once."""

from __future__ import annotations

import argparse
import os
import sys
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any, TextIO

from ..dataclass import dataclass
from ..problems import UsageError, did_you_mean
from ..report import REPORTERS
from ..report.history import DEFAULT_DEPTH
from ..report.shard import Shard
from ..traces import DEFAULT_MAX_TRACE_BYTES

FORMATS = tuple(REPORTERS)
COLORS = ("auto", "always", "never")


def program() -> str:
    """How the user started the tool: `trace-validator` (the installed script) or
    `python -m validator`, for usage lines, --version and the command line reports show."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return "trace-validator" if name == "trace-validator" else "python -m validator"


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


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def config_option(parser: argparse.ArgumentParser) -> None:
    """--config, which every command that reads a suite takes (a wrapper script can pass it
    to each of them)."""
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="suite config file (default: ./validator.yaml)",
    )


# The suite's paths, as every command that reads a suite takes them (the help text says what
# each command does with them).
PATH_OPTIONS: dict[str, dict[str, Any]] = {
    "--cases": {"metavar": "PATH"},
    "--specs": {"metavar": "DIR", "action": "append"},
    "--fixtures": {"metavar": "PATH"},
}


def path_option(
    parser: argparse.ArgumentParser, name: str, help: str, metavar: str | None = None
) -> None:
    settings = dict(PATH_OPTIONS[name])
    if metavar is not None:
        settings["metavar"] = metavar
    parser.add_argument(name, default=None, help=help, **settings)


def max_trace_bytes(
    parser: argparse.ArgumentParser,
    help: str = "refuse trace files larger than this, before reading them (default: 64 MiB)",
) -> None:
    parser.add_argument(
        "--max-trace-bytes",
        type=positive_int,
        default=DEFAULT_MAX_TRACE_BYTES,
        metavar="N",
        help=help,
    )


def selection(parser: argparse.ArgumentParser, verb: str, tag_more: str = "") -> None:
    """--case and --tag: which cases a command works on."""
    parser.add_argument(
        "--case",
        dest="case_patterns",
        action="append",
        default=[],
        metavar="ID",
        help=f"{verb} only this case (glob: 'mysql-*'); repeatable",
    )
    parser.add_argument(
        "--tag",
        dest="tags",
        action="append",
        default=[],
        metavar="TAG",
        help=f"{verb} only cases with this tag; repeatable{tag_more}",
    )


def color_option(parser: argparse.ArgumentParser, what: str) -> None:
    """--color auto|always|never (auto: on a terminal, unless NO_COLOR is set)."""
    parser.add_argument(
        "--color",
        choices=COLORS,
        default="auto",
        help=f"colour {what}: auto (default) on a terminal unless NO_COLOR is set",
    )


def use_color(choice: str, stream: TextIO) -> bool:
    """--color: always, never, or auto: on a terminal, unless NO_COLOR is set (no-color.org)
    or TERM is dumb."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def verbose_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print every case with a line per check under it",
    )


_COLOURS = {"pass": "32", "fail": "31", "skipped": "33", "error": "31", "not_run": "33"}


@dataclass(frozen=True)
class Paint:
    """Status words in colour on a terminal (see `use_color`), plain otherwise."""

    on: bool = False

    def status(self, status: str, width: int = 0) -> str:
        word = status.upper().replace("_", " ") if width == 0 else status.upper()
        code = _COLOURS.get(status)
        padding = " " * max(width - len(word), 0)
        return (f"\x1b[{code};1m{word}\x1b[0m" if self.on and code else word) + padding

    def dim(self, text: str) -> str:
        return f"\x1b[2m{text}\x1b[0m" if self.on else text


def capture_arguments(parser: argparse.ArgumentParser, with_selection: bool) -> None:
    """--repeat and --overwrite, for capture and run --capture."""
    parser.add_argument(
        "--repeat",
        type=positive_int,
        default=None,
        metavar="K",
        help="capture K runs of each case, FIXTURES/<id>/run-1.json ... run-K.json"
        " (default: 1, FIXTURES/<id>.json)"
        if with_selection
        else "with --capture: K runs of each case (default: 1)",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="capture every run again, replacing saved traces (default: keep them and"
        " capture only the missing runs)"
        if with_selection
        else "with --capture: capture saved runs again too",
    )


def annotations_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--annotations",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="print GitHub Actions ::error lines for failed checks (default: when"
        " GITHUB_ACTIONS=true)",
    )


def report_output_options(parser: argparse.ArgumentParser) -> None:
    """Where the SARIF's paths and help links point (documented in docs/outputs.md, kept out
    of --help, which fits a screen), and whether the report goes to GitHub Actions' step
    summary: for run and merge."""
    parser.add_argument("--sarif-root", metavar="DIR", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--sarif-docs-url", metavar="URL", default=None, help=argparse.SUPPRESS)
    parser.add_argument(
        "--step-summary",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="append report.md to GITHUB_STEP_SUMMARY (default: yes)",
    )


def history_options(parser: argparse.ArgumentParser) -> None:
    """--history DIR and --history-depth N: each case's statuses across earlier reports (run
    and merge; docs/repeated-runs.md)."""
    parser.add_argument(
        "--history",
        metavar="DIR",
        default=None,
        help="a folder of earlier report.json: each case's history",
    )
    # Kept out of --help, which fits a screen: docs/repeated-runs.md and docs/cli.md say it.
    parser.add_argument(
        "--history-depth", type=positive_int, default=None, metavar="N", help=argparse.SUPPRESS
    )


def history_of(args: argparse.Namespace) -> tuple[Path | None, int]:
    """--history and --history-depth checked: the folder (None without the flag) and the
    depth. Raises UsageError for a depth without a folder (the folder is read later)."""
    if args.history is None:
        if args.history_depth is not None:
            raise UsageError(
                "--history-depth needs --history DIR (the folder of earlier report.json files)",
                f"add --history history, or leave out --history-depth {args.history_depth}",
            )
        return None, DEFAULT_DEPTH
    return Path(args.history), args.history_depth or DEFAULT_DEPTH


def sarif_root_of(value: str | None) -> Path | None:
    """--sarif-root checked: a folder that exists. Raises UsageError."""
    if value is None:
        return None
    path = Path(value)
    if not path.is_dir():
        what = "is not a folder" if path.exists() else "does not exist"
        raise UsageError(
            f"--sarif-root {value} {what}",
            "pass --sarif-root with the folder report.sarif's paths are relative to,"
            " e.g. --sarif-root .",
        )
    return path
