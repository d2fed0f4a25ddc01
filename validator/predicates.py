"""The predicate registry: what a check spec can say must hold of the values its query selects.

Every predicate is one small function with the same signature::

    def predicate(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome

- `values` are the JSON values the clause's queries matched, in order (an empty list when the
  path does not exist). JSON `null` counts as "no value" wherever a predicate asks whether
  something is there; `0`, `""`, `false`, `[]` and `{}` are values like any other.
- `args` are the predicate's declared parameters, already resolved (literal, bound to a case
  field, or read from the trace) and checked against the declared types.
- `ctx` gives normalized text, computed once per trace and shared by every check.

A predicate never raises and never knows which file or query it serves: the interpreter adds
the JSONPath to every message. Adding a predicate means one function, its declared parameters,
its docstring (shown in `README.md`), and its tests in `tests/test_predicates.py`.

A predicate's docstring is user documentation: it states what zero, one and several matches mean.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .problems import kind_of
from .problems import show as _show_any


def show(value: Any, limit: int = 60) -> str:
    """`problems.show`, without json.dumps for the common case: text that needs no escape.

    JSON (ensure_ascii off) escapes only quotes, backslashes and control characters, and
    `isprintable()` is false for every control character, so such text renders as itself
    in quotes, exactly as `problems.show` renders it. Messages are built for every check of
    every trace, so this is on the hot path.
    """
    if type(value) is str and '"' not in value and "\\" not in value and value.isprintable():
        text = f'"{value}"'
        return text if len(text) <= limit else text[: limit - 3] + "..."
    return _show_any(value, limit)


# --------------------------------------------------------------------------------------------
# Outcomes and context


@dataclass(slots=True)
class Outcome:
    """What a predicate found: pass or fail, a message for people, and structured details."""

    passed: bool
    message: str = ""
    details: dict[str, Any] | None = None


# Short plain texts (keywords, markers) normalized once per process and shared by every
# trace: a case's keywords are the same for each of its traces. Bounded, so a stream of
# distinct values cannot grow it without limit.
_SHORT = 200
_SHARED_MAX = 50_000
_shared_plain: dict[str, str] = {}


class TraceContext:
    """Per-trace state shared by all checks: the document and its normalized texts."""

    def __init__(self, trace: Any) -> None:
        self.trace = trace
        self._texts: dict[tuple[str, bool], str] = {}
        # Markdown values matched without rendering (over the budget), and the note saying so.
        self.text_notes: dict[str, str] = {}

    def text(self, value: str, markdown: bool) -> str:
        """`value` normalized for matching (Markdown rendered first when asked), cached."""
        if not markdown and len(value) <= _SHORT:
            cached = _shared_plain.get(value)
            if cached is None:
                from .text import normalize_plain

                if len(_shared_plain) >= _SHARED_MAX:
                    _shared_plain.clear()
                cached = _shared_plain[value] = normalize_plain(value)
            return cached
        key = (value, markdown)
        cached = self._texts.get(key)
        if cached is None:
            from . import text

            if markdown:
                cached, note = text.normalize_markdown_ex(value)
                if note is not None:
                    self.text_notes[value] = note
            else:
                cached = text.normalize_plain(value)
            self._texts[key] = cached
        return cached


# --------------------------------------------------------------------------------------------
# Parameter types, validated once and generically (predicates never check their own options)


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


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


PARAM_TYPES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "text": ("text", lambda v: isinstance(v, str)),
    "bool": ("true or false", lambda v: isinstance(v, bool)),
    "count": ("a whole number (0 or more)", lambda v: type(v) is int and v >= 0),
    "optional-count": (
        "a whole number (0 or more) or null",
        lambda v: v is None or (type(v) is int and v >= 0),
    ),
    "positive-count": ("a whole number of at least 1", lambda v: type(v) is int and v >= 1),
    "count-or-share": (
        "a whole number (a count) or a decimal between 0 and 1 (a share)",
        _is_count_or_share,
    ),
    "scalar": ("text, a number, true/false or null", _is_scalar),
    "scalar-list": (
        "a list of text, numbers or true/false",
        lambda v: isinstance(v, list) and all(_is_scalar(x) for x in v),
    ),
    "text-list": ("a list of text", _is_text_list),
    "keywords": ("a list whose entries are text or lists of synonyms", _is_keywords),
    "values": ("any JSON values (read from the trace)", lambda v: isinstance(v, list)),
}


@dataclass(frozen=True)
class Param:
    type: str
    required: bool = False
    default: Any = None
    doc: str = ""


PredicateFn = Callable[[list[Any], dict[str, Any], TraceContext], Outcome]


@dataclass(frozen=True)
class Predicate:
    name: str
    fn: PredicateFn
    params: dict[str, Param]
    doc: str


PREDICATES: dict[str, Predicate] = {}


def predicate(name: str, **params: Param) -> Callable[[PredicateFn], PredicateFn]:
    """Register a predicate under the name spec files use."""

    def register(fn: PredicateFn) -> PredicateFn:
        for p in params.values():
            assert p.type in PARAM_TYPES, f"{name}: unknown parameter type {p.type}"
        PREDICATES[name] = Predicate(name, fn, dict(params), (fn.__doc__ or "").strip())
        return fn

    return register


def param_type_error(param: Param, value: Any) -> str | None:
    """Why `value` does not fit `param`, in words, or None when it fits."""
    words, ok = PARAM_TYPES[param.type]
    if ok(value):
        return None
    return f"must be {words}, found {kind_of(value)} {show(value)}"


# --------------------------------------------------------------------------------------------
# Helpers shared by predicates


def _present(values: list[Any]) -> list[Any]:
    return [v for v in values if v is not None]


def _same(a: Any, b: Any) -> bool:
    """JSON equality: `1`, `1.0`, `true` and `"1"` are told apart by type, not just value."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _member(value: Any, options: list[Any]) -> bool:
    if type(value) is str:  # text equals only text: plain membership is exact
        return value in options
    return any(_same(value, o) for o in options)


