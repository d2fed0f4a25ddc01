"""OpenTelemetry GenAI spans in any encoding: a list of spans or {spans} (the Python SDK's
JSON, any-agent, and what `traces.format: otlp-json` reads), an OTLP request (resourceSpans,
also one per JSON Lines line), Tempo's batches, Jaeger JSON (data[].spans with tags) or one
bare OTLP span (OpenInference). execute_tool spans are tool calls, chat/generate spans model
calls (innermost only), error-status spans errors.

Messages (`llm_calls[*].messages`): `gen_ai.input.messages` then `gen_ai.output.messages`
(after `gen_ai.system_instructions`; any-agent's `gen_ai.output` as the output), else the
indexed `gen_ai.prompt.<n>.*` / `gen_ai.completion.<n>.*` (OpenLLMetry), else
`llm.input_messages.<n>.message.*` / `llm.output_messages.<n>.message.*` (OpenInference).

Attributes are read as OTLP key/value lists and as plain mappings alike (see otlp.py), so
a collector export gives the same view whether or not the `otlp-json`
reader prepared it. Unread: spans that are neither a tool, a model nor an agent call (HTTP
and queue spans: read for errors and times only), attributes in another form, parent links
that form a cycle (those spans are read as top-level spans, so no model call is hidden).
"""

from __future__ import annotations

import re
from typing import Any

from .answer import answer_text
from .building import (
    NOT_CALLS,
    Adapter,
    Builder,
    View,
    ViewOptions,
    as_dict,
    as_number,
    elapsed_ms,
    first_number,
    first_present,
    first_text,
    not_an_object,
    one_of,
    order_key,
    parse_json,
    span_ms,
    summary,
    wrappers,
)
from .messages import Message, conversation
from .otlp import Span, read_spans

_UNKNOWN_KIND = NOT_CALLS["span"]
_LLM_OPERATIONS = frozenset(
    {"chat", "text_completion", "generate_content", "completion", "call_llm"}
)
_INPUT_TOKENS = (
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.prompt_tokens",
    "llm.token_count.prompt",
    "llm.usage.prompt_tokens",
)
_OUTPUT_TOKENS = (
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
    "llm.token_count.completion",
    "llm.usage.completion_tokens",
)
_TOTAL_TOKENS = ("llm.usage.total_tokens", "gen_ai.usage.total_tokens", "llm.token_count.total")


def _span_kind(attrs: dict[str, Any]) -> str:
    """tool, agent, llm or "" from the GenAI (or OpenInference) attributes."""
    operation = attrs.get("gen_ai.operation.name")
    inference = attrs.get("openinference.span.kind")
    if operation == "execute_tool" or inference == "TOOL":
        return "tool"
    if operation in ("invoke_agent", "create_agent") or inference == "AGENT":
        return "agent"
    if one_of(operation, _LLM_OPERATIONS) or inference == "LLM":
        return "llm"
    if operation is None and inference is None:
        # Spans that name no operation but are model calls: OpenLLMetry's openai.chat
        # (llm.request.type) and Google ADK's call_llm (token usage only).
        if attrs.get("llm.request.type") in ("chat", "completion"):
            return "llm"
        if any(key in attrs for key in (*_INPUT_TOKENS, *_OUTPUT_TOKENS)):
            return "llm"
    return ""


def _span_tool(builder: Builder, span: Span) -> None:
    attrs = span.attrs
    name = first_text(attrs, ("gen_ai.tool.name", "tool.name"))
    if name is None and span.name:
        name = span.name.removeprefix("execute_tool ").strip() or None
    builder.tool(
        order_key(span.start, span.position),
        name=name,
        arguments=first_present(
            attrs,
            (
                "gen_ai.tool.call.arguments",
                "gen_ai.tool.args",  # any-agent
                "gcp.vertex.agent.tool_call_args",  # Google ADK
                "input.value",  # OpenInference TOOL spans
            ),
        ),
        result=first_present(
            attrs,
            (
                "gen_ai.tool.call.result",
                "gen_ai.output",  # any-agent
                "gcp.vertex.agent.tool_response",  # Google ADK
                "output.value",  # OpenInference TOOL spans
            ),
        ),
        failed=span.error_message is not None,
        duration_ms=elapsed_ms(span.start, span.end),
        call_id=first_present(attrs, ("gen_ai.tool.call.id", "tool_call.id")),
    )


