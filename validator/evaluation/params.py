"""Parameter types: the one registry of what a predicate parameter may hold.

Each type says, once: how it is described to a person, how a value is checked, and which
kinds of case value (by their JSON Schema type) may feed it through a `{case: KEY}`
binding. Predicates declare parameters by type name and never check their own options;
the spec loader, lint and the interpreter all read this table.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..problems import kind_of, show


@dataclass(frozen=True)
class ParamType:
    name: str
    words: str  # "a whole number (0 or more)": what a message says a value must be
    check: Callable[[Any], bool]
    accepts: frozenset[str]  # JSON Schema types of a case value that can be bound to it


def _is_text_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _is_keywords(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, str) or (_is_text_list(v) and v) for v in value
    )


def _is_count_or_share(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value >= 0
    return isinstance(value, float) and math.isfinite(value) and 0 < value <= 1


def _is_quantifier(value: Any) -> bool:
    if value in ("any", "all", "none"):
        return True
    if not isinstance(value, dict) or not value or set(value) - {"min", "max"}:
        return False
    return all(type(v) is int and v >= 0 for v in value.values())


_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*\Z")
UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}


def duration_ms(value: Any) -> float | None:
    """A duration written with a unit (`30s`, `500ms`, `2m`, `1h`) in milliseconds."""
    match = _DURATION.match(value) if isinstance(value, str) else None
    return float(match.group(1)) * UNIT_MS[match.group(2)] if match else None


def _is_amount(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    return duration_ms(value) is not None


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _type(name: str, words: str, check: Callable[[Any], bool], *accepts: str) -> ParamType:
    return ParamType(name, words, check, frozenset(accepts))


PARAM_TYPES: dict[str, ParamType] = {
    t.name: t
    for t in (
        _type("text", "text", lambda v: isinstance(v, str), "string"),
        _type(
            "optional-text",
            "text or null",
            lambda v: v is None or isinstance(v, str),
            "string",
            "null",
        ),
        _type("bool", "true or false", lambda v: isinstance(v, bool), "boolean"),
        _type(
            "count", "a whole number (0 or more)", lambda v: type(v) is int and v >= 0, "integer"
        ),
        _type(
            "optional-count",
            "a whole number (0 or more) or null",
            lambda v: v is None or (type(v) is int and v >= 0),
            "integer",
            "null",
        ),
        _type(
            "positive-count",
            "a whole number of at least 1",
            lambda v: type(v) is int and v >= 1,
            "integer",
        ),
        _type(
            "count-or-share",
            "a whole number (a count) or a decimal between 0 and 1 (a share)",
            _is_count_or_share,
            "integer",
            "number",
        ),
        _type(
            "scalar",
            "text, a number, true/false or null",
            _is_scalar,
            "string",
            "integer",
            "number",
            "boolean",
            "null",
        ),
        _type(
            "scalar-list",
            "a list of text, numbers or true/false",
            lambda v: isinstance(v, list) and all(_is_scalar(x) for x in v),
            "array",
        ),
        _type("text-list", "a list of text", _is_text_list, "array"),
        _type(
            "keywords", "a list whose entries are text or lists of synonyms", _is_keywords, "array"
        ),
        _type("values", "any JSON values (read from the trace)", lambda v: isinstance(v, list)),
        _type(
            "names",
            "a list of names or globs (text, numbers or true/false)",
            lambda v: isinstance(v, list) and all(_is_scalar(x) and x is not None for x in v),
            "array",
        ),
        _type(
            "mapping", "a mapping of 'key: value' entries", lambda v: isinstance(v, dict), "object"
        ),
        _type(
            "quantifier", "any, all, none, or {min: N, max: N}", _is_quantifier, "string", "object"
        ),
        _type(
            "amount",
            "a number, or a duration with a unit such as 30s, 500ms or 2m",
            _is_amount,
            "integer",
            "number",
            "string",
        ),
        _type(
            "optional-amount",
            "a number, a duration such as 30s, or null",
            lambda v: v is None or _is_amount(v),
            "integer",
            "number",
            "string",
            "null",
        ),
    )
}


def type_error(type_name: str, value: Any) -> str | None:
    """Why `value` is not of the parameter type `type_name`, in words; None when it is."""
    kind = PARAM_TYPES[type_name]
    if kind.check(value):
        return None
    return f"must be {kind.words}, found {kind_of(value)} {show(value)}"