def _texts(
    values: list[Any], args: dict[str, Any], ctx: TraceContext
) -> tuple[str, int, str | None, list[str]]:
    """The matched values (nulls left out) as one normalized text and how many there are,
    or an error message naming the first that is not text; and the notes on those matched
    without Markdown rendering."""
    markdown = bool(args.get("markdown", True))
    texts = []
    for value in values:
        if value is None:
            continue
        if not isinstance(value, str):
            return "", 0, f"expected text, found {kind_of(value)} {show(value)}", []
        texts.append(ctx.text(value, markdown))
    notes = ctx.text_notes
    noted = [notes[v] for v in values if markdown and notes and v in notes]  # rarely any
    return "\n".join(texts), len(texts), None, list(dict.fromkeys(noted))


def _noted(outcome: Outcome, notes: list[str]) -> Outcome:
    """`outcome` with the notes on unrendered texts in its message and details."""
    if notes:
        outcome.message += "".join(f" (note: {n})" for n in notes)
        outcome.details = {**(outcome.details or {}), "notes": notes}
    return outcome


def _keyword_groups(keywords: list[Any]) -> list[list[str]]:
    return [[k] if isinstance(k, str) else list(k) for k in keywords]


def _occurs(text: str, groups: list[list[str]], ctx: TraceContext) -> Callable[[str], bool]:
    """`wanted in text` for the normalized keywords of `groups`: plain `in` for a few
    keywords, else membership in the set one pass over the text finds (`text.keywords_in`)."""
    from . import text as text_mod

    if not text_mod.many_keywords(sum(map(len, groups)), len(text)):
        return text.__contains__
    wanted = [ctx.text(k, False) for group in groups for k in group]
    return text_mod.keywords_in(text, wanted).__contains__


def _label(group: list[str]) -> str:
    return group[0] if len(group) == 1 else " / ".join(group)


def required_count(minimum: int | float | None, entries: int) -> int:
    """How many of `entries` a `min`/`min_keyword_coverage` value asks for.

    A whole number is a count; a decimal in (0, 1] is a share of the entries, rounded up and
    computed exactly (0.7 of 10 is 7, not 8 as floating point would give); None means all.
    """
    if minimum is None:
        return entries
    if isinstance(minimum, float):
        return math.ceil(Fraction(repr(minimum)) * entries)
    return int(minimum)


# --------------------------------------------------------------------------------------------
# The predicates


