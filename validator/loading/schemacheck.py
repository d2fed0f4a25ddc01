"""A fast validity pre-check compiled from a JSON Schema: True only when jsonschema finds nothing.

jsonschema costs ~100 ms to import and ~0.2 ms per file; a suite of thousands of valid
files would pay that on every run for nothing. `compile_schema` turns a schema, once, into
nested closures that answer "is this document valid?" with plain `isinstance` checks. When
the answer is yes the schema has nothing to report; when it is no, the caller runs jsonschema,
which produces every message a user sees. Being compiled from the schema itself, the check
cannot drift from it. Its oracle is jsonschema (schema.py's validator); the tests comparing
the two, on the shipped schemas and on every keyword, are in tests/unit/loading/test_schemacheck.py. It
never imports jsonschema (nor reads its internals), so no release of it breaks the import.

It must never say yes to a document jsonschema rejects, so every check answers exactly as
the project's validator (`schema._validator`) does, or gives up:

- `KEYWORDS` is the one list of keywords it understands. A (sub)schema with any other
  keyword, or with a keyword value it does not expect, is "not sure" when a document reaches
  it, and the whole answer is then False (jsonschema decides).
- Checks raise `_NotSure` rather than return False when they cannot answer exactly, because
  under `not` and `oneOf` a wrong False would turn into a wrong True.
- Types are the project's: "integer" is a real int (YAML `2`, not `2.0`), booleans are
  neither integers nor numbers; comparisons use jsonschema's operators, so NaN and infinities
  are answered as it answers them.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any
from urllib.parse import unquote

from ..evaluation.saferegex import RegexError, compile_safe
from ..evaluation.userschema import ecma_anchors

Check = Callable[[Any], bool]
Schema = dict[str, Any] | bool

DRAFT = "https://json-schema.org/draft/2020-12/schema"


class _NotSure(Exception):
    """Only jsonschema can answer exactly; raised while compiling or while checking."""


def compile_schema(schema: Schema) -> Check:
    """A function that is True only if a document is valid under `schema` (any 2020-12 schema
    dict); False means invalid or "not sure". The schema is read now; later edits to the dict
    are not seen."""
    try:
        check = _Compiler(schema).compile(schema)
    except RecursionError:  # nested deeper than Python recurses: jsonschema's problem then
        check = _not_sure

    def is_valid(instance: Any) -> bool:
        try:
            return check(instance)
        except (_NotSure, RecursionError):
            return False

    return is_valid


# --------------------------------------------------------------------------------------------
# Types, as the project's jsonschema validator defines them


def is_integer(value: Any) -> bool:
    """JSON Schema "integer" as this project means it: YAML tells 2 from 2.0, and a case author
    who wrote 2.0 meant a share, not a count. `schema._validator` uses this same function."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


TYPES: dict[str, Check] = {
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "integer": is_integer,
    "null": lambda v: v is None,
    "number": _is_number,
    "object": lambda v: isinstance(v, dict),
    "string": lambda v: isinstance(v, str),
}


def _range_applies(value: Any) -> bool:
    """Whether a numeric bound applies to `value`, as jsonschema's "number" type says."""
    if isinstance(value, (int, float)):
        return not isinstance(value, bool)
    if isinstance(value, numbers.Number):
        raise _NotSure  # Decimal, Fraction, complex: their comparisons are jsonschema's call
    return False


