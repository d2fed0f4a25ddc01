"""A Langfuse trace export {trace, observations}: TOOL observations are tool calls,
GENERATION observations model calls (usageDetails, costDetails), level ERROR an error; the
final answer is trace.output, else the last generation's output.

Messages: a generation's `input` then its `output`, in whichever message shape the
framework wrote (chat messages, GenAI parts, Responses items, Gemini, Anthropic, Vercel).

AGENT observations bound the search for wrapped model calls (a generation inside a tool or
agent is a call of its own). Unread: observations of any other type (SPAN, CHAIN, EVENT,
RETRIEVER, ...), observations that are not objects, parent links that form a cycle.
"""

from __future__ import annotations

from typing import Any

from ...problems import kind_of
from .answer import answer_text
from .building import (
    NOT_CALLS,
    Adapter,
    Builder,
    Order,
    View,
    ViewOptions,
    as_dict,
    as_number,
    elapsed_ms,
    first_number,
    first_present,
    first_text,
    id_text,
    not_an_object,
    one_of,
    order_key,
    parse_json,
    path_at,
    summary,
    time_ns,
    wrappers,
)
from .messages import conversation

_READ_TYPES = frozenset({"GENERATION", "TOOL", "AGENT"})
_OTHER_TYPES = NOT_CALLS["observation"]


def detect(trace: Any) -> bool:
    if not isinstance(trace, dict):
        return False
    head = trace.get("trace")
    if isinstance(head, dict):
        return isinstance(trace.get("observations"), list) or isinstance(
            head.get("observations"), list
        )
    return isinstance(trace.get("observations"), list) and "projectId" in trace


def _metadata_attributes(observation: dict[str, Any]) -> dict[str, Any]:
    """The original span's attributes, kept by Langfuse in metadata (JSON text or object)."""
    metadata = observation.get("metadata")
    if isinstance(metadata, str) and "attributes" in metadata:
        ok, metadata = parse_json(metadata)
        metadata = metadata if ok else None
    return as_dict(as_dict(metadata).get("attributes"))


def _observation_tool(builder: Builder, obs: dict[str, Any], order: Order, failed: bool) -> None:
    attrs = _metadata_attributes(obs)
    name = first_text(attrs, ("gen_ai.tool.name", "tool.name", "ai.toolCall.name"))
    if name is None and isinstance(obs.get("name"), str):
        name = obs["name"].removeprefix("execute_tool ").removeprefix("running tool: ").strip()
    builder.tool(
        order,
        name=name or None,
        arguments=obs.get("input"),
        result=obs.get("output"),
        failed=failed,
        duration_ms=elapsed_ms(time_ns(obs.get("startTime"), 1), time_ns(obs.get("endTime"), 1)),
        call_id=first_present(attrs, ("gen_ai.tool.call.id", "ai.toolCall.id", "tool_call.id")),
    )


def _observation_llm(builder: Builder, obs: dict[str, Any], order: Order) -> None:
    usage = as_dict(obs.get("usageDetails"))
    costs = as_dict(obs.get("costDetails"))
    cost = as_number(costs.get("total"))
    if cost is None:
        cost = as_number(obs.get("totalCost"))
    builder.llm(
        order,
        model=obs.get("model"),
        input_tokens=first_number(usage, ("input", "prompt_tokens", "input_tokens")),
        output_tokens=first_number(usage, ("output", "completion_tokens", "output_tokens")),
        total_tokens=first_number(usage, ("total", "total_tokens")),
        cost=cost,
        duration_ms=elapsed_ms(time_ns(obs.get("startTime"), 1), time_ns(obs.get("endTime"), 1)),
        messages=conversation(obs.get("input"), obs.get("output"), builder),
    )


def _observations(trace: dict[str, Any], builder: Builder) -> tuple[list[Any], str]:
    if "observations" in trace:
        found, path = trace["observations"], "$.observations"
    else:
        found, path = as_dict(trace.get("trace")).get("observations"), "$.trace.observations"
    if not isinstance(found, list):
        message = f"cannot read observations: {kind_of(found)}, not a list"
        builder.cannot_read("observation", "observation lists that are not lists", message, path)
        return [], path
    return found, path


def _langfuse_duration(
    items: list[tuple[Order, dict[str, Any]]], head: dict[str, Any]
) -> float | None:
    starts = [s for s in (time_ns(o.get("startTime"), 1) for _, o in items) if s is not None]
    ends = [e for e in (time_ns(o.get("endTime"), 1) for _, o in items) if e is not None]
    if starts and ends:
        return elapsed_ms(min(starts), max(ends))
    latency = as_number(head.get("latency"))  # seconds on the trace object
    return latency * 1000 if latency is not None else None


def _sorted_observations(
    found: list[Any], path: str, builder: Builder
) -> list[tuple[Order, dict[str, Any]]]:
    items: list[tuple[Order, dict[str, Any]]] = []
    for index, obs in enumerate(found):
        if isinstance(obs, dict):
            items.append((order_key(time_ns(obs.get("startTime"), 1), index), obs))
        else:
            message = f"cannot read observation: it is {kind_of(obs)}, not an object"
            reason = "observations that are not objects"
            builder.cannot_read("observation", reason, message, path_at(path, index))
    items.sort(key=lambda pair: pair[0])
    return items


def _observation_failed(builder: Builder, obs: dict[str, Any], where: str) -> bool:
    if obs.get("level") != "ERROR":
        return False  # WARNING, DEFAULT, DEBUG: not failures
    message = obs.get("statusMessage")
    if not isinstance(message, str) or not message:
        message = f"observation '{obs.get('name')}' has level ERROR"
    builder.error(message, path_at(where, "level"))
    return True


_LANGFUSE_ROLES = {"GENERATION": "llm", "TOOL": "barrier", "AGENT": "barrier"}


def build(trace: Any, options: ViewOptions) -> View:
    builder = Builder("langfuse", options)
    if not isinstance(trace, dict):
        return not_an_object(builder, trace, "a Langfuse export {trace, observations}")
    head = as_dict(trace.get("trace"))
    found, path = _observations(trace, builder)
    items = _sorted_observations(found, path, builder)
    inner = wrappers(
        [
            (
                id_text(o.get("id")),
                id_text(o.get("parentObservationId")),
                _LANGFUSE_ROLES.get(str(o.get("type")), ""),
            )
            for _, o in items
        ],
        builder,
        "observation",
    )
    generations: list[dict[str, Any]] = []
    for order, obs in items:
        failed = _observation_failed(builder, obs, path_at(path, order[2]))
        if obs.get("type") == "TOOL":
            _observation_tool(builder, obs, order, failed)
        elif obs.get("type") == "GENERATION" and id_text(obs.get("id")) not in inner:
            _observation_llm(builder, obs, order)
            generations.append(obs)
        elif not one_of(obs.get("type"), _READ_TYPES):
            builder.unread("observation", _OTHER_TYPES)
    builder.final_answer = answer_text(head.get("output"))
    if builder.final_answer is None:
        texts = (answer_text(g.get("output")) for g in reversed(generations))
        builder.final_answer = next((t for t in texts if t is not None), None)
    builder.duration_ms = _langfuse_duration(items, head)
    return builder.finish()


ADAPTER = Adapter(
    name="langfuse",
    doc=summary(__doc__),
    recognized="`{trace: {...}, observations: [...]}` (or the list at `trace.observations`), "
    "or a trace object with `observations` and `projectId`",
    detect=detect,
    build=build,
)
