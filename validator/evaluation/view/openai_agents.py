"""An OpenAI Agents SDK run: the serialized run state (`RunState.to_json()`, with
`$schemaVersion` and `generated_items`), or the SDK's trace export (`{"object": "trace.span",
"span_data": {...}}` items, as a list or in the ingest body's `data`).

Run state: each `tool_call_item` is a tool call (its `raw_item`: a `function_call` with
`name`, JSON-text `arguments` and `call_id`; a `program` call reads as a tool named
`program` with `{code}`; any other hosted call by its `type`); the `tool_call_output_item`
with the same `call_id` gives the result (`output`, else `raw_item.output` or `.result`). A
call fails when its output's `status` is `failed` or `incomplete`, when its output starts
with the SDK's default tool error text ("An error occurred while running the tool"), or when
`context.approvals` records its rejection (`{tool: {rejected: true | [call ids]}}`). A
`tool_approval_item` repeats a call awaiting approval (not a second call); a
`handoff_call_item` is a tool call too, answered by its `handoff_output_item`. Each
`model_responses[]` entry is one model call with its `usage` (`input_tokens`,
`output_tokens`, `total_tokens`); when there is none but `context.usage` counts requests,
one model call holds those run totals. The answer is the text of the last
`message_output_item`. A run state paused on `current_step.type == "next_step_interruption"`
is an `errors` entry naming each interruption (the tools awaiting approval): the run has
not finished, and its final answer is not stored. A run state holds no times: the
duration is null.

Trace export: `function` spans are tool calls (`name`, `input`, `output`; a span `error`
fails it), `generation` and `response` spans model calls (`model`, `usage`), times from
`started_at`/`ended_at`; the answer is the last generation's output text.

Messages: a model response's `output` items (a run state keeps no input per call); a
generation span's `input` then `output`.

Unread: generated items of other types (MCP requests, computer and shell actions), outputs
that answer no call, spans of other types (agent, handoff, guardrail, custom, ...; read for
errors and times only), items that are not objects.
"""

from __future__ import annotations

from typing import Any

from ...problems import kind_of
from .answer import answer_text
from .building import (
    Adapter,
    Builder,
    View,
    ViewOptions,
    as_dict,
    as_list,
    elapsed_ms,
    first_number,
    first_present,
    id_text,
    not_an_object,
    one_of,
    order_key,
    path_at,
    summary,
    time_ns,
)
from .messages import conversation

_SDK_TOOL_ERROR = "An error occurred while running the tool"
_FAILED_STATUS = frozenset({"failed", "incomplete"})
_CALL_ITEMS = frozenset({"tool_call_item", "handoff_call_item"})
_OUTPUT_ITEMS = frozenset({"tool_call_output_item", "handoff_output_item"})
_QUIET_ITEMS = frozenset({"tool_approval_item", "reasoning_item", "compaction_item"})
_SPAN_OBJECTS = frozenset({"trace.span", "trace"})
_LLM_SPANS = frozenset({"generation", "response"})


def _span_list(trace: Any) -> list[Any] | None:
    items = trace.get("data") if isinstance(trace, dict) else trace
    first = items[0] if isinstance(items, list) and items else None
    if isinstance(first, dict) and one_of(first.get("object"), _SPAN_OBJECTS):
        return items
    return None


def detect(trace: Any) -> bool:
    if isinstance(trace, dict) and "$schemaVersion" in trace:
        return isinstance(trace.get("generated_items"), list)
    return _span_list(trace) is not None


# --------------------------------------------------------------------------- run state


def _call_parts(raw: dict[str, Any], item: dict[str, Any]) -> tuple[Any, Any]:
    """(name, arguments) of a tool call item's raw_item."""
    kind = raw.get("type")
    name = raw.get("name") or item.get("tool_name")
    if kind == "program":
        return name or "program", {"code": raw.get("code")}
    if kind in (None, "function_call", "custom_tool_call"):
        return name, raw.get("arguments", raw.get("input"))
    arguments = {k: v for k, v in raw.items() if k not in ("type", "id", "call_id", "status")}
    return name or kind, arguments


