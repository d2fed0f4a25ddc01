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
the JSONPath after every message. A message says what is wrong in plain words ("the value is
"REVISE", which is not one of the allowed values PASS"); a failure the predicate judged also
carries `facts`, the values a spec's `message:` template may show (`gives=` names them, see
`evaluation.messages`). Adding a predicate means one function, its declared parameters,
its docstring (shown in `README.md`), and its tests in `tests/test_predicates.py`.

A predicate's docstring is user documentation: it states what zero, one and several matches mean.
"""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from fractions import Fraction
from typing import Any

from ..model import Finder
from ..problems import did_you_mean, kind_of
from ..problems import show as _show_any
from .params import (
    MATCHER_OPERATORS,
    PARAM_TYPES,
    UNIT_MS,
    duration_ms,
    field_steps,
    schema_validator,
    type_error,
)
from .query import FirstOf, Query, reads_view
from .saferegex import compile_safe
from .text import (
    keywords_in,
    many_keywords,
    normalize_markdown_ex,
    normalize_plain,
    occurs_as_word,
    shared_run,
    words_in,
)
from .view import ViewOptions, make_view


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
    # For a failure the predicate judged (not a value of the wrong type, not a parameter
    # error): the values a `message:` template may show, by placeholder name. None: the
    # failure is of another kind, and the predicate's own message is the one shown.
    facts: dict[str, Any] | None = None


# Short plain texts (keywords, markers) normalized once per process and shared by every
# trace: a case's keywords are the same for each of its traces. Bounded, so a stream of
# distinct values cannot grow it without limit.
_SHORT = 200
_SHARED_MAX = 50_000
_shared_plain: dict[str, str] = {}


class TraceContext:
    """Per-trace state shared by all checks: the document, its normalized texts, and the
    normalized view (`$.view`), made once and only when a query reads it."""

    def __init__(
        self, trace: Any, view: str | None = None, messages: str | None = None, parent: Any = None
    ) -> None:
        self.trace = trace
        self._texts: dict[tuple[str, bool], str] = {}
        # Markdown values matched without rendering (over the budget), and the note saying so.
        self.text_notes: dict[str, str] = {}
        self._view_settings = (view, messages)
        self.parent = parent
        self._view_document: dict[str, Any] | None = None
        self.view_adapter: str | None = None  # the adapter that made the view, once made

    def document(self, query: Finder) -> Any:
        """The document `query` reads: the view's for `$.view...`, else the trace."""
        if reads_view(query.expression):
            return self.view_document()
        return self.trace

    def find(self, query: Finder) -> list[Any]:
        if type(query) is Query:  # the common case, kept cheap
            return query.find(self.view_document() if query.view else self.trace)
        if type(query) is FirstOf:  # the trace-fields spec's list of paths
            for alternative in query.alternatives:
                found = alternative.find(self.document(alternative))
                if found:
                    return found
            return []
        return query.find(self.document(query))

    def view_document(self) -> dict[str, Any]:
        if self._view_document is None:
            adapter, messages = self._view_settings
            options = ViewOptions(messages=messages, parent=self.parent)
            view, self.view_adapter = make_view(self.trace, adapter, options)
            self._view_document = {"view": view}
        return self._view_document

    def text(self, value: str, markdown: bool) -> str:
        """`value` normalized for matching (Markdown rendered first when asked), cached."""
        if not markdown and len(value) <= _SHORT:
            cached = _shared_plain.get(value)
            if cached is None:
                if len(_shared_plain) >= _SHARED_MAX:
                    _shared_plain.clear()
                cached = _shared_plain[value] = normalize_plain(value)
            return cached
        key = (value, markdown)
        cached = self._texts.get(key)
        if cached is None:
            if markdown:
                cached, note = normalize_markdown_ex(value)
                if note is not None:
                    self.text_notes[value] = note
            else:
                cached = normalize_plain(value)
            self._texts[key] = cached
        return cached


# --------------------------------------------------------------------------------------------
# The registry


@dataclass(frozen=True)
class Param:
    type: str
    required: bool = False
    default: Any = None
    doc: str = ""
    choices: tuple[str, ...] = ()  # the only values allowed (a mode), when any


PredicateFn = Callable[[list[Any], dict[str, Any], TraceContext], Outcome]


@dataclass(frozen=True)
class Predicate:
    name: str
    fn: PredicateFn
    params: dict[str, Param]
    doc: str  # the docstring: user documentation, first line "Passes when ..."
    zero: str  # what zero matches give, in a few words (the README's table shows it)
    gives: tuple[str, ...] = ()  # the placeholders its failures fill (evaluation.messages)

    @property
    def passes_when(self) -> str:
        first = self.doc.split("\n\n", 1)[0].replace("\n", " ")
        return first.removeprefix("Passes when ").rstrip(".")


PREDICATES: dict[str, Predicate] = {}


def predicate(
    name: str, /, *, zero: str, gives: tuple[str, ...] = (), **params: Param
) -> Callable[[PredicateFn], PredicateFn]:
    """Register a predicate under the name spec files use; `zero`: what zero matches give;
    `gives`: the placeholders (`found`, `expected`, ...) its failures fill for a template."""

    def register(fn: PredicateFn) -> PredicateFn:
        for p in params.values():
            assert p.type in PARAM_TYPES, f"{name}: unknown parameter type {p.type}"
        doc = inspect.cleandoc(fn.__doc__ or "")
        assert doc.startswith("Passes when "), f"{name}: the docstring says when it passes"
        PREDICATES[name] = Predicate(name, fn, dict(params), doc, zero, tuple(gives))
        return fn

    return register


def param_type_error(param: Param, value: Any) -> str | None:
    """Why `value` does not fit `param`, in words, or None when it fits."""
    problem = type_error(param.type, value)
    if problem is None and param.choices and value not in param.choices:
        hint = did_you_mean(str(value), param.choices)
        return f"must be one of {', '.join(param.choices)}, found {show(value)}{hint}"
    return problem


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


def _typed(value: Any) -> Any:
    """A found value for a message template: text as itself, any other value with its type,
    so `3 (a whole number)` is not read as the text "3"."""
    return value if isinstance(value, str) else f"{show(value)} ({kind_of(value)})"


def _keyword_groups(keywords: list[Any]) -> list[list[str]]:
    return [[k] if isinstance(k, str) else list(k) for k in keywords]


