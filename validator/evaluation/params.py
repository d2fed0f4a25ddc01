"""Parameter types: the one registry of what a predicate parameter may hold.

Each type says, once: how it is described to a person, how a value is checked, and which
kinds of case value (by their JSON Schema type) may feed it through a `{case: KEY}`
binding. Predicates declare parameters by type name and never check their own options;
the spec loader, lint and the interpreter all read this table.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..problems import did_you_mean, kind_of, show
from .saferegex import RegexError, compile_safe
from .text import normalize_plain
from .userschema import offline_validator, schema_problems


@dataclass(frozen=True)
class ValueProblem:
    """One thing wrong inside a parameter value: where below the value (`path`: keys and
    indexes), its problem code, the words that follow "parameter 'x'", and for a regular
    expression the pattern and the 1-based column a caret goes under."""

    path: tuple[str | int, ...]
    code: str
    message: str
    pattern: str | None = None
    column: int = 0
    key: bool = False  # about the key at `path` (an argument path), not its value

    def caret_lines(self, indent: str = "  ") -> tuple[str, ...]:
        """The pattern and a caret under the bad character (none without a pattern); line
        breaks and tabs shown as spaces, so the caret stays aligned."""
        if self.pattern is None:
            return ()
        shown = self.pattern.translate(_ONE_COLUMN)
        return (indent + shown, indent + " " * (max(self.column, 1) - 1) + "^")


_ONE_COLUMN = str.maketrans({"\n": " ", "\r": " ", "\t": " ", "\f": " ", "\v": " "})


@dataclass(frozen=True)
class ParamType:
    name: str
    words: str  # "a whole number (0 or more)": what a message says a value must be
    check: Callable[[Any], bool]
    accepts: frozenset[str]  # JSON Schema types of a case value that can be bound to it
    # What is wrong inside a value of the right overall shape, each problem at its place
    # (a regular expression, an argument matcher); None for types a check says all of.
    problems: Callable[[Any], list[ValueProblem]] | None = None


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
    return all(type(v) is int and v >= 0 for v in value.values()) and not _quantifier_problems(
        value
    )


def _quantifier_problems(value: Any) -> list[ValueProblem]:
    if not isinstance(value, dict):
        return []
    out = [
        ValueProblem(
            (key,),
            "bad-parameter",
            f"has no key '{key}'{did_you_mean(str(key), ('min', 'max'))}:"
            " a quantifier range is {min: N, max: N}",
        )
        for key in value
        if key not in ("min", "max")
    ]
    low, high = value.get("min", 0), value.get("max")
    if type(low) is int and type(high) is int and low > high:
        out.append(
            ValueProblem(
                ("min",), "bad-parameter", f"min {low} is more than max {high}: no count fits"
            )
        )
    return out


# --------------------------------------------------------------------------------------------
# Regular expressions and argument matchers: checked (and compiled) when the spec loads


def _regex_problems(value: Any) -> list[ValueProblem]:
    """A pattern that does not compile for the linear-time engine (compiling it now also
    fills `compile_safe`'s cache, so evaluation never compiles it again)."""
    if not isinstance(value, str):
        return []
    try:
        compile_safe(value)
        return []
    except RegexError as exc:
        return [
            ValueProblem(
                (),
                "bad-regex",
                f"is not a usable regular expression (at character {exc.column}): {exc.message}",
                value,
                exc.column,
            )
        ]


def _schema_problems(value: Any) -> list[ValueProblem]:
    """A JSON Schema that breaks the rules every user schema follows (userschema.py)."""
    return [
        ValueProblem(p.path, p.code, p.message, p.pattern, p.column, p.key)
        for p in schema_problems(value)
    ]


@lru_cache(maxsize=256)
def _schema_validator(canonical: str) -> Any:
    return offline_validator(json.loads(canonical))


def schema_validator(schema: dict[str, Any] | bool) -> Any:
    """A jsonschema validator for a matcher's `json-schema`, made once per schema."""
    return _schema_validator(json.dumps(schema, sort_keys=True))


def _contains_problems(value: Any) -> list[ValueProblem]:
    if isinstance(value, str) and not normalize_plain(value):
        return [
            ValueProblem(
                (),
                "bad-matcher",
                f"{show(value)} is blank once normalized (only spaces or invisible characters),"
                " so it would occur nowhere: write the text to look for",
            )
        ]
    return []


# An argument matcher is a literal (compared typed) or a mapping of these operators, all of
# which must hold; each operator's operand is of the parameter type named here.
MATCHER_OPERATORS: dict[str, str] = {
    "in": "json-list",
    "gt": "number",
    "ge": "number",
    "lt": "number",
    "le": "number",
    "regex": "regex",
    "contains": "text",
    "json-schema": "json-schema",
    "absent": "bool",
}
_OPERAND_PROBLEMS: dict[str, Callable[[Any], list[ValueProblem]]] = {
    "contains": _contains_problems,
}
_OPERATOR_LIST = ", ".join(MATCHER_OPERATORS)


def field_steps(field: str) -> list[str]:
    """The steps of an argument path: `options.force` is ["options", "force"]."""
    return field.split(".")


def _matchers_problems(value: Any) -> list[ValueProblem]:
    if not isinstance(value, dict):  # null: not set
        return []
    out: list[ValueProblem] = []
    for field, matcher in value.items():
        where = f"at '{field}'"
        if not isinstance(field, str) or not all(field_steps(field)):
            out.append(
                ValueProblem(
                    (field,),
                    "bad-matcher",
                    f"{where}: not an argument path; write names joined by dots"
                    " (options.force), no empty step",
                    key=True,
                )
            )
        elif isinstance(matcher, dict):
            out.extend(_matcher_problems(field, where, matcher))
    return out


def _matcher_problems(field: str, where: str, matcher: dict[str, Any]) -> list[ValueProblem]:
    if not matcher:
        return [
            ValueProblem(
                (field,),
                "bad-matcher",
                f"{where}: an empty matcher; write a value to compare with, or an operator"
                f" ({_OPERATOR_LIST})",
            )
        ]
    out: list[ValueProblem] = []
    for op, operand in matcher.items():
        path = (field, op)
        if op in ("case", "trace"):
            out.append(
                ValueProblem(
                    path,
                    "bad-matcher",
                    f"{where}: a value bound to a case key or to the trace cannot sit inside"
                    " args; bind the whole parameter instead (args: {case: KEY})",
                    key=True,
                )
            )
        elif op not in MATCHER_OPERATORS:
            hint = did_you_mean(str(op), MATCHER_OPERATORS) or (
                f"; to match a nested argument, write its path: '{field}.{op}'"
            )
            out.append(
                ValueProblem(
                    path,
                    "bad-matcher",
                    f"{where}: unknown matcher operator '{op}'{hint}; operators: {_OPERATOR_LIST}",
                    key=True,
                )
            )
        else:
            out.extend(_operand_problems(where, path, op, operand))
    if "absent" in matcher and len(matcher) > 1:
        out.append(
            ValueProblem(
                (field, "absent"),
                "bad-matcher",
                f"{where}: 'absent' cannot be combined with other operators (an absent"
                " argument has no value to compare): keep one",
            )
        )
    return out


def _operand_problems(
    where: str, path: tuple[str, str], op: str, operand: Any
) -> list[ValueProblem]:
    kind = PARAM_TYPES[MATCHER_OPERATORS[op]]
    if not kind.check(operand) and not (kind.problems and kind.problems(operand)):
        return [
            ValueProblem(
                path,
                "bad-matcher",
                f"{where}: '{op}' takes {kind.words}, found {kind_of(operand)} {show(operand)}",
            )
        ]
    inner = _OPERAND_PROBLEMS.get(op, kind.problems)
    return [
        ValueProblem((*path, *p.path), p.code, f"{where}: '{op}' {p.message}", p.pattern, p.column)
        for p in (inner(operand) if inner else [])
    ]


# The keys of one entry of a `call-matches-each` list: a `call-matches` check in little.
EXPECTATION_KEYS = ("name", "args", "mode", "quantifier")
CALL_MODES = ("partial", "exact")


def _expectations_problems(value: Any) -> list[ValueProblem]:
    """Each thing wrong in a list of call expectations, at its place ([i, key, ...])."""
    if not isinstance(value, list):
        return []
    out: list[ValueProblem] = []
    for i, entry in enumerate(value):
        if not isinstance(entry, dict) or not entry:
            out.append(
                ValueProblem(
                    (i,),
                    "bad-parameter",
                    f"entry {i + 1} must be a mapping such as {{name: write_file, args:"
                    f" {{path: {{regex: '.*[.]txt'}}}}, quantifier: any}}",
                )
            )
            continue
        out.extend(_expectation_problems(i, entry))
    return out


def _expectation_problems(i: int, entry: dict[str, Any]) -> list[ValueProblem]:
    out = [
        ValueProblem(
            (i, key),
            "bad-parameter",
            f"entry {i + 1} has no key '{key}'{did_you_mean(str(key), EXPECTATION_KEYS)}:"
            f" its keys are {', '.join(EXPECTATION_KEYS)}",
            key=True,
        )
        for key in entry
        if key not in EXPECTATION_KEYS
    ]
    name, mode = entry.get("name"), entry.get("mode", "partial")
    if name is not None and not isinstance(name, str):
        out.append(ValueProblem((i, "name"), "bad-parameter", f"entry {i + 1}: name must be text"))
    if mode not in CALL_MODES:
        hint = did_you_mean(str(mode), CALL_MODES)
        out.append(
            ValueProblem(
                (i, "mode"), "bad-parameter", f"entry {i + 1}: mode is partial or exact{hint}"
            )
        )
    quantifier = entry.get("quantifier", "any")
    if not _is_quantifier(quantifier):
        inner = _quantifier_problems(quantifier)
        words = inner[0].message if inner else "must be any, all, none, or {min: N, max: N}"
        out.append(ValueProblem((i, "quantifier"), "bad-parameter", f"entry {i + 1}: {words}"))
    args = entry.get("args")
    if args is not None and not isinstance(args, dict):
        out.append(
            ValueProblem(
                (i, "args"), "bad-matcher", f"entry {i + 1}: args must map arguments to matchers"
            )
        )
    for found in _matchers_problems(args):
        out.append(
            ValueProblem(
                (i, "args", *found.path),
                found.code,
                f"entry {i + 1}: {found.message}",
                found.pattern,
                found.column,
                found.key,
            )
        )
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and _finite(value)


def _finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


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


def _checked(
    name: str,
    words: str,
    shape: Callable[[Any], bool],
    problems: Callable[[Any], list[ValueProblem]],
    *accepts: str,
) -> ParamType:
    """A type whose values of the right shape are checked further, problem by problem."""
    return ParamType(
        name, words, lambda v: shape(v) and not problems(v), frozenset(accepts), problems
    )


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
        ParamType(
            "quantifier",
            "any, all, none, or {min: N, max: N}",
            _is_quantifier,
            frozenset({"string", "object"}),
            _quantifier_problems,
        ),
        _type("number", "a number", _is_number, "integer", "number"),
        _type("json-list", "a list of values", lambda v: isinstance(v, list), "array"),
        _checked(
            "regex",
            "a regular expression (text)",
            lambda v: isinstance(v, str),
            _regex_problems,
            "string",
        ),
        _checked(
            "json-schema",
            "a JSON Schema (a mapping)",
            lambda v: isinstance(v, (dict, bool)),
            _schema_problems,
            "object",
            "boolean",
        ),
        _checked(
            "matchers",
            "a mapping of 'argument: matcher' entries, or null",
            lambda v: v is None or isinstance(v, dict),
            _matchers_problems,
            "object",
        ),
        _checked(
            "call-expectations",
            "a list of {name, args, mode, quantifier} entries",
            lambda v: isinstance(v, list),
            _expectations_problems,
            "array",
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
    found = value_problems(type_name, value)
    if found:
        return found[0].message
    return f"must be {kind.words}, found {kind_of(value)} {show(value)}"


def value_problems(type_name: str, value: Any) -> list[ValueProblem]:
    """Each thing wrong inside `value`, at its place, for types that look inside values."""
    kind = PARAM_TYPES[type_name]
    return kind.problems(value) if kind.problems is not None else []
