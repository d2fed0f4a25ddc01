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

Writing (`dumps_indented`): orjson's OPT_INDENT_2 output is json's `indent=2` (which runs
json's pure-Python encoder, several times slower) except for floats from 1e-10 to
1e-4 (`1e-7` and `0.00001`, where `repr` writes `1e-07` and `1e-05`), a `null` (orjson
writes NaN and Infinity as null where json refuses them, allow_nan=False) and what orjson
refuses (non-text keys, integers beyond 64 bits, lone surrogates): those values are encoded
by json, so the bytes never depend on which encoder ran.

Writing one line (`dumps_compact`; `compact_utf8` gives report.json's rows as bytes):
orjson's compact output is json's with `separators=(",", ":")`, ~8x faster than json's C
encoder (6 ms against 52 ms for 2,000 case rows), with the same exceptions for floats and
refusals; a `null` cannot be told apart here (every row holds some), so a NaN or an
infinity would be written as null where json refuses it: a row never holds one (NaN and
Infinity in a trace are dropped when it is read, a case file cannot hold one, every figure
the report computes is finite).
Without orjson installed (a platform with no wheel for it), json does all.
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
# A colon written as an escape (\u003a or \u003A), found by RE2 (~4x faster than `in` with
# a literal: a DFA over the bytes), compiled when the first trace is read, so that commands
# reading none do not import RE2.
_escaped_colon: Any = None
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
    if _colons(again) != _colons(data):
        return UNSURE  # a duplicate key (or an escaped colon): the strict path says which
    if _escaped_colon_in(data):
        return UNSURE
    if b"+" in again and _HUGE.search(again):  # one byte: found at memchr's speed
        return UNSURE
    return value


def _escaped_colon_in(data: bytes) -> bool:
    global _escaped_colon
    if _escaped_colon is None:
        import re2

        _escaped_colon = re2.compile(rb"\\u003[aA]")
    return _escaped_colon.search(data) is not None


def _colons(data: bytes) -> int:
    """How many `:` bytes `data` holds. Deleting them and comparing lengths copies the rest
    with memchr and memcpy, faster than `bytes.count`'s byte-by-byte loop (measured 1.3-2.5x
    on the traces of every framework in the test data)."""
    return len(data) - len(data.replace(b":", b""))


_SHORT_EXPONENT = re.compile(rb"e-[1-9](?![0-9])")  # repr writes 1e-07, orjson 1e-7


def _float_written_otherwise(out: bytes) -> bool:
    """Whether orjson's text may hold a float `repr` writes otherwise: those from 1e-10 to
    1e-4 (`1e-7` for `1e-07`, `0.00001` for `1e-05`). Every other float was checked equal
    (tests/unit/core/test_fastjson.py); a string holding such text only costs json's time."""
    return b"0.0000" in out or (b"e-" in out and _SHORT_EXPONENT.search(out) is not None)


_COMPACT_OPTIONS = _OPTIONS = 0
if _orjson is not None:
    # What json refuses must fail here too, to be refused by json (never written another way).
    _COMPACT_OPTIONS = _orjson.OPT_PASSTHROUGH_DATACLASS | _orjson.OPT_PASSTHROUGH_DATETIME
    _OPTIONS = _COMPACT_OPTIONS | _orjson.OPT_INDENT_2


_COMPACT = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def dumps_compact(value: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))`,
    byte for byte for every value without NaN or an infinity (see the module's docstring)."""
    out = compact_utf8(value)
    return json_compact(value) if out is None else out.decode("utf-8")


def json_compact(value: Any) -> str:
    """`dumps_compact(value)` written by json alone: for a value `compact_utf8` declined,
    without asking orjson again."""
    return _COMPACT.encode(value)


def compact_utf8(value: Any) -> bytes | None:
    """`dumps_compact(value)` encoded as UTF-8, when orjson writes it (a report file takes
    these bytes as they are: no text made to be encoded again); None when json must write
    it (or orjson is not installed): `dumps_compact` then."""
    if _orjson is None:
        return None
    try:
        out = _orjson.dumps(value, option=_COMPACT_OPTIONS)
    except _orjson.JSONEncodeError:  # a non-text key, an integer beyond 64 bits...
        return None
    return None if _float_written_otherwise(out) else out


def dumps_indented(value: Any) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)`, byte for byte."""
    if _orjson is not None:
        try:
            out = _orjson.dumps(value, option=_OPTIONS)
        except _orjson.JSONEncodeError:  # a non-text key, an integer beyond 64 bits...
            out = None
        # null may be a NaN or an infinity orjson wrote as null (json refuses them): json.
        if out is not None and b"null" not in out and not _float_written_otherwise(out):
            return out.decode("utf-8")
    return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