@predicate("exists")
def exists(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the query matches at least one value that is not null.

    Zero matches, or only nulls, fail. `0`, `""`, `false` and `[]` are values: they pass.
    """
    if _present(values):
        return Outcome(True, f"found {show(_present(values)[0])}")
    if values:
        return Outcome(False, "the value is null; expected a value")
    return Outcome(False, "nothing found; expected a value")


@predicate("absent")
def absent(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the query matches nothing, or only nulls.

    Any other value fails, falsy ones included: `0`, `""`, `false` and `[]` are present.
    """
    present = _present(values)
    if present:
        return Outcome(False, f"expected nothing, found {show(present[0])}")
    return Outcome(True, "nothing found")


@predicate(
    "in",
    values=Param("scalar-list", required=True, doc="the allowed values"),
)
def in_(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the query matches at least one value and every match is one of `values`.

    Zero matches (or only nulls) fail: there is nothing to accept. Comparison is exact and by
    type: the number `1` is not the text `"1"`, and `true` is not `1`.
    """
    allowed = args["values"]
    present = _present(values)
    if not present:
        return Outcome(False, f"nothing found; expected one of {show(allowed, 200)}")
    bad = [v for v in present if not _member(v, allowed)]
    if bad:
        kind = "" if isinstance(bad[0], str) else f" ({kind_of(bad[0])})"
        return Outcome(False, f"found {show(bad[0])}{kind}; expected one of {show(allowed, 200)}")
    return Outcome(True, f"found {show(present[0])}")


@predicate(
    "not-in",
    values=Param("scalar-list", required=True, doc="the forbidden values"),
)
def not_in(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when no matched value is one of `values`.

    Zero matches pass (nothing forbidden is there); use `exists` to require a value.
    Comparison is exact and by type, as for `in`.
    """
    forbidden = args["values"]
    bad = [v for v in _present(values) if _member(v, forbidden)]
    if bad:
        return Outcome(False, f"found {show(bad[0])}, which is forbidden ({show(forbidden, 200)})")
    return Outcome(True, "no forbidden value")


@predicate("equals", value=Param("scalar", required=True, doc="the expected value"))
def equals(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the query matches at least one value and every match equals `value`.

    Zero matches fail. Comparison is exact and by type, as for `in`.
    """
    expected = args["value"]
    if not values:
        return Outcome(False, f"nothing found; expected {show(expected)}")
    bad = [v for v in values if not _same(v, expected)]
    if bad:
        return Outcome(False, f"found {show(bad[0])}; expected {show(expected)}")
    return Outcome(True, f"equals {show(expected)}")


@predicate(
    "count",
    min=Param("count", default=0, doc="fewest matches allowed"),
    max=Param("optional-count", doc="most matches allowed; no limit when unset"),
)
def count(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the number of matches is between `min` and `max` (inclusive).

    Every match counts, nulls included: `$.toolInvocations[*]` counts the tool calls. A query
    on the list itself (`$.toolInvocations`) matches once; add `[*]` to count its items.
    """
    n = len(values)
    low, high = args["min"], args["max"]
    if n < low or (high is not None and n > high):
        bound = f"at least {low}" if high is None else f"between {low} and {high}"
        return Outcome(False, f"found {n} matches; expected {bound}", {"count": n})
    return Outcome(True, f"{n} matches", {"count": n})


@predicate(
    "contains-all",
    items=Param("text-list", required=True, doc="the texts that must all be among the values"),
)
def contains_all(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when every entry of `items` is one of the matched values (exact text).

    With several queries, the values of all of them count. Zero matches pass only when
    `items` is empty. Matched values that are not text are ignored and mentioned in the
    message. The details report `required`, `found`, `missing` and `ratio` (1.0 when nothing
    is required).
    """
    required = list(dict.fromkeys(args["items"]))
    names, others = [], []
    for value in values:
        if isinstance(value, str):
            names.append(value)
        elif value is not None:
            others.append(value)
    seen = set(names)
    found = [r for r in required if r in seen]
    missing = [r for r in required if r not in seen]
    ratio = 1.0 if not required else round(len(found) / len(required), 4)
    details = {"required": required, "found": found, "missing": missing, "ratio": ratio}
    note = (
        f" ({len(others)} value(s) that are not text ignored, e.g. {show(others[0])})"
        if others
        else ""
    )
    if missing:
        seen_list = ", ".join(dict.fromkeys(names)) or "none"
        return Outcome(False, f"missing {', '.join(missing)}; found: {seen_list}{note}", details)
    return Outcome(True, f"all {len(required)} found{note}", details)


@predicate(
    "contains-min",
    keywords=Param("keywords", required=True, doc="entries: a keyword, or a list of synonyms"),
    min=Param("count-or-share", doc="a count, or a share in (0, 1]; default: all entries"),
    markdown=Param("bool", default=True, doc="render Markdown to plain text before matching"),
)
def contains_min(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when at least `min` of the `keywords` entries occur in the matched text.

    An entry that is a list of synonyms counts once when any of them occurs. Matching is by
    literal substring after normalization (Markdown rendered to text, Unicode NFKC, case folded,
    whitespace collapsed), so it works for Chinese and English alike. A keyword that is empty
    once normalized (only spaces or invisible characters) occurs nowhere. Several matches are
    searched as one text; zero matches (or only nulls) fail; a match that is not text fails
    with its type. A Markdown text too long to render (see Limits in the README) is matched
    after a simpler markup-stripping pass, and the message and details carry a note saying so.
    """
    groups = _keyword_groups(args["keywords"])
    need = required_count(args["min"], len(groups))
    text, found, problem, notes = _texts(values, args, ctx)
    if problem:
        return Outcome(False, problem)
    if not found:
        return Outcome(False, "no text found; expected an answer to search for keywords")
    matched, missing = [], []
    plain = ctx.text
    occurs = _occurs(text, groups, ctx)
    for group in groups:
        for keyword in group:
            wanted = plain(keyword, False)
            if wanted and occurs(wanted):
                matched.append(keyword)
                break
        else:
            missing.append(_label(group))
    details = {"matched": matched, "missing": missing, "required": need, "total": len(groups)}
    if len(matched) < need:
        outcome = Outcome(
            False,
            f"found {len(matched)} of {len(groups)} keyword entries, {need} required;"
            f" missing: {', '.join(missing)}",
            details,
        )
    else:
        outcome = Outcome(True, f"found {len(matched)} of {len(groups)} ({need} required)", details)
    return _noted(outcome, notes)


@predicate(
    "contains-none",
    keywords=Param("keywords", required=True, doc="entries: a keyword, or a list of synonyms"),
    markdown=Param("bool", default=True, doc="render Markdown to plain text before matching"),
)
def contains_none(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when none of the `keywords` occurs in any matched text.

    Zero matches pass (there is no text to contain anything); a match that is not text fails
    with its type. Matching is normalized and literal, as for `contains-min`.
    """
    text, _, problem, notes = _texts(values, args, ctx)
    if problem:
        return Outcome(False, problem)
    groups = _keyword_groups(args["keywords"])
    occurs = _occurs(text, groups, ctx)
    found = [k for g in groups for k in g if (wanted := ctx.text(k, False)) and occurs(wanted)]
    if found:
        outcome = Outcome(
            False, f"found forbidden {', '.join(repr(k) for k in found)}", {"found": found}
        )
    else:
        outcome = Outcome(True, "none found", {"found": []})
    return _noted(outcome, notes)


@predicate(
    "no-shared-run",
    other=Param(
        "values", required=True, doc="the text to compare with, e.g. {trace: $.executorAnswer}"
    ),
    min_length=Param("positive-count", default=30, doc="shortest shared run that counts"),
    markdown=Param("bool", default=True, doc="render Markdown to plain text before comparing"),
)
def no_shared_run(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the matched text and `other` share no run of `min_length` characters.

    Both sides are normalized first (as for `contains-min`), so re-formatting does not hide a
    copy. Zero matches on either side pass: there is nothing to compare (guard the clause with
    `when` to skip it visibly instead). A value that is not text fails with its type. Runs in
    time linear in the length of both texts.
    """
    from .text import shared_run

    text, _, problem, notes = _texts(values, args, ctx)
    other, _, other_problem, other_notes = _texts(args["other"], args, ctx)
    if problem or other_problem:
        return Outcome(False, problem or f"the text to compare with: {other_problem}")
    if not text or not other:
        return Outcome(True, "nothing to compare")
    run = shared_run(text, other, args["min_length"])
    if run is not None:
        outcome = Outcome(
            False,
            f"shares {args['min_length']}+ characters with the compared text: {show(run, 80)}",
            {"shared": run},
        )
    else:
        outcome = Outcome(True, f"no shared run of {args['min_length']} characters")
    return _noted(outcome, list(dict.fromkeys(notes + other_notes)))
