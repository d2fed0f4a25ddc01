"""Trace files -> parsed JSON documents, or a reason saying what is wrong and where.

Traces come from a live agent, so every way a file can be broken is expected here and turned
into a reason; nothing in this module raises for bad input.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..problems import kind_of

DEFAULT_MAX_TRACE_BYTES = 64 * 1024 * 1024
JSONL_SUFFIXES = (".jsonl", ".ndjson")


class TraceError(Exception):
    """A trace that cannot be evaluated; the message is the reason shown in the report."""


@dataclass
class ParsedTrace:
    document: dict[str, Any]
    notes: list[str] = field(default_factory=list)


class _Invalid:
    """Stands for a value the document cannot keep while parsing (NaN, Infinity, a number
    too large to hold); removed before evaluation, as if absent, with a note."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text  # what it was, for the note: "non-standard JSON value NaN"


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


def parse_trace(data: bytes | str, where: str = "") -> ParsedTrace:
    """Parse one trace document. Raises TraceError with a precise reason."""
    prefix = f"{where}: " if where else ""
    text, replaced = _text_of(data, prefix)
    try:
        document, reader = _loads(text)
    except json.JSONDecodeError as exc:
        if not text.strip():
            raise TraceError(
                f"{prefix}the file is empty"
                if not text
                else f"{prefix}the file holds only whitespace"
            ) from None
        raise TraceError(
            f"{prefix}invalid JSON at line {exc.lineno} column {exc.colno}: {_json_reason(exc)}"
        ) from None
    except RecursionError:
        raise TraceError(
            f"{prefix}the JSON nests too deeply to read (more than Python's recursion limit)"
        ) from None
    if not isinstance(document, dict):
        raise TraceError(
            f"{prefix}the top level must be a JSON object {{...}}, found {kind_of(document)}"
        )
    if reader.duplicates:
        raise TraceError(prefix + _duplicates_reason(document, reader.duplicates))
    notes = _drop_invalid(document) if reader.invalid else []
    if replaced or _lone_surrogate_escape(text):
        replaced += _replace_surrogates(document, prefix)
    if replaced:
        notes.append(
            f"{replaced} lone surrogate{'s' if replaced > 1 else ''} (\\ud800-\\udfff without"
            " its pair, which is not text) replaced with U+FFFD"
        )
    return ParsedTrace(document, notes)


def _text_of(data: bytes | str, prefix: str) -> tuple[str, int]:
    """The JSON text, and how many lone surrogates (str input only) were replaced in it."""
    if isinstance(data, bytes):
        try:
            return data.decode("utf-8-sig"), 0  # Windows tools write a byte-order mark
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
            raise TraceError(
                f"{prefix}not UTF-8 text: invalid byte 0x{data[exc.start]:02x} at line {line}"
                f" column {col}; save the trace as UTF-8"
            ) from None
    text = data[1:] if data.startswith("\ufeff") else data
    try:
        text.encode("utf-8")  # C speed; fails only on lone surrogates
    except UnicodeEncodeError:
        return _SURROGATE.subn("\ufffd", text)
    return text, 0


# JSON's own messages, for the mistakes they word misleadingly.
def _json_reason(exc: json.JSONDecodeError) -> str:
    if exc.msg.startswith("Unterminated string"):
        return "a string is not closed: it has no closing quote"
    if exc.msg.startswith("Invalid control character"):
        char = exc.doc[exc.pos] if exc.pos < len(exc.doc) else ""
        if char in ("\n", "\r"):
            start = _string_start(exc.doc, exc.pos)
            opened = f" (it opens at column {start})" if start else ""
            return (
                f"a string is not closed before the end of the line{opened}: a closing quote"
                " is missing, or a line break inside a string must be written \\n"
            )
        return f"a control character (U+{ord(char or chr(0)):04X}) inside a string must be escaped"
    return exc.msg


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


_SURROGATE = re.compile("[\ud800-\udfff]")
_HIGH = range(0xD800, 0xDC00)
_LOW = range(0xDC00, 0xE000)


