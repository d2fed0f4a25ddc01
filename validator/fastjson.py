"""orjson where it gives exactly what the standard library gives, and the standard library
everywhere else: a fast first pass for reading traces, and report.json encoded at C speed.

Reading (`loads`): orjson parses a 20 KB trace about 4x faster than `json.loads` with the
hooks `traces.parse_document` needs, but it keeps the last of two duplicate keys silently,
turns an integer beyond 64 bits into a float, and rejects what the strict reader accepts
with a note (NaN, Infinity, 1e400, lone surrogates, a byte-order mark). So its value is
used only when two cheap C-speed signals prove it is the strict reader's value:

- no duplicate key: every key is followed by one `:` outside strings, and a `:` inside a
  string is copied as it is, so the document re-encoded by orjson has as many `:` as the
  text it came from exactly when no key was dropped (a colon written as the escape
  `\\u003a` would be counted once only, so a text holding one is read by the strict path);
- no integer beyond 64 bits: orjson gives a float for one, and writes every float of 1e18
  or more as `...e+18` and up, so the re-encoded text holding no such exponent proves there
  was none (a trace that does hold a float that large is read by the strict path).

Anything else orjson rejects (invalid JSON, NaN, lone surrogates, nesting past its limits)
returns UNSURE, and the strict path reads it as before, with the same error or note.

Writing (`dumps`): orjson's compact output is json's with `, ` and `: ` as separators once
the indentation of OPT_INDENT_2 is taken out, except for floats below 1e-4 (`1e-7`, where
`repr` writes `1e-07`) and for what orjson refuses (non-text keys, integers beyond 64 bits,
lone surrogates): those values are encoded by json, so the bytes never depend on which
encoder ran. Without orjson installed (a platform it has no wheel for), json does all.
"""

from __future__ import annotations

import json
import re
from typing import Any

try:
    import orjson as _orjson
except ImportError:  # pragma: no cover - exercised by forcing it (tests/unit/core/test_fastjson.py)
    _orjson = None  # type: ignore[assignment]

UNSURE = object()  # what `loads` returns when the strict reader must read the text

_BOM = b"\xef\xbb\xbf"
_ESCAPED_COLON = b"\\u003"  # the start of \u003a or \u003A (a colon written as an escape)
# A float of 1e18 or more as orjson writes it: where an integer over 64 bits may have been.
_HUGE = re.compile(rb"e\+(?:1[89]|[2-9][0-9]|[0-9]{3})")


def available() -> bool:
    """Whether orjson is installed (the fast paths run)."""
    return _orjson is not None


def loads(data: bytes | str) -> Any:
    """The document orjson reads from `data`, when it is exactly what the strict reader
    (`traces.parse_document`) reads, with no note; else UNSURE."""
    if _orjson is None:
        return UNSURE
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: the strict path replaces them
            return UNSURE
    if data.startswith(_BOM):
        data = data[3:]
    try:
        value = _orjson.loads(data)
        again = _orjson.dumps(value)
    except (_orjson.JSONDecodeError, _orjson.JSONEncodeError):
        return UNSURE
    if again.count(b":") != data.count(b":"):
        return UNSURE  # a duplicate key (or an escaped colon): the strict path says which
    if _ESCAPED_COLON in data and (b"\\u003a" in data or b"\\u003A" in data):
        return UNSURE
    if b"e+" in again and _HUGE.search(again):
        return UNSURE
    return value


# json.dumps with options builds an encoder per call; one row per case makes that ~10 %
# of encoding a report's rows. Its `encode` is exactly what json.dumps returns.
_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
_INDENT = re.compile(rb"\n *")
_SHORT_EXPONENT = re.compile(rb"[0-9]e-[1-9](?![0-9])")  # repr writes e-07, orjson e-7
_OPTIONS = 0
if _orjson is not None:
    # What json refuses must fail here too, to be refused by json (never written another way).
    _OPTIONS = _orjson.OPT_PASSTHROUGH_DATACLASS | _orjson.OPT_PASSTHROUGH_DATETIME


def _orjson_text(value: Any) -> bytes | None:
    """orjson's indented encoding of `value`, when json would write the same (None: not)."""
    if _orjson is None:
        return None
    try:
        out = _orjson.dumps(value, option=_OPTIONS | _orjson.OPT_INDENT_2)
    except _orjson.JSONEncodeError:
        return None  # a non-text key, an integer beyond 64 bits, a lone surrogate...
    return None if b"e-" in out and _SHORT_EXPONENT.search(out) else out


def dumps(value: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, allow_nan=False)`, byte for byte, on one line
    (no newline is left in orjson's output but the indentation's: a string's is escaped)."""
    out = _orjson_text(value)
    if out is None:
        return _ENCODER.encode(value)
    return _INDENT.sub(b"", out.replace(b",\n", b", \n")).decode("utf-8")


def dumps_indented(value: Any) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)`, byte for byte."""
    out = _orjson_text(value)
    if out is None:
        return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    return out.decode("utf-8")
