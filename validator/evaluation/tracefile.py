"""A trace file as its traces, and the case each trace belongs to (the suite config's
`traces:` section applied).

`TraceReader` turns one `Job` (a file, or one JSON Lines line) into its traces: by format
(`json`: one document, `jsonl`: one per line, `otlp-json`: spans grouped per traceId), then
`split` (a JSONPath whose every match is one trace). `CaseIdRule` is `traces.case_id`
compiled: the id of a trace's case, read from the trace (a JSONPath) or made from a template
(`{file_stem}-{$.id}`). Both the run (`worker.Worker`) and `lint --fixtures` read traces
through here, so they cannot disagree on which trace belongs to which case.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import field
from pathlib import PurePosixPath
from typing import Any

from ..dataclass import dataclass
from ..inputs import Job, format_of
from ..model import TraceFields, TraceSettings
from ..problems import closest, kind_of, show
from ..traces import (
    DEFAULT_MAX_TRACE_BYTES,
    Document,
    ParsedTrace,
    TraceError,
    checked_stat,
    drop_invalid,
    is_invalid,
    is_trace,
    not_a_trace,
    otlp_traces,
    parse_document,
    read_trace_bytes,
)
from .query import Query, QueryError, QueryEvaluationError, compile_query

# The case schema's id rule: an id found in a trace that breaks it can name no case.
_ID = re.compile(r"[a-z0-9][a-z0-9._-]*\Z")

FILE_PLACEHOLDERS = ("file_stem", "file_name", "group", "index")
# `traces.group`'s words; any other value is a JSONPath.
GROUP_WORDS = ("file", "folder")


# --------------------------------------------------------------------------------------------
# Case ids


def fields_case_id(fields: TraceFields, trace: Any) -> tuple[str | None, str | None]:
    """The case id a trace names in the trace-fields spec's `case_id`, and an error reason
    when it names one badly (not text)."""
    query = fields.query("case_id")
    if not isinstance(trace, dict) or query is None:
        return None, None
    try:
        found = [v for v in query.find(trace) if v is not None]
    except QueryEvaluationError as exc:  # no case can be matched: the run is an error
        return None, f"{exc.expression} cannot be read, so no case can be matched: {exc.reason}"
    if not found:
        return None, None
    if not isinstance(found[0], str):
        return (
            None,
            f"{query.expression} must be text, found {kind_of(found[0])} {show(found[0])}",
        )
    return found[0], None


class TemplateError(ValueError):
    """A template that cannot be read (`traces.case_id`, the config's `target:`); `column`
    is 1-based in the text."""

    def __init__(self, text: str, column: int, message: str) -> None:
        super().__init__(message)
        self.text = text
        self.column = column
        self.message = message

    def caret_lines(self, indent: str = "  ") -> list[str]:
        # One line, one column a character: the caret stays under the character it names.
        shown = self.text.replace("\n", " ").replace("\t", " ")
        return [indent + shown, indent + " " * (self.column - 1) + "^"]


# A template part: literal text, a file placeholder's name, or a compiled JSONPath.
Part = str | tuple[str, str] | Query


def compile_case_id(text: str) -> list[Part]:
    """`traces.case_id` as parts: a JSONPath (`$.task_id`, the whole text) or a template of
    literal text and `{file_stem}`, `{file_name}`, `{group}`, `{index}` and `{$...}`
    placeholders (`{{` and `}}` are literal braces). Raises TemplateError, or QueryError
    with its column counted in the whole text."""
    if text.startswith("$"):
        return [compile_query(text)]
    parts: list[Part] = []
    literal = ""
    i = 0
    while i < len(text):
        char = text[i]
        if text.startswith(("{{", "}}"), i):
            literal += char
            i += 2
        elif char == "}":
            raise TemplateError(text, i + 1, "a '}' without its '{': write '}}' for a brace")
        elif char == "{":
            end = _placeholder_end(text, i)
            if literal:
                parts.append(literal)
                literal = ""
            parts.append(_placeholder(text, i, end))
            i = end + 1
        else:
            literal += char
            i += 1
    if literal:
        parts.append(literal)
    if not any(not isinstance(p, str) for p in parts):
        raise TemplateError(
            text,
            1,
            "a case_id is a JSONPath ($.task_id) or a template with a placeholder"
            " ({file_stem}, {file_name}, {group}, {index} or {$.json.path}); this is neither",
        )
    return parts


def _placeholder_end(text: str, start: int) -> int:
    """The index of the '}' closing the placeholder opened at `start` (quotes and brackets
    inside a JSONPath placeholder are skipped over)."""
    quote = ""
    depth = 0
    for i in range(start + 1, len(text)):
        char = text[i]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        elif char == "}" and depth <= 0:
            return i
    # Unbalanced brackets or quotes inside: the first '}' ends it, and the JSONPath inside
    # is then reported by the JSONPath compiler, at its own character.
    end = text.find("}", start + 1)
    if end < 0:
        raise TemplateError(text, start + 1, "this '{' is not closed: add the '}'")
    return end


def _placeholder(text: str, start: int, end: int) -> Part:
    inner = text[start + 1 : end]
    if inner.strip().startswith("$"):
        try:
            return compile_query(inner.strip())
        except QueryError as exc:
            offset = start + 1 + (len(inner) - len(inner.lstrip()))
            raise QueryError(text, offset + exc.column, exc.message) from None
    if inner in FILE_PLACEHOLDERS:
        return ("file", inner)
    close = closest(inner, FILE_PLACEHOLDERS)
    hint = f" (did you mean '{{{close}}}'?)" if close else ""
    raise TemplateError(
        text,
        start + 1,
        f"unknown placeholder '{{{inner}}}'{hint}: use {{file_stem}}, {{file_name}},"
        " {group}, {index} or a JSONPath such as {$.id}",
    )


@dataclass(frozen=True)
class Place:
    """Where a trace was read: what `traces.case_id` reads besides the trace itself.

    `index`: the 1-based position of the trace in its file (after split and grouping);
    `group`: the group's value as text (for `file` and `folder`, the path under the fixtures
    folder), None when not grouped; `first`: what the case id is read from (a grouped trace's
    first record; None: the trace itself)."""

    index: int
    group: str | None = None
    first: Any = None


def uses_place(text: str | None) -> bool:
    """Whether a `traces.case_id` needs where a trace was read ({group}, {index})."""
    return (
        text is not None and not text.startswith("$") and ("{index}" in text or "{group}" in text)
    )


class CaseIdRule:
    """`traces.case_id`, compiled once per process: the id of the case a trace belongs to.

    The id found is lower-cased (case ids are lower-case, so a file `Run-A.json` read with
    `{file_stem}` matches case `run-a`); a number is its JSON text (12 matches case "12").
    A grouped trace's id is read from its first record."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.parts = compile_case_id(text)

    def case_id(
        self, trace: Any, file_name: str, place: Place | None
    ) -> tuple[str | None, str | None]:
        """(the case id, None), or (None, why none can be read) for this trace, read at
        `place` (`Trace.place`: its {index} and {group}, and the first record of a group;
        None: a trace read alone, index 1)."""
        if place is not None and place.first is not None:
            trace = place.first
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, tuple):
                out.append(self._placed(part[1], file_name, place))
            else:
                value, error = self._value(part, trace)
                if error is not None:
                    return None, error
                out.append(value or "")
        found = "".join(out).lower()
        if not _ID.match(found):
            return None, (
                f"traces.case_id {self.text} gives {show(found)}, which no case can have as"
                " its id (ids are lower-case letters, digits, '.', '_' and '-'): read another"
                " field, or give the cases a fixture: key"
            )
        return found, None

    @staticmethod
    def _placed(name: str, file_name: str, place: Place | None) -> str:
        if name == "index":
            return str(place.index) if place is not None else "1"
        if name == "group":
            return place.group or "" if place is not None else ""
        path = PurePosixPath(file_name)
        return path.name if name == "file_name" else _stem(path.name)

    def _value(self, query: Query, trace: Any) -> tuple[str | None, str | None]:
        where = query.expression if query.expression == self.text else f"{{{query.expression}}}"
        found = [v for v in query.find(trace) if v is not None]
        if not found:
            return None, f"traces.case_id: {where} finds nothing in this trace"
        texts = []
        for value in found:
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                return None, (
                    f"traces.case_id: {where} finds {kind_of(value)} {show(value)}, not an id:"
                    " point it at a text or number field"
                )
            texts.append(value if isinstance(value, str) else show(value))
        distinct = list(dict.fromkeys(texts))
        if len(distinct) > 1:
            shown = ", ".join(show(t) for t in distinct[:3])
            return None, (
                f"traces.case_id: {where} finds {len(distinct)} different values ({shown}):"
                " point it at one field"
            )
        if not distinct[0]:
            return None, f"traces.case_id: {where} finds empty text"
        return distinct[0], None