def _equal(one: Any, two: Any) -> bool:
    """jsonschema's `_utils.equal`: == that tells True from 1, also inside lists and mappings."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(map(_equal, one, two))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return len(one) == len(two) and all(
            key in two and _equal(value, two[key]) for key, value in one.items()
        )
    return _unbool(one) == _unbool(two)


_TRUE, _FALSE = object(), object()


def _unbool(value: Any) -> Any:
    return _TRUE if value is True else _FALSE if value is False else value


# --------------------------------------------------------------------------------------------
# Compiling


def _valid(_value: Any) -> bool:
    return True


def _invalid(_value: Any) -> bool:
    return False


def _not_sure(_value: Any) -> bool:
    raise _NotSure


def _all(checks: list[Check]) -> Check:
    """One check that holds when every check does, with no loop for the usual one to three."""
    if not checks:
        return _valid
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)
    if len(checks) == 3:
        first, second, third = checks
        return lambda v: first(v) and second(v) and third(v)

    def check(value: Any) -> bool:
        return all(c(value) for c in checks)

    return check


class _Compiler:
    """Compiles the subschemas of one root schema; `$ref`s resolve against that root."""

    def __init__(self, root: Schema) -> None:
        self.root = root
        # None while a target is being compiled: a recursive $ref then looks it up late
        self.refs: dict[str, Check | None] = {}

    def compile(self, schema: Schema) -> Check:
        if schema is True:
            return _valid
        if schema is False:
            return _invalid
        if not isinstance(schema, dict):
            return _not_sure
        checks = []
        # "type" first: a value of the wrong type fails there, before any other keyword runs
        for name, value in sorted(schema.items(), key=lambda item: item[0] != "type"):
            keyword = KEYWORDS.get(name)
            if keyword is None:
                return _not_sure
            try:
                check = keyword(self, value, schema)
            except _NotSure:
                return _not_sure
            if check is not None:
                checks.append(check)
        return _all(checks)

    def compile_ref(self, ref: str) -> Check:
        if ref not in self.refs:
            target = self.resolve(ref)
            self.refs[ref] = None
            self.refs[ref] = self.compile(target)
        done = self.refs[ref]
        if done is None:  # a $ref inside its own target: the check exists once it is called
            return lambda v: self._later(ref)(v)
        return done

    def _later(self, ref: str) -> Check:
        check = self.refs[ref]
        assert check is not None, "a recursive $ref is compiled before it is called"
        return check

    def resolve(self, ref: str) -> Any:
        """The subschema a "#/..." JSON pointer names; anything else is not ours to resolve."""
        if ref != "#" and not ref.startswith("#/"):
            raise _NotSure  # other documents, anchors: jsonschema's referencing resolves them
        node: Any = self.root
        # read as the referencing library reads it: unquoted whole, then split (so %2F splits)
        for part in unquote(ref[2:]).split("/") if ref != "#" else ():
            try:
                if isinstance(node, list):
                    node = node[int(part)]
                else:
                    node = node[part.replace("~1", "/").replace("~0", "~")]
            except (LookupError, TypeError, ValueError):
                raise _NotSure from None
            if isinstance(node, dict) and "$id" in node:
                raise _NotSure  # a nested resource: refs inside it resolve against its own $id
        return node


# --------------------------------------------------------------------------------------------
# Keywords: each returns the check for its value (None: nothing to check) or raises _NotSure.

Keyword = Callable[[_Compiler, Any, dict[str, Any]], Check | None]

_PY_TYPES = {"string": str, "array": list, "object": dict}


def _only(schema: dict[str, Any], name: str, check: Check) -> Check:
    """`check`, written for values of type `name`, applied as jsonschema applies the keyword:
    to those values only (minLength ignores a list)."""
    if schema.get("type") == name:
        # no second isinstance per value: _Compiler.compile runs "type" first and stops there
        return check
    py_type = _PY_TYPES[name]
    return lambda v: not isinstance(v, py_type) or check(v)


def _count(value: Any) -> int:
    if not is_integer(value) or value < 0:
        raise _NotSure
    return value


def _bound(value: Any) -> int | float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise _NotSure
    return value


def _annotation(_c: _Compiler, _value: Any, _schema: dict[str, Any]) -> None:
    return None  # read by people and editors, never by validation


def _root_only(c: _Compiler, _value: Any, schema: dict[str, Any]) -> None:
    # below the root, "$id" starts a new resource whose "#/..." refs mean something else
    if schema is not c.root:
        raise _NotSure


def _dollar_schema(c: _Compiler, value: Any, schema: dict[str, Any]) -> None:
    # the project validates with Draft 2020-12 only; another dialect may mean other rules
    if schema is not c.root or not isinstance(value, str) or value.rstrip("#") != DRAFT:
        raise _NotSure


def _type(_c: _Compiler, value: Any, _schema: dict[str, Any]) -> Check:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) and n in TYPES for n in names):
        raise _NotSure
    if len(names) == 1:
        return TYPES[names[0]]
    checks = [TYPES[n] for n in names]
    return lambda v: any(check(v) for check in checks)


def _enum(_c: _Compiler, value: Any, _schema: dict[str, Any]) -> Check:
    if not isinstance(value, list):
        raise _NotSure
    if all(type(option) is str for option in value):  # the usual case: a set lookup
        options = frozenset(value)
        return lambda v: isinstance(v, str) and v in options
    return lambda v: any(_equal(option, v) for option in value)


def _const(_c: _Compiler, value: Any, _schema: dict[str, Any]) -> Check:
    return lambda v: _equal(v, value)


def _min_length(_c: _Compiler, value: Any, schema: dict[str, Any]) -> Check:
    least = _count(value)
    return _only(schema, "string", lambda v: len(v) >= least)


def _max_length(_c: _Compiler, value: Any, schema: dict[str, Any]) -> Check:
    most = _count(value)
    return _only(schema, "string", lambda v: len(v) <= most)


@cache
def schema_regex(pattern: str) -> re.Pattern[str]:
    """A JSON Schema `pattern` compiled with Python's `re`, its `$` read as ECMAScript reads it
    (see `userschema.ecma_anchors`). Raises re.error for a pattern Python cannot compile."""
    return re.compile(ecma_anchors(pattern))


def _pattern(_c: _Compiler, value: Any, schema: dict[str, Any]) -> Check:
    if not isinstance(value, str):
        raise _NotSure
    try:
        # jsonschema: a search, so not anchored; on the linear-time engine, as the project's
        # validator runs it (a case key's pattern is written by a spec author)
        search = compile_safe(ecma_anchors(value)).search
    except RegexError:
        raise _NotSure from None
    return _only(schema, "string", search)


def _minimum(_c: _Compiler, value: Any, _schema: dict[str, Any]) -> Check:
    least = _bound(value)
    # `not (v < least)`, not `v >= least`: jsonschema's own comparison, so NaN passes as there
    return lambda v: not _range_applies(v) or not v < least


def _maximum(_c: _Compiler, value: Any, _schema: dict[str, Any]) -> Check:
    most = _bound(value)
    return lambda v: not _range_applies(v) or not v > most


def _exclusive_minimum(_c: _Compiler, value: Any, _schema: dict[str, Any]) -> Check:
    least = _bound(value)
    return lambda v: not _range_applies(v) or not v <= least


def _exclusive_maximum(_c: _Compiler, value: Any, _schema: dict[str, Any]) -> Check:
    most = _bound(value)
    return lambda v: not _range_applies(v) or not v >= most


def _min_items(_c: _Compiler, value: Any, schema: dict[str, Any]) -> Check:
    least = _count(value)
    return _only(schema, "array", lambda v: len(v) >= least)


def _max_items(_c: _Compiler, value: Any, schema: dict[str, Any]) -> Check:
    most = _count(value)
    return _only(schema, "array", lambda v: len(v) <= most)


def _items(c: _Compiler, value: Any, schema: dict[str, Any]) -> Check | None:
    if not isinstance(value, (dict, bool)):
        raise _NotSure  # the array form belongs to older drafts (prefixItems now)
    each = c.compile(value)
    if each is _valid:
        return None
    return _only(schema, "array", lambda v: all(map(each, v)))


def _required(_c: _Compiler, value: Any, schema: dict[str, Any]) -> Check:
    if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
        raise _NotSure
    names = frozenset(value)
    return _only(schema, "object", lambda v: v.keys() >= names)


def _property_schemas(schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties", {})
    if not isinstance(properties, dict) or not all(isinstance(k, str) for k in properties):
        raise _NotSure
    return properties


def _properties(c: _Compiler, _value: Any, schema: dict[str, Any]) -> Check | None:
    properties = _property_schemas(schema)
    if "additionalProperties" in schema:
        return None  # one walk over the mapping checks both (see _additional_properties)
    checks = {name: c.compile(sub) for name, sub in properties.items()}

    def check(v: dict[Any, Any]) -> bool:
        for key, item in v.items():
            each = checks.get(key)
            if each is not None and not each(item):
                return False
        return True

    return _only(schema, "object", check)


def _additional_properties(c: _Compiler, value: Any, schema: dict[str, Any]) -> Check:
    if not isinstance(value, (dict, bool)):
        raise _NotSure
    checks = {name: c.compile(sub) for name, sub in _property_schemas(schema).items()}
    # a key that "properties" does not list gets this schema's check ("patternProperties"
    # would change which keys those are; it is not in KEYWORDS, so never gets here)
    other = c.compile(value)

    def check(v: dict[Any, Any]) -> bool:
        # a loop, not all() over a generator: this runs for every file, and is ~20% faster
        for key, item in v.items():  # noqa: SIM110
            if not checks.get(key, other)(item):
                return False
        return True

    return _only(schema, "object", check)


def _subschemas(c: _Compiler, value: Any) -> list[Check]:
    if not isinstance(value, list):
        raise _NotSure
    return [c.compile(sub) for sub in value]


def _any_of(c: _Compiler, value: Any, _schema: dict[str, Any]) -> Check:
    branches = _subschemas(c, value)
    if len(branches) == 2:
        first, second = branches
        return lambda v: first(v) or second(v)
    return lambda v: any(branch(v) for branch in branches)


def _one_of(c: _Compiler, value: Any, _schema: dict[str, Any]) -> Check:
    branches = _subschemas(c, value)

    def check(v: Any) -> bool:
        found = 0
        for branch in branches:
            if branch(v):
                found += 1
                if found > 1:
                    return False
        return found == 1

    return check


def _not(c: _Compiler, value: Any, _schema: dict[str, Any]) -> Check:
    inner = c.compile(value)
    return lambda v: not inner(v)


def _ref(c: _Compiler, value: Any, _schema: dict[str, Any]) -> Check:
    if not isinstance(value, str):
        raise _NotSure
    return c.compile_ref(value)


def _defs(_c: _Compiler, _value: Any, _schema: dict[str, Any]) -> None:
    return None  # definitions apply only where a $ref names them


KEYWORDS: dict[str, Keyword] = {
    "$schema": _dollar_schema,
    "$id": _root_only,
    "$defs": _defs,
    "$ref": _ref,
    "$comment": _annotation,
    "title": _annotation,
    "description": _annotation,
    "examples": _annotation,
    "x-tool-names": _annotation,  # marks tool names for lint (loading/tools.py)
    "x-unit": _annotation,  # a case value may be written with a unit (units.py)
    "default": _annotation,
    "type": _type,
    "enum": _enum,
    "const": _const,
    "minLength": _min_length,
    "maxLength": _max_length,
    "pattern": _pattern,
    "minimum": _minimum,
    "maximum": _maximum,
    "exclusiveMinimum": _exclusive_minimum,
    "exclusiveMaximum": _exclusive_maximum,
    "minItems": _min_items,
    "maxItems": _max_items,
    "items": _items,
    "required": _required,
    "properties": _properties,
    "additionalProperties": _additional_properties,
    "anyOf": _any_of,
    "oneOf": _one_of,
    "not": _not,
}
