"""`query JSONPATH TRACE...`: what a JSONPath finds in saved traces, for people writing specs.

Each trace is read exactly as `run` reads it (the suite config's `traces:` settings: format,
`split`, OTLP grouping, size limit), and the expression is compiled and evaluated by the one
query engine checks use, `$.view` included (made by the same adapter, configured or detected).
Every match is printed with its concrete path and its value (bounded, one safe line); a
match under `$.view` also names the view field it is.

Exit codes: 0 something matched; 1 nothing matched in any trace; 2 the JSONPath (or the
config) is wrong, or no trace could be read.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import field, replace
from pathlib import Path
from typing import Any

from .. import codes
from ..dataclass import dataclass
from ..display import one_line, shorten
from ..evaluation.predicates import TraceContext, reads_view
from ..evaluation.query import Query, QueryError, QueryEvaluationError, compile_query
from ..evaluation.tracefile import Trace, TraceReader
from ..evaluation.view import (
    ADAPTERS,
    AUTO,
    VIEW_CHOICES,
    VIEW_FIELDS,
    unread_text,
    view_field_problem,
)
from ..inputs import Job, display_path, format_of
from ..loading.specs import view_steps
from ..model import TraceSettings
from ..problems import ProblemsFound, show
from ..traces import DEFAULT_MAX_TRACE_BYTES, TraceError, read_trace_file
from . import EXIT_FAILED, EXIT_OK, EXIT_USAGE, options
from .layout import SuiteFlags, read_config
from .pathhints import missing_step

VALUE_WIDTH = 200  # characters of a value shown on a line (the --json output has it whole)
PATH_CHARS = 1_000  # of a concrete path shown on a line (idem)


class BadQuery(Exception):
    """A JSONPath the command cannot evaluate: the message and where in the expression."""

    def __init__(self, expression: str, column: int, message: str) -> None:
        super().__init__(message)
        self.expression = expression
        self.column = column
        self.message = message

    def lines(self) -> list[str]:
        shown = QueryError(self.expression, self.column, self.message).caret_lines()
        return [
            f"error: JSONPath {one_line(self.expression)} at character {self.column}:"
            f" {one_line(self.message)}",
            *(one_line(line) for line in shown),
        ]


def compile_for_query(expression: str) -> Query:
    """The compiled query, or BadQuery: a syntax error, or a `$.view` field that does not
    exist (the same rule lint applies to specs), each at its character."""
    try:
        query = compile_query(expression)
    except QueryError as exc:
        raise BadQuery(expression, exc.column, exc.message) from None
    problem = view_problem(expression)
    if problem is not None:
        raise BadQuery(expression, *problem)
    return query


def view_problem(expression: str) -> tuple[int, str] | None:
    """(column, message) of the first step of a `$.view` path that names no view field."""
    steps = view_steps(expression) if reads_view(expression) else None
    if steps is None or view_field_problem(steps) is None:
        return None
    at, column = len("$.view"), len("$.view") + 1
    for count, part in enumerate(steps, start=1):
        found = expression.find(part, at)
        if found >= 0:
            column, at = found + 1, found + len(part)
        problem = view_field_problem(steps[:count])
        if problem is not None:
            return column, problem
    return None  # unreachable: the whole path has a problem, so some prefix does


def view_field_of(path: str | None) -> str | None:
    """The view field a concrete `$.view...` path is (`tool_calls[*].name` for
    `$.view.tool_calls[2].name`), or the field it lies within (`tool_calls[*].arguments`)."""
    if path is None or not path.startswith("$.view."):
        return None
    generic = re.sub(r"\[\d+\]", "[*]", path[len("$.view.") :])
    known = set(VIEW_FIELDS)
    while generic:
        if generic in known:
            return generic
        cut = max(generic.rfind("."), generic.rfind("["))
        generic = generic[:cut] if cut > 0 else ""
    return None


@dataclass
class Block:
    """What one trace gave: its matches, or why it could not be looked at."""

    trace: str
    matches: list[tuple[str | None, Any]] = field(default_factory=list)
    error: str | None = None  # the trace could not be read, or the query not evaluated
    adapter: str | None = None  # the adapter that made $.view, when the query read it
    unread: list[dict[str, Any]] = field(default_factory=list)  # what $.view left unread
    hint: str | None = None  # for no match: the first step of the path that is not there


@dataclass
class QueryOptions:
    """Everything `query` was asked for: the expression, the traces and how to read them."""

    expression: str
    traces: list[str]
    settings: TraceSettings = field(default_factory=TraceSettings)
    as_json: bool = False
    max_trace_bytes: int = DEFAULT_MAX_TRACE_BYTES


def main(args: argparse.Namespace) -> int:
    try:
        compile_for_query(args.jsonpath)  # before the config: the query is what is tried
    except BadQuery as exc:
        for line in exc.lines():
            print(line, file=sys.stderr)
        return EXIT_USAGE
    config = read_config(SuiteFlags.of(args))
    # Only the `traces:` section matters here: a cases or fixtures folder that does not
    # exist (config-path) is run's concern, any other error makes the settings a guess.
    errors = [p for p in config.errors if p.code != codes.CONFIG_PATH] if config else []
    if errors:
        raise ProblemsFound(errors)
    settings = config.traces if config is not None else TraceSettings()
    if args.view is not None:  # --view: this adapter (or auto) instead of traces.view
        settings = replace(settings, view=None if args.view == AUTO else args.view)
    options = QueryOptions(
        args.jsonpath, list(args.traces), settings, args.json, args.max_trace_bytes
    )
    return execute_query(options)


def execute_query(options: QueryOptions) -> int:
    """Print what the query finds in each trace (blocks as they come, or one JSON document
    at the end); the exit code. A trace the query cannot be evaluated on counts as one that
    could not be looked at, never as one where nothing matched."""
    query = compile_for_query(options.expression)
    looked = matched = failed = 0
    kept: list[Block] = []
    for name in options.traces:
        for block in trace_blocks(query, name, options):
            looked += block.error is None
            failed += block.error is not None
            matched += bool(block.matches)
            if options.as_json:
                kept.append(block)
            else:
                _print_block(block, options.settings)
    if options.as_json:
        print(json.dumps(json_document(query, kept), ensure_ascii=False, indent=2, default=str))
    elif looked:
        print(_summary(looked, matched, failed))
    if matched:
        return EXIT_OK
    if not looked:
        print("error: no trace could be read and queried", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_FAILED


def _summary(looked: int, matched: int, failed: int) -> str:
    line = f"{matched} of {looked} trace{'s' if looked != 1 else ''} matched"
    return line + (f"; {failed} could not be read or queried (see above)" if failed else "")


# --------------------------------------------------------------------------------------------
# Reading and querying


def trace_blocks(query: Query, name: str, options: QueryOptions) -> list[Block]:
    """One block per trace the file holds (one, or several: JSON Lines, `traces.split`,
    OTLP exports), read as `run` reads it; one block with the reason when it cannot be."""
    path = Path(name)
    shown = display_path(path)
    if path.is_dir():
        return [Block(shown, error="is a folder: name the trace files in it")]
    if not path.is_file():
        why = "no such file" if not path.exists() else "not a regular file"
        return [Block(shown, error=why)]
    settings = options.settings
    max_bytes = options.max_trace_bytes
    reader = TraceReader(settings, lambda p: read_trace_file(p, None, max_bytes), None, max_bytes)
    job = Job(None, shown, str(path), format=format_of(str(path), settings.format))
    blocks: list[Block] = []
    try:
        for trace in reader.traces(job):
            blocks.append(_query_trace(query, trace, settings))
    except TraceError as exc:
        blocks.append(Block(shown, error=str(exc)))
    except MemoryError:
        blocks.append(Block(shown, error="not enough memory to read this trace"))
    if not blocks:
        blocks.append(Block(shown, error="the file holds no trace (only blank lines)"))
    return blocks


def _query_trace(query: Query, trace: Trace, settings: TraceSettings) -> Block:
    if trace.error is not None:
        return Block(trace.label, error=trace.error)
    ctx = TraceContext(trace.document, settings.view, settings.messages, trace.parent)
    block = Block(trace.label)
    try:
        document = ctx.document(query)
        block.matches = query.find_located(document)
    except QueryEvaluationError as exc:
        block.error = f"the query cannot be evaluated on this trace: {exc.reason}"
    except RecursionError:
        block.error = "the trace is nested too deeply to examine"
    block.adapter = ctx.view_adapter
    if ctx.view_adapter is not None:
        block.unread = list(ctx.view_document()["view"].get("unread") or [])
    if not block.matches and block.error is None:
        block.hint = missing_step(query.expression, document)
    return block


# --------------------------------------------------------------------------------------------
# Output


def _print_block(block: Block, settings: TraceSettings) -> None:
    label = one_line(block.trace)
    if block.error is not None:
        print(f"error: {label}: {one_line(block.error)}", file=sys.stderr)
        return
    count = len(block.matches)
    how = "configured" if settings.view else "detected"
    made = f" ($.view made by the {block.adapter} adapter, {how})" if block.adapter else ""
    print(f"== {label}: {count} match{'es' if count != 1 else ''}{made}")
    if block.unread:
        print(f"  $.view left unread: {one_line(unread_text(block.unread))}")
    for path, value in block.matches:
        field_name = view_field_of(path)
        # A path is as long as the keys it names, which a trace may make a megabyte long.
        shown = (
            one_line(shorten(path, PATH_CHARS))
            if path is not None
            else "(no concrete path: a computed value)"
        )
        suffix = f"  [view field {field_name}]" if field_name else ""
        print(f"  {shown} = {one_line(show(value, VALUE_WIDTH))}{suffix}")
    if block.hint:
        print(f"  no match: {one_line(block.hint)}")


def json_document(query: Query, blocks: list[Block]) -> dict[str, Any]:
    """--json: every match as {trace, path, value} (with view_field under $.view), and every
    trace that could not be read or queried as {trace, error}."""
    matches: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    for block in blocks:
        if block.error is not None:
            errors.append({"trace": block.trace, "error": block.error})
            continue
        for path, value in block.matches:
            record: dict[str, Any] = {"trace": block.trace, "path": path, "value": value}
            field_name = view_field_of(path)
            if field_name is not None:
                record["view_field"] = field_name
            matches.append(record)
    traces = [
        {
            "trace": b.trace,
            "matches": len(b.matches),
            **({"hint": b.hint} if b.hint else {}),
            **({"adapter": b.adapter, "unread": b.unread} if b.adapter else {}),
        }
        for b in blocks
        if b.error is None
    ]
    return {"query": query.expression, "matches": matches, "traces": traces, "errors": errors}


# --------------------------------------------------------------------------------------------
# The command line

QUERY_EPILOG = """\
examples:
  %(prog)s '$.toolInvocations[*].toolName' fixtures/mysql-slow-query.json
  %(prog)s '$.view.tool_calls[*].name' fixtures/*.json
  %(prog)s --config examples/tau2-bench '$.view.final_answer' results.json
  %(prog)s --json '$.finalAnswer' export.jsonl | jq '.matches[].value'

each trace is read as run reads it: a JSON Lines file or a file split by the config's
traces.split gives one block per trace (file:LINE, file#N); $.view is made by the
configured adapter (traces.view, or --view) or the detected one, and each block says which
adapter made it and what it left unread.

exit codes: 0 something matched; 1 nothing matched in any trace; 2 a bad JSONPath (or
            config), or no trace could be read
"""


def build_parser(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Evaluate a JSONPath on saved traces as checks do, and print each match with its"
        " concrete path and value. The suite config's traces: settings (split, format,"
        " view) are honoured, so $.view works as in run."
    )
    parser.epilog = QUERY_EPILOG
    options.config_option(parser)
    parser.add_argument(
        "jsonpath", metavar="JSONPATH", help="the query, e.g. '$.view.tool_calls[*].name'"
    )
    parser.add_argument(
        "traces", nargs="+", metavar="TRACE", help="trace files (.json, .jsonl, ...)"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON document: matches as {trace, path, value}",
    )
    parser.add_argument(
        "--view",
        choices=VIEW_CHOICES,
        default=None,
        metavar="ADAPTER",
        help="the adapter that makes $.view: auto (detected per trace) or one of"
        f" {', '.join(ADAPTERS)} (default: the config's traces.view)",
    )
    options.max_trace_bytes(parser)
