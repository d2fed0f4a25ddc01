"""JSON Schema validation of YAML files, with every error placed on the exact key or value.

The shipped schemas are the single description of the case and spec formats: editors use them
for completion, and every message a user sees about a file's shape comes from jsonschema here.
jsonschema is imported only when a file actually needs validating with messages: a check
compiled from the same schema (schemacheck.py) first says whether there is anything to report.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from .. import codes
from ..evaluation.userschema import offline_validator
from ..problems import ERROR, Problem, closest, did_you_mean, kind_of, show, typo_of
from ..units import guess_ms
from .schemacheck import compile_schema, is_integer
from .yamlfile import PathKey, YamlDocument

SCHEMA_NAMES = ("case", "spec", "trace", "report", "config")  # what `schema` prints


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The shipped JSON Schema called `name` (case, spec, trace, report or config)."""
    # Beside the package's modules, as the standard specs are (importlib.resources would cost
    # a zipfile import on every start for a package that is never run zipped).
    path = Path(__file__).resolve().parent.parent / "schemas" / f"{name}.schema.json"
    return json.loads(path.read_text("utf-8"))


def build_validator(schema: dict[str, Any]) -> Any:
    """A jsonschema validator for any schema dict, with this project's types, that never
    retrieves a document and runs `pattern` on the linear-time engine (userschema.py)."""
    # YAML tells 2 from 2.0; JSON Schema's "integer" would accept 2.0. The compiled fast check
    # must agree on every type, so both take "integer" from the same function.
    return offline_validator(schema, is_integer)


@cache
def _validator(name: str) -> Any:
    return build_validator(load_schema(name))


@cache
def _fast_check(name: str) -> Callable[[Any], bool]:
    # compiled at first use: a command that reads no spec file never compiles the spec schema
    return compile_schema(load_schema(name))


