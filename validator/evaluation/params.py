"""Parameter types: the one registry of what a predicate parameter may hold.

Each type says, once: how it is described to a person, how a value is checked, and which
kinds of case value (by their JSON Schema type) may feed it through a `{case: KEY}`
binding. Predicates declare parameters by type name and never check their own options;
the spec loader, lint and the interpreter all read this table.

It is over 600 lines because it is one registry: every type with its checks, and the
checks that look inside values (regular expressions, argument matchers, call entries), which only it uses.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from .. import codes
from ..dataclass import dataclass
from ..problems import closest, did_you_mean, kind_of, show
from .amounts import is_amount
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
    warning: bool = False  # a value that works but does not do what it seems to (lint warns)

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
    """A type a predicate's parameter may have: how a value is checked, converted and named."""

    name: str
    words: str  # "a whole number (0 or more)": what a message says a value must be
    check: Callable[[Any], bool]
    accepts: frozenset[str]  # JSON Schema types of a case value that can be bound to it
    # What is wrong inside a value of the right overall shape, each problem at its place
    # (a regular expression, an argument matcher); None for types a check says all of.
    problems: Callable[[Any], list[ValueProblem]] | None = None
    # The value the predicate is given, for a value written another way (a share written
    # `80%` is given as 0.8); None: as written.
    convert: Callable[[Any], Any] | None = None


# A share written as a percentage, as the command line takes one (`--min-pass-rate 80%`).
PERCENT = re.compile(r"\s*(\d{1,3}(?:\.\d+)?)\s*%\s*\Z")


def percent_share(value: Any) -> float | None:
    """`"80%"` -> 0.8: a share above 0 and at most 1 written as a percentage; None for any
    other value."""
    match = PERCENT.match(value) if isinstance(value, str) else None
    if match is None:
        return None
    share = float(match.group(1)) / 100
    return share if 0 < share <= 1 else None


def as_share(value: Any) -> Any:
    """A count or share as the predicate takes it: a percentage becomes its share."""
    share = percent_share(value)
    return value if share is None else share


# The two checks every keyword check's arguments go through, per case: plain loops, about
# twice as fast as `all()` over a generator for the short lists cases write.


def _is_text_list(value: Any) -> bool:
    if not isinstance(value, list):
        return False
    for entry in value:  # noqa: SIM110 - a loop, not all(): see above
        if not isinstance(entry, str):
            return False
    return True


def _is_keywords(value: Any) -> bool:
    if not isinstance(value, list):
        return False
    for entry in value:
        if not isinstance(entry, str) and not (entry and _is_text_list(entry)):
            return False
    return True


def _is_count_or_share(value: Any) -> bool:
    if value is None or percent_share(value) is not None:
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
            codes.BAD_PARAMETER,
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
                ("min",), codes.BAD_PARAMETER, f"min {low} is more than max {high}: no count fits"
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
                codes.BAD_REGEX,
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
                codes.BAD_MATCHER,
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
    "optional": "matcher",
    "equals": "json",
}
# Operators that stand alone in a matcher: the others combine with AND.
ALONE_OPERATORS = ("absent", "optional")
_OPERAND_PROBLEMS: dict[str, Callable[[Any], list[ValueProblem]]] = {
    "contains": _contains_problems,
}
_OPERATOR_LIST = ", ".join(MATCHER_OPERATORS)


def field_steps(field: str) -> list[str]:
    """The steps of an argument path: `options.force` is ["options", "force"]."""
    return field.split(".")


def whole_arguments(value: Any) -> tuple[bool, Any]:
    """Whether `args` compares a call's arguments whole, and with what: a literal list (for
    arguments that are an array) or a mapping of only `equals`."""
    if isinstance(value, list):
        return True, value
    if isinstance(value, dict) and len(value) == 1 and "equals" in value:
        return True, value["equals"]
    return False, None


def _matchers_problems(value: Any) -> list[ValueProblem]:
    if not isinstance(value, dict) or whole_arguments(value)[0]:  # null: not set
        return []
    out: list[ValueProblem] = []
    for field, matcher in value.items():
        where = f"at '{field}'"
        if not isinstance(field, str) or not all(field_steps(field)):
            out.append(
                ValueProblem(
                    (field,),
                    codes.BAD_MATCHER,
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
                codes.BAD_MATCHER,
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
                    codes.BAD_MATCHER,
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
                    codes.BAD_MATCHER,
                    f"{where}: unknown matcher operator '{op}'{hint}; operators: {_OPERATOR_LIST}",
                    key=True,
                )
            )
        else:
            out.extend(_operand_problems(where, path, op, operand))
    for alone in ALONE_OPERATORS:
        if alone in matcher and len(matcher) > 1:
            out.append(
                ValueProblem(
                    (field, alone),
                    codes.BAD_MATCHER,
                    f"{where}: '{alone}' cannot be combined with other operators"
                    + (
                        " (an absent argument has no value to compare): keep one"
                        if alone == "absent"
                        else f": put them inside it ({alone}: {{gt: 1, lt: 9}})"
                    ),
                )
            )
    return out


