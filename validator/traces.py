"""Trace files -> parsed JSON documents, or a reason saying what is wrong and where.

Traces come from a live agent, so every way a file can be broken is expected here and turned
into a reason; nothing in this module raises for bad input.
It is over 600 lines as one concept: every way a trace file can be broken (encodings, JSON
quirks, JSON Lines, OTLP exports) is one reader's business, each turned into a reason.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections import Counter
from dataclasses import field
from pathlib import Path
from typing import Any

from . import fastjson
from .dataclass import dataclass
from .files import read_within
from .otlp import otlp_pairs
from .problems import LONE_SURROGATE, has_lone_surrogate, kind_of

DEFAULT_MAX_TRACE_BYTES = 64 * 1024 * 1024


class TraceError(Exception):
    """A trace that cannot be evaluated; the message is the reason shown in the report.

    `line` and `column` (1-based, in characters) say where in the file the problem is, when
    one place does; `kind` names what is wrong for callers that act on it: "json" (not
    valid JSON), "extra-data" (a second document follows the first), "encoding" (not
    UTF-8), or None."""

    def __init__(
        self,
        message: str,
        line: int | None = None,
        column: int | None = None,
        kind: str | None = None,
    ) -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.kind = kind


@dataclass(fast_init=True)
class ParsedTrace:
    """A parsed trace document, with a note for each value that was dropped when read."""

    document: Any  # a JSON object or list
    notes: list[str] = field(default_factory=list)


class _Invalid:
    """Stands for a value no JSON reader can hold (NaN, Infinity, 1e4000, an integer of
    100,000 digits) while parsing; removed before evaluation, with a note (`text`)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _Reader:
    """The json.loads hooks for one trace, and what they found."""

    __slots__ = ("duplicates", "invalid")

    def __init__(self) -> None:
        self.invalid: list[_Invalid] = []
        self.duplicates: list[tuple[dict[str, Any], list[tuple[str, Any]]]] = []

    def hooks(self) -> dict[str, Any]:
        return {
            "parse_constant": self.constant,
            "parse_float": self.number,
            "object_pairs_hook": self.pairs,
        }

    def _mark(self, text: str) -> _Invalid:
        marker = _Invalid(text)
        self.invalid.append(marker)
        return marker

    def constant(self, name: str) -> _Invalid:
        return self._mark(f"non-standard JSON value {name}")

    def number(self, text: str) -> float | _Invalid:
        value = float(text)
        if value - value == 0.0:  # finite; only overflow (1e4000) gives inf here
            return value
        return self._mark(f"number {_short(text)} (too large for a 64-bit float, like Infinity)")

    def whole(self, text: str) -> int | _Invalid:
        limit = sys.get_int_max_str_digits()
        digits = len(text) - text.startswith("-")
        if limit and digits > limit:
            return self._mark(
                f"whole number of {digits} digits (over Python's limit of {limit} digits)"
            )
        return int(text)

    def pairs(self, items: list[tuple[str, Any]]) -> dict[str, Any]:
        # Called for every object: the cheapest exact duplicate check (about 1.8x the plain
        # parse of a 20 KB trace; every pre-scan tried costs more than the parse).
        obj = dict(items)
        if len(obj) != len(items):
            self.duplicates.append((obj, items))
        return obj


def _short(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:20]}...{text[-10:]} ({len(text)} characters)"


def _loads(text: str) -> tuple[Any, _Reader]:
    reader = _Reader()
    try:
        return json.loads(text, **reader.hooks()), reader
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        # An integer over Python's digit limit. Checking every integer would slow every
        # trace down, so only a trace that has one is read again with the check.
        if "integer string conversion" not in str(exc):
            raise
    reader = _Reader()
    return json.loads(text, parse_int=reader.whole, **reader.hooks()), reader


