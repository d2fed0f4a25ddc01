"""A JSON Schema a user wrote: the same rules wherever one is written.

Users write JSON Schemas in two places: a `call-matches` matcher's `json-schema`, and a spec's
`inputs:` (the schema of a case key). Both are held to the same rules, checked here once:

- self-contained: every `$ref` points inside the schema it is written in (`#/$defs/NAME`),
  and is resolved against that schema, never against the document it is embedded in;
- offline: nothing is ever retrieved (`http://`, `https://`, `file://`, another document):
  validators are built on an empty registry, so a reference the lint did not catch is
  "cannot be resolved", never a download;
- bounded in time: `pattern` runs on the linear-time engine (saferegex), and
  `patternProperties` (whose patterns jsonschema would hand to Python's backtracking engine)
  is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from .. import codes
from ..dataclass import dataclass
from ..problems import show
from .saferegex import RegexError, compile_safe

# Keywords whose values are data, not schemas: a "pattern" key inside them is no keyword.
SCHEMA_DATA = frozenset({"const", "enum", "default", "examples"})
# Keywords whose values map a name of the user's to a schema (a property named "pattern").
SCHEMA_MAPS = frozenset({"properties", "$defs", "definitions", "dependentSchemas"})
REF_KEYS = ("$ref", "$dynamicRef")


@dataclass(frozen=True)
class SchemaProblem:
    """One thing wrong in a user's schema: where below it (keys and indexes), a code, the
    words that follow "parameter 'x'" or "input 'x'", and for a pattern its column."""

    path: tuple[str | int, ...]
    code: str
    message: str
    pattern: str | None = None
    column: int = 0
    key: bool = False


def schema_problems(value: Any, code: str = codes.BAD_MATCHER) -> list[SchemaProblem]:
    """A JSON Schema that is invalid, reaches outside itself, or would run a regular
    expression on a backtracking engine; each `pattern` is checked as a `regex` is."""
    if not isinstance(value, (dict, bool)):
        return []
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(value)
    except SchemaError as exc:
        return [SchemaProblem(tuple(exc.path), code, f"is not a valid JSON Schema: {exc.message}")]
    return rule_problems(value, code)


def rule_problems(value: Any, code: str = codes.BAD_MATCHER) -> list[SchemaProblem]:
    """The rules above, on a schema known to be valid or checked elsewhere (no jsonschema
    import: lint of valid files never pays for it)."""
    return list(_keyword_problems(value, value, (), code)) if isinstance(value, dict) else []


def _keyword_problems(
    root: Any, node: Any, path: tuple[str | int, ...], code: str
) -> Iterator[SchemaProblem]:
    if isinstance(node, list):
        for i, item in enumerate(node):
            yield from _keyword_problems(root, item, (*path, i), code)
        return
    if not isinstance(node, dict):
        return
    for key, item in node.items():
        at = (*path, key)
        if key in REF_KEYS and not local_pointer(root, item):
            yield _outside(at, code, key, item)
        elif key == "patternProperties":
            yield SchemaProblem(
                at,
                code,
                "'patternProperties' is not supported (its patterns would run on Python's"
                " backtracking engine): list the properties, or use propertyNames with pattern",
                key=True,
            )
        elif key == "pattern" and isinstance(item, str):
            yield from _pattern_problems(at, item)
        elif key in SCHEMA_MAPS and isinstance(item, dict):
            for name, schema in item.items():  # names are the user's: any name is fine
                yield from _keyword_problems(root, schema, (*at, name), code)
        elif key not in SCHEMA_DATA:
            yield from _keyword_problems(root, item, at, code)


def breaks_rules(schema: Any) -> bool:
    """Whether `schema` breaks a rule above, short of being invalid (no jsonschema import):
    a schema that does is never used (its spec file has the error)."""
    return isinstance(schema, dict) and any(_keyword_problems(schema, schema, (), ""))


def _outside(at: tuple[str | int, ...], code: str, key: str, ref: Any) -> SchemaProblem:
    retrieval = isinstance(ref, str) and ref.split(":", 1)[0].lower() in _SCHEMES
    return SchemaProblem(
        at,
        code,
        f"'{key}' must point inside this schema (#/$defs/NAME), found {show(ref)}:"
        " the schema is self-contained"
        + (" (nothing is ever retrieved: the tool works offline)" if retrieval else ""),
    )


def _pattern_problems(at: tuple[str | int, ...], pattern: str) -> Iterator[SchemaProblem]:
    try:
        compile_safe(pattern)
    except RegexError as exc:
        yield SchemaProblem(
            at,
            codes.BAD_REGEX,
            f"'pattern' is not a usable regular expression (at character {exc.column}):"
            f" {exc.message}",
            pattern,
            exc.column,
        )


_SCHEMES = frozenset({"http", "https", "file", "ftp", "urn", "data"})


def local_pointer(root: Any, ref: Any) -> bool:
    """Whether `ref` is a JSON pointer into `root` that leads somewhere (`#`, `#/a/0`)."""
    if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
        return False
    node = root
    for raw in ref[2:].split("/") if ref != "#" else []:
        step = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and step in node:
            node = node[step]
        elif isinstance(node, list) and step.isdigit() and int(step) < len(node):
            node = node[int(step)]
        else:
            return False
    return True


def rebased(schema: Any, at: str) -> Any:
    """`schema` with every local `$ref` rewritten for its new place `at` (a JSON pointer such
    as `#/properties/tree`) inside a bigger schema: `#/$defs/node` written in an input's
    schema still names the input's own `$defs`. Only what needs it is copied."""
    if isinstance(schema, list):
        return [rebased(item, at) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, item in schema.items():
        if key in REF_KEYS and isinstance(item, str) and (item == "#" or item.startswith("#/")):
            out[key] = at + item[1:]
        elif key in SCHEMA_DATA:
            out[key] = item
        elif key in SCHEMA_MAPS and isinstance(item, dict):
            out[key] = {name: rebased(sub, at) for name, sub in item.items()}
        else:
            out[key] = rebased(item, at)
    return out


def ecma_anchors(pattern: str) -> str:
    """A JSON Schema `pattern` with every unescaped `$` outside a character class written as
    `\\Z`, so Python and the linear-time engine read it as ECMAScript does.

    The shipped schemas are read by editors too, whose engines are ECMAScript: there `$` (no
    multiline flag in JSON Schema) is the very end of the text, while Python's also matches
    before a final line break. Read this way, `^[a-z]+$` rejects "abc\\n" here as it does in
    an editor, so the schemas can use the one anchor both engines know (Python's `\\Z` is a
    literal Z in ECMAScript).
    """
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = char != "]" or out[-1] in ("[", "[^")  # a leading ] is literal
        elif char == "[":
            in_class = True
            if pattern.startswith("[^", i):
                out.append("[^")
                i += 2
                continue
        elif char == "$":
            char = "\\Z"
        out.append(char)
        i += 1
    return "".join(out)


def offline_validator(schema: Any, integer: Callable[[Any], bool] | None = None) -> Any:
    """A Draft 2020-12 validator for `schema` that never retrieves a document (an empty
    registry: a `$ref` outside the schema is unresolvable, never fetched) and runs `pattern`
    on the linear-time engine. `integer`: the project's reading of "integer", if given."""
    from referencing import Registry

    return _validator_class(integer)(schema, registry=Registry())


@cache
def _validator_class(integer: Callable[[Any], bool] | None) -> Any:
    from jsonschema import Draft202012Validator, validators
    from jsonschema.exceptions import ValidationError

    def pattern(validator: Any, regex: str, instance: Any, schema: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "string"):
            return
        try:
            found = compile_safe(ecma_anchors(regex)).search(instance)
        except RegexError as exc:
            yield ValidationError(f"pattern {show(regex)} cannot be run: {exc.message}")
            return
        if not found:
            yield ValidationError(f"{show(instance)} does not match {show(regex)}")

    base = Draft202012Validator
    checker = base.TYPE_CHECKER
    if integer is not None:
        checker = checker.redefine("integer", lambda _checker, value: integer(value))
    return validators.extend(base, validators={"pattern": pattern}, type_checker=checker)