def _span_cost(attrs: dict[str, Any]) -> int | float | None:
    cost = first_number(attrs, ("gen_ai.usage.cost", "llm.cost.total"))
    if cost is not None:
        return cost
    parts = [
        as_number(attrs.get(k)) for k in ("gen_ai.usage.input_cost", "gen_ai.usage.output_cost")
    ]
    known = [p for p in parts if p is not None]
    return sum(known) if known else None  # any-agent records input and output cost apart


def _invocation_model(attrs: dict[str, Any]) -> str | None:
    """The requested model from OpenInference's invocation parameters (failed calls)."""
    params = attrs.get("llm.invocation_parameters")
    if not isinstance(params, str) or "model" not in params:
        return None
    ok, parsed = parse_json(params)
    model = as_dict(parsed).get("model") if ok else None
    return model if isinstance(model, str) else None


def _span_llm(builder: Builder, span: Span) -> None:
    attrs = span.attrs
    model = first_text(attrs, ("gen_ai.response.model", "llm.model_name", "gen_ai.request.model"))
    builder.llm(
        order_key(span.start, span.position),
        model=model or _invocation_model(attrs),
        input_tokens=first_number(attrs, _INPUT_TOKENS),
        output_tokens=first_number(attrs, _OUTPUT_TOKENS),
        total_tokens=first_number(attrs, _TOTAL_TOKENS),
        cost=_span_cost(attrs),
        duration_ms=elapsed_ms(span.start, span.end),
        messages=_span_messages(attrs, builder),
    )


# --------------------------------------------------------------------------- messages

# Messages written one attribute per field: (input prefix, output prefix) of OpenLLMetry's
# gen_ai.prompt.<n>.role and OpenInference's llm.input_messages.<n>.message.role.
_INDEXED = (
    ("gen_ai.prompt.", "gen_ai.completion."),
    ("llm.input_messages.", "llm.output_messages."),
)
_INDEXED_KEY = re.compile(r"(\d{1,9})\.(?:message\.)?(.+)")
_CALL_FIELD = re.compile(r"tool_calls\.(\d{1,9})\.(?:tool_call\.)?(?:function\.)?(name|arguments)")
_PART_FIELD = re.compile(r"contents\.(\d{1,9})\.message_content\.(type|text)")


def _indexed_fields(attrs: dict[str, Any], prefix: str) -> dict[int, dict[str, Any]]:
    """{n: {field: value}} of the attributes <prefix><n>.<field> (`message.` dropped)."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if key.startswith(prefix):
            match = _INDEXED_KEY.fullmatch(key, len(prefix))
            if match:
                found.setdefault(int(match[1]), {})[match[2]] = value
    return found


def _indexed_message(fields: dict[str, Any]) -> dict[str, Any]:
    """One message of indexed attributes, in the OpenAI chat shape `message` reads."""
    calls: dict[int, dict[str, Any]] = {}
    parts: dict[int, dict[str, Any]] = {}
    for field, value in fields.items():
        call = _CALL_FIELD.fullmatch(field)
        if call:
            calls.setdefault(int(call[1]), {})[call[2]] = value
            continue
        part = _PART_FIELD.fullmatch(field)
        if part:
            parts.setdefault(int(part[1]), {})[part[2]] = value
    content = fields.get("content")
    if content is None and parts:
        content = [parts[n] for n in sorted(parts)]
    raw: dict[str, Any] = {"role": fields.get("role"), "content": content}
    if calls:
        raw["tool_calls"] = [calls[n] for n in sorted(calls)]
    return raw


def _indexed(attrs: dict[str, Any], prefix: str) -> list[dict[str, Any]] | None:
    fields = _indexed_fields(attrs, prefix)
    return [_indexed_message(fields[n]) for n in sorted(fields)] if fields else None


def _any_agent_output(attrs: dict[str, Any]) -> Any:
    """any-agent's gen_ai.output: text, or JSON (a list of tool requests, a structured answer)."""
    output = attrs.get("gen_ai.output")
    if output is not None and attrs.get("gen_ai.output.type") == "text":
        return [{"role": "assistant", "content": output}]
    return output