def _operand_problems(
    where: str, path: tuple[str, str], op: str, operand: Any
) -> list[ValueProblem]:
    if op == "optional":  # a matcher in a matcher: checked as one
        if not isinstance(operand, dict):
            return []
        return [
            ValueProblem((*path, *p.path[1:]), p.code, p.message, p.pattern, p.column, p.key)
            for p in _matcher_problems(path[0], f"{where}: 'optional'", operand)
        ]
    kind = PARAM_TYPES[MATCHER_OPERATORS[op]]
    if not kind.check(operand) and not (kind.problems and kind.problems(operand)):
        return [
            ValueProblem(
                path,
                codes.BAD_MATCHER,
                f"{where}: '{op}' takes {kind.words}, found {kind_of(operand)} {show(operand)}",
            )
        ]
    inner = _OPERAND_PROBLEMS.get(op, kind.problems)
    return [
        ValueProblem((*path, *p.path), p.code, f"{where}: '{op}' {p.message}", p.pattern, p.column)
        for p in (inner(operand) if inner else [])
    ]


# The keys of one entry of a `call-matches-each` list: a `call-matches` check in little; a
# call step of `sequence` takes the same keys but `quantifier`.
EXPECTATION_KEYS = ("name", "args", "mode", "defaults", "ignore", "quantifier")
STEP_KEYS = EXPECTATION_KEYS[:-1]
# How a call's arguments meet `args`: superset (partial is its old name): the listed ones
# hold, others may be there; subset: every argument is listed and holds, listed ones may be
# missing; exact: both.
CALL_MODES = ("superset", "partial", "subset", "exact")
_ENTRY_EXAMPLE = "{name: write_file, args: {path: {regex: '.*[.]txt'}}, quantifier: any}"


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
                    codes.BAD_PARAMETER,
                    f"entry {i + 1} must be 'key: value' entries such as {_ENTRY_EXAMPLE}",
                )
            )
            continue
        out.extend(call_entry_problems(i, entry, EXPECTATION_KEYS))
    return out


def _is_steps(value: Any) -> bool:
    return isinstance(value, list) and all(
        (_is_scalar(x) and x is not None) or isinstance(x, dict) for x in value
    )


def _steps_problems(value: Any) -> list[ValueProblem]:
    """Each thing wrong in a call step of `sequence` ({name, args, ...}), at its place."""
    if not isinstance(value, list):
        return []
    out: list[ValueProblem] = []
    for i, step in enumerate(value):
        if isinstance(step, dict):
            if not step:
                out.append(
                    ValueProblem(
                        (i,), codes.BAD_PARAMETER, f"step {i + 1} has no 'key: value' entries"
                    )
                )
            out.extend(call_entry_problems(i, step, STEP_KEYS, "step"))
    return out


def call_entry_problems(
    i: int, entry: dict[str, Any], keys: tuple[str, ...], what: str = "entry"
) -> list[ValueProblem]:
    """What is wrong in one call entry ({name, args, mode, defaults, ignore[, quantifier]})."""
    label = f"{what} {i + 1}"
    out = [
        ValueProblem(
            (i, key),
            codes.BAD_PARAMETER,
            f"{label} has no key '{key}'{did_you_mean(str(key), keys)}:"
            f" its keys are {', '.join(keys)}",
            key=True,
        )
        for key in entry
        if key not in keys
    ]
    name, mode = entry.get("name"), entry.get("mode", "superset")
    if name is not None and not isinstance(name, str):
        out.append(ValueProblem((i, "name"), codes.BAD_PARAMETER, f"{label}: name must be text"))
    if mode not in CALL_MODES:
        out.append(ValueProblem((i, "mode"), codes.BAD_PARAMETER, f"{label}: {mode_problem(mode)}"))
    if "quantifier" in keys:
        quantifier = entry.get("quantifier", "any")
        if not _is_quantifier(quantifier):
            inner = _quantifier_problems(quantifier)
            words = inner[0].message if inner else "must be any, all, none, or {min: N, max: N}"
            out.append(ValueProblem((i, "quantifier"), codes.BAD_PARAMETER, f"{label}: {words}"))
    args = entry.get("args")
    if args is not None and not isinstance(args, (dict, list)):
        out.append(
            ValueProblem(
                (i, "args"),
                codes.BAD_MATCHER,
                f"{label}: args must map arguments to matchers (or be a list, or {{equals: ...}})",
            )
        )
    nested = [
        *((("args", *f.path), f) for f in _matchers_problems(args)),
        *((("defaults", *f.path), f) for f in defaults_problems(entry.get("defaults"), args)),
        *((("ignore", *f.path), f) for f in _ignore_problems(entry.get("ignore"))),
    ]
    for path, found in nested:
        out.append(
            ValueProblem(
                (i, *path),
                found.code,
                f"{label}: {found.message}",
                found.pattern,
                found.column,
                found.key,
                found.warning,
            )
        )
    return out