def _occurs(
    text: str, groups: list[list[str]], ctx: TraceContext, whole_words: bool = False
) -> Callable[[str], bool]:
    """`wanted in text` for the normalized keywords of `groups`: plain `in` for a few
    keywords, else membership in the set one pass over the text finds (`keywords_in`).
    With `whole_words`, an ASCII keyword counts only as a whole word (`occurs_as_word`)."""
    if not many_keywords(sum(map(len, groups)), len(text)):
        if whole_words:
            return lambda wanted: occurs_as_word(text, wanted)
        return text.__contains__
    wanted = [ctx.text(k, False) for group in groups for k in group]
    return (words_in if whole_words else keywords_in)(text, wanted).__contains__


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


@predicate("exists", zero="fail")
def exists(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the query matches at least one value that is not null.

    Zero matches, or only nulls, fail. `0`, `""`, `false` and `[]` are values: they pass.
    """
    if _present(values):
        return Outcome(True, f"found {show(_present(values)[0])}")
    if values:
        return Outcome(False, "the value is null, but a value is required", facts={})
    return Outcome(False, "nothing found, but a value is required", facts={})


@predicate("absent", zero="pass", gives=("found",))
def absent(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the query matches nothing, or only nulls.

    Any other value fails, falsy ones included: `0`, `""`, `false` and `[]` are present.
    """
    present = _present(values)
    if present:
        return Outcome(
            False, f"found {show(present[0])}, but no value is allowed", facts={"found": present[0]}
        )
    return Outcome(True, "nothing found")


@predicate(
    "in",
    zero="fail",
    gives=("found", "expected"),
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
        return Outcome(
            False,
            f"nothing found, but one of {show(allowed, 200)} is required",
            facts={"expected": allowed},
        )
    bad = [v for v in present if not _member(v, allowed)]
    if bad:
        kind = "" if isinstance(bad[0], str) else f" ({kind_of(bad[0])})"
        return Outcome(
            False,
            f"the value is {show(bad[0])}{kind}, which is not one of the allowed values"
            f" {show(allowed, 200)}",
            facts={"found": _typed(bad[0]), "expected": allowed},
        )
    return Outcome(True, f"found {show(present[0])}")


@predicate(
    "not-in",
    zero="pass",
    gives=("found", "expected"),
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
        return Outcome(
            False,
            f"the value is {show(bad[0])}, which is forbidden (forbidden: {show(forbidden, 200)})",
            facts={"found": bad[0], "expected": forbidden},
        )
    return Outcome(True, "no forbidden value")


@predicate(
    "equals",
    zero="fail",
    gives=("found", "expected"),
    value=Param("scalar", required=True, doc="the expected value"),
)
def equals(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the query matches at least one value and every match equals `value`.

    Zero matches fail. Comparison is exact and by type, as for `in`.
    """
    expected = args["value"]
    if not values:
        return Outcome(
            False,
            f"nothing found, but {show(expected)} is required",
            facts={"expected": expected},
        )
    bad = [v for v in values if not _same(v, expected)]
    if bad:
        return Outcome(
            False,
            f"the value is {show(bad[0])}, but {show(expected)} is required",
            facts={"found": _typed(bad[0]), "expected": expected},
        )
    return Outcome(True, f"equals {show(expected)}")


@predicate(
    "count",
    zero="counts as 0",
    gives=("count", "expected"),
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
        return Outcome(
            False,
            f"found {n} matches, but {bound} are required",
            {"count": n},
            {"count": n, "expected": bound},
        )
    return Outcome(True, f"{n} matches", {"count": n})


@predicate(
    "contains-all",
    zero="pass only if `items` is empty",
    gives=("missing", "found", "expected", "count", "total"),
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
    ignored = (
        f"{len(others)} value(s) that are not text ignored, e.g. {show(others[0])}"
        if others
        else ""
    )
    note = f" ({ignored})" if ignored else ""
    if missing:
        used = list(dict.fromkeys(names))
        facts = {
            "missing": missing,
            "found": used,
            "expected": required,
            "count": len(found),
            "total": len(required),
            "notes": [ignored] if ignored else [],
        }
        return Outcome(
            False,
            f"not found: {', '.join(missing)} (found instead: {', '.join(used) or 'none'}){note}",
            details,
            facts,
        )
    return Outcome(True, f"all {len(required)} found{note}", details)


_WHOLE_WORDS_DOC = (
    "an ASCII keyword counts only as a whole word (FLAT is not in IVF_FLAT); others stay substrings"
)


@predicate(
    "contains-min",
    zero="fail",
    gives=("missing", "found", "count", "expected", "total"),
    keywords=Param("keywords", required=True, doc="entries: a keyword, or a list of synonyms"),
    min=Param("count-or-share", doc="a count, or a share in (0, 1]; default: all entries"),
    markdown=Param("bool", default=True, doc="render Markdown to plain text before matching"),
    whole_words=Param("bool", default=False, doc=_WHOLE_WORDS_DOC),
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

    `whole_words: true`: a keyword of ASCII characters counts only where it is a whole word:
    a word character is an ASCII letter, digit or `_`, so `FLAT` is not found in `IVF_FLAT`
    nor `4` in `2024`, while `MySQL连接池` holds `MySQL` (a CJK character ends a word). The
    boundary is judged on the normalized text (so `**FLAT**` and full-width `ＦＬＡＴ` are
    whole words). A keyword with any non-ASCII character keeps substring matching: Chinese
    has no word boundaries.
    """
    groups = _keyword_groups(args["keywords"])
    need = required_count(args["min"], len(groups))
    text, found, problem, notes = _texts(values, args, ctx)
    if problem:
        return Outcome(False, problem)
    if not found:
        return Outcome(False, "no text found to search for the keywords")
    matched, missing = [], []
    plain = ctx.text
    occurs = _occurs(text, groups, ctx, args["whole_words"])
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
        facts = {
            "missing": missing,
            "found": matched,
            "count": len(matched),
            "expected": need,
            "total": len(groups),
        }
        outcome = Outcome(
            False,
            f"the text does not mention: {', '.join(missing)} ({len(matched)} of {len(groups)}"
            f" keyword entries found, {need} required)",
            details,
            facts,
        )
    else:
        outcome = Outcome(True, f"found {len(matched)} of {len(groups)} ({need} required)", details)
    return _noted(outcome, notes)


@predicate(
    "contains-none",
    zero="pass",
    gives=("found", "count"),
    keywords=Param("keywords", required=True, doc="entries: a keyword, or a list of synonyms"),
    markdown=Param("bool", default=True, doc="render Markdown to plain text before matching"),
    whole_words=Param("bool", default=False, doc=_WHOLE_WORDS_DOC),
)
def contains_none(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when none of the `keywords` occurs in any matched text.

    Zero matches pass (there is no text to contain anything); a match that is not text fails
    with its type. Matching is normalized and literal, as for `contains-min`, and so is
    `whole_words: true` (`drop` is then not found in `dropdown`).
    """
    text, _, problem, notes = _texts(values, args, ctx)
    if problem:
        return Outcome(False, problem)
    groups = _keyword_groups(args["keywords"])
    occurs = _occurs(text, groups, ctx, args["whole_words"])
    found = [k for g in groups for k in g if (wanted := ctx.text(k, False)) and occurs(wanted)]
    if found:
        outcome = Outcome(
            False,
            f"the text contains forbidden {', '.join(show(k) for k in found)}",
            {"found": found},
            {"found": found, "count": len(found)},
        )
    else:
        outcome = Outcome(True, "none found", {"found": []})
    return _noted(outcome, notes)


@predicate(
    "no-shared-run",
    zero="pass (nothing to compare)",
    gives=("found", "count", "expected"),
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
    text, _, problem, notes = _texts(values, args, ctx)
    other, _, other_problem, other_notes = _texts(args["other"], args, ctx)
    if problem or other_problem:
        return Outcome(False, problem or f"the text to compare with: {other_problem}")
    if not text or not other:
        return Outcome(True, "nothing to compare")
    run = shared_run(text, other, args["min_length"])
    if run is not None:
        whole = _widened(run, text, other)
        outcome = Outcome(
            False,
            f"the text repeats {len(whole)} characters of the other text: {show(whole, 80)}",
            {"shared": run, "shared_length": len(whole)},
            {"found": whole, "count": len(whole), "expected": args["min_length"]},
        )
    else:
        outcome = Outcome(True, f"no shared run of {args['min_length']} characters")
    return _noted(outcome, list(dict.fromkeys(notes + other_notes)))


def _widened(run: str, a: str, b: str) -> str:
    """`run` grown on both sides while `a` and `b` still agree around its first occurrence in
    each: the shared text as a reader would quote it (the leak check stops at the first run
    of the minimum length). Linear in the length of the texts."""
    i, j = a.find(run), b.find(run)
    start, end = 0, len(run)
    while i - start > 0 and j - start > 0 and a[i - start - 1] == b[j - start - 1]:
        start += 1
    while i + end < len(a) and j + end < len(b) and a[i + end] == b[j + end]:
        end += 1
    return a[i - start : i + end]


# --------------------------------------------------------------------------------------------
# Trajectories: which tools ran, in which order, with which arguments


def _items(values: list[Any]) -> list[Any]:
    """The ordered list a trajectory predicate reads: one matched list is that list (as
    `$.toolInvocations` gives), several matches are the list (as `$.view.tool_calls[*]`)."""
    if len(values) == 1 and isinstance(values[0], list):
        return list(values[0])
    return list(values)


def _is_glob(step: Any) -> bool:
    return isinstance(step, str) and any(c in step for c in "*?[")


def _step_matches(step: Any, item: Any, key: str | None) -> bool:
    """A step names an item: equal as typed JSON values, or a case-sensitive glob for text."""
    if key is not None:
        item = item.get(key) if isinstance(item, dict) else None
    if _is_glob(step):
        return isinstance(item, str) and fnmatchcase(item, step)
    return _same(step, item)


def _label_of(item: Any, key: str | None) -> Any:
    return item.get(key) if key is not None and isinstance(item, dict) else item


def _matching(steps: list[Any], items: list[Any], key: str | None) -> list[int | None]:
    """A maximum matching of steps to distinct items (augmenting paths), so the result never
    depends on the order of the steps, globs included: each entry is the index of the item
    a step uses, or None when the step is left unmatched."""
    can = [[i for i, item in enumerate(items) if _step_matches(s, item, key)] for s in steps]
    owner: dict[int, int] = {}  # item index -> step index

    def place(step: int, seen: set[int]) -> bool:
        for i in can[step]:
            if i in seen:
                continue
            seen.add(i)
            if i not in owner or place(owner[i], seen):
                owner[i] = step
                return True
        return False

    for step in sorted(range(len(steps)), key=lambda s: len(can[s])):
        place(step, set())
    used = {step: i for i, step in owner.items()}
    return [used.get(s) for s in range(len(steps))]


def _in_order(steps: list[Any], items: list[Any], key: str | None) -> int:
    """How many leading steps occur in order (each at a later item than the one before).
    Taking the earliest item that fits each step
    is optimal for a subsequence, globs included."""
    at = 0
    for done, step in enumerate(steps):
        while at < len(items) and not _step_matches(step, items[at], key):
            at += 1
        if at == len(items):
            return done
        at += 1
    return len(steps)


def _shown_steps(steps: list[Any]) -> str:
    return ", ".join(str(s) for s in steps) or "none"


@predicate(
    "sequence",
    zero="exact and in-order fail unless steps is empty; contains fails; only passes",
    gives=("found", "expected", "missing", "count"),
    steps=Param("names", required=True, doc="the expected items, in order: names or globs"),
    mode=Param(
        "text",
        default="in-order",
        doc="exact, in-order, contains or only",
        choices=("exact", "in-order", "contains", "only"),
    ),
    key=Param("optional-text", doc="read this field of each item (e.g. name for call objects)"),
)
def sequence(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the ordered list the query gives fits `steps` as `mode` says.

    `exact`: the list is exactly the steps, one item per step. `in-order`: the steps occur in
    this order, other items may sit between them. `contains`: every step occurs, in any
    order; each step uses an item of its own, so steps `[a, a]` need two `a` calls (multiset
    inclusion). `only`: every item is one of the steps (an allow-list). A step is a typed JSON
    value (`1` is not `"1"`) or, for text, a case-sensitive glob (`mysql_*`); the unordered
    modes use a maximum matching, so their result never depends on the order of `steps`. The
    list is the one matched list, or the matches themselves (`$.view.tool_calls[*].name`).
    Zero items: `only` passes, `exact` and `in-order` pass only for empty steps, `contains`
    fails unless steps is empty.
    """
    steps, key, mode = list(args["steps"]), args["key"], args["mode"]
    items = _items(values)
    labels = [_label_of(i, key) for i in items]
    return _SEQUENCE_MODES[mode](steps, items, labels, key)


def _only(steps: list[Any], items: list[Any], labels: list[Any], key: str | None) -> Outcome:
    bad = [(i, x) for i, x in enumerate(items) if not any(_step_matches(s, x, key) for s in steps)]
    if bad:
        index, item = bad[0]
        return Outcome(
            False,
            f"item {index} is {show(_label_of(item, key))}, which is not one of the allowed"
            f" steps ({_shown_steps(steps)})",
            {"index": index, "items": labels},
            {"found": _label_of(item, key), "expected": steps},
        )
    return Outcome(True, f"all {len(items)} items are allowed", {"items": labels})


def _contains(steps: list[Any], items: list[Any], labels: list[Any], key: str | None) -> Outcome:
    used = _matching(steps, items, key)
    missing = [s for s, i in zip(steps, used, strict=True) if i is None]
    if missing:
        return Outcome(
            False,
            f"missing {_shown_steps(missing)} (each step needs an item of its own); found:"
            f" {show(labels, 200)}",
            {"missing": missing, "items": labels},
            {"missing": missing, "found": labels, "expected": steps},
        )
    return Outcome(True, f"all {len(steps)} steps occur", {"items": labels})


def _exact(steps: list[Any], items: list[Any], labels: list[Any], key: str | None) -> Outcome:
    pairs = list(zip(steps, items, strict=False))
    agree = next((i for i, (s, x) in enumerate(pairs) if not _step_matches(s, x, key)), len(pairs))
    if len(items) == len(steps) and agree == len(pairs):
        return Outcome(True, f"exactly {_shown_steps(steps)}", {"items": labels})
    return Outcome(
        False,
        f"expected exactly {_shown_steps(steps)}; found {show(labels, 200)} (the first"
        f" {agree} agree; they differ at item {agree})",
        {"index": agree, "items": labels},
        {"found": labels, "expected": steps, "count": agree},
    )


def _ordered(steps: list[Any], items: list[Any], labels: list[Any], key: str | None) -> Outcome:
    done = _in_order(steps, items, key)
    if done < len(steps):
        return Outcome(
            False,
            f"the first {done} step(s) ({_shown_steps(steps[:done])}) occur in order, but"
            f" {show(steps[done])} does not occur after them; found {show(labels, 200)}",
            {"satisfied": done, "items": labels},
            {"found": labels, "expected": steps, "missing": steps[done:], "count": done},
        )
    return Outcome(True, f"{_shown_steps(steps)} occur in order", {"items": labels})


_SEQUENCE_MODES: dict[str, Callable[[list[Any], list[Any], list[Any], str | None], Outcome]] = {
    "only": _only,
    "contains": _contains,
    "exact": _exact,
    "in-order": _ordered,
}


@predicate(
    "precedes",
    zero="`then` never occurring: passes, or fails with missing: fail",
    gives=("found", "expected"),
    first=Param("text", required=True, doc="the name (or glob) that must come first"),
    then=Param("text", required=True, doc="the name (or glob) that must come after it"),
    key=Param("optional-text", doc="read this field of each item (e.g. name for call objects)"),
    missing=Param(
        "text",
        default="pass",
        doc="pass or fail when `then` never occurs",
        choices=("pass", "fail"),
    ),
)
def precedes(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when every occurrence of `then` has a `first` somewhere before it.

    The list is read as for `sequence` (one matched list, or the matches themselves); zero
    matches mean no call ran. When `then` never occurs there is nothing to order:
    it passes, saying so, or fails with `missing: fail`. Names are typed values or globs, as
    for `sequence`.
    """
    items, key = _items(values), args["key"]
    seen_first = False
    seen_then = False
    for index, item in enumerate(items):
        if _step_matches(args["then"], item, key):
            seen_then = True
            if not seen_first:
                return Outcome(
                    False,
                    f"{show(args['then'])} ran at item {index} before any {show(args['first'])}",
                    {"index": index},
                    {"found": args["then"], "expected": args["first"]},
                )
        if _step_matches(args["first"], item, key):
            seen_first = True
    if not seen_then:
        message = f"{show(args['then'])} never ran, so there is nothing to order"
        facts = {"found": args["then"], "expected": args["first"]}
        return Outcome(args["missing"] == "pass", message, facts=facts)
    return Outcome(True, f"every {show(args['then'])} comes after a {show(args['first'])}")


def _call_key(call: Any, name_key: str, args_key: str) -> tuple[str, Any, Any]:
    """A call's identity for repeats (its name and its arguments as canonical JSON), with
    the name and arguments to show."""
    if not isinstance(call, dict):
        return json.dumps(call, sort_keys=True, default=str), call, None
    arguments, _ = parse_arguments(call.get(args_key))
    name = call.get(name_key)
    return json.dumps([name, arguments], sort_keys=True, default=str), name, arguments


def parse_arguments(value: Any) -> tuple[Any, str | None]:
    """Arguments as an object: JSON text (OpenAI writes arguments as a string) is parsed;
    text that does not parse stays text, with the reason."""
    if not isinstance(value, str):
        return value, None
    try:
        return json.loads(value), None
    except ValueError as exc:
        return value, f"the arguments are not JSON ({exc})"


@predicate(
    "no-repeat",
    zero="pass",
    gives=("found", "count", "expected"),
    max_repeats=Param("positive-count", default=1, doc="how often one call may occur"),
    name_key=Param("text", default="name", doc="the field holding a call's name"),
    args_key=Param("text", default="arguments", doc="the field holding a call's arguments"),
)
def no_repeat(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when no call (the same name with the same arguments) occurs more than
    `max_repeats` times: the loop detector.

    Calls with one name and different arguments are different calls. Arguments written as
    JSON text are compared as the JSON they hold, so key order and spacing do not matter.
    The calls are read as for `sequence` (one matched list, or the matches themselves); zero
    matches (no call) pass.
    """
    counts: dict[str, int] = {}
    shown: dict[str, tuple[Any, Any]] = {}
    for call in _items(values):
        key, name, arguments = _call_key(call, args["name_key"], args["args_key"])
        counts[key] = counts.get(key, 0) + 1
        shown.setdefault(key, (name, arguments))
    worst, times = max(counts.items(), key=lambda kv: kv[1], default=("", 0))
    if times > args["max_repeats"]:
        name, arguments = shown[worst]
        return Outcome(
            False,
            f"{show(name)} was called {times} times with the same arguments"
            f" {show(arguments, 100)}; at most {args['max_repeats']} allowed",
            {"repeats": times},
            {"found": name, "count": times, "expected": args["max_repeats"]},
        )
    return Outcome(True, f"no call repeats more than {args['max_repeats']} time(s)")


# --------------------------------------------------------------------------------------------
# Calls with arguments: which calls ran with which arguments
#
# A call is judged MATCH, MISS or UNSURE: unsure when it cannot be told (the arguments are
# not JSON, a `regex` meets a number, the item is not a call object). An unsure call never
# helps a check pass: the quantifier's verdict must be the same however the unsure calls
# would have gone, or the check fails saying which call could not be judged.

_MATCH, _MISS, _UNSURE = "match", "miss", "unsure"
_MISSING = object()  # an argument path that leads nowhere
Judgement = tuple[str, str]  # (_MATCH | _MISS | _UNSURE, why, in words)


def _deep_same(a: Any, b: Any) -> bool:
    """Typed JSON equality (`_same`) all the way down lists and objects."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_deep_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_deep_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return False
    return _same(a, b)


def _at_path(arguments: Any, steps: list[str]) -> Any:
    """The argument at a dotted path (a step of digits indexes a list), or _MISSING."""
    value = arguments
    for step in steps:
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        else:
            return _MISSING
    return value


def _op_in(value: Any, operand: Any, ctx: TraceContext) -> Judgement:
    if any(_deep_same(value, option) for option in operand):
        return _MATCH, f"is {show(value)}"
    return _MISS, f"is {show(value)}, not one of {show(operand, 100)}"


def _op_bound(op: str) -> Callable[[Any, Any, TraceContext], Judgement]:
    def judge(value: Any, operand: Any, ctx: TraceContext) -> Judgement:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value):
            return _UNSURE, f"is {kind_of(value)} {show(value)}, not a number to compare"
        if _OPS[op](value, operand):
            return _MATCH, f"is {show(value)}"
        return _MISS, f"is {show(value)}; expected {_OP_WORDS[op]} {show(operand)}"

    return judge


def _op_regex(value: Any, operand: Any, ctx: TraceContext) -> Judgement:
    if not isinstance(value, str):
        return _UNSURE, f"is {kind_of(value)} {show(value)}, not text for regex {show(operand)}"
    if compile_safe(operand).fullmatch(value):
        return _MATCH, f"{show(value)} matches {show(operand)}"
    return _MISS, f"{show(value)} does not fully match regex {show(operand)}"


def _op_contains(value: Any, operand: Any, ctx: TraceContext) -> Judgement:
    if not isinstance(value, str):
        return _UNSURE, f"is {kind_of(value)} {show(value)}, not text to search for {show(operand)}"
    wanted = ctx.text(operand, False)
    if wanted and wanted in ctx.text(value, False):
        return _MATCH, f"{show(value)} contains {show(operand)}"
    return _MISS, f"{show(value)} does not contain {show(operand)}"


def _op_schema(value: Any, operand: Any, ctx: TraceContext) -> Judgement:
    from referencing.exceptions import Unresolvable

    try:
        error = next(iter(schema_validator(operand).iter_errors(value)), None)
    except Unresolvable as exc:  # lint refuses such a schema; a case-bound one may slip by
        return _UNSURE, f"cannot be checked against the schema ({exc})"
    except RecursionError:  # {$ref: "#"}: a schema that refers to itself without end
        return _UNSURE, "cannot be checked against the schema: its $ref refers to itself endlessly"
    if error is None:
        return _MATCH, f"{show(value)} fits the schema"
    return _MISS, f"{show(value)} does not fit the schema: {error.message}"


# Each operator of `params.MATCHER_OPERATORS`, judged on a present argument value.
_OPERATORS: dict[str, Callable[[Any, Any, TraceContext], Judgement]] = {
    "in": _op_in,
    **{op: _op_bound(op) for op in ("gt", "ge", "lt", "le")},
    "regex": _op_regex,
    "contains": _op_contains,
    "json-schema": _op_schema,
}
assert set(_OPERATORS) | {"absent"} == set(MATCHER_OPERATORS), "one entry per matcher operator"
# Operators that read a null as a value (JSON Schema `type: null`, `in: [null]`); the others
# find no value in a null, as everywhere else.
_NULL_IS_A_VALUE = frozenset({"in", "json-schema"})


def _judge_field(arguments: Any, field: str, matcher: Any, ctx: TraceContext) -> Judgement:
    value = _at_path(arguments, field_steps(field))
    where = f"argument '{field}'"
    if isinstance(matcher, dict) and "absent" in matcher:
        return _judge_absent(where, value, bool(matcher["absent"]))
    if value is _MISSING:
        return _MISS, f"{where} is missing"
    if not isinstance(matcher, dict):
        if _deep_same(value, matcher):
            return _MATCH, f"{where} is {show(value)}"
        return _MISS, f"{where} is {show(value)}, not {show(matcher)}"
    return _judge_operators(where, value, matcher, ctx)


def _judge_absent(where: str, value: Any, absent: bool) -> Judgement:
    """`absent: true`: missing or null (null is no value); `absent: false`: anything else."""
    gone = value is _MISSING or value is None
    if gone is absent:
        return _MATCH, f"{where} is {'absent' if gone else 'present'}"
    shown = "absent" if gone else f"present ({show(value)})"
    return _MISS, f"{where} is {shown}; expected it {'absent' if absent else 'present'}"


def _judge_operators(
    where: str, value: Any, matcher: dict[str, Any], ctx: TraceContext
) -> Judgement:
    """All operators must hold: any miss decides; else any unsure one leaves it unsure."""
    unsure = None
    held: list[str] = []
    for op, operand in matcher.items():
        if value is None and op not in _NULL_IS_A_VALUE:
            return _MISS, f"{where} is null"
        status, why = _OPERATORS[op](value, operand, ctx)
        if status == _MISS:
            return _MISS, f"{where} {why}"
        if status == _UNSURE and unsure is None:
            unsure = (_UNSURE, f"{where} {why}")
        held.append(why)
    return unsure or (_MATCH, f"{where} {' and '.join(dict.fromkeys(held))}")


def _extra_arguments(arguments: dict[str, Any], fields: list[str]) -> list[str]:
    """Arguments no matcher lists (exact mode), as paths: at the top level, and inside each
    object a listed path goes through. An argument whose value is null counts as absent."""
    listed: dict[tuple[str, ...], set[str]] = {(): set()}
    for field in fields:
        steps = field_steps(field)
        for depth in range(len(steps)):
            listed.setdefault(tuple(steps[:depth]), set()).add(steps[depth])
    extra = []
    for prefix, names in listed.items():
        node = _at_path(arguments, list(prefix))
        if isinstance(node, dict):
            extra += [
                ".".join((*prefix, k)) for k, v in node.items() if k not in names and v is not None
            ]
    return extra


def _judge_arguments(call: dict[str, Any], args: dict[str, Any], ctx: TraceContext) -> Judgement:
    matchers = args["args"] or {}
    exact = args["mode"] == "exact"
    if not matchers and not exact:
        return _MATCH, "any arguments"
    arguments = _arguments_of(call, args["args_key"])
    if isinstance(arguments, tuple):
        return arguments
    judged = [_judge_field(arguments, f, m, ctx) for f, m in matchers.items()]
    if exact:
        extra = _extra_arguments(arguments, list(matchers))
        if extra:
            judged.append((_MISS, f"argument {show(extra[0])} is not listed (mode exact)"))
    for wanted in (_MISS, _UNSURE):
        first = next((j for j in judged if j[0] == wanted), None)
        if first is not None:
            return first
    return _MATCH, "; ".join(why for _, why in judged) or "no arguments"


def _arguments_of(call: dict[str, Any], key: str) -> dict[str, Any] | Judgement:
    """A call's arguments as an object (JSON text parsed; none recorded: no arguments), or
    the unsure judgement saying why they cannot be read."""
    arguments, problem = parse_arguments(call.get(key))
    if problem is not None:
        return _UNSURE, problem
    if arguments is None:
        return {}
    if not isinstance(arguments, dict):
        return _UNSURE, f"its arguments are {kind_of(arguments)} {show(arguments)}, not an object"
    return arguments


def _judge_call(call: Any, args: dict[str, Any], ctx: TraceContext) -> Judgement:
    """A call that `_named` kept: unsure when it is no call object or has no name to
    compare, else as its arguments say."""
    if not isinstance(call, dict):
        return (
            _UNSURE,
            f"it is {kind_of(call)} {show(call)}, not a call object (query the calls,"
            " e.g. $.view.tool_calls[*])",
        )
    if args["name"] is not None:
        name = call.get(args["name_key"])
        if not isinstance(name, str):
            return _UNSURE, f"it has no name (its '{args['name_key']}' is {show(name)})"
    return _judge_arguments(call, args, ctx)


def _named(call: Any, args: dict[str, Any]) -> bool:
    """Whether a call may be one of the calls `name` is about: False only for a call whose
    name is text that `name` does not match (no `name`: every call)."""
    wanted = args["name"]
    if wanted is None or not isinstance(call, dict):
        return True
    name = call.get(args["name_key"])
    return not isinstance(name, str) or _step_matches(wanted, name, None)


def _count_fits(quantifier: Any, matched: int, total: int) -> bool:
    if quantifier == "any":
        return matched >= 1
    if quantifier == "all":
        return total > 0 and matched == total
    if quantifier == "none":
        return matched == 0
    high = quantifier.get("max")
    return quantifier.get("min", 0) <= matched and (high is None or matched <= high)


def _wanted(quantifier: Any) -> str:
    if isinstance(quantifier, str):
        return {"any": "at least one", "all": "every call", "none": "no call"}[quantifier]
    low, high = quantifier.get("min", 0), quantifier.get("max")
    if high is None:
        return f"at least {low}"
    if low == high:
        return f"exactly {low}"
    return f"between {low} and {high}" if low else f"at most {high}"


def _call_label(index: int, call: Any, name_key: str) -> str:
    name = call.get(name_key) if isinstance(call, dict) else None
    return f"call {index} ({name})" if isinstance(name, str) else f"call {index}"


@predicate(
    "call-matches",
    zero="any and all fail; none passes; {min, max} passes when min is 0 (zero calls, or none named `name`)",
    name=Param("optional-text", doc="the tool name, or a case-sensitive glob; any name when unset"),
    args=Param("matchers", doc="argument (dotted path) -> matcher; any arguments when unset"),
    mode=Param(
        "text",
        default="partial",
        doc="partial, or exact: an argument no matcher lists fails",
        choices=("partial", "exact"),
    ),
    quantifier=Param("quantifier", default="any", doc="any, all, none, or {min, max} calls"),
    name_key=Param("text", default="name", doc="the field holding a call's name"),
    args_key=Param("text", default="arguments", doc="the field holding a call's arguments"),
)
def call_matches(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the calls that match `name` and `args` are as many as `quantifier` says.

    The calls are read as for `sequence` (one matched list, or the matches themselves, e.g.
    `$.view.tool_calls[*]`): call objects with a name (`name_key`) and arguments (`args_key`;
    JSON text is parsed; none recorded means no arguments). A call matches when its name is
    `name` (text equality, or a case-sensitive glob such as `mysql_*`) and every entry of
    `args` holds. An entry is an argument path (`options.force`; a step of digits indexes a
    list) and a matcher: a literal, compared typed and whole (`1` is not `"1"`), or a mapping
    whose operators must all hold: `in` (typed), `gt`/`ge`/`lt`/`le`, `regex` (the whole value,
    raw text, on the linear-time engine), `contains` (normalized text, as for `contains-min`),
    `json-schema`, or `absent: true` (the argument is missing or null; `absent: false`: it has
    a value). A missing argument matches only `absent: true`; a null one is "no value" except
    for a literal `null`, `in` and `json-schema`. `mode: exact`: an argument no matcher lists
    (at the top level, or inside an object a path goes through) makes the call not match.
    `args: {case: KEY}` binds the whole mapping to a case key (a mapping of only `case` or
    `trace`, and `default`, is a binding, not a matcher for an argument named so).
    `quantifier` counts the matching calls among the calls named `name` (every call, without
    `name`): `any` (default, at least one), `all` (every call named `name`, and at least one),
    `none` (no call: "never ran `shell` with `rm -rf`"), or `{min, max}` (inclusive).
    Zero calls, or none named `name`: `any` and `all` fail, `none` passes, `{min, max}` passes
    when min is 0. A call
    that cannot be judged (arguments that are not JSON or not an object, a `regex` or
    `contains` meeting a value that is not text, a bound meeting one that is not a number, an
    item that is not a call object, no name to compare) never makes the check pass: when the
    verdict depends on it, the check fails and says which call and why.
    """
    calls = [call for call in _items(values) if call is not None]  # null: no call
    # The calls `name` is about (all of them without `name`), by their index in the list.
    judged = {i: _judge_call(c, args, ctx) for i, c in enumerate(calls) if _named(c, args)}
    matched = [i for i, (status, _) in judged.items() if status == _MATCH]
    unsure = [i for i, (status, _) in judged.items() if status == _UNSURE]
    quantifier = args["quantifier"]
    verdicts = {
        _count_fits(quantifier, n, len(judged))
        for n in range(len(matched), len(matched) + len(unsure) + 1)
    }
    details = {"calls": len(calls), "named": len(judged), "matched": matched, "unsure": unsure}
    report = _CallReport(calls, judged, args)
    if len(verdicts) > 1:
        return Outcome(False, report.undecided(unsure[0], len(matched), len(unsure)), details)
    passed = verdicts.pop()
    return Outcome(passed, report.message(passed, matched), details)


class _CallReport:
    """The words of a call-matches outcome: which calls, and why each did or did not match."""

    def __init__(
        self, calls: list[Any], judged: dict[int, Judgement], args: dict[str, Any]
    ) -> None:
        self.calls, self.judged, self.args = calls, judged, args
        self.quantifier = args["quantifier"]
        name = args["name"]
        self.kind = "calls" if name is None else f"calls named {show(name)}"

    def label(self, index: int) -> str:
        return _call_label(index, self.calls[index], self.args["name_key"])

    def why(self, index: int) -> str:
        return f"{self.label(index)}: {self.judged[index][1]}"

    def undecided(self, first: int, matched: int, unsure: int) -> str:
        return (
            f"cannot tell whether {self.label(first)} matches: {self.judged[first][1]};"
            f" so this fails ({matched} of {len(self.judged)} {self.kind} match, {unsure}"
            f" cannot be judged; expected {_wanted(self.quantifier)})"
        )

    def message(self, passed: bool, matched: list[int]) -> str:
        if not self.judged:
            return self._none_named(passed)
        if self.quantifier == "none" and not passed:
            return f"{self.label(matched[0])} matches, which is forbidden: {self.judged[matched[0]][1]}"
        if self.quantifier == "all" and not passed:
            first = next(i for i, (status, _) in self.judged.items() if status != _MATCH)
            return f"{self.label(first)} does not match: {self.judged[first][1]}"
        summary = (
            f"{len(matched)} of {len(self.judged)} {self.kind} match;"
            f" expected {_wanted(self.quantifier)}"
        )
        # Shown: the first match when it passed; the matching calls when their number is
        # wrong; else why the first calls did not match.
        if passed:
            return f"{summary} ({self.why(matched[0])})" if matched else summary
        if matched:
            return f"{summary}; matching: {', '.join(self.label(i) for i in matched[:5])}"
        return f"{summary}; " + "; ".join(self.why(i) for i in list(self.judged)[:3])

    def _none_named(self, passed: bool) -> str:
        wanted = "" if passed else f"; expected {_wanted(self.quantifier)} to match"
        if not self.calls:
            return f"no call found{wanted}"
        names = [c.get(self.args["name_key"]) for c in self.calls]
        return f"no call is named {show(self.args['name'])} (found: {show(names, 120)}){wanted}"


@predicate(
    "call-matches-each",
    zero="as each entry's call-matches says: any and all fail; none passes",
    expect=Param(
        "call-expectations",
        required=True,
        doc="a list of {name, args, mode, quantifier} entries, each a call-matches check",
    ),
    name_key=Param("text", default="name", doc="the field holding a call's name"),
    args_key=Param("text", default="arguments", doc="the field holding a call's arguments"),
)
def call_matches_each(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when every entry of `expect` holds, each judged exactly as `call-matches` with
    that entry's `name`, `args`, `mode` (default partial) and `quantifier` (default any).

    For a list a case writes (the agent pack's `tool_calls_match`): "`write_file` ran with a
    `text` that mentions 2024, and `shell` never ran with `rm -rf`". The entries are judged
    independently on the same calls; the message names every entry that does not hold (its
    number and name) with `call-matches`' reason. An empty list passes (nothing expected).
    """
    failed: list[str] = []
    outcomes = []
    for i, entry in enumerate(args["expect"]):
        one = {
            "name": entry.get("name"),
            "args": entry.get("args"),
            "mode": entry.get("mode", "partial"),
            "quantifier": entry.get("quantifier", "any"),
            "name_key": args["name_key"],
            "args_key": args["args_key"],
        }
        outcome = call_matches(values, one, ctx)
        outcomes.append(outcome.details)
        if not outcome.passed:
            label = f"entry {i + 1}" + (f" ({one['name']})" if one["name"] is not None else "")
            failed.append(f"{label}: {outcome.message}")
    details = {"entries": outcomes, "failed": len(failed)}
    total = len(args["expect"])
    if failed:
        return Outcome(
            False,
            f"{len(failed)} of {total} expected calls do not hold: " + "; ".join(failed),
            details,
        )
    return Outcome(True, f"all {total} expected calls hold", details)


@predicate(
    "matches",
    zero="fail",
    regex=Param("regex", required=True, doc="the pattern each text must fully match"),
)
def matches(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the query matches at least one text and every match fully matches `regex`.

    The whole text must match: write `(?s).*X.*` to find `X` anywhere (`(?s)` lets `.` cross
    line breaks). The text is raw, not normalized (no case folding, no Markdown rendering).
    The pattern has Python's meaning and runs on RE2 (linear time: no pattern can backtrack
    catastrophically); one RE2 cannot run with that meaning is a lint error. Zero matches (or
    only nulls) fail; a match that is not text fails with its type, never passes.
    """
    pattern = args["regex"]
    present = _present(values)
    if not present:
        return Outcome(False, f"no text found; expected text matching {show(pattern)}")
    regex = compile_safe(pattern)
    for index, value in enumerate(present):
        where = f" (match {index})" if len(present) > 1 else ""
        if not isinstance(value, str):
            return Outcome(
                False, f"found {kind_of(value)} {show(value)}{where}; expected text to match"
            )
        if not regex.fullmatch(value):
            return Outcome(
                False,
                f"{show(value)}{where} does not fully match {show(pattern)}",
                {"index": index},
            )
    what = f"{show(present[0])} matches" if len(present) == 1 else f"all {len(present)} texts match"
    return Outcome(True, f"{what} {show(pattern)}")


# --------------------------------------------------------------------------------------------
# Budgets: numbers compared with bounds


_OPS: dict[str, Callable[[float, float], bool]] = {
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
}
_OP_WORDS = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "=", "ne": "!="}


def _nearest_rank(sorted_values: list[float], share: float) -> float:
    rank = max(1, math.ceil(share * len(sorted_values)))
    return sorted_values[rank - 1]


_AGGREGATES: dict[str, Callable[[list[float]], float]] = {
    "sum": lambda v: math.fsum(v),
    "min": min,
    "max": max,
    "mean": lambda v: math.fsum(v) / len(v),
    "p50": lambda v: _nearest_rank(sorted(v), 0.50),
    "p95": lambda v: _nearest_rank(sorted(v), 0.95),
    "p99": lambda v: _nearest_rank(sorted(v), 0.99),
}


def _bound(value: Any) -> float | None:
    """A bound as a number; a duration with a unit (`30s`) in milliseconds."""
    if isinstance(value, str):
        return duration_ms(value)
    return None if value is None else float(value)


def _numbers(values: list[Any], unit: str | None) -> tuple[list[float], list[Any]]:
    numbers, bad = [], []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value):
            bad.append(value)
        else:
            numbers.append(float(value) * (UNIT_MS[unit] if unit else 1))
    return numbers, bad


def _finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


@predicate(
    "compare",
    zero="count is 0; any other aggregate fails (missing: pass to opt out)",
    gives=("found", "expected"),
    op=Param(
        "text",
        required=True,
        doc="lt, le, gt, ge, eq, ne or between",
        choices=("lt", "le", "gt", "ge", "eq", "ne", "between"),
    ),
    value=Param("optional-amount", doc="the bound (a number, or a duration such as 30s)"),
    min=Param("optional-amount", doc="the lower bound, with between (inclusive)"),
    max=Param("optional-amount", doc="the upper bound, with between (inclusive)"),
    aggregate=Param(
        "text",
        default="each",
        doc="each, count, sum, min, max, mean, p50, p95 or p99",
        choices=("each", "count", "sum", "min", "max", "mean", "p50", "p95", "p99"),
    ),
    unit=Param(
        "optional-text", doc="ms, s or m: the unit of the values, for bounds with units", choices=()
    ),
    missing=Param(
        "text", default="fail", doc="fail or pass when there is no number", choices=("fail", "pass")
    ),
)
def compare(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when the matched numbers (or their aggregate) satisfy `op` against the bound.

    `each` (the default) compares every matched value; `count` the number of matches (0 for
    none); `sum`, `min`, `max`, `mean` and the nearest-rank percentiles `p50`, `p95`, `p99`
    one figure. Bounds are inclusive for `le`, `ge` and `between`. A bound may carry a unit
    (`30s`, `500ms`, `2m`): it is read in milliseconds, as the `$.view` duration fields are;
    for values in another unit, say so with `unit: s` (or `m`, `h`). A matched value that is not
    a number fails with its type, and so do zero matches (except for `count`): never a silent
    pass; `missing: pass` opts out for zero matches.
    """
    unit = args["unit"]
    if unit is not None and unit not in UNIT_MS:
        return Outcome(False, f"parameter 'unit' must be ms, s, m or h, found {show(unit)}")
    op, aggregate = args["op"], args["aggregate"]
    bounds = _bounds(op, args, unit)
    if isinstance(bounds, str):
        return Outcome(False, bounds)
    present = [v for v in values if v is not None]
    if aggregate == "count":
        figures: list[float] = [float(len(values))]
    else:
        numbers, bad = _numbers(present, unit)
        if bad:
            return Outcome(False, f"found {kind_of(bad[0])} {show(bad[0])}; expected a number")
        if not numbers:
            passed = args["missing"] == "pass"
            return Outcome(
                passed,
                "no number found" + ("" if passed else "; expected one to compare"),
                facts={},
            )
        figures = numbers if aggregate == "each" else [_AGGREGATES[aggregate](numbers)]
    return _judge(figures, op, bounds, aggregate)


def _bounds(op: str, args: dict[str, Any], unit: str | None) -> tuple[float, float] | str:
    if op == "between":
        low, high = (_bound(args[k]) for k in ("min", "max"))
        if low is None or high is None:
            return "op between needs min and max (numbers, or durations such as 30s)"
        return low, high
    bound = _bound(args["value"])
    if bound is None:
        return f"op {op} needs value (a number, or a duration such as 30s)"
    return bound, bound


def _judge(figures: list[float], op: str, bounds: tuple[float, float], aggregate: str) -> Outcome:
    low, high = bounds
    what = "value" if aggregate == "each" else aggregate
    for index, figure in enumerate(figures):
        ok = low <= figure <= high if op == "between" else _OPS[op](figure, low)
        if not ok:
            expected = (
                f"between {_num(low)} and {_num(high)}"
                if op == "between"
                else f"{_OP_WORDS[op]} {_num(low)}"
            )
            where = f" (match {index})" if aggregate == "each" and len(figures) > 1 else ""
            return Outcome(
                False,
                f"the {what} is {_num(figure)}{where}; expected {expected}",
                {"value": figure},
                {"found": _num(figure), "expected": expected},
            )
    shown = _num(figures[0]) if len(figures) == 1 else f"all {len(figures)} values"
    return Outcome(True, f"the {what} {shown} is within bounds", {"value": figures[0]})


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
