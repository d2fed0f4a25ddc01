"""Calls and arguments: which calls ran with which arguments (`call-matches`,
`call-matches-each`), and which repeated (`no-repeat`, the loop detector).
"""

from __future__ import annotations

import json
from typing import Any

from ...problems import counted, kind_of
from ..context import TraceContext
from ..params import CALL_MODES
from .declare import Outcome, Param, predicate, show
from .matchers import MATCH, UNSURE, Judgement, judge_arguments, parse_arguments
from .order import ordered_items, step_matches
from .values import field_of


def _call_key(call: Any, name_key: str, args_key: str) -> tuple[str, Any, Any]:
    """A call's identity for repeats (its name and its arguments as canonical JSON), with
    the name and arguments to show."""
    if not isinstance(call, dict):
        return json.dumps(call, sort_keys=True, default=str), call, None
    arguments, _ = parse_arguments(field_of(call, args_key))
    name = field_of(call, name_key)
    return json.dumps([name, arguments], sort_keys=True, default=str), name, arguments


@predicate(
    "no-repeat",
    zero="pass",
    gives=("found", "count", "expected"),
    max_repeats=Param("positive-count", default=1, doc="how often one call may occur"),
    name_key=Param("text", default="name", doc="the field (or dotted path) holding a call's name"),
    args_key=Param(
        "text", default="arguments", doc="the field (or dotted path) holding a call's arguments"
    ),
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
    for call in ordered_items(values):
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
    return Outcome(True, f"no call repeats more than {counted(args['max_repeats'], 'time')}")


def _judge_call(call: Any, args: dict[str, Any], ctx: TraceContext) -> Judgement:
    """A call that `_named` kept: unsure when it is no call object or has no name to
    compare, else as its arguments say."""
    if not isinstance(call, dict):
        return (
            UNSURE,
            f"it is {kind_of(call)} {show(call)}, not a call object (query the calls,"
            " e.g. $.view.tool_calls[*])",
        )
    if args["name"] is not None:
        name = field_of(call, args["name_key"])
        if not isinstance(name, str):
            return UNSURE, f"it has no name (its '{args['name_key']}' is {show(name)})"
    return judge_arguments(call, args, ctx)


def _named(call: Any, args: dict[str, Any]) -> bool:
    """Whether a call may be one of the calls `name` is about: False only for a call whose
    name is text that `name` does not match (no `name`: every call)."""
    wanted = args["name"]
    if wanted is None or not isinstance(call, dict):
        return True
    name = field_of(call, args["name_key"])
    return not isinstance(name, str) or step_matches(wanted, name, None)


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
    name = field_of(call, name_key)
    return f"call {index} ({name})" if isinstance(name, str) else f"call {index}"


@predicate(
    "call-matches",
    zero="any and all fail; none passes; {min, max} passes when min is 0 (zero calls, or none named `name`)",
    name=Param("optional-text", doc="the tool name, or a case-sensitive glob; any name when unset"),
    args=Param(
        "matchers",
        doc="argument (dotted path) -> matcher, or the whole arguments ({equals: ...}, a list);"
        " any arguments when unset",
    ),
    mode=Param(
        "text",
        default="superset",
        doc="superset (partial is the same): the listed arguments hold, others may be there;"
        " subset: every argument is listed and holds, listed ones may be missing; exact: both",
        choices=CALL_MODES,
    ),
    defaults=Param(
        "argument-defaults", doc="argument -> value a call without that argument is read with"
    ),
    ignore=Param(
        "argument-globs", doc="arguments (names, paths or globs) neither compared nor counted"
    ),
    quantifier=Param("quantifier", default="any", doc="any, all, none, or {min, max} calls"),
    name_key=Param("text", default="name", doc="the field (or dotted path) holding a call's name"),
    args_key=Param(
        "text", default="arguments", doc="the field (or dotted path) holding a call's arguments"
    ),
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
    `json-schema`, `equals` (the value compared whole and typed: an object with the same keys
    and values, no extra key; a list with the same items in order), or `absent: true` (the
    argument is missing or null; `absent: false`: it has a value); `optional: MATCHER`: the
    argument is missing or null, or MATCHER holds. A missing argument matches only `absent:
    true` and `optional`; a null one is "no value" except for a literal `null`, `in`,
    `equals` and `json-schema`. `args: {equals: VALUE}` (or a literal list) compares the
    call's whole arguments, for calls whose arguments are an array.

    `mode`: `superset` (the default; `partial` is the same): the listed arguments hold, others
    may be there. `exact`: also, an argument no matcher lists (at the top level, or inside an
    object a path goes through) makes the call not match. `subset`: every argument the call
    has is listed and holds; a listed argument may be missing. In every mode an argument
    holding null is read as missing: never an extra argument. `defaults: {ARG: VALUE}` reads a
    missing (or null) argument as VALUE before matching, in every mode; a call that has the
    argument is matched on its own value. `ignore: [ARG or glob]`: those arguments are neither
    compared nor counted as extra (`request_id`, `"*_id"`: an entry without a dot names a key
    at any depth a path reaches; one with dots, the whole path).
    `args: {case: KEY}` binds the whole mapping to a case key (a mapping of only `case` or
    `trace`, and `default`, is a binding, not a matcher for an argument named so).
    `quantifier` counts the matching calls among the calls named `name` (every call, without
    `name`): `any` (default, at least one), `all` (every call named `name`, and at least one),
    `none` (no call: "never ran `shell` with `rm -rf`"), or `{min, max}` (inclusive).
    Zero calls, or none named `name`: `any` and `all` fail (`all` needs at least one call),
    `none` passes, `{min, max}` passes when min is 0. A call
    that cannot be judged (arguments that are not JSON or not an object, a `regex` or
    `contains` meeting a value that is not text, a bound meeting one that is not a number, an
    item that is not a call object, no name to compare) never makes the check pass: when the
    verdict depends on it, the check fails and says which call and why.
    """
    calls = [call for call in ordered_items(values) if call is not None]  # null: no call
    # The calls `name` is about (all of them without `name`), by their index in the list.
    judged = {i: _judge_call(c, args, ctx) for i, c in enumerate(calls) if _named(c, args)}
    matched = [i for i, (status, _) in judged.items() if status == MATCH]
    unsure = [i for i, (status, _) in judged.items() if status == UNSURE]
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
            first = next(i for i, (status, _) in self.judged.items() if status != MATCH)
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
        names = [field_of(c, self.args["name_key"]) for c in self.calls]
        return f"no call is named {show(self.args['name'])} (found: {show(names, 120)}){wanted}"


@predicate(
    "call-matches-each",
    zero="as each entry's call-matches says: any and all fail; none passes",
    expect=Param(
        "call-expectations",
        required=True,
        doc="a list of {name, args, mode, defaults, ignore, quantifier} entries, each a"
        " call-matches check",
    ),
    name_key=Param("text", default="name", doc="the field (or dotted path) holding a call's name"),
    args_key=Param(
        "text", default="arguments", doc="the field (or dotted path) holding a call's arguments"
    ),
)
def call_matches_each(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome:
    """Passes when every entry of `expect` holds, each judged exactly as `call-matches` with
    that entry's `name`, `args`, `mode` (default superset), `defaults`, `ignore` and
    `quantifier` (default any).

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
            "mode": entry.get("mode", "superset"),
            "defaults": entry.get("defaults"),
            "ignore": entry.get("ignore"),
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