# JSON's own messages, for the mistakes they word misleadingly, and where each mistake is
# (Python up to 3.12 points at the token after a trailing comma, not at the comma).
def _json_reason(exc: json.JSONDecodeError) -> tuple[str, int]:
    """A plain-language reason for a JSON error, and the offset of the character at fault."""
    doc, pos = exc.doc, exc.pos
    char = doc[pos] if pos < len(doc) else ""
    if exc.msg.startswith("Unterminated string"):
        return "a string is not closed: it has no closing quote", pos
    if exc.msg.startswith("Invalid control character"):
        if char in ("\n", "\r"):
            start = _string_start(doc, pos)
            opened = f" (it opens at column {start})" if start else ""
            return (
                f"a string is not closed before the end of the line{opened}: a closing quote"
                " is missing, or a line break inside a string must be written \\n"
            ), pos
        return (
            f"a control character (U+{ord(char or chr(0)):04X}) inside a string must be escaped",
            pos,
        )
    if exc.msg.startswith("Illegal trailing comma"):  # Python 3.13 on: `pos` is the comma
        return _trailing_comma_reason("}" if exc.msg.endswith("object") else "]"), pos
    comma = _trailing_comma(doc, pos)
    if comma is not None:
        return _trailing_comma_reason(char), comma
    return _token_reason(exc.msg, doc, pos, char), pos


def _trailing_comma_reason(closer: str) -> str:
    what = "an object" if closer == "}" else "a list"
    return (
        f"a trailing comma: the last item of {what} must not be followed by ','"
        " (JSON is not JavaScript or Python); delete this comma"
    )


def _trailing_comma(doc: str, pos: int) -> int | None:
    """The offset of a comma that only whitespace separates from the `}` or `]` at `pos`."""
    if pos >= len(doc) or doc[pos] not in "}]":
        return None
    before = len(doc[:pos].rstrip())
    return before - 1 if before and doc[before - 1] == "," else None


_PYTHON_WORDS = {"True": "true", "False": "false", "None": "null", "undefined": "null"}


def _token_reason(msg: str, doc: str, pos: int, char: str) -> str:
    """The reason for an unexpected token, said the way a person fixes it."""
    if char == "'":
        return "a single quote: JSON strings and keys use double quotes (\"...\"), not '...'"
    if doc.startswith(("//", "/*"), pos) or char == "#":
        return "a comment: JSON has no comments; delete it"
    word = re.match(r"[A-Za-z_]+", doc[pos : pos + 20])
    if word and word.group() in _PYTHON_WORDS:
        return (
            f"{word.group()} is not a JSON value: write {_PYTHON_WORDS[word.group()]}"
            " (the trace was likely written with Python's str() instead of json.dumps)"
        )
    if msg.startswith("Expecting ',' delimiter"):
        return "a comma is missing here, between two items (or a string before it is not closed)"
    if msg.startswith("Expecting ':' delimiter"):
        return 'a colon is missing after the key: write "key": value'
    if msg.startswith("Expecting property name"):
        return 'a key must be a string in double quotes here ("name": value)'
    if msg.startswith("Extra data"):
        return (
            "more text follows the end of the JSON document: a file holds one document; for"
            " one trace per line, name the file .jsonl (JSON Lines)"
        )
    if msg.startswith("Expecting value"):
        return "a value is missing or not JSON here (expected a string, number, object, list, true, false or null)"
    return msg


def _where(doc: str, offset: int) -> tuple[int, int]:
    """1-based line and column of an offset in the text."""
    line = doc.count("\n", 0, offset) + 1
    return line, offset - (doc.rfind("\n", 0, offset) + 1) + 1


def _string_start(text: str, pos: int) -> int | None:
    """The 1-based column of the quote that opens the string running up to `pos`."""
    line_start = text.rfind("\n", 0, pos) + 1
    quote = pos
    while True:
        quote = text.rfind('"', line_start, quote)
        if quote < 0:
            return None
        backslashes = len(text[line_start:quote]) - len(text[line_start:quote].rstrip("\\"))
        if backslashes % 2 == 0:
            return quote - line_start + 1


