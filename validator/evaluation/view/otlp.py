"""OpenTelemetry spans in every encoding the view reads, as one `Span` record each.

Where the spans are: a list of spans or `{spans}` (the Python SDK's JSON, any-agent, and the
traces `traces.format: otlp-json` makes), an OTLP request (`resourceSpans`), Tempo's
`batches`, Jaeger JSON (`data[].spans`) or one bare span. How attributes are written: OTLP
key/value lists (`[{key, value: {stringValue: ...}}]`), plain mappings (the Python SDK, and
what the `otlp-json` reader turns the lists into) or Jaeger tags. Both OTLP forms give the
same values: an AnyValue and a key/value list are read by validator.otlp (`otlp_value`,
`otlp_pairs`) for both, so a span gives the same view whichever reader prepared it.
"""

from __future__ import annotations

from typing import Any

from ...dataclass import dataclass
from ...otlp import otlp_pairs
from ...problems import kind_of
from .building import (
    Builder,
    as_dict,
    as_list,
    as_number,
    id_text,
    order_key,
    path_at,
    time_ns,
)

_UNREAD_FORM = "attributes that are neither a key/value list nor a mapping"
_UNREAD_ENTRY = "key/value attribute entries without a text key"


@dataclass
class Span:
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


def _key_values(items: Any, builder: Builder | None) -> dict[str, Any]:
    out, skipped = otlp_pairs(items)
    if builder is not None:
        builder.unread("attributes", _UNREAD_ENTRY, skipped)
    return out


def attributes(value: Any, builder: Builder) -> dict[str, Any]:
    """Attributes in either OTLP form (key/value list or mapping) as a plain mapping; any
    other form is noted as unread."""
    if isinstance(value, dict):
        return value
    if isinstance(value, list):
        return _key_values(value, builder)
    if value is not None:
        builder.unread("attributes", _UNREAD_FORM)
    return {}


def _exception_message(events: Any, builder: Builder) -> str | None:
    """`type: message` of the first exception event."""
    for event in as_list(events):
        if not isinstance(event, dict) or event.get("name") != "exception":
            continue
        attrs = attributes(event.get("attributes"), builder)
        kind, message = attrs.get("exception.type"), attrs.get("exception.message")
        parts = [str(p) for p in (kind, message) if p]
        if parts:
            return ": ".join(parts)
    return None


def _failure(name: str | None, *messages: Any) -> str:
    text = next((m for m in messages if isinstance(m, str) and m), None)
    return text or f"span '{name}' ended with status error"


def _otlp_span(raw: dict[str, Any], path: str, position: int, builder: Builder) -> Span:
    name = raw.get("name") if isinstance(raw.get("name"), str) else None
    status = as_dict(raw.get("status"))
    code = status.get("code")
    failed = code in (2, "2") or (isinstance(code, str) and "ERROR" in code.upper())
    message = None
    if failed:
        message = _failure(
            name, status.get("message"), _exception_message(raw.get("events"), builder)
        )
    return Span(
        path=path,
        position=position,
        name=name,
        span_id=id_text(raw.get("spanId")),
        parent_id=id_text(raw.get("parentSpanId")),
        start=time_ns(raw.get("startTimeUnixNano"), 1),
        end=time_ns(raw.get("endTimeUnixNano"), 1),
        attrs=attributes(raw.get("attributes"), builder),
        error_message=message,
        error_where=path_at(path, "status"),
    )


def _plain_span(raw: dict[str, Any], path: str, position: int, builder: Builder) -> Span:
    """A span written by the OpenTelemetry Python SDK's `to_json` (any-agent)."""
    name = raw.get("name") if isinstance(raw.get("name"), str) else None
    status = as_dict(raw.get("status"))
    code = status.get("status_code")
    failed = isinstance(code, str) and code.strip().lower() == "error"
    message = None
    if failed:
        message = _failure(
            name, status.get("description"), _exception_message(raw.get("events"), builder)
        )
    return Span(
        path=path,
        position=position,
        name=name,
        span_id=id_text(as_dict(raw.get("context")).get("span_id")),
        parent_id=id_text(as_dict(raw.get("parent")).get("span_id")),
        start=time_ns(raw.get("start_time"), 1),
        end=time_ns(raw.get("end_time"), 1),
        attrs=attributes(raw.get("attributes"), builder),
        error_message=message,
        error_where=path_at(path, "status"),
    )


def _jaeger_tags(tags: Any) -> tuple[dict[str, Any], dict[str, int]]:
    values: dict[str, Any] = {}
    positions: dict[str, int] = {}
    for index, tag in enumerate(as_list(tags)):
        if not isinstance(tag, dict) or not isinstance(tag.get("key"), str):
            continue
        value = tag.get("value")
        if tag.get("type") in ("int64", "float64"):
            number = as_number(value)
            value = number if number is not None else value
        values[tag["key"]] = value
        positions.setdefault(tag["key"], index)
    return values, positions