def _rejected(approvals: dict[str, Any], name: Any, call_id: str | None) -> bool:
    record = as_dict(approvals.get(name)) if isinstance(name, str) else {}
    rejected = record.get("rejected")
    return rejected is True or (call_id is not None and call_id in as_list(rejected))


def _output_of(item: dict[str, Any]) -> tuple[Any, bool]:
    raw = as_dict(item.get("raw_item"))
    output = first_present(item, ("output",))
    if output is None:
        output = first_present(raw, ("output", "result"))
    failed = one_of(raw.get("status"), _FAILED_STATUS)
    if isinstance(output, str) and output.startswith(_SDK_TOOL_ERROR):
        failed = True
    return output, failed


def _outputs(items: list[Any]) -> dict[str, tuple[Any, bool, int]]:
    found: dict[str, tuple[Any, bool, int]] = {}
    for index, item in enumerate(items):
        if isinstance(item, dict) and one_of(item.get("type"), _OUTPUT_ITEMS):
            call_id = id_text(as_dict(item.get("raw_item")).get("call_id"))
            if call_id is not None and call_id not in found:
                output, failed = _output_of(item)
                found[call_id] = (output, failed, index)
    return found


def _run_state_items(trace: dict[str, Any], builder: Builder) -> str | None:
    items = trace["generated_items"]
    outputs = _outputs(items)
    approvals = as_dict(as_dict(trace.get("context")).get("approvals"))
    answered: set[str] = set()
    answer: str | None = None
    for index, item in enumerate(items):
        where = path_at("$.generated_items", index)
        if not isinstance(item, dict):
            reason = "generated items that are not objects"
            builder.cannot_read("item", reason, f"cannot read item: {kind_of(item)}", where)
            continue
        kind = item.get("type")
        if one_of(kind, _CALL_ITEMS):
            raw = as_dict(item.get("raw_item"))
            call_id = id_text(raw.get("call_id"))
            name, arguments = _call_parts(raw, item)
            result, failed, _ = outputs.get(call_id or "", (None, False, -1))
            if call_id is not None:
                answered.add(call_id)
            if _rejected(approvals, name, call_id):
                failed = True
                builder.error(f"the call of {name} ({call_id}) was rejected", where)
            elif failed:
                builder.error(f"tool {name} failed: {result}", where)
            builder.tool(
                order_key(None, index),
                name=name,
                arguments=arguments,
                result=result,
                failed=failed,
                call_id=call_id,
            )
        elif kind == "message_output_item":
            text = answer_text(item.get("raw_item"))
            answer = text if text is not None else answer
        elif one_of(kind, _OUTPUT_ITEMS) or one_of(kind, _QUIET_ITEMS):
            continue
        else:
            builder.unread("item", "generated items of a type the view does not read")
    stray = [c for c in outputs if c not in answered]
    builder.unread("item", "tool outputs that answer no tool call item", len(stray))
    return answer


def _usage_call(builder: Builder, usage: dict[str, Any], position: int, output: Any = None) -> None:
    builder.llm(
        order_key(None, position),
        model=None,
        input_tokens=first_number(usage, ("input_tokens", "prompt_tokens")),
        output_tokens=first_number(usage, ("output_tokens", "completion_tokens")),
        total_tokens=first_number(usage, ("total_tokens",)),
        messages=conversation(None, output, builder),  # a response keeps no input
    )


def _model_calls(trace: dict[str, Any], builder: Builder) -> None:
    responses = trace.get("model_responses")
    for index, response in enumerate(as_list(responses)):
        if isinstance(response, dict):
            _usage_call(builder, as_dict(response.get("usage")), index, response.get("output"))
        else:
            where = path_at("$.model_responses", index)
            reason = "generated items that are not objects"
            builder.cannot_read(
                "item", reason, f"cannot read model response: {kind_of(response)}", where
            )
    if not as_list(responses):
        usage = as_dict(as_dict(trace.get("context")).get("usage"))
        requests = first_number(usage, ("requests",))
        if requests is not None and requests > 0:
            _usage_call(builder, usage, 0)  # the run's totals: no response kept per call


