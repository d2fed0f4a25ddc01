"""One normalized view of every trace: `$.view`.

Traces come in many shapes (this project's reference format, OpenTelemetry GenAI spans in
four encodings, Langfuse and LangSmith exports, chat message lists). A spec that wants "the
tool calls" or "the final answer" should not have to know which. An *adapter* reads one
family of shapes and builds the same view for all of them (validator/schemas/view.schema.json
documents it field by field; docs/VIEW.md says which raw field feeds which view field).

`make_view` never raises for a JSON value, however hostile: what an adapter cannot read becomes
an `errors` entry. Building is linear in the size of the trace and detection looks at
top-level keys only, because a run evaluates thousands of traces.

This module is a leaf of `validator.evaluation`: it imports nothing of the package except
`validator.problems`, so other parts can use it without import cycles.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..problems import did_you_mean, kind_of, show

View = dict[str, Any]


@dataclass(frozen=True)
class ViewOptions:
    """How to build a view.

    `messages`: a JSONPath naming the message list, for `openai-messages` (default: the trace
    itself when it is a list, else the first top-level field holding a list of messages).
    `parent`: the document the trace was split from; exposed unchanged as `view["parent"]`.
    """

    messages: str | None = None
    parent: Any = None


@dataclass(frozen=True)
class Adapter:
    """One family of trace shapes: how to recognize it and how to build its view."""

    name: str
    doc: str
    # Cheap: looks at the top-level shape and keys only, never walks the trace.
    detect: Callable[[Any], bool]
    build: Callable[[Any, ViewOptions], View]


# --------------------------------------------------------------------------- view fields

_SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schemas" / "view.schema.json"


def _load_schema() -> dict[str, Any]:
    with _SCHEMA_PATH.open(encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema


VIEW_SCHEMA: dict[str, Any] = _load_schema()
_SCALAR_TYPES = frozenset({"string", "number", "integer", "boolean", "null"})


def _fields_of(node: dict[str, Any], prefix: str) -> Iterable[str]:
    for name, sub in node.get("properties", {}).items():
        dotted = f"{prefix}.{name}" if prefix else name
        yield dotted
        if "items" in sub:
            yield f"{dotted}[*]"
            yield from _fields_of(sub["items"], f"{dotted}[*]")
        else:
            yield from _fields_of(sub, dotted)


# The dotted names a spec may query under $.view, e.g. "tool_calls[*].name". Derived from the
# schema so that the schema stays the one place a view field is declared.
VIEW_FIELDS: tuple[str, ...] = tuple(_fields_of(VIEW_SCHEMA, ""))


def _is_open(node: dict[str, Any]) -> bool:
    """True when anything may lie below this schema node (arguments, result, parent)."""
    if "properties" in node or "items" in node or "enum" in node:
        return False
    kinds = node.get("type")
    if kinds is None:
        return True
    kinds = [kinds] if isinstance(kinds, str) else kinds
    return not set(kinds) <= _SCALAR_TYPES


def _is_index_step(part: str) -> bool:
    return part in ("*", "[*]") or part.isdigit() or part.startswith("[")


def view_field_problem(path_parts: list[str]) -> str | None:
    """Why `$.view.<parts>` names no view field (with a did-you-mean), or None when it does.

    `path_parts` are the steps after `view`: a field name, or an index step written `*`,
    `[*]`, `[0]`, `0` or any bracketed text (a slice or filter). A recursive descent (`..`)
    ends the check: anything may match below it."""
    node: dict[str, Any] = VIEW_SCHEMA
    where = "$.view"
    for part in path_parts:
        if part == "..":
            return None
        if "items" in node:
            if not _is_index_step(part):
                return f"'{where}' is a list: write {where}[*].{part} to reach a field of its items"
            node, where = node["items"], f"{where}[*]"
            continue
        if _is_open(node):
            return None
        fields = node.get("properties")
        if fields is None:
            return f"'{where}' is a single value, it has no field '{part}'"
        if part in ("*", "[*]"):
            return None  # a wildcard over the fields: every one exists
        if part not in fields:
            hint = did_you_mean(part, fields)
            return f"'{part}' is not a field of {where}{hint}; its fields: {', '.join(fields)}"
        node, where = fields[part], f"{where}.{part}"
    return None


# --------------------------------------------------------------------------- small readers

_MAX_DEPTH = 32  # how deep attribute values and answer texts are looked into
_INT_TEXT = re.compile(r"-?\d{1,20}")
_FLOAT_TEXT = re.compile(r"-?(\d{1,30}(\.\d{0,30})?|\.\d{1,30})([eE][-+]?\d{1,4})?")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _at(path: str, step: str | int) -> str:
    """The JSONPath of `step` below `path`: `$.a.b`, `$.a[3]`, `$.a['gen_ai.x']`."""
    if isinstance(step, int):
        return f"{path}[{step}]"
    if _IDENT.fullmatch(step):
        return f"{path}.{step}"
    quoted = step.replace("\\", "\\\\").replace("'", "\\'")
    return f"{path}['{quoted}']"


def _number(value: Any) -> int | float | None:
    """A finite number, or numeric text (OTLP writes 64-bit integers as text), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip()
        if _INT_TEXT.fullmatch(text):
            return int(text)
        if _FLOAT_TEXT.fullmatch(text):
            number = float(text)
            return number if math.isfinite(number) else None
    return None


def _json_number(value: Any) -> int | float | None:
    """A finite JSON number (not text, not true/false): formats that define a number field."""
    return None if isinstance(value, str) else _number(value)


def _first_number(mapping: dict[str, Any], keys: Iterable[str]) -> int | float | None:
    for key in keys:
        number = _number(mapping.get(key))
        if number is not None:
            return number
    return None


def _first_text(mapping: dict[str, Any], keys: Iterable[str]) -> str | None:
    for key in keys:
        value = mapping.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _first_present(mapping: dict[str, Any], keys: Iterable[str]) -> Any:
    for key in keys:
        if mapping.get(key) is not None:
            return mapping[key]
    return None


