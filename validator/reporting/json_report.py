"""report.json: the report document as strict JSON (no NaN), keys in a stable order.

Layout: the small top-level entries are indented for people; each case (and each unmatched
trace) is one compact line. That keeps a diff of two reports to one line per changed case,
and lets the encoder run at C speed (Python's JSON encoder falls back to pure Python for
`indent`, which made this the slowest step of writing a 2,000-case report).
"""

from __future__ import annotations

import json
from typing import Any

_ROW_LISTS = ("cases", "unmatched_traces")


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def render(report: dict[str, Any]) -> str:
    parts = []
    for key, value in report.items():
        name = _compact(key)
        if key in _ROW_LISTS and isinstance(value, list) and value:
            rows = ",\n".join("    " + _compact(row) for row in value)
            parts.append(f"  {name}: [\n{rows}\n  ]")
        else:
            text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
            parts.append(f"  {name}: " + text.replace("\n", "\n  "))
    return "{\n" + ",\n".join(parts) + "\n}\n"