def _span_messages(attrs: dict[str, Any], builder: Builder) -> list[Message] | None:
    """A model span's conversation: GenAI JSON message attributes (and the system
    instructions), else the indexed attributes; None when the span records none."""
    inputs = attrs.get("gen_ai.input.messages")
    outputs = attrs.get("gen_ai.output.messages")
    if outputs is None:
        outputs = _any_agent_output(attrs)
    for input_prefix, output_prefix in _INDEXED:
        if inputs is None and outputs is None:
            inputs, outputs = _indexed(attrs, input_prefix), _indexed(attrs, output_prefix)
    return conversation(inputs, outputs, builder, attrs.get("gen_ai.system_instructions"))


# Tool calls a model asked for, recorded on its LLM span (OpenInference, OpenLLMetry).
_REQUESTED = (
    re.compile(
        r"llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\."
        r"(id|function\.name|function\.arguments)"
    ),
    re.compile(r"gen_ai\.completion\.(\d+)\.tool_calls\.(\d+)\.(id|name|arguments)"),
)
_REQUESTED_FIELD = {"function.name": "name", "function.arguments": "arguments"}


def _requested_calls(attrs: dict[str, Any]) -> list[dict[str, Any]]:
    calls: dict[tuple[int, int], dict[str, Any]] = {}
    for key, value in attrs.items():
        if not key.startswith(("llm.output_messages.", "gen_ai.completion.")):
            continue
        for pattern in _REQUESTED:
            match = pattern.fullmatch(key)
            if match:
                slot = (int(match[1]), int(match[2]))
                field = _REQUESTED_FIELD.get(match[3], match[3])
                calls.setdefault(slot, {})[field] = value
                break
    return [calls[slot] for slot in sorted(calls)]


_COMPLETION_CONTENT = re.compile(r"gen_ai\.completion\.(\d+)\.content")
_OUTPUT_CONTENT = re.compile(r"llm\.output_messages\.(\d+)\.message\.content")


def _indexed_text(attrs: dict[str, Any], prefix: str, pattern: re.Pattern[str]) -> str | None:
    """The content of the highest-numbered message, e.g. gen_ai.completion.<n>.content."""
    best: tuple[int, str] | None = None
    for key, value in attrs.items():
        if key.startswith(prefix) and isinstance(value, str) and value:
            match = pattern.fullmatch(key)
            if match and (best is None or int(match[1]) >= best[0]):
                best = (int(match[1]), value)
    return best[1] if best else None


def _span_output_text(attrs: dict[str, Any]) -> str | None:
    """What a model or agent span said to the user, in any of the known attribute schemes."""
    text = _indexed_text(attrs, "gen_ai.completion.", _COMPLETION_CONTENT)  # OpenLLMetry
    if text is None:
        text = _indexed_text(attrs, "llm.output_messages.", _OUTPUT_CONTENT)  # OpenInference
    if text is not None:
        return text
    messages = attrs.get("gen_ai.output.messages")  # GenAI semantic conventions (JSON text)
    if messages is not None:
        return answer_text(messages)
    output = attrs.get("gen_ai.output")  # any-agent: text, or JSON (a list = tool requests)
    if output is not None:
        return output if attrs.get("gen_ai.output.type") == "text" else answer_text(output)
    return None


def _agent_answer(agents: list[Span]) -> str | None:
    """The output of the agent span that ended last (the outermost run), if it has one."""
    with_output = [s for s in agents if _span_output_text(s.attrs) is not None]
    if not with_output:
        return None
    last = max(with_output, key=lambda s: (s.end is not None, s.end or 0, s.position))
    return _span_output_text(last.attrs)


def _run_duration(spans: list[Span], agents: list[Span]) -> float | None:
    """The longest agent span; without one, first start to last end of all spans."""
    durations = [d for d in (elapsed_ms(s.start, s.end) for s in agents) if d is not None]
    if durations:
        return max(durations)
    starts = [s.start for s in spans if s.start is not None]
    ends = [s.end for s in spans if s.end is not None]
    return span_ms(starts, ends)