def _lone_surrogate_escape(text: str) -> bool:
    """Whether the text may hold a "\\uD800".."\\uDFFF" escape without its pair. Found with
    str.find (a regex scan costs more than the parse): the escaped emoji that writers using
    ensure_ascii emit as pairs do not make every such trace walked again."""
    if "\\u" not in text:  # one search: most traces have no \u escape at all
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
                    node[i], n = _SURROGATE.subn("\ufffd", value)
                    count += n
                elif isinstance(value, (dict, list)):
                    stack.append(value)
    return count


def _fix_dict(node: dict[str, Any], prefix: str) -> int:
    count = 0
    for key, value in node.items():
        if isinstance(value, str) and not value.isascii():
            node[key], n = _SURROGATE.subn("\ufffd", value)
            count += n
    bad_keys = [k for k in node if not k.isascii() and _SURROGATE.search(k)]
    if bad_keys:
        items = [(_SURROGATE.sub("\ufffd", k), v) for k, v in node.items()]
        if len({k for k, _ in items}) != len(items):
            raise TraceError(
                f"{prefix}two keys of one object become the same once lone surrogates are"
                " replaced with U+FFFD: the trace gives two values for one field"
            )
        node.clear()
        node.update(items)
        count += sum(len(_SURROGATE.findall(k)) for k in bad_keys)
    return count


def _drop_invalid(document: dict[str, Any]) -> list[str]:
    """Remove NaN/Infinity (and unholdable numbers) as if absent, saying where each was."""
    notes: list[str] = []
    stack: list[tuple[Any, str]] = [(document, "$")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            _drop_from_dict(node, path, notes)
            stack.extend((v, f"{path}.{k}") for k, v in node.items() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            _drop_from_list(node, path, notes)
            stack.extend(
                (v, f"{path}[{i}]") for i, v in enumerate(node) if isinstance(v, (dict, list))
            )
    return sorted(notes)


def _drop_from_dict(node: dict[str, Any], path: str, notes: list[str]) -> None:
    for key in [k for k, v in node.items() if isinstance(v, _Invalid)]:
        notes.append(f"{node[key].text} at {path}.{key} ignored")
        del node[key]


def _drop_from_list(node: list[Any], path: str, notes: list[str]) -> None:
    bad = [i for i, v in enumerate(node) if isinstance(v, _Invalid)]
    for i in bad:
        notes.append(f"{node[i].text} at {path}[{i}] ignored")
    if bad:
        node[:] = [v for v in node if not isinstance(v, _Invalid)]


def read_trace_file(
    path: str | Path, root: Path | None, max_bytes: int = DEFAULT_MAX_TRACE_BYTES
) -> ParsedTrace:
    """Read and parse one trace file, refusing what must not be read. Raises TraceError."""
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            target = Path(path).resolve()
            if root is not None and not target.is_relative_to(root.resolve()):
                raise TraceError(
                    f"a symbolic link to {target}, outside the fixtures folder: refused; copy the file in instead"
                )
            info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise TraceError("a directory, not a trace file")
        if not stat.S_ISREG(info.st_mode):
            raise TraceError("not a regular file (a device, pipe or socket): refused")
        if info.st_size > max_bytes:
            raise TraceError(
                f"the file is {info.st_size} bytes, over the limit of {max_bytes} bytes;"
                " raise --max-trace-bytes to evaluate it"
            )
        with open(path, "rb") as handle:
            # Ask for the size stat() saw plus one byte (asking for max_bytes would allocate
            # 64 MiB for every trace); a file that grew since is caught below.
            data = handle.read(min(info.st_size, max_bytes) + 1)
            if len(data) > info.st_size:
                data += handle.read(max_bytes + 1 - len(data))
    except TraceError:
        raise
    except OSError as exc:
        raise TraceError(f"cannot read the file: {exc.strerror or exc}") from None
    if len(data) > max_bytes:  # it grew while we looked
        raise TraceError(
            f"the file is over the limit of {max_bytes} bytes; raise --max-trace-bytes"
        )
    return parse_trace(data)
