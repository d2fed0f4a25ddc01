"""report.json: the report document as strict JSON (no NaN), keys in a stable order."""

from __future__ import annotations

import json
from typing import Any


def render(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
