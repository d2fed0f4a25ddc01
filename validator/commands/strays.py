"""Stray and misnamed trace files, said the same way by `lint --fixtures` and `run`.

When a file's name gives its case (`<id>.json`, `<id>/...`), a file whose name names no
case is a stray: run does not evaluate it. If its own case id field (the trace-fields spec's
`case_id`, `$.caseId`) names a case of the suite, it is misnamed: it belongs to that case,
and the case would otherwise be reported as not run with no word about the file. Reading a
stray costs one parse; strays are few.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..dataclass import dataclass
from ..evaluation.tracefile import fields_case_id
from ..inputs import ORPHAN, Plan
from ..model import TraceFields
from ..traces import DEFAULT_MAX_TRACE_BYTES, TraceError, read_trace_file


@dataclass(frozen=True)
class Misnamed:
    """A stray file whose case id field names a case of the suite."""

    rel: str  # under the fixtures folder
    label: str  # as shown
    case_id: str


def named_case(document: Any, fields: TraceFields | None) -> str | None:
    """The case id a trace names in its case id field, or None."""
    if fields is None:
        return None
    named, _ = fields_case_id(fields, document)
    return named


def misnamed_advice(rel: str, case_id: str, shown: str) -> str:
    """What the user is told about a misnamed file: which case, how to rename or pick it."""
    name = rel.rsplit("/", 1)[-1]
    return (
        f"its file name names no case, but its case id field names case '{case_id}' (run"
        f" does not use it for that case): rename it {shown}/{case_id}.json (or"
        f" {shown}/{case_id}/{name}, one of several runs), or add `fixture: {rel}` to the"
        f" case '{case_id}'"
    )


def find_misnamed(
    plan: Plan,
    fields: TraceFields | None,
    case_ids: set[str],
    root: Path | None,
    max_bytes: int = DEFAULT_MAX_TRACE_BYTES,
) -> list[Misnamed]:
    """The plan's stray files whose case id field names one of `case_ids`, read once each.
    A stray that cannot be read stays a plain stray (run says why it is not used)."""
    out = []
    for src in plan.sources:
        if src.how != ORPHAN or plan.fixtures is None:
            continue
        try:
            document = read_trace_file(plan.path(src.rel), root, max_bytes).document
        except (TraceError, MemoryError):
            continue
        case_id = named_case(document, fields)
        if case_id is not None and case_id in case_ids:
            out.append(Misnamed(src.rel, plan.label(src.rel), case_id))
    return out


def mark_misnamed(plan: Plan, found: list[Misnamed]) -> None:
    """Say in the plan what `find_misnamed` found: the stray's reason (report.json's
    unmatched_traces) names its case, and that case's not-run reason names the file."""
    by_rel = {m.rel: m for m in found}
    for i, src in enumerate(plan.sources):
        hit = by_rel.get(src.rel)
        if hit is not None and src.how == ORPHAN:
            advice = misnamed_advice(hit.rel, hit.case_id, plan.shown)
            plan.sources[i] = src._replace(reason=advice)
            plan.misnamed.setdefault(hit.case_id, []).append(hit.label)


__all__ = ["Misnamed", "find_misnamed", "mark_misnamed", "misnamed_advice", "named_case"]
