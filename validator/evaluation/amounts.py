"""Amounts a bound or a trace value may be written in: plain numbers, durations with a unit
(`30s`, `500ms`, `5min`), and ISO-8601 timestamps (`2025-04-30T16:32:54.707474`,
`2026-02-10T21:11:52.438Z`), all read on one scale: milliseconds.

A timestamp without a zone is read as UTC (`timestamp_ms` says whether it had one, so a
message can note it). A timestamp needs a date and a time of day: `2025-04-30` alone, or a
number written as text, is not one.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any

# Milliseconds per unit; the first four are the units a spec names (`unit:`, `5min`).
UNIT_MS: dict[str, float] = {"ms": 1, "s": 1000, "min": 60_000, "m": 60_000, "h": 3_600_000}
UNITS = tuple(UNIT_MS)
_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|min|m|h)\s*\Z")
_TIMESTAMP = re.compile(r"\s*\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


def duration_ms(value: Any) -> float | None:
    """A duration written with a unit (`30s`, `500ms`, `5min`, `2m`, `1h`) in milliseconds."""
    match = _DURATION.match(value) if isinstance(value, str) else None
    return float(match.group(1)) * UNIT_MS[match.group(2)] if match else None


def duration_unit(value: Any) -> str | None:
    """The unit a duration is written in (`5min` gives `min`), None for anything else."""
    match = _DURATION.match(value) if isinstance(value, str) else None
    return match.group(2) if match else None


def timestamp_ms(value: Any) -> tuple[float, bool] | None:
    """An ISO-8601 timestamp as milliseconds since 1970 (UTC) and whether it named its zone;
    None when `value` is not one."""
    if not isinstance(value, str) or not _TIMESTAMP.match(value):
        return None
    text = value.strip()
    try:
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return None
    zoned = moment.tzinfo is not None
    if not zoned:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp() * 1000, zoned


def is_amount(value: Any) -> bool:
    """A number, a duration with a unit, or an ISO-8601 timestamp."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    return duration_ms(value) is not None or timestamp_ms(value) is not None
