"""report.json: the report document as strict JSON (no NaN), keys in a stable order.

Layout: the small top-level entries are indented for people; each case (and each unmatched
trace) is one compact line. That keeps a diff of two reports to one line per changed case,
and lets the encoder run at C speed (Python's JSON encoder falls back to pure Python for
`indent`, which made this the slowest step of writing a 2,000-case report; the indented head
is written by orjson where it gives the same bytes, `fastjson.dumps_indented`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ..fastjson import dumps_indented
from .document import Report

# json.dumps with options builds an encoder per call; one row per case makes that ~10 %
# of encoding a report's rows. Its `encode` is exactly what json.dumps returns. (orjson is
# not used for rows: see validator/fastjson.py.)
_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)


def _compact(value: Any) -> str:
    return _ENCODER.encode(value)


def _rows(rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    first = True
    for row in rows:
        yield ("[\n    " if first else ",\n    ") + _compact(row)
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


def chunks(report: Report) -> Iterator[str]:
    """report.json piece by piece: a report of many cases is never one string in memory."""
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
