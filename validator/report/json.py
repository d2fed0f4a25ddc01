"""report.json: the report document as strict JSON (no NaN), keys in a stable order.

Layout: the small top-level entries are indented for people; each case (and each unmatched
trace) is one compact line, with no space after `,` and `:` (`{"case_id":"a","status":...}`).
That keeps a diff of two reports to one line per changed case, and lets orjson write the
rows at C speed (`fastjson.compact_utf8`, json's exact bytes: ~8x faster than json's own C
encoder, which writes `, ` and `: `), as the bytes orjson gives, written as they are; the
indented head is written by orjson where it gives
json's bytes too (`fastjson.dumps_indented`; json's `indent` runs in pure Python).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..fastjson import compact_utf8, dumps_indented, json_compact
from ..fastjson import dumps_compact as _compact
from .document import Report


def _rows(rows: Iterable[dict[str, Any]]) -> Iterator[str | bytes]:
    """The rows, each as the UTF-8 bytes orjson writes (or json's text when orjson cannot
    write it: see fastjson), so ~5 MB of rows are never decoded to be encoded again."""
    first = True
    for row in rows:
        lead = b"[\n    " if first else b",\n    "
        out = compact_utf8(row)
        yield lead.decode() + json_compact(row) if out is None else lead + out
        first = False
    yield "[]" if first else "\n  ]"


def _history(history: dict[str, Any]) -> Iterator[str]:
    """The history section: each list entry and each case's marks on a line of its own."""
    yield "{"
    for index, (key, value) in enumerate(history.items()):
        yield ("\n" if index == 0 else ",\n") + f"    {_compact(key)}: "
        if isinstance(value, dict):
            lines = [f"{_compact(k)}: {_compact(v)}" for k, v in value.items()]
            yield "{\n      " + ",\n      ".join(lines) + "\n    }" if lines else "{}"
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            yield "[\n      " + ",\n      ".join(_compact(v) for v in value) + "\n    ]"
        else:
            yield _compact(value)
    yield "\n  }" if history else "}"


def chunks(report: Report) -> Iterator[str | bytes]:
    """report.json piece by piece (text, or UTF-8 bytes): a report of many cases is never one
    string in memory."""
    yield "{"
    for index, (key, value) in enumerate(report.head.items()):
        yield ("\n" if index == 0 else ",\n") + f"  {_compact(key)}: "
        yield dumps_indented(value).replace("\n", "\n  ")
    if report.history is not None:
        yield ',\n  "history": '
        yield from _history(report.history)
    yield ',\n  "cases": '
    yield from _rows(report.cases())
    yield ',\n  "unmatched_traces": '
    yield from _rows(report.unmatched)
    yield "\n}\n"
