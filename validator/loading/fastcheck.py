"""Hand-written pre-checks for case and spec files: True only when a file is valid under its schema.

jsonschema costs ~100 ms to import and ~0.2 ms per case file; a suite of thousands of
valid cases would pay that on every run for nothing. `case_is_valid_fast` answers "is this
document valid under validator/schemas/case.schema.json?" with plain `isinstance` checks.
When it says yes, the schema has nothing to report; when it says no (or is unsure), the
caller runs jsonschema, which still produces every message a user sees.

It must never say yes to an invalid document. It is kept in step with the schema by:

- `tests/test_fastcheck.py`, a differential test (random near-valid documents: fast answer
  == "jsonschema finds no error") plus a check that it knows exactly the schema's keys;
- `SCHEMA_FINGERPRINT`, a hash of the schema's validation rules (descriptions and titles
  excluded). If the shipped schema changes, the fast path switches itself off (every file
  goes to jsonschema, so results stay right, only slower) and the test fails, saying to
  update this module and the fingerprint together.

Types are as the project's validator sees them (`schema._validator`): "integer" is a real
int (YAML `2` but not `2.0`), booleans are neither integers nor numbers.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from functools import cache
from typing import Any

# sha256 of the case schema's rules (see `schema_fingerprint`). Update it only together with
# the checks below, after the differential test passes.
SCHEMA_FINGERPRINT = "f715762c812e4b498b24fd79451365ba2378b6f04fe04a0b8870699736f8ffd6"

REQUIRED = ("id", "question", "root_cause_keywords", "required_tools", "allowed_verdicts")

_ID = re.compile(r"[a-z0-9][a-z0-9._-]*\Z")  # the schema's "^[a-z0-9][a-z0-9._-]*\Z"


def _text(value: Any) -> bool:  # {"type": "string", "minLength": 1}
    return isinstance(value, str) and len(value) >= 1


def _texts(value: Any) -> bool:  # {"type": "array", "items": <text>}
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


def _some_texts(value: Any) -> bool:  # <texts> with "minItems": 1
    return isinstance(value, list) and len(value) >= 1 and all(_text(v) for v in value)


def _id(value: Any) -> bool:
    return isinstance(value, str) and _ID.match(value) is not None


def _keywords(value: Any) -> bool:
    # non-empty list; each entry text, or a non-empty list of texts
    return (
        isinstance(value, list)
        and len(value) >= 1
        and all(_text(v) or _some_texts(v) for v in value)
    )


def _coverage(value: Any) -> bool:
    # anyOf: {"type": "integer", "minimum": 1}
    #        {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "not": {"type": "integer"}}
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value >= 1
    if isinstance(value, float):
        # jsonschema's own comparisons, so even NaN is answered as it answers it
        return not value <= 0 and not value > 1
    return False  # any other kind of number: let jsonschema decide


def _description(value: Any) -> bool:
    return isinstance(value, str)


CHECKS: dict[str, Callable[[Any], bool]] = {
    "id": _id,
    "question": _text,
    "root_cause_keywords": _keywords,
    "min_keyword_coverage": _coverage,
    "required_tools": _texts,
    "allowed_verdicts": _some_texts,
    "forbidden_keywords": _texts,
    "forbidden_verdicts": _texts,
    "degraded_markers": _some_texts,
    "checks": _some_texts,
    "fixture": _text,
    "tags": _texts,
    "description": _description,
}


def case_is_valid_fast(data: Any) -> bool:
    """True only if `data` is valid under the shipped case schema. False means "not sure":
    run jsonschema for the messages."""
    return _in_step("case") and _object(data, CHECKS, REQUIRED)


_ANNOTATIONS = frozenset(("description", "title", "$id", "$schema", "$comment", "examples"))
_SCHEMA_MAPS = frozenset(("properties", "$defs", "patternProperties", "dependentSchemas"))


def schema_rules(node: Any) -> Any:
    """A schema without its annotations (descriptions, titles): only what validation reads."""
    if isinstance(node, list):
        return [schema_rules(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in _ANNOTATIONS:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: schema_rules(sub) for name, sub in value.items()}
        else:
            out[key] = schema_rules(value)
    return out


def schema_fingerprint(schema: dict[str, Any]) -> str:
    text = json.dumps(schema_rules(schema), sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


@cache
def _in_step(schema: str) -> bool:
    """Whether the shipped schema ("case" or "spec") has the rules this module was written for."""
    from .schema import load_schema

    expected = SCHEMA_FINGERPRINT if schema == "case" else SPEC_SCHEMA_FINGERPRINT
    return schema_fingerprint(load_schema(schema)) == expected


# --------------------------------------------------------------------------------------------
# Spec files: the same idea for validator/schemas/spec.schema.json. Every run loads the
# standard specs, so without this every run would import jsonschema.

SPEC_SCHEMA_FINGERPRINT = "d70c1eb3194b3a319d0e8d54c5d72fadc086f9b23fd687e7d8b08db98a77d98f"


def _jsonpath(value: Any) -> bool:  # {"type": "string", "minLength": 1}
    return _text(value)


def _query(value: Any) -> bool:  # a JSONPath, or a non-empty list of them
    return _jsonpath(value) or (
        isinstance(value, list) and len(value) >= 1 and all(map(_jsonpath, value))
    )


def _params(value: Any) -> bool:
    return isinstance(value, dict)


_CONDITION: dict[str, Callable[[Any], bool]] = {
    "query": _query,
    "predicate": _text,
    "params": _params,
}


def _condition(value: Any) -> bool:
    return _object(value, _CONDITION, ("query", "predicate"))


_CLAUSE: dict[str, Callable[[Any], bool]] = {
    **_CONDITION,
    "name": _text,
    "when": _condition,
    "unless": _condition,
    "skip_reason": _text,
}
_FIELDS: dict[str, Callable[[Any], bool]] = {
    name: _jsonpath
    for name in ("case_id", "verdict", "tool_calls", "tool_call_matches", "duration_ms")
}
SPEC_CHECKS: dict[str, Callable[[Any], bool]] = {
    "id": _id,
    "description": _text,
    "default": lambda v: isinstance(v, bool),
    "report_as": lambda v: isinstance(v, str) and v in ("evidence_coverage", "keyword_coverage"),
    "query": _query,
    "predicate": _text,
    "params": _params,
    "when": _condition,
    "unless": _condition,
    "skip_reason": _text,
    "clauses": lambda v: (
        isinstance(v, list)
        and len(v) >= 1
        and all(_object(c, _CLAUSE, ("query", "predicate")) for c in v)
    ),
    "fields": lambda v: _object(v, _FIELDS, ()),
    "verdicts": _some_texts,
}
SPEC_REQUIRED = ("id", "description")


def _object(
    value: Any, checks: dict[str, Callable[[Any], bool]], required: tuple[str, ...]
) -> bool:
    """A mapping with the required keys and only known keys, each value passing its check."""
    if not isinstance(value, dict) or any(key not in value for key in required):
        return False
    return all(key in checks and checks[key](item) for key, item in value.items())


def spec_is_valid_fast(data: Any) -> bool:
    """True only if `data` is valid under the shipped spec schema; False means "not sure"."""
    return _in_step("spec") and _object(data, SPEC_CHECKS, SPEC_REQUIRED)