def _one_of(value: Any, names: frozenset[str]) -> bool:
    """`value in names` for any JSON value (a list or object is unhashable, and never a name)."""
    return isinstance(value, str) and value in names


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _id_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value or None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _iso_ns(text: str) -> int | None:
    """Nanoseconds since the epoch of an ISO 8601 time; a time without zone is taken as UTC."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000


def _time_ns(value: Any, unit_ns: int) -> int | None:
    """A time as nanoseconds since the epoch: a number in `unit_ns` units, or ISO text."""
    number = _number(value)
    if number is not None:
        return int(number * unit_ns) if abs(number) < 1e30 else None
    if isinstance(value, str):
        return _iso_ns(value)
    return None


def _duration_ms(start_ns: int | None, end_ns: int | None) -> float | None:
    if start_ns is None or end_ns is None or end_ns < start_ns:
        return None
    return (end_ns - start_ns) / 1_000_000


def _json_text(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def _parse_json(text: str) -> tuple[bool, Any]:
    """(True, value) when `text` is JSON, else (False, the parser's message)."""
    try:
        return True, json.loads(text)
    except json.JSONDecodeError as exc:
        return False, exc.msg + f" (line {exc.lineno}, column {exc.colno})"
    except (ValueError, RecursionError) as exc:  # nesting deeper than the parser allows
        return False, f"{type(exc).__name__}: {exc}"


def _arguments(value: Any) -> tuple[Any, str | None]:
    """Arguments as an object, or the value as found and why it is not one."""
    if value is None or isinstance(value, dict):
        return value, None
    if isinstance(value, str):
        ok, parsed = _parse_json(value)
        if not ok:
            return value, f"arguments are not JSON: {parsed}"
        if isinstance(parsed, dict):
            return parsed, None
        return value, f"arguments are JSON {kind_of(parsed)}, not an object"
    return value, f"arguments are {kind_of(value)}, not an object"


# --------------------------------------------------------------------------- answer text

_UNKNOWN = object()  # a value with no recognized message shape
_ASSISTANT_ROLES = frozenset({"assistant", "ai", "model"})
_TEXT_PART_TYPES = frozenset({"text", "output_text"})
# Parts and items that request a tool instead of saying something to the user.
_TOOL_MARKS = frozenset({"tool_call", "tool_use", "function_call", "tool-call", "function"})
_TOOL_KEYS = ("toolCallId", "tool_call_id", "tool.name", "tool_calls", "function_call")


def _part_text(part: Any) -> str | None:
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return None
    kind = part.get("type")
    if kind is not None and not _one_of(kind, _TEXT_PART_TYPES):
        return None  # tool calls, images, reasoning: not what the user was told
    text = part.get("text", part.get("content"))
    return text if isinstance(text, str) else None


def _parts_text(parts: list[Any]) -> str | None:
    texts = [t for t in (_part_text(p) for p in parts) if t]
    return "\n".join(texts) if texts else None


def _content_text(content: Any, depth: int) -> Any:
    if isinstance(content, str):
        return content or None
    if isinstance(content, list):
        return _parts_text(content)
    if isinstance(content, dict) and isinstance(content.get("parts"), list):
        return _parts_text(content["parts"])  # Gemini: {"content": {"parts": [...]}}
    return _extract(content, depth + 1) if content is not None else None


def _is_tool_item(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    return _one_of(item.get("type"), _TOOL_MARKS) or any(k in item for k in _TOOL_KEYS)


def _messages_text(messages: list[Any], depth: int) -> Any:
    """The text of the last assistant message that has text."""
    for message in reversed(messages):
        if isinstance(message, dict) and _one_of(message.get("role"), _ASSISTANT_ROLES):
            text = _message_text(message, depth)
            if isinstance(text, str):
                return text
    return None


def _message_text(message: dict[str, Any], depth: int) -> Any:
    if "parts" in message and isinstance(message["parts"], list):
        return _parts_text(message["parts"])
    return _content_text(message.get("content"), depth)


def _list_text(value: list[Any], depth: int) -> Any:
    if not value:
        return _UNKNOWN
    first = value[0]
    if isinstance(first, dict) and "role" in first:
        return _messages_text(value, depth)
    if all(_is_tool_item(item) for item in value):
        return None  # only tool calls were produced: no answer text
    if isinstance(first, dict) and _one_of(first.get("type"), _TEXT_PART_TYPES):
        return _parts_text(value)
    return _UNKNOWN


def _responses_text(output: list[Any]) -> str | None:
    """OpenAI Responses API: the text of its `message` output items."""
    texts = [
        _parts_text(_list(item.get("content")))
        for item in output
        if isinstance(item, dict) and item.get("type") == "message"
    ]
    joined = [t for t in texts if t]
    return "\n".join(joined) if joined else None


def _dict_text(value: dict[str, Any], depth: int) -> Any:
    choices = value.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return _extract(choices[0].get("message", choices[0].get("text")), depth + 1)
    if "role" in value or "content" in value:
        return _message_text(value, depth)
    if isinstance(value.get("parts"), list):
        return _parts_text(value["parts"])
    output = value.get("output")
    if isinstance(output, list):
        return _responses_text(output)
    if isinstance(output, str):
        return output or None
    if isinstance(value.get("text"), str):
        return value["text"] or None
    return None if _is_tool_item(value) else _UNKNOWN


def _extract(value: Any, depth: int) -> Any:
    """The answer text in a known message shape, None for "no text", or _UNKNOWN."""
    if depth > _MAX_DEPTH:
        return _UNKNOWN
    if isinstance(value, str):
        if value.lstrip()[:1] not in ("{", "[", '"'):
            return value
        ok, decoded = _parse_json(value)
        if not ok:
            return value
        found = _extract(decoded, depth + 1)
        return value if found is _UNKNOWN else found
    if isinstance(value, list):
        return _list_text(value, depth)
    if isinstance(value, dict):
        return _dict_text(value, depth)
    return _UNKNOWN


def _answer(value: Any) -> str | None:
    """The text an output says to the user (a structured answer becomes compact JSON text)."""
    if value is None:
        return None
    found = _extract(value, 0)
    if found is _UNKNOWN:
        return value if isinstance(value, str) else _json_text(value)
    return found if isinstance(found, str) else None


# --------------------------------------------------------------------------- the builder

Order = tuple[int, int, int, int]


def _order(start_ns: int | None, position: int, within: int = 0) -> Order:
    """Start time first (unknown start times last), then position in the file, then the
    position inside that item (the n-th tool call of one message or span)."""
    return (0, start_ns, position, within) if start_ns is not None else (1, 0, position, within)


class _Builder:
    """Collects a view's parts in any order; `finish` sorts the calls and numbers them."""

    def __init__(self, adapter: str, options: ViewOptions) -> None:
        self.adapter = adapter
        self.parent = options.parent
        self.tools: list[tuple[Order, View]] = []
        self.llms: list[tuple[Order, View]] = []
        self.errors: list[View] = []
        self.final_answer: str | None = None
        self.verdict: str | None = None
        self.duration_ms: float | None = None

    def error(self, message: str, where: str) -> None:
        self.errors.append({"message": message, "where": where})

    def tool(
        self,
        order: Order,
        *,
        name: Any,
        arguments: Any,
        result: Any,
        failed: bool = False,
        duration_ms: float | None = None,
        call_id: Any = None,
    ) -> None:
        args, args_error = _arguments(arguments)
        call = {
            "name": name if isinstance(name, str) else None,
            "arguments": args,
            "arguments_error": args_error,
            "result": result,
            "status": "error" if failed else "ok",
            "duration_ms": duration_ms,
            "index": 0,
            "id": _id_text(call_id),
        }
        self.tools.append((order, call))

    def llm(
        self,
        order: Order,
        *,
        model: Any,
        input_tokens: Any,
        output_tokens: Any,
        total_tokens: Any = None,
        cost: Any = None,
        duration_ms: float | None = None,
    ) -> None:
        inp, out, total = _number(input_tokens), _number(output_tokens), _number(total_tokens)
        if total is None and inp is not None and out is not None:
            total = inp + out  # documented: computed only when the trace records no total
        call = {
            "model": model if isinstance(model, str) and model else None,
            "input_tokens": inp,
            "output_tokens": out,
            "total_tokens": total,
            "cost": _number(cost),
            "duration_ms": duration_ms,
        }
        self.llms.append((order, call))

    def finish(self) -> View:
        tools = [call for _, call in sorted(self.tools, key=lambda pair: pair[0])]
        for index, call in enumerate(tools):
            call["index"] = index
        return {
            "tool_calls": tools,
            "llm_calls": [call for _, call in sorted(self.llms, key=lambda pair: pair[0])],
            "final_answer": self.final_answer,
            "verdict": self.verdict,
            "duration_ms": self.duration_ms,
            "errors": self.errors,
            "adapter": self.adapter,
            "parent": self.parent,
        }


def _not_an_object(builder: _Builder, trace: Any, expected: str) -> View:
    builder.error(
        f"the {builder.adapter} adapter reads {expected}; this trace is {kind_of(trace)}", "$"
    )
    return builder.finish()


Node = tuple[str | None, str | None, str]  # id, parent id, "llm" | "barrier" | ""


def _wrappers(nodes: list[Node]) -> set[str]:
    """Ids of the nodes that contain a model call: the model-call nodes among them are
    wrappers of that call, not calls of their own.

    One model call is often recorded at several levels (an agent framework's `call_llm`
    span around the provider library's `openai.chat` span); counting each would multiply
    calls and tokens, so only the innermost is kept. The search upwards stops at a tool or
    agent node (a "barrier"): a model call made inside a tool (a sub-agent) is a call of its
    own, and so is the model call around that tool. Each node is marked once, so this is
    linear in the number of nodes, and safe on cyclic parent links."""
    parent_of = {node: parent for node, parent, _ in nodes if node is not None}
    barriers = {node for node, _, role in nodes if node is not None and role == "barrier"}
    marked: set[str] = set()
    for node, parent, role in nodes:
        if role != "llm" or node is None:
            continue
        current = parent
        while current is not None and current not in marked and current not in barriers:
            marked.add(current)
            current = parent_of.get(current)
    return marked


# --------------------------------------------------------------------------- reference

_OK_STATUSES = frozenset({"success", "succeeded", "ok", "completed"})


def _detect_reference(trace: Any) -> bool:
    return isinstance(trace, dict) and (
        "toolInvocations" in trace or "finalAnswer" in trace or "selfEvaluation" in trace
    )


def _reference_tool(builder: _Builder, item: Any, index: int) -> None:
    where = _at("$.toolInvocations", index)
    if not isinstance(item, dict):
        builder.error(f"cannot read tool invocation: it is {kind_of(item)}, not an object", where)
        return
    status = item.get("status")
    # Absent status: the trace reports no failure. Anything but a success word is a failure
    # (timeout, error, cancelled, ...): a check asking "did every call succeed" must not pass
    # on a timeout.
    failed = status is not None and str(status).strip().lower() not in _OK_STATUSES
    if failed:
        detail = item.get("error")
        message = detail if isinstance(detail, str) and detail else f"status {status}"
        builder.error(f"tool {item.get('toolName')!s}: {message}", _at(where, "status"))
    builder.tool(
        _order(None, index),
        name=item.get("toolName"),
        arguments=item.get("arguments"),
        result=_first_present(item, ("result", "output")),
        failed=failed,
        duration_ms=_json_number(item.get("durationMs")),
        call_id=item.get("id"),
    )


def _typed(builder: _Builder, trace: dict[str, Any], key: str, want: type, where: str) -> Any:
    value = trace.get(key)
    if value is None:
        return None
    if isinstance(value, want) and not isinstance(value, bool):
        return value
    builder.error(f"{key} is {kind_of(value)}, expected {kind_of(want())}", where)
    return None


def _build_reference(trace: Any, options: ViewOptions) -> View:
    builder = _Builder("reference", options)
    if not isinstance(trace, dict):
        return _not_an_object(builder, trace, "an object with toolInvocations and finalAnswer")
    invocations = trace.get("toolInvocations")
    if isinstance(invocations, list):
        for index, item in enumerate(invocations):
            _reference_tool(builder, item, index)
    elif invocations is not None:
        builder.error(f"toolInvocations is {kind_of(invocations)}, not a list", "$.toolInvocations")
    builder.final_answer = _typed(builder, trace, "finalAnswer", str, "$.finalAnswer")
    verifier = _dict(_dict(trace.get("selfEvaluation")).get("verifier_evaluation"))
    builder.verdict = _typed(
        builder, verifier, "verdict", str, "$.selfEvaluation.verifier_evaluation.verdict"
    )
    duration = trace.get("durationMs")
    builder.duration_ms = _json_number(duration)
    if duration is not None and builder.duration_ms is None:
        builder.error(f"durationMs is {show(duration)}, not a finite number", "$.durationMs")
    return builder.finish()


# --------------------------------------------------------------------------- OpenTelemetry


@dataclass
class _Span:
    """One span of any encoding, with attributes as a plain mapping."""

    path: str
    position: int
    name: str | None
    span_id: str | None
    parent_id: str | None
    start: int | None
    end: int | None
    attrs: dict[str, Any]
    error_message: str | None  # None: the span did not fail
    error_where: str


def _any_value(value: Any, depth: int = 0) -> Any:
    """An OTLP AnyValue as a plain value (intValue may be text or a number)."""
    if not isinstance(value, dict) or depth > _MAX_DEPTH:
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        number = _number(value["intValue"])
        return number if number is not None else value["intValue"]
    if "doubleValue" in value:
        number = _number(value["doubleValue"])
        return number if number is not None else value["doubleValue"]
    if "boolValue" in value:
        return value["boolValue"]
    if "arrayValue" in value:
        items = _list(_dict(value["arrayValue"]).get("values"))
        return [_any_value(item, depth + 1) for item in items]
    if "kvlistValue" in value:
        return _key_values(_dict(value["kvlistValue"]).get("values"), depth + 1)
    return value.get("bytesValue")


def _key_values(items: Any, depth: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in _list(items):
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            out[item["key"]] = _any_value(item.get("value"), depth)
    return out


def _exception_message(events: Any, plain: bool) -> str | None:
    """`type: message` of the first exception event (OTLP or plain attributes)."""
    for event in _list(events):
        if not isinstance(event, dict) or event.get("name") != "exception":
            continue
        attrs = _dict(event.get("attributes")) if plain else _key_values(event.get("attributes"))
        kind, message = attrs.get("exception.type"), attrs.get("exception.message")
        parts = [str(p) for p in (kind, message) if p]
        if parts:
            return ": ".join(parts)
    return None


def _failure(name: str | None, *messages: Any) -> str:
    text = next((m for m in messages if isinstance(m, str) and m), None)
    return text or f"span '{name}' ended with status error"


def _otlp_span(raw: dict[str, Any], path: str, position: int) -> _Span:
    name = raw.get("name") if isinstance(raw.get("name"), str) else None
    status = _dict(raw.get("status"))
    code = status.get("code")
    failed = code in (2, "2") or (isinstance(code, str) and "ERROR" in code.upper())
    message = None
    if failed:
        message = _failure(
            name, status.get("message"), _exception_message(raw.get("events"), False)
        )
    return _Span(
        path=path,
        position=position,
        name=name,
        span_id=_id_text(raw.get("spanId")),
        parent_id=_id_text(raw.get("parentSpanId")),
        start=_time_ns(raw.get("startTimeUnixNano"), 1),
        end=_time_ns(raw.get("endTimeUnixNano"), 1),
        attrs=_key_values(raw.get("attributes")),
        error_message=message,
        error_where=_at(path, "status"),
    )


def _plain_span(raw: dict[str, Any], path: str, position: int) -> _Span:
    """A span written by the OpenTelemetry Python SDK's `to_json` (any-agent)."""
    name = raw.get("name") if isinstance(raw.get("name"), str) else None
    status = _dict(raw.get("status"))
    code = status.get("status_code")
    failed = isinstance(code, str) and code.strip().lower() == "error"
    message = None
    if failed:
        message = _failure(
            name, status.get("description"), _exception_message(raw.get("events"), True)
        )
    return _Span(
        path=path,
        position=position,
        name=name,
        span_id=_id_text(_dict(raw.get("context")).get("span_id")),
        parent_id=_id_text(_dict(raw.get("parent")).get("span_id")),
        start=_time_ns(raw.get("start_time"), 1),
        end=_time_ns(raw.get("end_time"), 1),
        attrs=_dict(raw.get("attributes")),
        error_message=message,
        error_where=_at(path, "status"),
    )


def _jaeger_tags(tags: Any) -> tuple[dict[str, Any], dict[str, int]]:
    values: dict[str, Any] = {}
    positions: dict[str, int] = {}
    for index, tag in enumerate(_list(tags)):
        if not isinstance(tag, dict) or not isinstance(tag.get("key"), str):
            continue
        value = tag.get("value")
        if tag.get("type") in ("int64", "float64"):
            number = _number(value)
            value = number if number is not None else value
        values[tag["key"]] = value
        positions.setdefault(tag["key"], index)
    return values, positions


def _jaeger_log_message(logs: Any) -> str | None:
    for log in _list(logs):
        fields, _ = _jaeger_tags(_dict(log).get("fields"))
        if fields.get("event") in ("error", "exception") or "exception.message" in fields:
            message = fields.get("exception.message", fields.get("message"))
            if isinstance(message, str) and message:
                return message
    return None


def _jaeger_parent(raw: dict[str, Any]) -> str | None:
    for ref in _list(raw.get("references")):
        if isinstance(ref, dict) and ref.get("refType", "CHILD_OF") == "CHILD_OF":
            return _id_text(ref.get("spanID"))
    return _id_text(raw.get("parentSpanID"))


def _jaeger_span(raw: dict[str, Any], path: str, position: int) -> _Span:
    name = raw.get("operationName") if isinstance(raw.get("operationName"), str) else None
    attrs, positions = _jaeger_tags(raw.get("tags"))
    error_tag = attrs.get("error") in (True, "true")
    status_tag = str(attrs.get("otel.status_code", "")).upper() == "ERROR"
    message, where = None, _at(path, "tags")
    if error_tag or status_tag:
        key = "error" if error_tag else "otel.status_code"
        where = _at(_at(path, "tags"), positions[key])
        message = _failure(
            name,
            attrs.get("otel.status_description"),
            attrs.get("error.message"),
            _jaeger_log_message(raw.get("logs")),
        )
    start = _time_ns(raw.get("startTime"), 1000)  # Jaeger: microseconds
    duration = _number(raw.get("duration"))
    end = start + int(duration * 1000) if start is not None and duration is not None else None
    return _Span(
        path=path,
        position=position,
        name=name,
        span_id=_id_text(raw.get("spanID")),
        parent_id=_jaeger_parent(raw),
        start=start,
        end=end,
        attrs=attrs,
        error_message=message,
        error_where=where,
    )


def _span(raw: dict[str, Any], path: str, position: int) -> _Span:
    """Read one span in whichever encoding it is written (each span decides for itself)."""
    if "spanID" in raw or "operationName" in raw or "tags" in raw:
        return _jaeger_span(raw, path, position)
    if isinstance(raw.get("attributes"), list) or "startTimeUnixNano" in raw or "spanId" in raw:
        return _otlp_span(raw, path, position)
    return _plain_span(raw, path, position)


def _span_list(spans: Any, path: str, builder: _Builder, out: list[tuple[Any, str]]) -> None:
    if not isinstance(spans, list):
        builder.error(f"cannot read spans: {kind_of(spans)}, not a list", path)
        return
    out.extend((raw, _at(path, index)) for index, raw in enumerate(spans))


def _otlp_request(batches: Any, path: str, builder: _Builder, out: list[tuple[Any, str]]) -> None:
    """resourceSpans[].scopeSpans[].spans[] (and Tempo's batches/instrumentationLibrarySpans)."""
    if not isinstance(batches, list):
        builder.error(f"cannot read spans: {kind_of(batches)}, not a list", path)
        return
    for i, batch in enumerate(batches):
        batch = _dict(batch)
        for key in ("scopeSpans", "instrumentationLibrarySpans"):
            for j, scope in enumerate(_list(batch.get(key))):
                scope_path = _at(_at(_at(path, i), key), j)
                _span_list(_dict(scope).get("spans", []), _at(scope_path, "spans"), builder, out)


def _raw_spans(trace: Any, builder: _Builder) -> list[tuple[Any, str]]:
    out: list[tuple[Any, str]] = []
    if isinstance(trace, list):
        _span_list(trace, "$", builder, out)
        return out
    for key in ("resourceSpans", "batches"):
        if key in trace:
            _otlp_request(trace[key], _at("$", key), builder, out)
            return out
    if isinstance(trace.get("data"), list):  # Jaeger query API: {"data": [trace, ...]}
        for index, item in enumerate(trace["data"]):
            spans = _dict(item).get("spans", [])
            _span_list(spans, _at(_at("$.data", index), "spans"), builder, out)
        return out
    if "spans" in trace:
        _span_list(trace["spans"], "$.spans", builder, out)
        return out
    return [(trace, "$")]  # a bare span (OpenInference test files)


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
    if _one_of(operation, _LLM_OPERATIONS) or inference == "LLM":
        return "llm"
    if operation is None and inference is None:
        # Spans that name no operation but are model calls: OpenLLMetry's openai.chat
        # (llm.request.type) and Google ADK's call_llm (token usage only).
        if attrs.get("llm.request.type") in ("chat", "completion"):
            return "llm"
        if any(key in attrs for key in (*_INPUT_TOKENS, *_OUTPUT_TOKENS)):
            return "llm"
    return ""


def _span_tool(builder: _Builder, span: _Span) -> None:
    attrs = span.attrs
    name = _first_text(attrs, ("gen_ai.tool.name", "tool.name"))
    if name is None and span.name:
        name = span.name.removeprefix("execute_tool ").strip() or None
    builder.tool(
        _order(span.start, span.position),
        name=name,
        arguments=_first_present(
            attrs,
            (
                "gen_ai.tool.call.arguments",
                "gen_ai.tool.args",  # any-agent
                "gcp.vertex.agent.tool_call_args",  # Google ADK
                "input.value",  # OpenInference TOOL spans
            ),
        ),
        result=_first_present(
            attrs,
            (
                "gen_ai.tool.call.result",
                "gen_ai.output",  # any-agent
                "gcp.vertex.agent.tool_response",  # Google ADK
                "output.value",  # OpenInference TOOL spans
            ),
        ),
        failed=span.error_message is not None,
        duration_ms=_duration_ms(span.start, span.end),
        call_id=_first_present(attrs, ("gen_ai.tool.call.id", "tool_call.id")),
    )


def _span_cost(attrs: dict[str, Any]) -> int | float | None:
    cost = _first_number(attrs, ("gen_ai.usage.cost", "llm.cost.total"))
    if cost is not None:
        return cost
    parts = [_number(attrs.get(k)) for k in ("gen_ai.usage.input_cost", "gen_ai.usage.output_cost")]
    known = [p for p in parts if p is not None]
    return sum(known) if known else None  # any-agent records input and output cost apart


def _invocation_model(attrs: dict[str, Any]) -> str | None:
    """The requested model from OpenInference's invocation parameters (failed calls)."""
    params = attrs.get("llm.invocation_parameters")
    if not isinstance(params, str) or "model" not in params:
        return None
    ok, parsed = _parse_json(params)
    model = _dict(parsed).get("model") if ok else None
    return model if isinstance(model, str) else None


def _span_llm(builder: _Builder, span: _Span) -> None:
    attrs = span.attrs
    model = _first_text(attrs, ("gen_ai.response.model", "llm.model_name", "gen_ai.request.model"))
    builder.llm(
        _order(span.start, span.position),
        model=model or _invocation_model(attrs),
        input_tokens=_first_number(attrs, _INPUT_TOKENS),
        output_tokens=_first_number(attrs, _OUTPUT_TOKENS),
        total_tokens=_first_number(attrs, _TOTAL_TOKENS),
        cost=_span_cost(attrs),
        duration_ms=_duration_ms(span.start, span.end),
    )


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
        return _answer(messages)
    output = attrs.get("gen_ai.output")  # any-agent: text, or JSON (a list = tool requests)
    if output is not None:
        return output if attrs.get("gen_ai.output.type") == "text" else _answer(output)
    return None


def _agent_answer(agents: list[_Span]) -> str | None:
    """The output of the agent span that ended last (the outermost run), if it has one."""
    with_output = [s for s in agents if _span_output_text(s.attrs) is not None]
    if not with_output:
        return None
    last = max(with_output, key=lambda s: (s.end is not None, s.end or 0, s.position))
    return _span_output_text(last.attrs)


def _run_duration(spans: list[_Span], agents: list[_Span]) -> float | None:
    """The longest agent span; without one, first start to last end of all spans."""
    durations = [d for d in (_duration_ms(s.start, s.end) for s in agents) if d is not None]
    if durations:
        return max(durations)
    starts = [s.start for s in spans if s.start is not None]
    ends = [s.end for s in spans if s.end is not None]
    return _duration_ms(min(starts), max(ends)) if starts and ends else None


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


def _detect_otel(trace: Any) -> bool:
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


def _read_spans(trace: Any, builder: _Builder) -> list[_Span]:
    spans: list[_Span] = []
    for position, (raw, path) in enumerate(_raw_spans(trace, builder)):
        if isinstance(raw, dict):
            spans.append(_span(raw, path, position))
        else:
            builder.error(f"cannot read span: it is {kind_of(raw)}, not an object", path)
    spans.sort(key=lambda s: _order(s.start, s.position))
    return spans


def _add_requested(builder: _Builder, llms: list[_Span]) -> None:
    """Without tool spans, the tool calls the model asked for are the trace's tool calls."""
    for span in llms:
        for number, call in enumerate(_requested_calls(span.attrs)):
            builder.tool(
                _order(span.start, span.position, number),
                name=call.get("name"),
                arguments=call.get("arguments"),
                result=None,
                call_id=call.get("id"),
            )


def _role(kind: str) -> str:
    return "barrier" if kind in ("tool", "agent") else kind


def _classify(spans: list[_Span]) -> tuple[list[_Span], list[_Span], list[_Span]]:
    """(model calls without the wrappers around them, tool spans, agent spans)."""
    kinds = [_span_kind(s.attrs) for s in spans]
    pairs = list(zip(spans, kinds, strict=True))
    wrappers = _wrappers([(s.span_id, s.parent_id, _role(k)) for s, k in pairs])
    llms = [s for s, k in pairs if k == "llm" and s.span_id not in wrappers]
    return llms, [s for s, k in pairs if k == "tool"], [s for s, k in pairs if k == "agent"]


def _otel_answer(trace: Any, llms: list[_Span], agents: list[_Span]) -> str | None:
    """The run's own answer field, else the outermost agent's output, else the last model text."""
    final = _dict(trace).get("final_output")  # any-agent writes the run's answer beside the spans
    if final is not None:
        return _answer(final)
    answer = _agent_answer(agents)
    if answer is not None:
        return answer
    texts = (_span_output_text(s.attrs) for s in reversed(llms))
    return next((t for t in texts if t is not None), None)


def _build_otel(trace: Any, options: ViewOptions) -> View:
    builder = _Builder("otel-genai", options)
    if not isinstance(trace, (list, dict)):
        expected = "spans (a list, an OTLP request, Jaeger JSON or a span)"
        return _not_an_object(builder, trace, expected)
    spans = _read_spans(trace, builder)
    llms, tools, agents = _classify(spans)
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


# --------------------------------------------------------------------------- Langfuse


def _detect_langfuse(trace: Any) -> bool:
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
        ok, metadata = _parse_json(metadata)
        metadata = metadata if ok else None
    return _dict(_dict(metadata).get("attributes"))


def _observation_tool(builder: _Builder, obs: dict[str, Any], order: Order, failed: bool) -> None:
    attrs = _metadata_attributes(obs)
    name = _first_text(attrs, ("gen_ai.tool.name", "tool.name", "ai.toolCall.name"))
    if name is None and isinstance(obs.get("name"), str):
        name = obs["name"].removeprefix("execute_tool ").removeprefix("running tool: ").strip()
    builder.tool(
        order,
        name=name or None,
        arguments=obs.get("input"),
        result=obs.get("output"),
        failed=failed,
        duration_ms=_duration_ms(
            _time_ns(obs.get("startTime"), 1), _time_ns(obs.get("endTime"), 1)
        ),
        call_id=_first_present(attrs, ("gen_ai.tool.call.id", "ai.toolCall.id", "tool_call.id")),
    )


def _observation_llm(builder: _Builder, obs: dict[str, Any], order: Order) -> None:
    usage = _dict(obs.get("usageDetails"))
    costs = _dict(obs.get("costDetails"))
    cost = _number(costs.get("total"))
    if cost is None:
        cost = _number(obs.get("totalCost"))
    builder.llm(
        order,
        model=obs.get("model"),
        input_tokens=_first_number(usage, ("input", "prompt_tokens", "input_tokens")),
        output_tokens=_first_number(usage, ("output", "completion_tokens", "output_tokens")),
        total_tokens=_first_number(usage, ("total", "total_tokens")),
        cost=cost,
        duration_ms=_duration_ms(
            _time_ns(obs.get("startTime"), 1), _time_ns(obs.get("endTime"), 1)
        ),
    )


def _observations(trace: dict[str, Any], builder: _Builder) -> tuple[list[Any], str]:
    if "observations" in trace:
        found, path = trace["observations"], "$.observations"
    else:
        found, path = _dict(trace.get("trace")).get("observations"), "$.trace.observations"
    if not isinstance(found, list):
        builder.error(f"cannot read observations: {kind_of(found)}, not a list", path)
        return [], path
    return found, path


def _langfuse_duration(
    items: list[tuple[Order, dict[str, Any]]], head: dict[str, Any]
) -> float | None:
    starts = [s for s in (_time_ns(o.get("startTime"), 1) for _, o in items) if s is not None]
    ends = [e for e in (_time_ns(o.get("endTime"), 1) for _, o in items) if e is not None]
    if starts and ends:
        return _duration_ms(min(starts), max(ends))
    latency = _number(head.get("latency"))  # seconds on the trace object
    return latency * 1000 if latency is not None else None


def _sorted_observations(
    found: list[Any], path: str, builder: _Builder
) -> list[tuple[Order, dict[str, Any]]]:
    items: list[tuple[Order, dict[str, Any]]] = []
    for index, obs in enumerate(found):
        if isinstance(obs, dict):
            items.append((_order(_time_ns(obs.get("startTime"), 1), index), obs))
        else:
            message = f"cannot read observation: it is {kind_of(obs)}, not an object"
            builder.error(message, _at(path, index))
    items.sort(key=lambda pair: pair[0])
    return items


def _observation_failed(builder: _Builder, obs: dict[str, Any], where: str) -> bool:
    if obs.get("level") != "ERROR":
        return False  # WARNING, DEFAULT, DEBUG: not failures
    message = obs.get("statusMessage")
    if not isinstance(message, str) or not message:
        message = f"observation '{obs.get('name')}' has level ERROR"
    builder.error(message, _at(where, "level"))
    return True


_LANGFUSE_ROLES = {"GENERATION": "llm", "TOOL": "barrier", "AGENT": "barrier"}


def _build_langfuse(trace: Any, options: ViewOptions) -> View:
    builder = _Builder("langfuse", options)
    if not isinstance(trace, dict):
        return _not_an_object(builder, trace, "a Langfuse export {trace, observations}")
    head = _dict(trace.get("trace"))
    found, path = _observations(trace, builder)
    items = _sorted_observations(found, path, builder)
    wrappers = _wrappers(
        [
            (
                _id_text(o.get("id")),
                _id_text(o.get("parentObservationId")),
                _LANGFUSE_ROLES.get(str(o.get("type")), ""),
            )
            for _, o in items
        ]
    )
    generations: list[dict[str, Any]] = []
    for order, obs in items:
        failed = _observation_failed(builder, obs, _at(path, order[2]))
        if obs.get("type") == "TOOL":
            _observation_tool(builder, obs, order, failed)
        elif obs.get("type") == "GENERATION" and _id_text(obs.get("id")) not in wrappers:
            _observation_llm(builder, obs, order)
            generations.append(obs)
    builder.final_answer = _answer(head.get("output"))
    if builder.final_answer is None:
        texts = (_answer(g.get("output")) for g in reversed(generations))
        builder.final_answer = next((t for t in texts if t is not None), None)
    builder.duration_ms = _langfuse_duration(items, head)
    return builder.finish()


# --------------------------------------------------------------------------- LangSmith


@dataclass
class _Run:
    data: dict[str, Any]
    where: str  # where the run's error field is
    position: int


def _detect_langsmith(trace: Any) -> bool:
    if not isinstance(trace, dict):
        return False
    if isinstance(trace.get("post"), list) or isinstance(trace.get("patch"), list):
        return True
    return "run_type" in trace and ("inputs" in trace or "outputs" in trace)


def _ingest_runs(trace: dict[str, Any], builder: _Builder) -> list[_Run]:
    """Batch-ingest bodies: each patch completes the post of the same id (or dotted order)."""
    runs: list[_Run] = []
    by_key: dict[str, _Run] = {}
    for side in ("post", "patch"):
        items = trace.get(side, [])
        if not isinstance(items, list):
            builder.error(f"cannot read {side}: {kind_of(items)}, not a list", _at("$", side))
            continue
        for index, item in enumerate(items):
            where = _at(_at("$", side), index)
            if not isinstance(item, dict):
                builder.error(f"cannot read run: it is {kind_of(item)}, not an object", where)
                continue
            keys = [k for k in (_id_text(item.get("id")), _id_text(item.get("dotted_order"))) if k]
            run = next((by_key[k] for k in keys if k in by_key), None)
            if run is None:
                run = _Run({}, _at(where, "error"), len(runs))
                runs.append(run)
            run.data.update(item)  # the patch's fields (end_time, outputs, error) win
            if "error" in item:
                run.where = _at(where, "error")
            for key in keys:
                by_key.setdefault(key, run)
    return runs


def _tree_runs(root: dict[str, Any]) -> list[_Run]:
    """A run with nested child_runs, flattened in depth-first order (no recursion)."""
    runs: list[_Run] = []
    stack: list[tuple[Any, str, str | None]] = [(root, "$", None)]
    while stack:
        run, path, parent = stack.pop()
        if not isinstance(run, dict):
            continue
        data = dict(run)
        if parent is not None and data.get("parent_run_id") is None:
            data["parent_run_id"] = parent
        runs.append(_Run(data, _at(path, "error"), len(runs)))
        children = _list(run.get("child_runs"))
        for index in range(len(children) - 1, -1, -1):
            stack.append(
                (
                    children[index],
                    _at(_at(path, "child_runs"), index),
                    _id_text(run.get("id")) or path,
                )
            )
    return runs


def _run_times(run: _Run) -> tuple[int | None, int | None]:
    # Python SDK: ISO text; JS SDK: epoch milliseconds.
    return _time_ns(run.data.get("start_time"), 1_000_000), _time_ns(
        run.data.get("end_time"), 1_000_000
    )


def _run_model(data: dict[str, Any]) -> Any:
    outputs, inputs = _dict(data.get("outputs")), _dict(data.get("inputs"))
    metadata = _dict(_dict(data.get("extra")).get("metadata"))
    return (
        _first_text(outputs, ("model",))
        or _first_text(metadata, ("ls_model_name",))
        or inputs.get("model")
    )


def _run_llm(builder: _Builder, run: _Run, order: Order) -> None:
    data = run.data
    outputs = _dict(data.get("outputs"))
    usage = _dict(outputs.get("usage_metadata")) or _dict(outputs.get("usage"))
    start, end = _run_times(run)
    builder.llm(
        order,
        model=_run_model(data),
        input_tokens=_first_number(usage, ("input_tokens", "prompt_tokens"))
        if usage
        else data.get("prompt_tokens"),
        output_tokens=_first_number(usage, ("output_tokens", "completion_tokens"))
        if usage
        else data.get("completion_tokens"),
        total_tokens=_first_number(usage, ("total_tokens",)) if usage else data.get("total_tokens"),
        cost=data.get("total_cost"),
        duration_ms=_duration_ms(start, end),
    )


def _openai_call(call: dict[str, Any]) -> tuple[Any, Any, Any]:
    """(name, arguments, id) of a tool call in the OpenAI, tau2-bench or Inspect AI shape."""
    function = call.get("function")
    if isinstance(function, dict):  # OpenAI: {id, type, function: {name, arguments}}
        return function.get("name"), function.get("arguments"), call.get("id")
    if isinstance(function, str):  # Inspect AI: {id, function: <name>, arguments}
        return function, call.get("arguments"), call.get("id")
    return call.get("name"), call.get("arguments"), call.get("id")  # tau2-bench


def _tool_messages(runs: list[_Run]) -> dict[str, Any]:
    """Results of requested tool calls: role "tool" messages in later model calls' inputs."""
    results: dict[str, Any] = {}
    for run in runs:
        for message in _list(_dict(run.data.get("inputs")).get("messages")):
            if isinstance(message, dict) and message.get("role") == "tool":
                key = _id_text(message.get("tool_call_id"))
                if key is not None:
                    results.setdefault(key, message.get("content"))
    return results


def _run_requested(
    builder: _Builder, llm_runs: list[tuple[Order, _Run]], all_runs: list[_Run]
) -> None:
    results = _tool_messages(all_runs)
    for order, run in llm_runs:
        choices = _list(_dict(run.data.get("outputs")).get("choices"))
        message = _dict(choices[0]).get("message") if choices else None
        for number, call in enumerate(_list(_dict(message).get("tool_calls"))):
            if not isinstance(call, dict):
                continue
            name, arguments, call_id = _openai_call(call)
            builder.tool(
                (*order[:3], number),
                name=name,
                arguments=arguments,
                result=results.get(_id_text(call_id) or ""),
                call_id=call_id,
            )


def _run_error(builder: _Builder, run: _Run) -> bool:
    error = run.data.get("error")
    if error in (None, "", False):
        return False
    builder.error(error if isinstance(error, str) else _json_text(error), run.where)
    return True


def _langsmith_answer(
    ordered: list[tuple[Order, _Run]], llm_runs: list[tuple[Order, _Run]]
) -> str | None:
    root = next((run for _, run in ordered if run.data.get("parent_run_id") is None), None)
    if root is not None:
        answer = _answer(root.data.get("outputs"))
        if answer is not None:
            return answer
    texts = (_answer(run.data.get("outputs")) for _, run in reversed(llm_runs))
    return next((t for t in texts if t is not None), None)


_LANGSMITH_ROLES = {"llm": "llm", "tool": "barrier"}


def _langsmith_calls(
    builder: _Builder, ordered: list[tuple[Order, _Run]]
) -> list[tuple[Order, _Run]]:
    """Add the tool runs and the model runs (innermost only); return the model runs."""
    wrappers = _wrappers(
        [
            (
                _id_text(r.data.get("id")),
                _id_text(r.data.get("parent_run_id")),
                _LANGSMITH_ROLES.get(str(r.data.get("run_type")), ""),
            )
            for _, r in ordered
        ]
    )
    llm_runs: list[tuple[Order, _Run]] = []
    has_tool_runs = False
    for order, run in ordered:
        failed = _run_error(builder, run)
        kind = run.data.get("run_type")
        if kind == "tool":
            has_tool_runs = True
            builder.tool(
                order,
                name=run.data.get("name"),
                arguments=run.data.get("inputs"),
                result=run.data.get("outputs"),
                failed=failed,
                duration_ms=_duration_ms(*_run_times(run)),
            )
        elif kind == "llm" and _id_text(run.data.get("id")) not in wrappers:
            _run_llm(builder, run, order)
            llm_runs.append((order, run))
    if not has_tool_runs:  # then the calls the model asked for are the trace's tool calls
        _run_requested(builder, llm_runs, [r for _, r in ordered])
    return llm_runs


def _build_langsmith(trace: Any, options: ViewOptions) -> View:
    builder = _Builder("langsmith", options)
    if not isinstance(trace, dict):
        return _not_an_object(builder, trace, "run-ingest bodies {post, patch} or a run")
    is_ingest = "post" in trace or "patch" in trace
    runs = _ingest_runs(trace, builder) if is_ingest else _tree_runs(trace)
    ordered = sorted(((_order(_run_times(r)[0], r.position), r) for r in runs), key=lambda p: p[0])
    llm_runs = _langsmith_calls(builder, ordered)
    builder.final_answer = _langsmith_answer(ordered, llm_runs)
    root = next((run for _, run in ordered if run.data.get("parent_run_id") is None), None)
    if root is not None:
        builder.duration_ms = _duration_ms(*_run_times(root))
    return builder.finish()


# --------------------------------------------------------------------------- chat messages


def _is_message_list(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and isinstance(value[0], dict)
        and "role" in value[0]
    )


def _detect_messages(trace: Any) -> bool:
    if isinstance(trace, list):
        return _is_message_list(trace)
    return isinstance(trace, dict) and any(_is_message_list(v) for v in trace.values())


@lru_cache(maxsize=64)
def _compiled_path(text: str) -> Any:
    from jsonpath_ng.ext import parse  # heavy import: only when a messages path is given

    return parse(text)


def _jsonpath_of(node: Any) -> str | None:
    """A jsonpath-ng full path (Child/Fields/Index/Root) as JSONPath text, or None."""
    from jsonpath_ng import Child, Fields, Index, Root, This

    if isinstance(node, (Root, This)):
        return "$"
    if isinstance(node, Child):
        left = _jsonpath_of(node.left)
        right = _jsonpath_of(node.right)
        return None if left is None or right is None else left + right[1:]
    if isinstance(node, Fields) and len(node.fields) == 1:
        return _at("$", node.fields[0])
    if isinstance(node, Index) and isinstance(getattr(node, "index", None), int):
        return _at("$", node.index)
    return None


def _messages_by_path(trace: Any, text: str, builder: _Builder) -> list[tuple[Any, str]]:
    try:
        matches = _compiled_path(text).find(trace)
    except Exception as exc:  # jsonpath-ng raises plain Exception for syntax errors
        builder.error(f"the messages path {text!r} is not a usable JSONPath: {exc}", "$")
        return []
    if not matches:
        builder.error(f"the messages path {text!r} matches nothing in this trace", "$")
        return []
    first = matches[0]
    if isinstance(first.value, list):
        base = _jsonpath_of(first.full_path) or text
        return [(m, _at(base, j)) for j, m in enumerate(first.value)]
    return [(m.value, _jsonpath_of(m.full_path) or text) for m in matches]


def _find_messages(trace: Any, options: ViewOptions, builder: _Builder) -> list[tuple[Any, str]]:
    if options.messages is not None:
        return _messages_by_path(trace, options.messages, builder)
    if isinstance(trace, list):
        return [(m, _at("$", j)) for j, m in enumerate(trace)]
    if isinstance(trace, dict):
        for key, value in trace.items():
            if _is_message_list(value):
                return [(m, _at(_at("$", key), j)) for j, m in enumerate(value)]
    builder.error(
        f"no message list found: the trace is {kind_of(trace)} with no list of messages (objects with a role)",
        "$",
    )
    return []


def _tool_failure(message: dict[str, Any]) -> str | None:
    """Why a tool message reports failure (tau2 `error: true`, Inspect AI `error: {message}`)."""
    error = message.get("error")
    if error is True:
        content = message.get("content")
        return content if isinstance(content, str) and content else "the tool reported an error"
    if isinstance(error, dict):
        text = error.get("message")
        return text if isinstance(text, str) and text else _json_text(error)
    if isinstance(error, str) and error:
        return error
    return None


def _results_by_id(messages: list[tuple[Any, str]]) -> dict[str, tuple[dict[str, Any], str]]:
    results: dict[str, tuple[dict[str, Any], str]] = {}
    for message, where in messages:
        if isinstance(message, dict) and message.get("role") == "tool":
            key = _id_text(message.get("tool_call_id")) or _id_text(message.get("id"))
            if key is not None:
                results.setdefault(key, (message, where))
    return results


def _message_tools(
    builder: _Builder,
    message: dict[str, Any],
    where: str,
    position: int,
    results: dict[str, tuple[dict[str, Any], str]],
) -> None:
    calls = message.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        builder.error(
            f"cannot read tool_calls: {kind_of(calls)}, not a list", _at(where, "tool_calls")
        )
        return
    for number, call in enumerate(calls or []):
        if not isinstance(call, dict):
            builder.error(
                f"cannot read tool call: it is {kind_of(call)}, not an object",
                _at(_at(where, "tool_calls"), number),
            )
            continue
        name, arguments, call_id = _openai_call(call)
        answer, answer_where = results.get(_id_text(call_id) or "", (None, ""))
        failure = _tool_failure(answer) if answer is not None else None
        if failure is not None:
            builder.error(failure, _at(answer_where, "error"))
        builder.tool(
            _order(None, position, number),
            name=name,
            arguments=arguments,
            result=answer.get("content") if answer is not None else None,
            failed=failure is not None,
            call_id=call_id,
        )


def _build_messages(trace: Any, options: ViewOptions) -> View:
    builder = _Builder("openai-messages", options)
    messages = _find_messages(trace, options, builder)
    results = _results_by_id(messages)
    for position, (message, where) in enumerate(messages):
        if not isinstance(message, dict):
            builder.error(f"cannot read message: it is {kind_of(message)}, not an object", where)
            continue
        if not _one_of(message.get("role"), _ASSISTANT_ROLES):
            continue  # user-side tool calls (tau2 telecom) and the user simulator's usage are left out
        _message_tools(builder, message, where, position, results)
        usage = message.get("usage")
        if isinstance(usage, dict):
            builder.llm(
                _order(None, position),
                model=message.get("model"),
                input_tokens=_first_number(usage, ("prompt_tokens", "input_tokens")),
                output_tokens=_first_number(usage, ("completion_tokens", "output_tokens")),
                total_tokens=usage.get("total_tokens"),
                cost=message.get("cost"),
            )
        text = _message_text(message, 0)
        if isinstance(text, str) and text.strip():
            builder.final_answer = text
    if isinstance(trace, dict):
        builder.duration_ms = _duration_ms(
            _time_ns(trace.get("start_time"), 10**9), _time_ns(trace.get("end_time"), 10**9)
        )
    return builder.finish()


# --------------------------------------------------------------------------- registry

ADAPTERS: dict[str, Adapter] = {
    adapter.name: adapter
    for adapter in (
        Adapter(
            "reference",
            "This project's diagnosis trace format (fixtures/*.json): toolInvocations, "
            "finalAnswer, selfEvaluation.verifier_evaluation.verdict, durationMs. The format "
            "records no model calls, so llm_calls is always empty.",
            _detect_reference,
            _build_reference,
        ),
        Adapter(
            "langfuse",
            "A Langfuse trace export {trace, observations}: TOOL observations are tool calls, "
            "GENERATION observations model calls (usageDetails, costDetails), level ERROR an "
            "error; the final answer is trace.output, else the last generation's output.",
            _detect_langfuse,
            _build_langfuse,
        ),
        Adapter(
            "langsmith",
            "LangSmith run-ingest bodies {post, patch} (or one run with child_runs): llm runs "
            "are model calls (usage_metadata), tool runs tool calls (else the tool calls the "
            "model asked for in outputs.choices[0].message), run errors errors; the final "
            "answer is the root run's output.",
            _detect_langsmith,
            _build_langsmith,
        ),
        Adapter(
            "otel-genai",
            "OpenTelemetry GenAI spans in any encoding: a list of spans or {spans} (the Python "
            "SDK's JSON, any-agent), an OTLP request (resourceSpans, also one per JSON Lines "
            "line), Tempo's batches, Jaeger JSON (data[].spans with tags) or one bare OTLP span "
            "(OpenInference). execute_tool spans are tool calls, chat/generate spans model "
            "calls (innermost only), error-status spans errors.",
            _detect_otel,
            _build_otel,
        ),
        Adapter(
            "openai-messages",
            "A chat message list (the trace itself, the field ViewOptions.messages names, or "
            "the first top-level list of objects with a role, such as a tau2-bench simulation's "
            "messages): assistant tool_calls in the OpenAI, tau2-bench or Inspect AI shape, "
            "answered by tool messages of the same call id; assistant usage as model calls; the "
            "last assistant text as the final answer.",
            _detect_messages,
            _build_messages,
        ),
    )
}

# Detection tries the adapters in this order (ADAPTERS' order): the specific formats first,
# the generic message list last, since many formats carry a list of messages somewhere.
DETECTION_ORDER: tuple[str, ...] = tuple(ADAPTERS)


def detect(trace: Any) -> str | None:
    """The first adapter (in DETECTION_ORDER) that recognizes the trace, or None."""
    for name in DETECTION_ORDER:
        if ADAPTERS[name].detect(trace):
            return name
    return None


def _empty(adapter: str, options: ViewOptions, message: str) -> View:
    builder = _Builder(adapter, options)
    builder.error(message, "$")
    return builder.finish()


def make_view(
    trace: Any, adapter: str | None = None, options: ViewOptions | None = None
) -> tuple[View, str]:
    """The view of `trace` and the name of the adapter that built it.

    `adapter=None` detects it; when no adapter recognizes the trace the view is empty, its
    adapter is "none" and an error says so. Never raises for a JSON value; raises ValueError
    for an adapter name that is not in ADAPTERS (a configuration mistake, not a trace's)."""
    options = options if options is not None else ViewOptions()
    name = adapter if adapter is not None else detect(trace)
    if name is None:
        message = f"no view adapter recognizes this trace ({kind_of(trace)}); name one of: {', '.join(ADAPTERS)}"
        return _empty("none", options, message), "none"
    chosen = ADAPTERS.get(name)
    if chosen is None:
        hint = did_you_mean(name, ADAPTERS)
        raise ValueError(f"unknown view adapter {name!r}{hint}; known: {', '.join(ADAPTERS)}")
    try:
        return chosen.build(trace, options), name
    except Exception as exc:  # a hostile shape no reader foresaw: an empty view, never a crash
        message = f"the {name} adapter could not read this trace: {type(exc).__name__}: {exc}"
        return _empty(name, options, message), name


__all__ = [
    "ADAPTERS",
    "DETECTION_ORDER",
    "VIEW_FIELDS",
    "VIEW_SCHEMA",
    "Adapter",
    "ViewOptions",
    "detect",
    "make_view",
    "view_field_problem",
]
