"""JSON Schema validation of YAML files, with every error placed on the exact key or value.

The shipped schemas are the single description of the case and spec formats: editors use them
for completion, and every message a user sees about a file's shape comes from jsonschema here.
jsonschema is imported only when a file actually needs validating with messages.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

from ..problems import ERROR, Problem, did_you_mean, kind_of, show
from .yamlfile import PathKey, YamlDocument

SCHEMA_NAMES = ("case", "spec", "trace", "report")


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The shipped JSON Schema called `name` (case, spec, trace or report)."""
    text = (
        resources.files("validator").joinpath("schemas", f"{name}.schema.json").read_text("utf-8")
    )
    return json.loads(text)


@cache
def _validator(name: str) -> Any:
    import jsonschema

    base = jsonschema.Draft202012Validator
    # YAML tells 2 from 2.0; JSON Schema's "integer" would accept 2.0. A case author who wrote
    # `min_keyword_coverage: 2.0` meant a share, not a count, so "integer" means a real int here.
    checker = base.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)
    )
    cls = jsonschema.validators.extend(base, type_checker=checker)
    return cls(load_schema(name))


def schema_problems(doc: YamlDocument, schema: str) -> list[Problem]:
    """Every way `doc` breaks the named schema, as positioned, actionable problems."""
    validator = _validator(schema)
    problems: set[Problem] = set()
    for err in validator.iter_errors(doc.data):
        problems.update(_to_problems(doc, err, validator.schema))
    return sorted(problems)


def describe_path(path: PathKey) -> str:
    """`root_cause_keywords[2]` style, as a person reads it."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the file"


_TYPE_WORDS = {
    "string": "text",
    "array": "a list",
    "object": "a mapping of 'key: value' entries",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
}


def _subschema(root: dict[str, Any], schema_path: list[Any]) -> dict[str, Any]:
    node: Any = root
    for part in schema_path:
        node = node[part]
        while isinstance(node, dict) and "$ref" in node:
            node = _resolve(root, node["$ref"])
    return node if isinstance(node, dict) else {}


def _resolve(root: dict[str, Any], ref: str) -> Any:
    node: Any = root
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


def _field_help(root: dict[str, Any], err: Any) -> str:
    """The description of the property an error is about: it says what a correct value is."""
    parent = list(err.schema_path)[:-1]
    schema = _subschema(root, parent) if parent else root
    desc = schema.get("description") or err.schema.get("description") or ""
    return desc


def _to_problems(doc: YamlDocument, err: Any, root: dict[str, Any]) -> list[Problem]:
    if err.validator == "additionalProperties":
        return _unknown_keys(doc, err)
    return [_to_problem(doc, err, root)]


def _unknown_keys(doc: YamlDocument, err: Any) -> list[Problem]:
    """One problem per unknown key, each at that key, with the closest allowed name."""
    path: PathKey = tuple(err.absolute_path)
    known = err.schema.get("properties", {})
    allowed = sorted(known)
    problems = []
    for key in (k for k in err.instance if k not in known):
        at = doc.key_at((*path, key))
        hint = did_you_mean(key, allowed)
        tail = hint or f"; allowed keys: {', '.join(allowed)}"
        where = f"{describe_path(path)}: " if path else ""
        problems.append(
            Problem(
                doc.file,
                at.line,
                at.column,
                ERROR,
                "unknown-key",
                f"{where}unknown key '{key}'{tail}",
            )
        )
    return problems


def _to_problem(doc: YamlDocument, err: Any, root: dict[str, Any]) -> Problem:
    path: PathKey = tuple(err.absolute_path)
    where = describe_path(path)
    kind = err.validator
    code = "schema"
    at = doc.value_at(path)
    if kind == "required":
        missing = re.findall(r"'([^']+)' is a required property", err.message)
        name = missing[0] if missing else err.message
        desc = _subschema(root, [*list(err.schema_path)[:-1], "properties", name]).get(
            "description", ""
        )
        msg = f"missing required key '{name}'" + (f": {desc}" if desc else "")
        if path:
            msg = f"{where}: {msg}"
        return Problem(doc.file, at.line, at.column, ERROR, "missing-key", msg)
    if kind == "type":
        expected = err.validator_value
        words = " or ".join(
            _TYPE_WORDS.get(t, t) for t in ([expected] if isinstance(expected, str) else expected)
        )
        msg = f"{where} must be {words}, found {kind_of(err.instance)} {show(err.instance)}"
        return Problem(doc.file, at.line, at.column, ERROR, "wrong-type", msg)
    if kind == "minItems" and isinstance(err.instance, list) and not err.instance:
        msg = f"{where} is empty: list at least one entry"
        return Problem(doc.file, at.line, at.column, ERROR, "empty-list", msg)
    if kind == "minLength":
        msg = f"{where} is empty text: write a value or remove the key"
        return Problem(doc.file, at.line, at.column, ERROR, "empty-value", msg)
    if kind == "pattern" and path and path[-1] == "id":
        msg = (
            f"id {show(err.instance)} may use only lower-case letters, digits, '.', '_' and '-',"
            f" starting with a letter or digit"
        )
        slug = _slug(err.instance)
        if slug:
            msg += f": e.g. '{slug}'"
        return Problem(doc.file, at.line, at.column, ERROR, "bad-id", msg)
    if kind == "enum":
        options = [str(o) for o in err.validator_value]
        hint = did_you_mean(str(err.instance), options)
        msg = f"{where} is {show(err.instance)}{hint}; allowed: {', '.join(options)}"
        return Problem(doc.file, at.line, at.column, ERROR, "bad-value", msg)
    if kind in ("anyOf", "oneOf"):
        help_text = _field_help(root, err)
        msg = f"{where} cannot be {kind_of(err.instance)} {show(err.instance)}"
        if help_text:
            msg += f": {help_text}"
        return Problem(doc.file, at.line, at.column, ERROR, "wrong-type", msg)
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        help_text = _field_help(root, err)
        msg = f"{where} is out of range ({err.message})" + (f": {help_text}" if help_text else "")
        return Problem(doc.file, at.line, at.column, ERROR, "out-of-range", msg)
    return Problem(doc.file, at.line, at.column, ERROR, code, f"{where}: {err.message}")


def _slug(value: Any) -> str:
    if not isinstance(value, str):
        return ""
    slug = re.sub(r"[^a-z0-9._-]+", "-", value.strip().lower()).strip("-._")
    return slug