def _interruption(trace: dict[str, Any], builder: Builder) -> None:
    step = as_dict(trace.get("current_step"))
    if step.get("type") != "next_step_interruption":
        return
    waiting = []
    for item in as_list(as_dict(step.get("data")).get("interruptions")):
        item = as_dict(item)
        raw = as_dict(item.get("raw_item"))
        name = item.get("tool_name") or raw.get("name") or item.get("type")
        waiting.append(f"{name} ({raw.get('call_id')})" if raw.get("call_id") else str(name))
    what = ", ".join(waiting) if waiting else "no interruption named"
    builder.error(f"the run is interrupted, awaiting approval: {what}", "$.current_step")


def _build_run_state(trace: dict[str, Any], builder: Builder) -> View:
    builder.final_answer = _run_state_items(trace, builder)
    _model_calls(trace, builder)
    _interruption(trace, builder)
    return builder.finish()


# --------------------------------------------------------------------------- trace export


def _build_spans(spans: list[Any], path: str, builder: Builder) -> View:
    starts: list[int] = []
    ends: list[int] = []
    answer: str | None = None
    for index, span in enumerate(spans):
        where = path_at(path, index)
        if not isinstance(span, dict):
            reason = "span entries that are not objects"
            builder.cannot_read("span", reason, f"cannot read span: {kind_of(span)}", where)
            continue
        if span.get("object") == "trace":
            continue
        data = as_dict(span.get("span_data"))
        start, end = time_ns(span.get("started_at"), 1), time_ns(span.get("ended_at"), 1)
        if start is not None and end is not None:
            starts.append(start)
            ends.append(end)
        error = span.get("error")
        if error is not None:
            message = as_dict(error).get("message") or str(error)
            builder.error(str(message), path_at(where, "error"))
        kind = data.get("type")
        if kind == "function":
            builder.tool(
                order_key(start, index),
                name=data.get("name"),
                arguments=data.get("input"),
                result=data.get("output"),
                failed=error is not None,
                duration_ms=elapsed_ms(start, end),
            )
        elif one_of(kind, _LLM_SPANS):
            usage = as_dict(data.get("usage"))
            builder.llm(
                order_key(start, index),
                model=data.get("model"),
                input_tokens=first_number(usage, ("input_tokens", "prompt_tokens")),
                output_tokens=first_number(usage, ("output_tokens", "completion_tokens")),
                total_tokens=first_number(usage, ("total_tokens",)),
                duration_ms=elapsed_ms(start, end),
                messages=conversation(data.get("input"), data.get("output"), builder),
            )
            text = answer_text(data.get("output"))
            answer = text if text is not None else answer
        else:
            builder.unread(
                "span",
                "OpenAI Agents SDK spans other than function, generation "
                "and response (read for errors and times only)",
            )
    builder.final_answer = answer
    if starts:
        builder.duration_ms = elapsed_ms(min(starts), max(ends))
    return builder.finish()


def build(trace: Any, options: ViewOptions) -> View:
    builder = Builder("openai-agents", options)
    if isinstance(trace, dict) and isinstance(trace.get("generated_items"), list):
        return _build_run_state(trace, builder)
    spans = _span_list(trace)
    if spans is not None:
        return _build_spans(spans, "$.data" if isinstance(trace, dict) else "$", builder)
    expected = "an OpenAI Agents SDK run state {$schemaVersion, generated_items} or trace spans"
    return not_an_object(builder, trace, expected)


ADAPTER = Adapter(
    name="openai-agents",
    doc=summary(__doc__),
    recognized="an object with `$schemaVersion` and a `generated_items` list (a run state), or "
    "a list (or `data` list) whose first item has `object` `trace` or `trace.span`",
    detect=detect,
    build=build,
)