def _stem(name: str) -> str:
    return name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name


# --------------------------------------------------------------------------------------------
# Reading a job's traces


@dataclass(fast_init=True)
class Trace:
    """One trace read from a job: its document, or why it cannot be evaluated."""

    document: Any
    label: str  # how the report names it: the file, `file:LINE`, `file#N`, `file#TRACE-ID`
    parent: Any = None  # the document it was split out of
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    line: int = 1  # where in the file it starts (a JSON Lines line), for lint
    text: str | None = None  # a JSON Lines entry that cannot be read, as written
    column: int = 1  # where on that line the error is, for lint
    error_kind: str | None = None  # the TraceError's kind ("json", "encoding"...), for lint
    place: Place | None = None  # where it was read, for traces.case_id's {group} and {index}


class TraceReader:
    """Reads the traces of jobs as the suite config's `traces:` section says.

    `read_object` reads a whole file that must hold one JSON object (the common case, given
    by the runner so a test can stand in for the disk); everything else is read with
    `traces.read_trace_bytes`."""

    def __init__(
        self,
        settings: TraceSettings,
        read_object: Callable[[str], ParsedTrace],
        root: Any = None,
        max_bytes: int = DEFAULT_MAX_TRACE_BYTES,
    ) -> None:
        self.settings = settings
        self.split = compile_query(settings.split) if settings.split else None
        self.group = settings.group
        self.placed = uses_place(settings.case_id)  # case ids read {index} or {group}
        self.group_query = (
            compile_query(self.group) if self.group and self.group not in GROUP_WORDS else None
        )
        self.read_object = read_object
        self.root = root
        self.max_bytes = max_bytes

    def traces(self, job: Job) -> Iterator[Trace]:
        """The traces of one job, in file order, each with its place (see `Place`): its
        records (`_records`), grouped as `traces.group` says. Raises TraceError for the file
        as a whole."""
        if job.members:
            stream: Iterator[Trace] = self._whole(self._members(job), job)
        elif self.group is None:
            stream = self._records(job)
            if not self.placed:  # the common case: nothing needs to know where it was read
                yield from stream
                return
        elif self.group in GROUP_WORDS:
            stream = self._whole(self._records(job), job)
        else:
            stream = self._by_value(self._records(job), job.fixture)
        for index, trace in enumerate(stream, start=1):
            group = trace.place.group if trace.place is not None else None
            first = trace.place.first if trace.place is not None else None
            trace.place = Place(index, group, first)
            yield trace

    def _records(self, job: Job) -> Iterator[Trace]:
        """The records of one job: a whole document, each match of `traces.split`, each
        JSON Lines line (split too), or each trace of an OpenTelemetry export."""
        if job.text is not None:
            raw = job.text.encode("utf-8", errors="surrogateescape")
            if len(raw) > self.max_bytes:
                raise TraceError(
                    f"the line is {len(raw)} bytes, over the limit of {self.max_bytes} bytes"
                )
            yield from self._split(parse_document(raw), job.fixture, _line_of(job), "line")
            return
        assert job.path is not None
        fmt = job.format or format_of(job.path, self.settings.format)
        if fmt == "otlp-json":
            yield from self._otlp(job)
        elif fmt == "jsonl":
            yield from self._jsonl(job)
        elif self.split is None:
            parsed = self.read_object(job.path)
            yield Trace(parsed.document, job.fixture, notes=parsed.notes)
        else:
            data = read_trace_bytes(job.path, self.root, self.max_bytes)
            yield from self._split(parse_document(data), job.fixture, 1)

    def _members(self, job: Job) -> Iterator[Trace]:
        """The records of the files of a `folder` group, file after file (name order)."""
        for path, label in job.members:
            member = Job(job.case_id, label, path, format=format_of(path, self.settings.format))
            try:
                yield from self._records(member)
            except TraceError as exc:
                yield Trace(None, label, error=str(exc), column=exc.column or 1,
                            line=exc.line or 1, error_kind=exc.kind)  # fmt: skip

    def _whole(self, records: Iterator[Trace], job: Job) -> Iterator[Trace]:
        """All records as one trace (`group: file` or `folder`): a list, in read order. A
        record that cannot be read makes the whole group an error, naming it."""
        documents: list[Any] = []
        notes: list[str] = []
        first: Trace | None = None
        for record in records:
            if record.error is not None:
                yield _failed_group(record, job.fixture)
                return
            first = first or record
            documents.append(record.document)
            notes.extend(n for n in record.notes if n not in notes)
        if first is None:
            return  # no record: the run says the file holds no trace
        place = Place(1, job.group or job.fixture, first.document)
        yield Trace(documents, job.fixture, first.parent, notes, place=place)

    def _by_value(self, records: Iterator[Trace], label: str) -> Iterator[Trace]:
        """Records with equal values of the `traces.group` JSONPath as one trace each (in
        the order each value is first seen); a record without the value is its own trace."""
        assert self.group_query is not None
        groups: dict[str, list[Trace]] = {}
        order: list[str | Trace] = []
        for record in records:
            key, why = (None, None) if record.error else self._group_value(record.document)
            if key is None:
                if why is not None:
                    record.notes.append(why)
                order.append(record)
            elif key in groups:
                groups[key].append(record)
            else:
                groups[key] = [record]
                order.append(key)
        for item in order:
            if isinstance(item, Trace):
                yield item
                continue
            members = groups[item]
            notes: list[str] = []
            for record in members:
                notes.extend(n for n in record.notes if n not in notes)
            first = members[0]
            yield Trace(
                [r.document for r in members],
                f"{label}#{item}",
                first.parent,
                notes,
                line=first.line,
                place=Place(1, item, first.document),
            )

    def _group_value(self, record: Any) -> tuple[str | None, str | None]:
        """The record's group value as text, or (None, the note saying why it has none)."""
        assert self.group_query is not None
        expression = self.group_query.expression
        own = "it is read as a trace of its own"
        try:
            found = [v for v in self.group_query.find(record) if v is not None]
        except QueryEvaluationError as exc:
            return None, f"traces.group {expression} cannot be read ({exc.reason}): {own}"
        if not found:
            return None, f"traces.group {expression} finds nothing in this record: {own}"
        value = found[0]
        if isinstance(value, (dict, list, bool)):
            return None, (
                f"traces.group {expression} finds {kind_of(value)} {show(value)}, not a"
                f" value to group by: {own}"
            )
        return (value if isinstance(value, str) else json.dumps(value)), None

    def _split(
        self, document: Document, label: str, line: int, what: str = "file"
    ) -> Iterator[Trace]:
        """Each match of `traces.split` as one trace (the document itself without it)."""
        value = document.value
        if self.split is None:
            if not is_trace(value):
                raise not_a_trace(value)
            notes = drop_invalid(value).get(None, []) if document.marked else []
            yield Trace(value, label, notes=[*notes, *document.notes], line=line)
            return
        matches = self.split.find(value)
        if not matches:
            raise TraceError(
                f"traces.split {self.split.expression} matches nothing in this {what}: point"
                " it at the list of traces (e.g. $[*] or $.simulations[*])"
            )
        owners = {id(m): i for i, m in enumerate(matches) if isinstance(m, (dict, list))}
        by_owner = drop_invalid(value, owners) if document.marked else {}
        for i, match in enumerate(matches):
            notes = [*by_owner.get(None, []), *by_owner.get(i, []), *document.notes]
            trace = Trace(match, f"{label}#{i + 1}", value, notes, line=line)
            if is_invalid(match) or not is_trace(match):
                kind = "a non-standard JSON value" if is_invalid(match) else kind_of(match)
                trace.error = (
                    f"traces.split {self.split.expression}: match {i + 1} is {kind}, not a"
                    " trace (a JSON object or list)"
                )
            yield trace

    def _jsonl(self, job: Job) -> Iterator[Trace]:
        """A JSON Lines file in the fixtures folder, read here line by line (memory stays one
        line; a line over the size limit is that trace's error)."""
        assert job.path is not None
        try:
            checked_stat(job.path, self.root)  # the same refusals as any trace file
            handle = open(job.path, "rb")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise TraceError(f"cannot read the file: {exc.strerror or exc}") from None
        with handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                label = f"{job.fixture}:{number}"
                try:
                    if len(raw) > self.max_bytes:
                        raise TraceError(
                            f"the line is {len(raw)} bytes, over the limit of"
                            f" {self.max_bytes} bytes"
                        )
                    yield from self._split(parse_document(raw), label, number, "line")
                except TraceError as exc:
                    text = raw.decode("utf-8", errors="replace")
                    yield Trace(
                        None,
                        label,
                        error=str(exc),
                        line=number,
                        text=text,
                        column=exc.column or 1,
                        error_kind=exc.kind,
                    )

    def _otlp(self, job: Job) -> Iterator[Trace]:
        assert job.path is not None
        data = read_trace_bytes(job.path, self.root, self.max_bytes)
        for trace_id, trace in otlp_traces(data):
            notes = drop_invalid(trace).get(None, [])
            yield Trace(trace, f"{job.fixture}#{trace_id}", notes=notes)


def _line_of(job: Job) -> int:
    tail = job.fixture.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else 1


def _failed_group(record: Trace, label: str) -> Trace:
    """The error of a group one of whose records cannot be read (no silent pass: the group
    is not evaluated without it)."""
    error = record.error or ""
    one_line = "invalid JSON at line 1 column "
    if record.text is not None and error.startswith(one_line):  # a JSON Lines line: its line
        error = f"invalid JSON at line {record.line} column {error[len(one_line) :]}"
    elif record.label != label:
        error = f"{record.label}: {error}"
    return Trace(
        None,
        label,
        error=error,
        line=record.line,
        text=record.text,
        column=record.column,
        error_kind=record.error_kind,
    )


def reads_whole_files(settings: TraceSettings) -> bool:
    """Whether a JSON Lines export is read as a whole (not one job a line): its lines are
    grouped, or their case ids count their place in the file ({index})."""
    return settings.group is not None or uses_place(settings.case_id)
