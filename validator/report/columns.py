"""Report columns: the one registry of what a check's details may feed into a case's row.

A check spec says `report_as: NAME`; each case row then has a key NAME holding the listed
detail keys of the first applied check that reports as it (null when none did). The spec
schema's `report_as` enum and the report schema are checked against this table in tests.
"""

from __future__ import annotations

from typing import Any

from ..dataclass import dataclass


@dataclass(frozen=True)
class Column:
    """A column of a report's check rows: the detail keys it copies from a check's result."""

    name: str
    doc: str
    keys: tuple[str, ...]  # the detail keys copied into the row, in this order
    empty_lists: tuple[str, ...] = ()  # keys written as [] when the details lack them

    def value(self, details: dict[str, Any] | None) -> dict[str, Any] | None:
        if not details:
            return None
        return {k: details.get(k, [] if k in self.empty_lists else None) for k in self.keys}


COLUMNS: dict[str, Column] = {
    c.name: c
    for c in (
        Column(
            "evidence_coverage",
            "which required tools the trace called: required, found, missing, ratio",
            ("required", "found", "missing", "ratio"),
        ),
        Column(
            "keyword_coverage",
            "which root-cause keyword entries the answer names: matched, missing, required, total",
            ("matched", "missing", "required", "total"),
            empty_lists=("matched", "missing"),
        ),
    )
}