class CompiledSchema:
    """A schema made at run time (a case's, from the specs it applies), compiled once."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.fast = compile_schema(schema)
        self._validator: Any = None

    def validator(self) -> Any:
        if self._validator is None:
            self._validator = build_validator(self.schema)
        return self._validator


def is_valid_fast(name: str, data: Any) -> bool:
    """True only if `data` is valid under the named shipped schema; False means invalid or
    "not sure" (ask jsonschema)."""
    return _fast_check(name)(data)


def schema_problems(doc: YamlDocument, schema: str | CompiledSchema) -> list[Problem]:
    """Every way `doc` breaks a schema (a shipped one by name, or a schema made at run time,
    such as a case's: see caseformat.py), as positioned, actionable problems."""
    valid = is_valid_fast(schema, doc.data) if isinstance(schema, str) else schema.fast(doc.data)
    if valid:  # valid files skip importing and running jsonschema
        return []
    validator = _validator(schema) if isinstance(schema, str) else schema.validator()
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


TYPE_WORDS = {
    "string": "text",
    "array": "a list",
    "object": "a set of 'key: value' lines",
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
    parent = list(err.absolute_schema_path)[:-1]
    schema = _subschema(root, parent) if parent else root
    desc = schema.get("description") or err.schema.get("description") or ""
    return desc


def _to_problems(doc: YamlDocument, err: Any, root: dict[str, Any]) -> list[Problem]:
    if err.validator == "additionalProperties":
        return _unknown_keys(doc, err)
    if err.validator in ("anyOf", "oneOf"):
        branch = _matching_branch(err)
        if branch is not None:  # the value has the right type: say what is wrong inside it
            out: list[Problem] = []
            for sub in branch:
                out += _to_problems(doc, sub, root)
            return out
    if err.validator == "required" and _misspelled_required(err):
        return []  # the unknown-key problem already says "did you mean '<required key>'?"
    return [_to_problem(doc, err, root)]


def _misspelled(mapping: dict[str, Any], name: str, allowed: list[str]) -> str | None:
    """The unknown key of `mapping` that looks like a misspelling of `name`, if any."""
    return next((k for k in mapping if k not in allowed and closest(k, allowed) == name), None)


def _misspelled_required(err: Any) -> bool:
    missing = re.findall(r"'([^']+)' is a required property", err.message)
    known = sorted(err.schema.get("properties", {}))
    return (
        bool(missing)
        and isinstance(err.instance, dict)
        and _misspelled(err.instance, missing[0], known) is not None
    )


def _matching_branch(err: Any) -> list[Any] | None:
    """For an anyOf error: the errors of the one branch whose type the value has, if any."""
    branches: dict[int, list[Any]] = {}
    for sub in err.context or ():
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    depth = len(err.absolute_path)
    typed = [
        errors
        for errors in branches.values()
        if not any(e.validator == "type" and len(e.absolute_path) == depth for e in errors)
    ]
    return typed[0] if len(typed) == 1 else None


def _unknown_keys(doc: YamlDocument, err: Any) -> list[Problem]:
    """One problem per unknown key, each at that key, with the closest allowed name."""
    path: PathKey = tuple(err.absolute_path)
    known = err.schema.get("properties", {})
    allowed = sorted(known)
    problems = []
    for key in (k for k in err.instance if k not in known):
        at = doc.key_at((*path, key))
        close = closest(key, allowed)
        if close is not None and close in err.instance:
            first = doc.key_at((*path, close))
            tail = (
                f": did you mean '{close}'? It is already written at line {first.line};"
                " keep one of the two"
            )
        else:
            tail = _unknown_tail(key, allowed, path, known)
        near = typo_of(key, allowed)
        fix = ""
        if near is not None and near not in err.instance:
            line = doc.source.split("\n")[at.line - 1] if doc.source else ""
            fix = line.replace(key, near, 1).strip() if key in line else ""
        where = f"{describe_path(path)}: " if path else ""
        problems.append(
            Problem(
                doc.file,
                at.line,
                at.column,
                ERROR,
                codes.UNKNOWN_KEY,
                f"{where}unknown key '{key}'{tail}",
                fix=fix,
            )
        )
    return problems


def _unknown_tail(key: str, allowed: list[str], path: PathKey, known: Any) -> str:
    """After "unknown key 'X'": the key it is a slip of, or the pack that declares it (a
    case's top level), or the keys allowed; never a look-alike key of another meaning."""
    near = typo_of(key, allowed)
    if near is not None:
        return f" (did you mean '{near}'?)"
    if not path and "question" in known:  # a case's keys
        from .packinputs import pack_of

        pack = pack_of(key)
        if pack is not None:
            return (
                f": `{key}` belongs to the {pack} pack, which this suite does not load:"
                f" add it to validator.yaml's `packs:` list (packs: [..., {pack}]),"
                f" or remove the key"
            )
        return (
            "; no check spec of this suite declares it (a spec declares the case keys it"
            f" reads under its `inputs:`); allowed keys: {', '.join(allowed)}"
        )
    return f"; allowed keys: {', '.join(allowed)}"


def _type_words(expected: Any) -> str:
    types = [expected] if isinstance(expected, str) else list(expected)
    if "number" in types and "integer" in types:
        types.remove("integer")
    return " or ".join(TYPE_WORDS.get(t, t) for t in types)


def _ms_hint(path: PathKey, types: list[str], value: Any) -> str:
    """`max_wait_ms: 20s` where only a number is taken: the number to write."""
    if not (("number" in types or "integer" in types) and path and isinstance(path[-1], str)):
        return ""
    ms = guess_ms(path[-1], value)
    if ms is None:
        return ""
    return f": write {ms} ({value} in milliseconds; this key takes a plain number)"


def _type_hint(path: PathKey, expected: str | list[str], value: Any) -> str:
    """How to write a value of the expected type, from the value the author wrote."""
    types = [expected] if isinstance(expected, str) else list(expected)
    if value is None:
        if path and isinstance(path[-1], int):
            return ": write a value after the '-', or remove the empty entry"
        return ": write a value after the colon, or remove the key"
    ms = _ms_hint(path, types, value)
    if ms:
        return ms
    if "string" in types and isinstance(value, (bool, int, float)):
        text = str(value).lower() if isinstance(value, bool) else str(value)
        return f": put it in quotes, e.g. '{text}'"
    synonyms = _synonyms_hint(types, path, value)
    if synonyms:
        return synonyms
    if "array" in types and isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return f": write a list, e.g. [{value}]"
    return ""


def _synonyms_hint(types: list[str], path: PathKey, value: Any) -> str:
    """A list of synonyms where each entry is one text (`forbidden_keywords`)."""
    if not (types == ["string"] and isinstance(value, list) and path):
        return ""
    if not isinstance(path[-1], int):
        return ""
    first = value[0] if value and isinstance(value[0], str) else "slow query"
    return (
        ": each entry of this list is one piece of text, not a list of synonyms;"
        f" write them as entries of their own, e.g. - {first}"
    )


Message = tuple[str, ...]  # (problem code, message[, the fix to paste])


def _found(value: Any) -> str:
    return "nothing (null)" if value is None else f"{kind_of(value)} {show(value)}"


def _required(err: Any, root: dict[str, Any], path: PathKey, where: str) -> Message:
    missing = re.findall(r"'([^']+)' is a required property", err.message)
    name = missing[0] if missing else err.message
    property_path = [*list(err.absolute_schema_path)[:-1], "properties", name]
    desc = _subschema(root, property_path).get("description", "")
    msg = f"missing required key '{name}': add '{name}: ...'"
    if desc:
        msg += f" ({desc.rstrip('.')})"
    return codes.MISSING_KEY, f"{where}: {msg}" if path else msg


def _type(err: Any, root: dict[str, Any], path: PathKey, where: str) -> Message:
    expected = err.validator_value
    field = _subschema(root, list(err.absolute_schema_path)[:-1])
    if expected == "array" and isinstance(err.instance, (int, float)) and field:
        example = _list_example(field)
        if example is not None and not isinstance(err.instance, bool):
            what = "a list of tool names" if field.get("x-tool-names") else "a list"
            return (
                codes.WRONG_TYPE,
                f"{where} must be {what}, found {_found(err.instance)}: write a list,"
                f" e.g. {where}: {example}",
                f"{where}: {example}",
            )
    msg = f"{where} must be {_type_words(expected)}, found {_found(err.instance)}"
    dashed = _dash_without_space(expected, err.instance)
    if dashed is not None:
        return codes.WRONG_TYPE, msg + dashed[0], dashed[1]
    return codes.WRONG_TYPE, msg + _type_hint(path, expected, err.instance)


def _dash_without_space(expected: Any, value: Any) -> tuple[str, str] | None:
    """`-payments-consumer` where a list is wanted: YAML read text, as no space follows the
    '-'. The words and the line to paste: each entry with its space."""
    types = [expected] if isinstance(expected, str) else list(expected)
    if not ("array" in types and isinstance(value, str) and value.startswith("-")):
        return None
    entries = [e for e in re.split(r"\s+-(?=\S)", value[1:].strip()) if e]
    if not entries:
        return None
    lines = " / ".join(f"- {e}" for e in entries)
    each = "" if len(entries) == 1 else ", one entry a line"
    return f": put a space after the '-' to make it a list entry{each}: {lines}", f"- {entries[0]}"


_EXAMPLE_LIST = re.compile(r"e\.g\. (\[[^\]]+\])")


def _list_example(field: dict[str, Any]) -> str | None:
    """The example a list field's own schema gives (its `examples`, or an `e.g. [...]` in its
    description): the kind of entries it takes, never the wrongly typed value itself."""
    for example in field.get("examples", ()):
        if isinstance(example, list) and example:
            return "[" + ", ".join(str(e) for e in example) + "]"
    found = _EXAMPLE_LIST.search(str(field.get("description", "")))
    if found:
        return found.group(1)
    if field.get("x-tool-names"):  # a spec of the suite's own that gives no example
        return "[tool_name, another_tool]"
    return None


def _key_in_entry(err: Any, path: PathKey, where: str) -> Message | None:
    """`- poll timeout: max.poll.interval.ms` in a list of text: YAML read `: ` as a key and
    a value; the fix is the same entry in quotes."""
    value = err.instance
    if not (path and isinstance(path[-1], int) and isinstance(value, dict) and len(value) == 1):
        return None
    if err.validator == "type":
        expected = err.validator_value
        if "string" not in ([expected] if isinstance(expected, str) else list(expected)):
            return None
    ((key, inner),) = value.items()
    if isinstance(inner, (dict, list)):
        return None
    text = f"{key}: {'' if inner is None else inner}".rstrip()
    quoted = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return (
        codes.WRONG_TYPE,
        f"{where}: `: ` makes this entry a key and a value, not one piece of text:"
        f" quote it: - {quoted}",
        f"- {quoted}",
    )


def _min_items(err: Any, root: dict[str, Any], path: PathKey, where: str) -> Message | None:
    if not (isinstance(err.instance, list) and not err.instance):
        return None
    msg = f"{where} is empty: list at least one entry"
    if len(path) == 1 and path[0] not in root.get("required", ()):
        msg += ", or remove the key"
    return codes.EMPTY_LIST, msg


def _min_length(err: Any, root: dict[str, Any], path: PathKey, where: str) -> Message:
    what = "entry" if path and isinstance(path[-1], int) else "key"
    return codes.EMPTY_VALUE, f"{where} is empty text: write a value or remove the {what}"


def _pattern(err: Any, root: dict[str, Any], path: PathKey, where: str) -> Message | None:
    if not (path and path[-1] == "id"):
        return None
    msg = (
        f"id {show(err.instance)} may use only lower-case letters, digits, '.', '_' and '-',"
        f" starting with a letter or digit"
    )
    slug = _slug(err.instance)
    return codes.BAD_ID, msg + (f": e.g. '{slug}'" if slug else "")


def _enum(err: Any, root: dict[str, Any], path: PathKey, where: str) -> Message:
    options = [str(o) for o in err.validator_value]
    hint = did_you_mean(str(err.instance), options)
    return codes.BAD_VALUE, f"{where} is {show(err.instance)}{hint}; allowed: {', '.join(options)}"


def _any_of(err: Any, root: dict[str, Any], path: PathKey, where: str) -> Message:
    types = [
        sub.validator_value
        for sub in err.context or ()
        if sub.validator == "type" and len(sub.absolute_path) == len(path)
    ]
    flat = [t for t in types for t in ([t] if isinstance(t, str) else t)]
    if flat:
        msg = f"{where} must be {_type_words(flat)}, found {_found(err.instance)}"
        msg += _type_hint(path, flat, err.instance)
    else:
        msg = f"{where} cannot be {_found(err.instance)}"
    help_text = _field_help(root, err)
    return codes.WRONG_TYPE, msg + (f". {help_text}" if help_text else "")


def _bound(err: Any, root: dict[str, Any], path: PathKey, where: str) -> Message:
    help_text = _field_help(root, err)
    msg = f"{where} is out of range ({err.message})" + (f": {help_text}" if help_text else "")
    return codes.OUT_OF_RANGE, msg


# jsonschema keyword -> the message for an error it raised; None: the generic message.
_MESSAGES: dict[str, Callable[[Any, dict[str, Any], PathKey, str], Message | None]] = {
    "required": _required,
    "type": _type,
    "minItems": _min_items,
    "minLength": _min_length,
    "pattern": _pattern,
    "enum": _enum,
    "anyOf": _any_of,
    "oneOf": _any_of,
    "minimum": _bound,
    "maximum": _bound,
    "exclusiveMinimum": _bound,
    "exclusiveMaximum": _bound,
}


def _to_problem(doc: YamlDocument, err: Any, root: dict[str, Any]) -> Problem:
    path: PathKey = tuple(err.absolute_path)
    where = describe_path(path)
    at = doc.place(path)
    handler = _MESSAGES.get(err.validator)
    made = _key_in_entry(err, path, where) if err.validator in ("type", "anyOf", "oneOf") else None
    if made is None and handler is not None:
        made = handler(err, root, path, where)
    code, msg, *fix = made or (codes.SCHEMA, f"{where}: {err.message}")
    msg += doc.alias_note(path)  # placed at the alias: name the anchor it repeats
    return Problem(doc.file, at.line, at.column, ERROR, code, msg, fix=fix[0] if fix else "")


def _slug(value: Any) -> str:
    if not isinstance(value, str):
        return ""
    slug = re.sub(r"[^a-z0-9._-]+", "-", value.strip().lower()).strip("-._")
    return slug
