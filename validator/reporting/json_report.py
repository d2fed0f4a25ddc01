"""report.json: the report document as strict JSON (no NaN), keys in a stable order.

Layout: the small top-level entries are indented for people; each case (and each unmatched
trace) is one compact line. That keeps a diff of two reports to one line per changed case,
and lets the encoder run at C speed (Python's JSON encoder falls back to pure Python for
`indent`, which made this the slowest step of writing a 2,000-case report).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..outcomes import RunRows

_ROW_LISTS = ("cases", "unmatched_traces")


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, default=_rows)


def _rows(value: Any) -> list[Any]:
    # A case's `runs.items` may be a RunRows view (see summary.build_report): its rows are
    # made here, one case at a time, and dropped once the line is written.
    if isinstance(value, RunRows):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def render(report: dict[str, Any]) -> str:
    return "".join(chunks(report))


def chunks(report: dict[str, Any]) -> Iterator[str]:
    """report.json piece by piece: a report of many cases is never one string in memory."""
    yield "{"
    for index, (key, value) in enumerate(report.items()):
        yield ("\n" if index == 0 else ",\n") + f"  {_compact(key)}: "
        if key in _ROW_LISTS and isinstance(value, list) and value:
            yield "["
            for row_index, row in enumerate(value):
                yield ("\n    " if row_index == 0 else ",\n    ") + _compact(row)
            yield "\n  ]"
        else:
            text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
            yield text.replace("\n", "\n  ")
    yield "\n}\n"
