"""OpenTelemetry's AnyValue and key/value lists as plain values: the one reading of them.

The `otlp-json` trace reader (validator.traces) and the view's span reader
(validator.evaluation.view.otlp) both use it, so a span gives the same values whichever of
them prepared it.
"""

from __future__ import annotations

from typing import Any

OTLP_MAX_DEPTH = 32  # AnyValues nested deeper than this are read as None (no unbounded recursion)


def otlp_pairs(items: Any, depth: int = 0) -> tuple[dict[str, Any], int]:
    """An OTLP key/value list as a plain mapping, and how many entries had no text key (left
    out). The one reading of OTLP attributes: this reader and the view's use it alike."""
    out: dict[str, Any] = {}
    skipped = 0
    for pair in items if isinstance(items, list) else ():
        if isinstance(pair, dict) and isinstance(pair.get("key"), str):
            out[pair["key"]] = otlp_value(pair.get("value"), depth)
        else:
            skipped += 1
    return out, skipped


def otlp_value(value: Any, depth: int = 0) -> Any:
    """An OTLP AnyValue as the plain value it holds (intValue is text in OTLP/JSON); values
    nested deeper than OTLP_MAX_DEPTH are None."""
    if depth > OTLP_MAX_DEPTH:
        return None
    if not isinstance(value, dict):
        return value
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return _int(value["intValue"])
    if "arrayValue" in value:
        return [otlp_value(v, depth + 1) for v in _values(value["arrayValue"])]
    if "kvlistValue" in value:
        return otlp_pairs(_values(value["kvlistValue"]), depth + 1)[0]
    for kind in ("boolValue", "doubleValue", "bytesValue"):
        if kind in value:
            return value[kind]
    return None  # an empty AnyValue: no value


def _values(node: Any) -> list[Any]:
    """`values` of an arrayValue or kvlistValue, as a list (OTLP omits empty lists)."""
    values = node.get("values") if isinstance(node, dict) else None
    return values if isinstance(values, list) else []


def _int(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return int(raw)
        except ValueError:
            return raw
    return raw
