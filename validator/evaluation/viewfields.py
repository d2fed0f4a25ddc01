"""The view's fields, read from validator/schemas/view.schema.json (the one place a view field
is declared): `VIEW_SCHEMA`, the dotted names a spec may query (`VIEW_FIELDS`), and the
did-you-mean for a query path below `$.view` that names no field.

Beside the view package, not in it: checking a spec's `$.view` paths (the standard trace
fields have some) needs these names only, and importing the package imports every adapter,
which a run whose traces no check reads the view of never uses."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..problems import did_you_mean

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schemas" / "view.schema.json"


def _load_schema() -> dict[str, Any]:
    with SCHEMA_PATH.open(encoding="utf-8") as handle:
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
