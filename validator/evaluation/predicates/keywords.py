"""Keywords and text: what the matched text says, normalized (`contains-all`,
`contains-min`, `contains-none`, `no-shared-run`) or raw against a pattern (`matches`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import codes
from ...problems import counted, kind_of
from ...shares import share_of
from ..context import TraceContext
from ..saferegex import compile_safe
from ..text import keywords_in, many_keywords, occurs_as_word, shared_run, words_in
from .declare import BRIEF_PASS, Outcome, Param, predicate, show
from .values import non_null


def _texts(
    values: list[Any], args: dict[str, Any], ctx: TraceContext
) -> tuple[str, int, str | None, list[str]]:
    """The matched values (nulls left out) as one normalized text and how many there are,
    or an error message naming the first that is not text; and the notes on those matched
    without Markdown rendering."""
    markdown = bool(args.get("markdown", True))
    if len(values) == 1 and type(values[0]) is str:  # one text (an answer): the common case
        value = values[0]
        text = ctx.text(value, markdown)
        note = ctx.text_notes.get(value) if markdown else None
        return text, 1, None, [] if note is None else [note]
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
        return share_of(minimum, entries)
    return int(minimum)


def _not_text(others: list[Any]) -> str:
    """`1 value that is not text ignored, e.g. 3`: what a text predicate left out."""
    verb = "is" if len(others) == 1 else "are"
    return f"{counted(len(others), 'value')} that {verb} not text ignored, e.g. {show(others[0])}"


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
    names, others = _texts_and_others(values)
    seen = set(names)
    if ctx.brief and not others and all(r in seen for r in required):
        return BRIEF_PASS
    found = [r for r in required if r in seen]
    missing = [r for r in required if r not in seen]
    ratio = 1.0 if not required else round(len(found) / len(required), 4)
    details = {"required": required, "found": found, "missing": missing, "ratio": ratio}
    ignored = _not_text(others) if others else ""
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


def _texts_and_others(values: list[Any]) -> tuple[list[str], list[Any]]:
    """The values that are text, and those that are neither text nor null (the common case,
    every value a text, costs one pass)."""
    texts = [value for value in values if isinstance(value, str)]
    if len(texts) == len(values):
        return texts, []
    return texts, [value for value in values if value is not None and not isinstance(value, str)]


_WHOLE_WORDS_DOC = (
    "an ASCII keyword counts only as a whole word (FLAT is not in IVF_FLAT); others stay substrings"
)


@predicate(
    "contains-min",
    zero="fail",
    gives=("missing", "found", "count", "expected", "total"),
    keywords=Param("keywords", required=True, doc="entries: a keyword, or a list of synonyms"),
    min=Param(codes.COUNT_OR_SHARE, doc="a count, or a share in (0, 1]; default: all entries"),
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
    if ctx.brief and len(matched) >= need and not notes:
        return BRIEF_PASS
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
    elif ctx.brief and not notes:
        return BRIEF_PASS
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
    of the minimum length). The texts are compared as slices (in C), a stretch of n agreeing
    characters in ~2 log2(n) comparisons of at most 2n characters each."""
    i, j = a.find(run), b.find(run)
    before = _agreeing(lambda k: a[i - k : i] == b[j - k : j], min(i, j))
    after = _agreeing(
        lambda k: a[i + len(run) : i + len(run) + k] == b[j + len(run) : j + len(run) + k],
        min(len(a) - i, len(b) - j) - len(run),
    )
    return a[i - before : i + len(run) + after]


def _agreeing(agree: Callable[[int], bool], most: int) -> int:
    """The largest k <= most for which agree(k) holds, agree being true up to some k and
    false after (0 agrees): doubling k until it fails, then halving the gap."""
    low, step = 0, 1
    while step <= most and agree(step):
        low, step = step, step * 2
    high = min(step, most + 1)  # agree(high) is false, or high is past `most`
    while high - low > 1:
        middle = (low + high) // 2
        if agree(middle):
            low = middle
        else:
            high = middle
    return low


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
    present = non_null(values)
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