def mode_problem(mode: Any) -> str:
    """The words for a `mode` that is none of CALL_MODES, with the line to write instead."""
    close = did_you_mean(str(mode), CALL_MODES)
    fix = closest(str(mode), CALL_MODES) or "superset"
    return (
        f"mode must be one of {', '.join(CALL_MODES)}, found {show(mode)}{close}: write mode: {fix}"
    )


def defaults_problems(value: Any, args: Any = None) -> list[ValueProblem]:
    """`defaults` must map argument paths to values; a default for an argument that `args`
    fixes to another value never applies (a warning)."""
    if value is None:
        return []
    if not isinstance(value, dict):
        return [
            ValueProblem(
                (), codes.BAD_PARAMETER, "defaults must map arguments to values, e.g. {page: 1}"
            )
        ]
    out = []
    for field, default in value.items():
        if not isinstance(field, str) or not all(field_steps(field)):
            out.append(
                ValueProblem(
                    (field,),
                    codes.BAD_PARAMETER,
                    f"defaults: '{field}' is not an argument path; write names joined by dots",
                    key=True,
                )
            )
            continue
        fixed = _fixed_value(args, field)
        if fixed is not _NOTHING and not (fixed == default and _bools(fixed) == _bools(default)):
            out.append(
                ValueProblem(
                    (field,),
                    codes.DEFAULT_NEVER_APPLIES,
                    f"defaults: '{field}' is {show(default)}, but args fixes it to"
                    f" {show(fixed)}, so a call without it never matches: drop the default,"
                    f" or write {field}: {{in: [{show(fixed)}, {show(default)}]}} in args",
                    key=True,
                    warning=True,
                )
            )
    return out


_NOTHING = object()


def _bools(value: Any) -> Any:  # where true/false sit: `True == 1` must not make them equal
    if isinstance(value, (dict, list)):
        return [_bools(v) for v in (value.values() if isinstance(value, dict) else value)]
    return isinstance(value, bool)


def _fixed_value(args: Any, field: str) -> Any:
    """The one value `args` allows for `field` (a literal, or `{equals: X}`), else _NOTHING."""
    if not isinstance(args, dict) or field not in args:
        return _NOTHING
    matcher = args[field]
    if isinstance(matcher, dict):
        return matcher["equals"] if set(matcher) == {"equals"} else _NOTHING
    return matcher


def _ignore_problems(value: Any) -> list[ValueProblem]:
    if value is None or (_is_text_list(value) and all(value)):
        return []
    words = "ignore must be a list of argument names, paths or globs, e.g. [request_id, '*_id']"
    return [ValueProblem((), codes.BAD_PARAMETER, words)]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and _finite(value)


def _finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


_JSON_TYPES = ("string", "integer", "number", "boolean", "null", "array", "object")


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
        name,
        words,
        lambda v: shape(v) and not any(not p.warning for p in problems(v)),
        frozenset(accepts),
        problems,
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
        ParamType(
            codes.COUNT_OR_SHARE,
            "a whole number (a count), or a share: a decimal between 0 and 1, or a percentage"
            " such as 80%",
            _is_count_or_share,
            frozenset({"integer", "number", "string"}),
            convert=as_share,
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
        _type("mapping", "a set of 'key: value' entries", lambda v: isinstance(v, dict), "object"),
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
            "a JSON Schema ('key: value' lines)",
            lambda v: isinstance(v, (dict, bool)),
            _schema_problems,
            "object",
            "boolean",
        ),
        _checked(
            "matchers",
            "'argument: matcher' entries, a list, or null",
            lambda v: v is None or isinstance(v, (dict, list)),
            _matchers_problems,
            "object",
            "array",
        ),
        _checked(
            "steps",
            "a list of names, globs or call entries {name, args, mode, defaults, ignore}",
            _is_steps,
            _steps_problems,
            "array",
        ),
        _checked(
            "argument-defaults",
            "'argument: default value' entries, or null",
            lambda v: v is None or isinstance(v, dict),
            defaults_problems,
            "object",
            "null",
        ),
        _type(
            "argument-globs",
            "a list of argument names, paths or globs, or null",
            lambda v: v is None or (_is_text_list(v) and all(v)),
            "array",
            "null",
        ),
        _type("json", "any JSON value", lambda v: True, *_JSON_TYPES),
        _type("matcher", "a value, or 'operator: value' entries", lambda v: True, *_JSON_TYPES),
        _checked(
            "call-expectations",
            "a list of {name, args, mode, defaults, ignore, quantifier} entries",
            lambda v: isinstance(v, list),
            _expectations_problems,
            "array",
        ),
        _type(
            "amount",
            "a number, a duration with a unit such as 30s, 500ms or 5min, or an ISO-8601 timestamp",
            is_amount,
            "integer",
            "number",
            "string",
        ),
        _type(
            "optional-amount",
            "a number, a duration such as 30s, an ISO-8601 timestamp, or null",
            lambda v: v is None or is_amount(v),
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


# Types that take a list: a `{trace: PATH}` binding gives them every match; any other type
# takes one value, the binding's single match.
LIST_TYPES = frozenset(name for name, kind in PARAM_TYPES.items() if kind.check([]))