def _duplicates_reason(
    document: dict[str, Any], found: list[tuple[dict[str, Any], list[tuple[str, Any]]]]
) -> str:
    """Name the repeated keys and where: a reader keeps one value silently (the last, for
    Python), so the trace says two things and must not be judged."""
    paths = _paths_of(document, {id(obj) for obj, _ in found})
    parts = []
    for obj, items in found[:3]:
        names = [k for k, n in Counter(k for k, _ in items).items() if n > 1]
        where = paths.get(id(obj), "an object that a later duplicate key replaced")
        parts.append(", ".join(f"'{k}'" for k in names) + f" in {where}")
    more = f" (and {len(found) - 3} more objects)" if len(found) > 3 else ""
    return (
        f"duplicate key: {'; '.join(parts)}{more}: the trace gives two values for one field"
        " and a reader keeps either, so it is not evaluated; write each key once"
    )


def _paths_of(document: dict[str, Any], wanted: set[int]) -> dict[int, str]:
    found: dict[int, str] = {}
    stack: list[tuple[Any, str]] = [(document, "$")]
    while stack and len(found) < len(wanted):
        node, path = stack.pop()
        if isinstance(node, dict):
            if id(node) in wanted:
                found[id(node)] = path
            stack.extend((v, f"{path}.{k}") for k, v in node.items() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend(
                (v, f"{path}[{i}]") for i, v in enumerate(node) if isinstance(v, (dict, list))
            )
    return found


_SURROGATE_ESCAPE = re.compile(r"\\u[dD]")  # where a surrogate escape may start
_HIGH = range(0xD800, 0xDC00)
_LOW = range(0xDC00, 0xE000)


def _lone_surrogate_escape(text: str) -> bool:
    """Whether the text may hold a "\\uD800".."\\uDFFF" escape without its pair. Found with
    str.find (a regex scan costs more than the parse): the escaped emoji that writers using
    ensure_ascii emit as pairs do not make every such trace walked again."""
    # One regex search first: most traces have no such escape at all. `"\\u" in text` costs
    # twice as much on traces with many escapes such as \n (each backslash a false start).
    if _SURROGATE_ESCAPE.search(text) is None:
        return False
    for marker in ("\\ud", "\\uD"):
        i = text.find(marker)
        while i >= 0:
            code = _hex4(text, i + 2)
            if code in _HIGH:
                if _hex4(text, i + 8) not in _LOW or text[i + 6 : i + 8] != "\\u":
                    return True
                i += 6  # its low half is not lone
            elif code in _LOW and (_hex4(text, i - 4) not in _HIGH or text[i - 6 : i - 4] != "\\u"):
                return True
            i = text.find(marker, i + 1)
    return False


def _hex4(text: str, at: int) -> int:
    digits = text[at : at + 4] if at >= 0 else ""
    try:
        return int(digits, 16) if len(digits) == 4 else -1
    except ValueError:
        return -1


def _replace_surrogates(document: dict[str, Any], prefix: str) -> int:
    """Replace lone surrogates (from escapes such as "\\ud800") in every key and string
    with U+FFFD: they are not text, and no report writer can encode them."""
    count = 0
    stack: list[Any] = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            count += _fix_dict(node, prefix)
            stack.extend(v for v in node.values() if isinstance(v, (dict, list)))
        else:
            for i, value in enumerate(node):
                if isinstance(value, str) and not value.isascii():
                    node[i], n = LONE_SURROGATE.subn("\ufffd", value)
                    count += n
                elif isinstance(value, (dict, list)):
                    stack.append(value)
    return count


def _fix_dict(node: dict[str, Any], prefix: str) -> int:
    count = 0
    for key, value in node.items():
        if isinstance(value, str) and not value.isascii():
            node[key], n = LONE_SURROGATE.subn("\ufffd", value)
            count += n
    bad_keys = [k for k in node if has_lone_surrogate(k)]
    if bad_keys:
        items = [(LONE_SURROGATE.sub("\ufffd", k), v) for k, v in node.items()]
        if len({k for k, _ in items}) != len(items):
            raise TraceError(
                f"{prefix}two keys of one object become the same once lone surrogates are"
                " replaced with U+FFFD: the trace gives two values for one field"
            )
        node.clear()
        node.update(items)
        count += sum(len(LONE_SURROGATE.findall(k)) for k in bad_keys)
    return count


_BOMS = (  # longest first: the UTF-32 LE mark begins with the UTF-16 LE one
    (b"\xff\xfe\x00\x00", "UTF-32 LE"),
    (b"\x00\x00\xfe\xff", "UTF-32 BE"),
    (b"\xff\xfe", "UTF-16 LE"),
    (b"\xfe\xff", "UTF-16 BE"),
)
_WIDTHS = {"x000": "UTF-32 LE", "000x": "UTF-32 BE", "x0x0": "UTF-16 LE", "0x0x": "UTF-16 BE"}
RESAVE = (
    "re-save it as UTF-8 (in the editor's encoding menu choose UTF-8, or run"
    " `iconv -f {source} -t UTF-8 FILE > NEW`; in Python write with encoding='utf-8')"
)


def wide_encoding(data: bytes) -> str | None:
    """The UTF-16/UTF-32 encoding the bytes are in, with or without a byte-order mark (JSON
    text starts with an ASCII character, so its zero bytes give the width), else None."""
    for mark, name in _BOMS:
        if data.startswith(mark):
            return f"{name} with a byte-order mark"
    head = data[:4]
    if len(head) < 4 or b"\x00" not in head:
        return None
    zeros = "".join("0" if b == 0 else "x" for b in head)
    found = _WIDTHS.get(zeros)
    return f"{found} without a byte-order mark" if found else None


def has_utf8_bom(data: bytes) -> bool:
    """Whether the bytes start with a UTF-8 byte-order mark (read, but refused by many tools)."""
    return data.startswith(b"\xef\xbb\xbf")


def decode(data: bytes | str, where: str = "") -> str:
    """Trace bytes as text (a byte-order mark dropped). Raises TraceError for non-UTF-8,
    naming the encoding found (UTF-16, UTF-32, Latin-1) and how to re-save."""
    if isinstance(data, str):
        return data[1:] if data.startswith("\ufeff") else data
    prefix = f"{where}: " if where else ""
    wide = wide_encoding(data)
    if wide is not None:
        source = wide.split(" with")[0].replace(" ", "")
        raise TraceError(
            f"{prefix}not UTF-8 text: the file is {wide}; " + RESAVE.format(source=source),
            1,
            1,
            "encoding",
        )
    try:
        return data.decode("utf-8-sig")  # Windows tools write a byte-order mark
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise TraceError(
            f"{prefix}not UTF-8 text: invalid byte 0x{data[exc.start]:02x} at line {line}"
            f" column {col}{_latin1_hint(data, exc.start)}; " + RESAVE.format(source=_source(data)),
            line,
            col,
            "encoding",
        ) from None


def _source(data: bytes) -> str:
    return "WINDOWS-1252" if any(0x80 <= b <= 0x9F for b in data) else "LATIN1"


def _latin1_hint(data: bytes, at: int) -> str:
    """`(it reads as 'é' in Latin-1: the file looks saved as Latin-1)`, when it does."""
    try:
        data.decode("cp1252")
    except UnicodeDecodeError:
        return ""
    char = data[at : at + 1].decode("cp1252")
    if not char.isprintable():
        return ""
    name = "Windows-1252" if _source(data) == "WINDOWS-1252" else "Latin-1"
    return f" (it reads as '{char}' in {name}: the file looks saved as {name}, not UTF-8)"


@dataclass(fast_init=True)
class Document:
    """A parsed JSON document of any shape, NaN/Infinity still marked (see `drop_invalid`)."""

    value: Any
    marked: bool  # it holds NaN, Infinity or -Infinity markers
    notes: list[str] = field(default_factory=list)  # what was changed on reading (U+FFFD)


def parse_document(data: bytes | str, where: str = "") -> Document:
    """Parse one JSON document, whatever its top level. Raises TraceError with a reason.

    NaN, Infinity, numbers no float holds (1e4000) and integers over Python's digit limit
    are marked (see `drop_invalid`); a duplicate key is an error (a reader would keep one of
    its two values silently); lone surrogates become U+FFFD, with a note. orjson reads it
    first (`fastjson.loads`); this reader only what orjson cannot prove it reads the same."""
    fast = fastjson.loads(data)
    if fast is not fastjson.UNSURE:
        return Document(fast, False)
    prefix = f"{where}: " if where else ""
    text, replaced = _text_of(decode(data, where), isinstance(data, str))
    try:
        value, reader = _loads(text)
    except json.JSONDecodeError as exc:
        if not text.strip():
            raise TraceError(
                f"{prefix}the file is empty"
                if not text
                else f"{prefix}the file holds only whitespace"
            ) from None
        reason, offset = _json_reason(exc)
        line, column = _where(exc.doc, offset)
        kind = "extra-data" if exc.msg.startswith("Extra data") else "json"
        raise TraceError(
            f"{prefix}invalid JSON at line {line} column {column}: {reason}", line, column, kind
        ) from None
    except RecursionError:
        raise TraceError(
            f"{prefix}the JSON nests too deeply to read (more than Python's recursion limit)"
        ) from None
    if reader.duplicates:
        raise TraceError(prefix + _duplicates_reason(value, reader.duplicates))
    if replaced or _lone_surrogate_escape(text):
        if isinstance(value, str):  # a document that is one string (not a trace: refused later)
            value, count = LONE_SURROGATE.subn("\ufffd", value)
            replaced += count
        else:
            replaced += _replace_surrogates(value, prefix)
    notes = []
    if replaced:
        notes.append(
            f"{replaced} lone surrogate{'s' if replaced > 1 else ''} (\\ud800-\\udfff without"
            " its pair, which is not text) replaced with U+FFFD"
        )
    return Document(value, bool(reader.invalid), notes)


def _text_of(text: str, given_as_text: bool) -> tuple[str, int]:
    """The JSON text, and how many lone surrogates (text given as str only) were replaced."""
    if not given_as_text:
        return text, 0
    try:
        text.encode("utf-8")  # C speed; fails only on lone surrogates
    except UnicodeEncodeError:
        return LONE_SURROGATE.subn("\ufffd", text)
    return text, 0


def not_a_trace(value: Any, where: str = "") -> TraceError:
    """The error for a document whose top level is neither an object nor a list."""
    prefix = f"{where}: " if where else ""
    return TraceError(
        f"{prefix}the top level must be a JSON object {{...}} or a list [...], found"
        f" {kind_of(value)}"
    )


def is_trace(value: Any) -> bool:
    """Whether a document can be a trace: an object, or a list (a trajectory's events)."""
    return isinstance(value, (dict, list))


def parse_trace(data: bytes | str, where: str = "") -> ParsedTrace:
    """Parse one trace document (a JSON object or list: `$` is the document, so `$[*]` are
    a trajectory's events). Raises TraceError with a precise reason."""
    parsed = parse_document(data, where)
    if not is_trace(parsed.value):
        raise not_a_trace(parsed.value, where)
    notes = drop_invalid(parsed.value).get(None, []) if parsed.marked else []
    return ParsedTrace(parsed.value, [*notes, *parsed.notes])


def is_invalid(value: Any) -> bool:
    """A NaN/Infinity marker left by `parse_document` (a value that is no JSON value)."""
    return isinstance(value, _Invalid)


def drop_invalid(
    document: Any, owners: dict[int, int] | None = None
) -> dict[int | None, list[str]]:
    """Remove NaN/Infinity values as if they were absent, saying where each was.

    `owners` maps the id() of nodes (the traces split out of a file) to their index: each
    note is filed under the index of the innermost owner it was found in, None outside all
    of them. Paths are from the top of `document`. Iterative: a deep document cannot
    overflow the stack."""
    owners = owners or {}
    notes: dict[int | None, list[str]] = {}
    stack: list[tuple[Any, str, int | None]] = [(document, "$", owners.get(id(document)))]
    while stack:
        node, path, owner = stack.pop()
        children = (
            _drop_in_dict(node, path) if isinstance(node, dict) else _drop_in_list(node, path)
        )
        if children[0]:
            notes.setdefault(owner, []).extend(children[0])
        stack.extend((v, p, owners.get(id(v), owner)) for v, p in children[1])
    return {owner: sorted(found) for owner, found in notes.items()}


Children = tuple[list[str], list[tuple[Any, str]]]


def _drop_in_dict(node: dict[str, Any], path: str) -> Children:
    notes = []
    for key in [k for k, v in node.items() if isinstance(v, _Invalid)]:
        notes.append(f"{node[key].text} at {path}.{key} ignored")
        del node[key]
    return notes, [(v, f"{path}.{k}") for k, v in node.items() if isinstance(v, (dict, list))]


def _drop_in_list(node: Any, path: str) -> Children:
    if not isinstance(node, list):
        return [], []
    bad = [i for i, v in enumerate(node) if isinstance(v, _Invalid)]
    notes = [f"{node[i].text} at {path}[{i}] ignored" for i in bad]
    if bad:
        node[:] = [v for v in node if not isinstance(v, _Invalid)]
    return notes, [(v, f"{path}[{i}]") for i, v in enumerate(node) if isinstance(v, (dict, list))]


def checked_stat(path: str | Path, root: Path | None) -> os.stat_result:
    """The file's status, refusing a link out of `root`, a folder, a pipe or a device.
    Raises TraceError (and OSError when it cannot be looked at)."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        target = Path(path).resolve()
        if root is not None and not target.is_relative_to(root.resolve()):
            raise TraceError(
                f"a symbolic link to {target}, outside the fixtures folder: refused; copy"
                " the file in instead, or pass --follow-symlinks to read it"
            )
        info = os.stat(path)
    if stat.S_ISDIR(info.st_mode):
        raise TraceError("a directory, not a trace file")
    if not stat.S_ISREG(info.st_mode):
        raise TraceError("not a regular file (a device, pipe or socket): refused")
    return info


def read_trace_bytes(
    path: str | Path, root: Path | None, max_bytes: int = DEFAULT_MAX_TRACE_BYTES
) -> bytes:
    """The bytes of one trace file, refusing what must not be read. Raises TraceError."""
    try:
        info = checked_stat(path, root)
        if info.st_size > max_bytes:
            raise TraceError(
                f"the file is {info.st_size} bytes, over the limit of {max_bytes} bytes;"
                " raise --max-trace-bytes to evaluate it"
            )
        # The os calls, not open(): no file and buffer objects to make and close for each
        # of thousands of traces (a third of the time of reading a 20 KB trace).
        handle = os.open(path, os.O_RDONLY | _BINARY)
        try:
            data = read_within(handle, info.st_size, max_bytes)  # a file that grew: below
        finally:
            os.close(handle)
    except TraceError:
        raise
    except OSError as exc:
        raise TraceError(f"cannot read the file: {exc.strerror or exc}") from None
    if len(data) > max_bytes:  # it grew while we looked
        raise TraceError(
            f"the file is over the limit of {max_bytes} bytes; raise --max-trace-bytes"
        )
    return data


_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation


def read_trace_file(
    path: str | Path, root: Path | None, max_bytes: int = DEFAULT_MAX_TRACE_BYTES
) -> ParsedTrace:
    """Read and parse one trace file, refusing what must not be read. Raises TraceError."""
    return parse_trace(read_trace_bytes(path, root, max_bytes))


# --------------------------------------------------------------------------------------------
# OpenTelemetry OTLP/JSON exports: spans grouped into one trace per traceId


def otlp_requests(data: bytes) -> list[tuple[str, Any]]:
    """The ExportTraceServiceRequest documents of an OTLP/JSON file, each with where it is.

    One document (pretty-printed or not), or one per line as the collector's file exporter
    writes them. Raises TraceError."""
    text = decode(data)
    try:
        return [("", parse_document(text).value)]
    except TraceError as exc:
        if exc.kind != "extra-data":  # broken, not several documents one after another
            raise
    # Several documents: one request per non-blank line.
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            out.append((f"line {number}", parse_document(line, f"line {number}").value))
    return out


def otlp_traces(data: bytes) -> list[tuple[str, dict[str, Any]]]:
    """(traceId, trace) for each trace of an OTLP/JSON file, in order of first appearance.

    A trace is `{"traceId": ..., "spans": [...]}`; each span keeps its fields, with its
    `attributes` (and its events' and links') turned from OTLP key/value lists into plain
    mappings, plus `resource` (the resource's attributes) and `scope` (name, version).
    Tempo's older names (`batches`, `instrumentationLibrarySpans`) are read too. Raises
    TraceError for a file that is not OTLP/JSON or a span without a traceId."""
    traces: dict[str, list[dict[str, Any]]] = {}
    try:
        for where, request in otlp_requests(data):
            _collect_spans(request, where, traces)
    except RecursionError:
        raise TraceError("the OTLP attributes nest too deeply to read") from None
    if not traces:
        raise TraceError("the OTLP export holds no spans")
    return [(trace_id, {"traceId": trace_id, "spans": spans}) for trace_id, spans in traces.items()]


def _listed(node: Any, *names: str) -> list[Any]:
    """The first of `names` that `node` has, as a list (OTLP omits empty lists)."""
    if not isinstance(node, dict):
        return []
    for name in names:
        if name in node:
            value = node[name]
            return value if isinstance(value, list) else []
    return []


def _collect_spans(request: Any, where: str, traces: dict[str, list[dict[str, Any]]]) -> None:
    at = f"{where}: " if where else ""
    if not isinstance(request, dict) or not (
        isinstance(request.get("resourceSpans"), list) or isinstance(request.get("batches"), list)
    ):
        raise TraceError(
            f"{at}not an OTLP/JSON export: expected an object with a resourceSpans list"
            f" (an ExportTraceServiceRequest), found {kind_of(request)}"
        )
    for i, resource_spans in enumerate(_listed(request, "resourceSpans", "batches")):
        resource = otlp_attributes(_field(resource_spans, "resource").get("attributes"))
        scopes = _listed(resource_spans, "scopeSpans", "instrumentationLibrarySpans")
        for j, scope_spans in enumerate(scopes):
            scope = _field(scope_spans, "scope") or _field(scope_spans, "instrumentationLibrary")
            for k, span in enumerate(_listed(scope_spans, "spans")):
                trace_id = span.get("traceId") if isinstance(span, dict) else None
                if not isinstance(trace_id, str) or not trace_id:
                    raise TraceError(
                        f"{at}resourceSpans[{i}].scopeSpans[{j}].spans[{k}] has no traceId"
                        " (every span needs one to be grouped into its trace)"
                    )
                traces.setdefault(trace_id, []).append(_plain_span(span, resource, scope))


def _field(node: Any, name: str) -> dict[str, Any]:
    value = node.get(name) if isinstance(node, dict) else None
    return value if isinstance(value, dict) else {}


def _plain_span(
    span: dict[str, Any], resource: dict[str, Any], scope: dict[str, Any]
) -> dict[str, Any]:
    out = dict(span)
    out["attributes"] = otlp_attributes(span.get("attributes"))
    for key in ("events", "links"):
        if isinstance(span.get(key), list):
            out[key] = [
                {**item, "attributes": otlp_attributes(item.get("attributes"))}
                if isinstance(item, dict)
                else item
                for item in span[key]
            ]
    out["resource"] = resource
    out["scope"] = {k: v for k, v in scope.items() if k != "attributes"}
    if "attributes" in scope:
        out["scope"]["attributes"] = otlp_attributes(scope.get("attributes"))
    return out


def otlp_attributes(pairs: Any) -> dict[str, Any]:
    """OTLP `[{key, value: {stringValue: ...}}]` as a plain `{key: value}` mapping (a
    mapping already plain is kept; entries without a text key are left out)."""
    if isinstance(pairs, dict):
        return pairs
    return otlp_pairs(pairs)[0]