def _jaeger_log_message(logs: Any) -> str | None:
    for log in as_list(logs):
        fields, _ = _jaeger_tags(as_dict(log).get("fields"))
        if fields.get("event") in ("error", "exception") or "exception.message" in fields:
            message = fields.get("exception.message", fields.get("message"))
            if isinstance(message, str) and message:
                return message
    return None


def _jaeger_parent(raw: dict[str, Any]) -> str | None:
    for ref in as_list(raw.get("references")):
        if isinstance(ref, dict) and ref.get("refType", "CHILD_OF") == "CHILD_OF":
            return id_text(ref.get("spanID"))
    return id_text(raw.get("parentSpanID"))


def _jaeger_span(raw: dict[str, Any], path: str, position: int) -> Span:
    name = raw.get("operationName") if isinstance(raw.get("operationName"), str) else None
    attrs, positions = _jaeger_tags(raw.get("tags"))
    error_tag = attrs.get("error") in (True, "true")
    status_tag = str(attrs.get("otel.status_code", "")).upper() == "ERROR"
    message, where = None, path_at(path, "tags")
    if error_tag or status_tag:
        key = "error" if error_tag else "otel.status_code"
        where = path_at(path_at(path, "tags"), positions[key])
        message = _failure(
            name,
            attrs.get("otel.status_description"),
            attrs.get("error.message"),
            _jaeger_log_message(raw.get("logs")),
        )
    start = time_ns(raw.get("startTime"), 1000)  # Jaeger: microseconds
    duration = as_number(raw.get("duration"))
    end = start + int(duration * 1000) if start is not None and duration is not None else None
    return Span(
        path=path,
        position=position,
        name=name,
        span_id=id_text(raw.get("spanID")),
        parent_id=_jaeger_parent(raw),
        start=start,
        end=end,
        attrs=attrs,
        error_message=message,
        error_where=where,
    )


def _span(raw: dict[str, Any], path: str, position: int, builder: Builder) -> Span:
    """Read one span in whichever encoding it is written (each span decides for itself)."""
    if "spanID" in raw or "operationName" in raw or "tags" in raw:
        return _jaeger_span(raw, path, position)
    if isinstance(raw.get("attributes"), list) or "startTimeUnixNano" in raw or "spanId" in raw:
        return _otlp_span(raw, path, position, builder)
    return _plain_span(raw, path, position, builder)


def _span_list(spans: Any, path: str, builder: Builder, out: list[tuple[Any, str]]) -> None:
    if not isinstance(spans, list):
        message = f"cannot read spans: {kind_of(spans)}, not a list"
        builder.cannot_read("span", "span lists that are not lists", message, path)
        return
    out.extend((raw, path_at(path, index)) for index, raw in enumerate(spans))


def _otlp_request(batches: Any, path: str, builder: Builder, out: list[tuple[Any, str]]) -> None:
    """resourceSpans[].scopeSpans[].spans[] (and Tempo's batches/instrumentationLibrarySpans)."""
    if not isinstance(batches, list):
        message = f"cannot read spans: {kind_of(batches)}, not a list"
        builder.cannot_read("span", "span lists that are not lists", message, path)
        return
    for i, batch in enumerate(batches):
        batch = as_dict(batch)
        for key in ("scopeSpans", "instrumentationLibrarySpans"):
            for j, scope in enumerate(as_list(batch.get(key))):
                scope_path = path_at(path_at(path_at(path, i), key), j)
                spans = as_dict(scope).get("spans", [])
                _span_list(spans, path_at(scope_path, "spans"), builder, out)


def _raw_spans(trace: Any, builder: Builder) -> list[tuple[Any, str]]:
    out: list[tuple[Any, str]] = []
    if isinstance(trace, list):
        _span_list(trace, "$", builder, out)
        return out
    for key in ("resourceSpans", "batches"):
        if key in trace:
            _otlp_request(trace[key], path_at("$", key), builder, out)
            return out
    if isinstance(trace.get("data"), list):  # Jaeger query API: {"data": [trace, ...]}
        for index, item in enumerate(trace["data"]):
            spans = as_dict(item).get("spans", [])
            _span_list(spans, path_at(path_at("$.data", index), "spans"), builder, out)
        return out
    if "spans" in trace:
        _span_list(trace["spans"], "$.spans", builder, out)
        return out
    return [(trace, "$")]  # a bare span (OpenInference test files)


def read_spans(trace: Any, builder: Builder) -> list[Span]:
    """Every span of a trace (a list or an object), in start-time order."""
    spans: list[Span] = []
    for position, (raw, path) in enumerate(_raw_spans(trace, builder)):
        if isinstance(raw, dict):
            spans.append(_span(raw, path, position, builder))
        else:
            message = f"cannot read span: it is {kind_of(raw)}, not an object"
            builder.cannot_read("span", "span entries that are not objects", message, path)
    spans.sort(key=lambda s: order_key(s.start, s.position))
    return spans
