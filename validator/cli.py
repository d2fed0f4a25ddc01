"""Command line: `python -m validator COMMAND ...`, one row of `COMMANDS` per command.

Each command lives in its module under `commands/`, which provides `build_parser(parser)`
(its flags, description and examples) and `main(args)` (its exit code). Only the module of
the command given is imported (and only its parser built in full), so `lint` or `schema`
never load the evaluator. Adding a command: its module, and a row here.

Exit codes (CI relies on them): 0 everything passed; 1 a case did not pass (or lint found
errors); 2 a usage error or an invalid case/spec file. Nothing here prints a traceback: an
unexpected error is reported as a bug, naming what was being processed.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType, ModuleType

from .commands import EXIT_FAILED, EXIT_USAGE
from .commands.options import program
from .dataclass import dataclass
from .dependencies import UnsupportedDependency, missing_dependency
from .problems import InternalError, ProblemsFound, UsageError
from .version import __version__


@dataclass(frozen=True)
class Command:
    """A command of the command line: its name (and module) and its line in `--help`."""

    name: str
    summary: str  # one line, for `--help`
    # The command writes a report set into --out: when it cannot finish, it says that no
    # report was written and what --out still holds.
    writes_reports: bool = False

    @property
    def module(self) -> str:
        """Its module under validator.commands: build_parser(parser) and main(args)."""
        return self.name


COMMANDS = (
    Command(
        "run", "evaluate saved traces against the cases and write reports", writes_reports=True
    ),
    Command("merge", "combine the reports of `run --shard I/N` into one report set"),
    Command("lint", "check case and spec files for mistakes, with line and column"),
    Command("schema", "print a JSON Schema (for editors and other tools)"),
    Command(
        "query",
        "print what a JSONPath finds in saved traces (to write specs by trying)",
    ),
    Command(
        "explain",
        "show how one case's checks were decided on its trace(s), step by step",
    ),
    Command("capture", "ask the agent (the config's target) for a trace per case and run"),
    Command("init", "write a starter suite: validator.yaml, a case and its trace"),
)
BY_NAME = {command.name: command for command in COMMANDS}
ALL = "*"  # build_parser(ALL): every command's flags (for the CLI reference in the docs)


def description(prog: str) -> str:
    return (
        "Validate saved LLM-agent traces against YAML cases, offline and deterministically.\n"
        "\n"
        f"  {prog} init          write a starter suite (validator.yaml, a case, a trace)\n"
        f"  {prog} lint          check the case and spec files\n"
        f"  {prog} run           evaluate the traces, write reports/\n"
        f"  {prog} COMMAND -h    a command's flags\n"
        "\n"
        "A suite's layout can be written once in validator.yaml (read from the working folder,\n"
        "or given with --config FILE); command-line flags override it.\n"
    )


def module_of(command: Command) -> ModuleType:
    return importlib.import_module(f".commands.{command.module}", __package__)


def build_parser(
    chosen: str = ALL, prog: str | None = None
) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The parser with the flags of the command named `chosen` (of every command with ALL;
    the others are listed by name and summary), and the command parsers built in full."""
    prog = prog or program()
    parser = argparse.ArgumentParser(
        prog=prog,
        description=description(prog),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{prog} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    built: dict[str, argparse.ArgumentParser] = {}
    for command in COMMANDS:
        sub_parser = sub.add_parser(
            command.name,
            help=command.summary,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if chosen in (ALL, command.name):
            module_of(command).build_parser(sub_parser)
            built[command.name] = sub_parser
    return parser, built


def reference(prog: str = "python -m validator", width: int = 100) -> str:
    """The command line reference in Markdown: `--help` of the tool and of each command, as
    argparse prints it `width` columns wide (docs/cli.md includes it; a test keeps it in
    step with the parsers)."""
    import os

    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)  # argparse reads the width from here
    try:
        parser, built = build_parser(ALL, prog)
        parts = ["```text", parser.format_help().rstrip(), "```"]
        for command in COMMANDS:
            parts += ["", f"### {command.name}", "", "```text"]
            parts += [built[command.name].format_help().rstrip(), "```"]
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
    return "\n".join(parts) + "\n"


def _chosen(argv: list[str]) -> str:
    """The command named on the command line: its first word that is not an option."""
    return next((token for token in argv if not token.startswith("-")), "")


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
    processes killed (validator.processes), the previous reports left as they were. Not an
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
    only if the process module was imported, which lint and schema never do."""
    processes = sys.modules.get("validator.processes")
    if processes is not None:
        processes.stop_all()


def main(argv: list[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    name = _chosen(given)
    try:
        parser, built = build_parser(name)  # imports the command's module
    except UnsupportedDependency as exc:
        print(f"error: {exc.cli_text()}", file=sys.stderr)
        return EXIT_USAGE
    command = BY_NAME.get(name)
    try:
        args = parser.parse_args(given)
    except SystemExit as exc:  # a usage error argparse reports (exit 2), or --help (exit 0)
        if exc.code == EXIT_USAGE and command is not None and command.writes_reports:
            print(_no_report(command, Path(_out_given(given))), file=sys.stderr)
        raise
    if command is None or args.command is None:
        parser.print_help()
        return EXIT_USAGE
    args.argv = given
    args.program = parser.prog
    args.long_options = [
        s for a in built[command.name]._actions for s in a.option_strings if s.startswith("--")
    ]
    try:
        return _dispatch(command, args)
    finally:
        _stop_workers()


def _dispatch(command: Command, args: argparse.Namespace) -> int:
    """The command, its errors turned into exit codes and one line each."""
    out = Path(getattr(args, "out", "reports"))
    try:
        with batch_gc(), signals_as_exceptions():
            code: int = module_of(command).main(args)
            return code
    except (UsageError, UnsupportedDependency) as exc:
        print(f"error: {exc.cli_text()}", file=sys.stderr)
    except ProblemsFound as exc:
        for problem in exc.problems:
            print(problem.format(), file=sys.stderr)
    except Terminated:
        _stop_workers()
        print(f"terminated: {_no_report(command, out)}", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        _stop_workers()
        print(f"interrupted: {_no_report(command, out)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_FAILED
    except Exception as exc:  # never a traceback: say it is our bug and where it happened
        print(_unexpected(exc), file=sys.stderr)
    if command.writes_reports:  # it could not be done: say so last, and what is stale
        print(_no_report(command, out), file=sys.stderr)
    return EXIT_USAGE


def _unexpected(exc: Exception) -> str:
    """The line for an error no command expects: a library missing from this Python (what
    to install), else a bug of ours (where it happened)."""
    missing = missing_dependency(exc)
    if missing is not None:
        return f"error: {missing}"
    detail = str(exc) if isinstance(exc, InternalError) else f"{type(exc).__name__}: {exc}"
    return f"internal error (a bug in trace-validator {__version__}, please report it): {detail}"


def _no_report(command: Command, out: Path) -> str:
    """That no report was written and, for a command that writes a report set, what the
    output folder holds instead."""
    if not command.writes_reports:
        return "no report was written"
    from .commands.summary import no_report_line  # here: only when a run stops

    return no_report_line(out)


def _out_given(argv: list[str]) -> str:
    """The --out of a command line argparse could not read (the default when not found)."""
    for at, token in enumerate(argv):
        if token.startswith("--out="):
            return token[len("--out=") :]
        if token == "--out" and at + 1 < len(argv):
            return argv[at + 1]
    return "reports"