_SPAN_KEYS = ("attributes", "spanId", "spanID", "context")
_BARE_SPAN_KEYS = ("kind", "status", "spanId", "startTimeUnixNano")


def _is_span_list(trace: list[Any]) -> bool:
    first = trace[0] if trace else None
    if not isinstance(first, dict) or "role" in first:
        return False  # a list of messages, not spans
    return any(key in first for key in _SPAN_KEYS)


def _is_bare_span(trace: dict[str, Any]) -> bool:
    if "name" not in trace or not isinstance(trace.get("attributes"), (list, dict)):
        return False
    return any(key in trace for key in _BARE_SPAN_KEYS)


def detect(trace: Any) -> bool:
    if isinstance(trace, list):
        return _is_span_list(trace)
    if not isinstance(trace, dict):
        return False
    if "resourceSpans" in trace or "batches" in trace or isinstance(trace.get("spans"), list):
        return True
    data = trace.get("data")
    if isinstance(data, list):
        return bool(data) and isinstance(data[0], dict) and "spans" in data[0]
    return _is_bare_span(trace)


def _add_requested(builder: Builder, llms: list[Span]) -> None:
    """Without tool spans, the tool calls the model asked for are the trace's tool calls."""
    for span in llms:
        for number, call in enumerate(_requested_calls(span.attrs)):
            builder.tool(
                order_key(span.start, span.position, number),
                name=call.get("name"),
                arguments=call.get("arguments"),
                result=None,
                call_id=call.get("id"),
            )


def _role(kind: str) -> str:
    return "barrier" if kind in ("tool", "agent") else kind


def _classify(spans: list[Span], builder: Builder) -> tuple[list[Span], list[Span], list[Span]]:
    """(model calls without the wrappers around them, tool spans, agent spans)."""
    kinds = [_span_kind(s.attrs) for s in spans]
    pairs = list(zip(spans, kinds, strict=True))
    builder.unread("span", _UNKNOWN_KIND, kinds.count(""))
    inner = wrappers([(s.span_id, s.parent_id, _role(k)) for s, k in pairs], builder)
    llms = [s for s, k in pairs if k == "llm" and s.span_id not in inner]
    return llms, [s for s, k in pairs if k == "tool"], [s for s, k in pairs if k == "agent"]


def _otel_answer(trace: Any, llms: list[Span], agents: list[Span]) -> str | None:
    """The run's own answer field, else the outermost agent's output, else the last model text."""
    final = as_dict(trace).get("final_output")  # any-agent writes the run's answer beside the spans
    if final is not None:
        return answer_text(final)
    answer = _agent_answer(agents)
    if answer is not None:
        return answer
    texts = (_span_output_text(s.attrs) for s in reversed(llms))
    return next((t for t in texts if t is not None), None)


def build(trace: Any, options: ViewOptions) -> View:
    builder = Builder("otel-genai", options)
    if not isinstance(trace, (list, dict)):
        expected = "spans (a list, an OTLP request, Jaeger JSON or a span)"
        return not_an_object(builder, trace, expected)
    spans = read_spans(trace, builder)
    llms, tools, agents = _classify(spans, builder)
    for span in spans:
        if span.error_message is not None:
            builder.error(span.error_message, span.error_where)
    for span in tools:
        _span_tool(builder, span)
    for span in llms:
        _span_llm(builder, span)
    if not tools:
        _add_requested(builder, llms)
    builder.final_answer = _otel_answer(trace, llms, agents)
    builder.duration_ms = _run_duration(spans, agents)
    return builder.finish()


ADAPTER = Adapter(
    name="otel-genai",
    doc=summary(__doc__),
    recognized="`resourceSpans`, `batches`, `spans` (a list), Jaeger's `data[0].spans`, a list "
    "whose first item looks like a span (`attributes`, `spanId`, `spanID` or `context`, and no "
    "`role`), or one bare span (`name`, `attributes` and `kind`/`status`/`spanId`/"
    "`startTimeUnixNano`)",
    detect=detect,
    build=build,
)
