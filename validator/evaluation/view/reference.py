"""This project's diagnosis trace format (fixtures/*.json): toolInvocations, finalAnswer,
selfEvaluation.verifier_evaluation.verdict, durationMs. The format records no model calls,
so llm_calls is always empty.

A tool invocation's status is `ok` when absent or a success word (success, succeeded, ok,
completed, any case); anything else (error, timeout, cancelled) is a failure and an
`errors` entry. Unread: tool invocations that are not objects, a toolInvocations that is not
a list, a trace that is not an object.
"""

from __future__ import annotations

from typing import Any

from ...problems import kind_of, show
from .building import (
    Adapter,
    Builder,
    View,
    ViewOptions,
    as_dict,
    first_present,
    json_number,
    not_an_object,
    order_key,
    path_at,
    summary,
)

_OK_STATUSES = frozenset({"success", "succeeded", "ok", "completed"})


def detect(trace: Any) -> bool:
    return isinstance(trace, dict) and (
        "toolInvocations" in trace or "finalAnswer" in trace or "selfEvaluation" in trace
    )


def _reference_tool(builder: Builder, item: Any, index: int) -> None:
    where = path_at("$.toolInvocations", index)
    if not isinstance(item, dict):
        message = f"cannot read tool invocation: it is {kind_of(item)}, not an object"
        builder.cannot_read("tool-call", "tool invocations that are not objects", message, where)
        return
    status = item.get("status")
    # Absent status: the trace reports no failure. Anything but a success word is a failure
    # (timeout, error, cancelled, ...): a check asking "did every call succeed" must not pass
    # on a timeout.
    failed = status is not None and str(status).strip().lower() not in _OK_STATUSES
    if failed:
        detail = item.get("error")
        message = detail if isinstance(detail, str) and detail else f"status {status}"
        builder.error(f"tool {item.get('toolName')!s}: {message}", path_at(where, "status"))
    builder.tool(
        order_key(None, index),
        name=item.get("toolName"),
        arguments=item.get("arguments"),
        result=first_present(item, ("result", "output")),
        failed=failed,
        duration_ms=json_number(item.get("durationMs")),
        call_id=item.get("id"),
    )


def _typed(builder: Builder, trace: dict[str, Any], key: str, want: type, where: str) -> Any:
    value = trace.get(key)
    if value is None:
        return None
    if isinstance(value, want) and not isinstance(value, bool):
        return value
    builder.error(f"{key} is {kind_of(value)}, expected {kind_of(want())}", where)
    return None


def build(trace: Any, options: ViewOptions) -> View:
    builder = Builder("reference", options)
    if not isinstance(trace, dict):
        return not_an_object(builder, trace, "an object with toolInvocations and finalAnswer")
    invocations = trace.get("toolInvocations")
    if isinstance(invocations, list):
        for index, item in enumerate(invocations):
            _reference_tool(builder, item, index)
    elif invocations is not None:
        message = f"toolInvocations is {kind_of(invocations)}, not a list"
        builder.cannot_read(
            "tool-call", "toolInvocations that is not a list", message, "$.toolInvocations"
        )
    builder.final_answer = _typed(builder, trace, "finalAnswer", str, "$.finalAnswer")
    verifier = as_dict(as_dict(trace.get("selfEvaluation")).get("verifier_evaluation"))
    builder.verdict = _typed(
        builder, verifier, "verdict", str, "$.selfEvaluation.verifier_evaluation.verdict"
    )
    duration = trace.get("durationMs")
    builder.duration_ms = json_number(duration)
    if duration is not None and builder.duration_ms is None:
        builder.error(f"durationMs is {show(duration)}, not a finite number", "$.durationMs")
    return builder.finish()


ADAPTER = Adapter(
    name="reference",
    doc=summary(__doc__),
    recognized="an object with `toolInvocations`, `finalAnswer` or `selfEvaluation`",
    detect=detect,
    build=build,
)
