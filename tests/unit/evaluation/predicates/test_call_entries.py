"""Call entries as the peers' trajectory checks write them: `mode` (superset, subset,
exact), `optional`, `equals` and whole arguments, `defaults`, `ignore`, call entries as
`sequence` steps, and `present: false`; their lint problems; and a suite on real tau2-bench
traces through the command line."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import Workspace, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from validator.evaluation.interpreter import run_predicate
from validator.evaluation.predicates import TraceContext

CTX = TraceContext({})
DATA = os.environ.get("TRACE_DATA")


def call(name: str = "search", arguments: Any = None) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def matches(arguments: Any, **entry: Any) -> tuple[bool, str]:
    outcome = run_predicate("call-matches", [call(arguments=arguments)], entry, CTX)
    return outcome.passed, outcome.message


# (the call's arguments, the entry's parameters, passes, a fragment of the message)
ROWS: list[tuple[Any, dict[str, Any], bool, str]] = [
    # mode subset: every argument the call has is listed and matches; listed ones may be missing
    ({"city": "London"}, {"args": {"city": "London", "units": "c"}, "mode": "subset"}, True, ""),
    ({}, {"args": {"city": "London"}, "mode": "subset"}, True, "may be missing"),
    ({"city": None}, {"args": {"city": "London"}, "mode": "subset"}, True, "absent"),
    (
        {"city": "London", "units": "f"},
        {"args": {"city": "London"}, "mode": "subset"},
        False,
        'argument "units" is not listed (mode subset)',
    ),
    ({"city": "Paris"}, {"args": {"city": "London"}, "mode": "subset"}, False, '"Paris"'),
    (
        {"city": "London"},
        {"args": {"city": "London", "days": {"absent": False}}, "mode": "subset"},
        False,
        "expected it present",
    ),
    # mode superset is partial: extra arguments are fine, listed ones must hold
    ({"city": "London", "units": "f"}, {"args": {"city": "London"}, "mode": "superset"}, True, ""),
    ({}, {"args": {"city": "London"}, "mode": "superset"}, False, "is missing"),
    ({"city": "London", "units": "f"}, {"args": {"city": "London"}, "mode": "partial"}, True, ""),
    # exact: a null argument is read as missing, never an extra one
    ({"city": "London", "units": None}, {"args": {"city": "London"}, "mode": "exact"}, True, ""),
    # optional: missing or null, or the matcher holds
    ({}, {"args": {"page": {"optional": 1}}}, True, "absent (optional)"),
    ({"page": None}, {"args": {"page": {"optional": 1}}}, True, "absent (optional)"),
    ({"page": 1}, {"args": {"page": {"optional": 1}}}, True, ""),
    ({"page": 2}, {"args": {"page": {"optional": 1}}}, False, "is 2, not 1"),
    ({"page": -1}, {"args": {"page": {"optional": {"gt": 0}}}}, False, "expected > 0"),
    ({"page": "1"}, {"args": {"page": {"optional": 1}}}, False, 'is "1", not 1'),
    # defaults: a missing argument is read as its default, in every mode
    (
        {"q": "x"},
        {"args": {"q": "x", "page": 1}, "mode": "exact", "defaults": {"page": 1}},
        True,
        "",
    ),
    (
        {"q": "x", "page": 1},
        {"args": {"q": "x", "page": 1}, "mode": "exact", "defaults": {"page": 1}},
        True,
        "",
    ),
    (
        {"q": "x", "page": 2},
        {"args": {"q": "x", "page": 1}, "mode": "exact", "defaults": {"page": 1}},
        False,
        "argument 'page' is 2, not 1",
    ),
    ({}, {"args": {"page": 1}, "defaults": {"page": 1}}, True, ""),
    ({"page": None}, {"args": {"page": 1}, "defaults": {"page": 1}}, True, ""),
    (
        {"q": "x"},
        {"args": {"q": "x", "opts.limit": 10}, "mode": "exact", "defaults": {"opts.limit": 10}},
        True,
        "",
    ),
    # in exact and subset modes a default counts as listed, expecting itself
    ({"q": "x"}, {"args": {"q": "x"}, "mode": "exact", "defaults": {"page": 1}}, True, ""),
    (
        {"q": "x", "page": 1},
        {"args": {"q": "x"}, "mode": "exact", "defaults": {"page": 1}},
        True,
        "",
    ),
    (
        {"q": "x", "page": 2},
        {"args": {"q": "x"}, "mode": "exact", "defaults": {"page": 1}},
        False,
        "argument 'page' is 2, not 1",
    ),
    (
        {"q": "x", "page": 2},
        {"args": {"q": "x"}, "mode": "subset", "defaults": {"page": 1}},
        False,
        "",
    ),
    # superset: a default fills a missing argument; an unlisted one stays free
    ({"q": "x", "page": 2}, {"args": {"q": "x"}, "defaults": {"page": 1}}, True, ""),
    # ignore: neither compared nor counted as extra, at any depth a path reaches
    (
        {"q": "x", "request_id": 5, "trace_id": "a"},
        {"args": {"q": "x"}, "mode": "exact", "ignore": ["request_id", "*_id"]},
        True,
        "",
    ),
    (
        {"q": "x", "other": 1},
        {"args": {"q": "x"}, "mode": "exact", "ignore": ["*_id"]},
        False,
        'argument "other" is not listed',
    ),
    (
        {"q": "x", "request_id": 2},
        {"args": {"q": "x", "request_id": 1}, "ignore": ["request_id"]},
        True,
        "",
    ),
    (
        {"opts": {"size": 1, "span_id": 3}},
        {"args": {"opts.size": 1}, "mode": "exact", "ignore": ["*_id"]},
        True,
        "",
    ),
    (
        {"opts": {"size": 1, "span_id": 3}},
        {"args": {"opts.size": 1}, "mode": "exact", "ignore": ["opts.span_id"]},
        True,
        "",
    ),
    (
        {"opts": {"size": 1, "span_id": 3}},
        {"args": {"opts.size": 1}, "mode": "exact", "ignore": ["span_*.x"]},
        False,
        '"opts.span_id" is not listed',
    ),
    (
        {"q": "x", "request_id": 5},
        {"args": {"q": "x"}, "mode": "subset", "ignore": ["*_id"]},
        True,
        "",
    ),
    # equals: whole and typed; an object has the same keys, a list the same items in order
    ({"filter": {"a": 1}}, {"args": {"filter": {"equals": {"a": 1}}}}, True, ""),
    ({"filter": {"a": 1, "b": 2}}, {"args": {"filter": {"equals": {"a": 1}}}}, False, "not"),
    ({"filter": {"a": 1}}, {"args": {"filter.a": 1}}, True, ""),  # a path lets extra keys in
    ({"n": "1"}, {"args": {"n": {"equals": 1}}}, False, 'is "1", not 1'),
    ({"ids": [2, 1]}, {"args": {"ids": {"equals": [1, 2]}}}, False, "not [1, 2]"),
    ({"ids": [1, 2]}, {"args": {"ids": {"equals": [1, 2]}}}, True, ""),
    ({"n": None}, {"args": {"n": {"equals": None}}}, True, ""),
    # the whole arguments: {equals: ...} or a literal list (arguments that are an array)
    ([1, 2, 3], {"args": [1, 2, 3]}, True, "the arguments are [1, 2, 3]"),
    ("[1, 2, 3]", {"args": {"equals": [1, 2, 3]}}, True, ""),
    ([1, 2], {"args": [1, 2, 3]}, False, "not [1, 2, 3]"),
    ({"a": 1}, {"args": {"equals": {"a": 1}}}, True, ""),
    ({"a": 1, "b": 2}, {"args": {"equals": {"a": 1}}}, False, "not"),
    ({"a": 1, "request_id": 2}, {"args": {"equals": {"a": 1}}, "ignore": ["*_id"]}, True, ""),
    ({"a": 1}, {"args": {"equals": {"a": 1, "page": 1}}, "defaults": {"page": 1}}, True, ""),
    ([1, 2], {"args": {"n": 1}}, False, "not an object"),
]


@pytest.mark.parametrize(("arguments", "entry", "passed", "fragment"), ROWS)
def test_call_entry(arguments: Any, entry: dict[str, Any], passed: bool, fragment: str) -> None:
    got, message = matches(arguments, **entry)
    assert got is passed, message
    assert fragment in message


def test_each_entry_of_call_matches_each_takes_the_same_keys() -> None:
    expect = [
        {
            "name": "search",
            "args": {"q": "x"},
            "mode": "exact",
            "defaults": {"page": 1},
            "ignore": ["*_id"],
        },
        {"name": "search", "args": {"q": "x", "page": 2}, "mode": "subset", "quantifier": "none"},
    ]
    expect[0]["quantifier"] = "all"
    calls = [call(arguments={"q": "x", "request_id": 1}), call(arguments={"q": "x", "page": 1})]
    outcome = run_predicate("call-matches-each", calls, {"expect": expect}, CTX)
    assert outcome.passed, outcome.message
    calls.append(call(arguments={"q": "x", "page": 2}))
    outcome = run_predicate("call-matches-each", calls, {"expect": expect}, CTX)
    assert not outcome.passed and "call 2 (search) does not match: argument 'page' is 2, not 1" in (
        outcome.message
    )


def test_quantifier_all_with_zero_calls_fails() -> None:
    outcome = run_predicate("call-matches", [], {"name": "search", "quantifier": "all"}, CTX)
    assert not outcome.passed and "no call found" in outcome.message


# --------------------------------------------------------------------------------------------
# Ordered calls with arguments, and a forbidden order

WEATHER = [
    call("get_weather", {"city": "London"}),
    call("search", {"q": "umbrellas"}),
    call("get_weather", {"city": "SF"}),
]
LONDON = {"name": "get_weather", "args": {"city": "London"}}
SF = {"name": "get_weather", "args": {"city": "SF"}}


def sequence(steps: list[Any], values: list[Any] = WEATHER, **more: Any) -> tuple[bool, str]:
    outcome = run_predicate("sequence", values, {"steps": steps, **more}, CTX)
    return outcome.passed, outcome.message


SEQUENCE_ROWS: list[tuple[list[Any], dict[str, Any], bool, str]] = [
    ([LONDON, SF], {}, True, 'get_weather(city="London"), get_weather(city="SF") occur in order'),
    ([SF, LONDON], {}, False, 'get_weather(city="London") does not occur after it'),
    (["delete_all", SF], {"key": "name"}, False, '"delete_all" does not occur; found ['),
    ([LONDON, SF, "delete_all"], {"key": "name"}, False, "steps (get_weather(city="),
    ([LONDON, "search", SF], {"key": "name"}, True, "occur in order"),
    ([LONDON, "search", SF], {"mode": "exact", "key": "name"}, True, "exactly"),
    ([LONDON, SF], {"mode": "exact"}, False, "the first item agrees; they differ at item 1"),
    ([SF], {"mode": "exact"}, False, "(they differ at item 0)"),
    ([SF], {"mode": "contains"}, True, "the one step occurs"),
    ([SF, LONDON], {"mode": "contains"}, True, "all 2 steps occur"),
    ([SF, SF], {"mode": "contains"}, False, "each step needs an item of its own"),
    ([LONDON, SF], {"mode": "only"}, False, 'item 1 is "search"'),
    ([{"name": "get_weather"}, "search"], {"mode": "only", "key": "name"}, True, "allowed"),
    (
        [{"name": "get_weather", "args": {"city": "SF", "units": "c"}, "mode": "subset"}],
        {"mode": "contains"},
        True,
        "",
    ),
    (
        [{"name": "get_weather", "args": {"city": "SF"}, "mode": "exact", "ignore": ["x"]}],
        {},
        True,
        "",
    ),
    # present: false: the steps must not occur in that mode; the calls that formed it named
    (
        [LONDON, SF],
        {"present": False},
        False,
        "occurs: call 0 (get_weather), call 2 (get_weather)",
    ),
    ([SF, LONDON], {"present": False}, True, "does not occur"),
    (
        ["get_weather", "search"],
        {"present": False, "key": "name"},
        False,
        "call 0 (get_weather), call 1",
    ),
    (["search", "get_weather"], {"present": False, "key": "name", "mode": "exact"}, True, ""),
    ([SF, LONDON], {"present": False, "mode": "contains"}, False, "call 0 (get_weather), call 2"),
    (
        ["get_*", "search"],
        {"present": False, "mode": "only", "key": "name"},
        False,
        "forbidden order",
    ),
    ([], {"present": False}, True, "nothing is forbidden"),
]


@pytest.mark.parametrize(("steps", "more", "passed", "fragment"), SEQUENCE_ROWS)
def test_sequence_of_call_entries(
    steps: list[Any], more: dict[str, Any], passed: bool, fragment: str
) -> None:
    got, message = sequence(steps, **more)
    assert got is passed, message
    assert fragment in message


def test_a_call_that_cannot_be_judged_helps_neither_way() -> None:
    broken = [call("get_weather", '{"city": "Lon'), call("get_weather", {"city": "SF"})]
    assert not sequence([LONDON, SF], broken)[0]
    passed, message = sequence([LONDON, SF], broken, present=False)
    assert not passed and "may occur (a call could not be judged)" in message


def test_names_of_items_read_by_dotted_path() -> None:
    openai = [{"function": {"name": "a", "arguments": '{"x": 1}'}}, {"function": {"name": "b"}}]
    assert sequence(["a", "b"], openai, key="function.name")[0]
    step = {"name": "a", "args": {"x": 1}}
    assert sequence([step, "b"], openai, key="function.name", args_key="function.arguments")[0]
    outcome = run_predicate(
        "no-repeat",
        [*openai, openai[0]],
        {"name_key": "function.name", "args_key": "function.arguments"},
        CTX,
    )
    assert not outcome.passed and '"a" was called 2 times' in outcome.message
    assert run_predicate(
        "no-repeat", openai, {"name_key": "function.name", "args_key": "function.arguments"}, CTX
    ).passed
    # a key that is itself written with dots is read as it is
    otel = [{"gen_ai.tool.name": "a"}, {"gen_ai.tool.name": "b"}]
    assert sequence(["a", "b"], otel, key="gen_ai.tool.name")[0]


# --------------------------------------------------------------------------------------------
# Lint: located, with the line to write


def write_spec(ws: Workspace, params: str, predicate: str = "call-matches") -> None:
    (ws.root / "specs").mkdir(exist_ok=True)
    (ws.root / "specs" / "calls.yaml").write_text(
        f"id: calls\ndescription: d\nquery: $.view.tool_calls[*]\npredicate: {predicate}\n"
        f"params:\n{params}",
        "utf-8",
    )


def lint_problems(ws: Workspace, *args: str) -> list[dict[str, Any]]:
    result = run_cli("lint", *args, "--format", "json", cwd=ws.root)
    assert "Traceback" not in result.err
    return list(json.loads(result.out)["problems"])


@pytest.mark.parametrize(
    ("params", "where", "code", "severity", "fragment"),
    [
        ("  mode: subsett\n", "6:9", "bad-parameter", "error", "write mode: subset"),
        (
            "  args: {page: 2}\n  defaults: {page: 1}\n",
            "7:14",
            "default-never-applies",
            "warning",
            "args fixes it to 2",
        ),
        ("  args: {page: {optional: {gtt: 1}}}\n", "6:28", "bad-matcher", "error", "'gt'"),
        (
            "  args: {page: {optional: 1, gt: 0}}\n",
            "6:27",
            "bad-matcher",
            "error",
            "put them inside",
        ),
        ("  ignore: [1]\n", "6:11", "bad-parameter", "error", "a list of argument names"),
    ],
)
def test_spec_lint(
    ws: Workspace, params: str, where: str, code: str, severity: str, fragment: str
) -> None:
    write_spec(ws, params)
    problems = lint_problems(ws, "specs")
    assert [(f"{p['line']}:{p['column']}", p["code"], p["severity"]) for p in problems] == [
        (where, code, severity)
    ], problems
    assert fragment in problems[0]["message"]


def test_a_sequence_step_with_an_unknown_mode_is_located(ws: Workspace) -> None:
    write_spec(ws, "  steps: [a, {name: b, mode: exakt}]\n", predicate="sequence")
    problems = lint_problems(ws, "specs")
    assert [(p["line"], p["column"], p["code"]) for p in problems] == [(6, 30, "bad-parameter")]
    assert "step 2: mode must be one of superset, partial, subset, exact" in problems[0]["message"]
    assert "write mode: exact" in problems[0]["message"]


def test_case_entries_are_checked_where_the_case_writes_them(ws: Workspace) -> None:
    ws.case(
        {
            "id": "c",
            "tool_calls_match": [
                {"name": "search", "args": {"page": 2}, "defaults": {"page": 1}},
                {"name": "search", "mode": "subsett"},
            ],
            "tool_order": ["search", {"name": "get", "mode": "supreset"}],
        }
    )
    (ws.root / "validator.yaml").write_text("cases: cases\npacks: [agent]\n", "utf-8")
    problems = lint_problems(ws)
    found = {(p["code"], p["severity"]): p for p in problems}
    warning = found[("default-never-applies", "warning")]
    assert warning["file"].endswith("c.yaml") and "entry 1: defaults: 'page'" in warning["message"]
    errors = [p for p in problems if p["severity"] == "error"]
    assert [p["message"].split(": ", 1)[0] for p in errors] == ["tool_calls_match", "tool_order"]
    assert "write mode: subset" in errors[0]["message"]
    assert "step 2: mode must be one of" in errors[1]["message"]
    assert "write mode: superset" in errors[1]["message"]
    assert all(p["line"] > 1 and p["column"] > 1 for p in problems)


# --------------------------------------------------------------------------------------------
# On real traces: tau2-bench retail simulations (the agent pack, the view of chat messages)


def tau2_suite(root: Path, cases: dict[str, dict[str, Any]]) -> None:
    (root / "cases").mkdir(parents=True)
    config = {
        "cases": "cases",
        "fixtures": str(Path(str(DATA)) / "tau2-bench"),
        "packs": ["agent"],
        "traces": {
            "pattern": "*_retail_*.json",
            "split": "$.simulations[*]",
            "case_id": "$.task_id",
            "view": "openai-messages",
            "allow_unmatched": True,
        },
    }
    (root / "validator.yaml").write_text(yaml.safe_dump(config), "utf-8")
    for case_id, fields in cases.items():
        text = json.dumps({"id": case_id, **fields}, ensure_ascii=False)
        (root / "cases" / f"{case_id}.yaml").write_text(text, "utf-8")


@pytest.mark.skipif(not DATA, reason="set TRACE_DATA to the shared trace data folder")
def test_on_real_tau2_bench_simulations(tmp_path: Path) -> None:
    if not (Path(str(DATA)) / "tau2-bench").is_dir():
        pytest.skip("tau2-bench is not in TRACE_DATA")
    order = "#W4923227"
    cases = {
        # task 40: the payment change, exact but for the payment method; then in order
        "40": {
            "tool_calls_match": [
                {
                    "name": "modify_pending_order_payment",
                    "args": {"order_id": order},
                    "mode": "exact",
                    "ignore": ["payment_*"],
                    "quantifier": {"min": 1, "max": 1},
                }
            ],
            "tool_order": [
                "find_user_id_by_*",
                {"name": "get_order_details", "args": {"order_id": order}},
                {
                    "name": "modify_pending_order_payment",
                    "args": {"order_id": order, "payment_method_id": "credit_card_8897086"},
                    "mode": "exact",
                },
            ],
        },
        # task 27: two returns of the same items, compared whole
        "27": {
            "tool_calls_match": [
                {
                    "name": "return_delivered_order_items",
                    "args": {
                        "order_id": "#W7181492",
                        "item_ids": {"equals": ["5753502325", "9851293632"]},
                    },
                    "quantifier": {"min": 2, "max": 2},
                },
                {
                    "name": "get_user_details",
                    "args": {"user_id": "isabella_johansson_2152", "verbose": True},
                    "mode": "subset",
                },
            ]
        },
        # task 36: the reason read with its default; a default that differs fails
        "36": {
            "tool_calls_match": [
                {
                    "name": "cancel_pending_order",
                    "args": {"order_id": "#W9348897", "reason": {"optional": "ordered by mistake"}},
                    "mode": "exact",
                    "defaults": {"reason": "ordered by mistake"},
                },
            ]
        },
        # task 55 cancelled two orders one after the other: forbidden here, on purpose
        "55": {
            "forbidden_tool_order": [
                {"name": "cancel_pending_order", "args": {"order_id": "#W4836353"}},
                {"name": "cancel_pending_order", "args": {"order_id": "#W7342738"}},
            ]
        },
        # task 65 read the user before the order: the reverse order is forbidden and absent
        "65": {"forbidden_tool_order": ["get_order_details", "get_user_details"]},
    }
    tau2_suite(tmp_path, cases)
    lint = run_cli("lint", cwd=tmp_path)
    assert lint.code == 0, lint.out + lint.err
    result = run_cli("run", "--jobs", "1", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert result.code == 1, result.out + result.err
    report = json.loads((tmp_path / "out" / "report.json").read_text("utf-8"))
    status = {row["case_id"]: row["status"] for row in report["cases"]}
    assert status == {"40": "pass", "27": "pass", "36": "pass", "55": "fail", "65": "pass"}
    row = next(r for r in report["cases"] if r["case_id"] == "55")
    check = next(c for c in row["checks"] if c["check"] == "agent-forbidden-tool-order")
    assert (
        "occurs: call 9 (cancel_pending_order), call 10 (cancel_pending_order)"
        in (check["message"])
    ), check["message"]


# --------------------------------------------------------------------------------------------
# Bounded work: sequence on long traces


def counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count how often a step is compared with an item."""
    from validator.evaluation.predicates import order

    seen = [0]
    original = order.step_matches

    def counted(step: Any, item: Any, key: str | None) -> bool:
        seen[0] += 1
        return original(step, item, key)

    monkeypatch.setattr(order, "step_matches", counted)
    return seen


@pytest.mark.parametrize("mode", ["contains", "in-order"])
@pytest.mark.parametrize("glob", [False, True])
def test_sequence_work_is_bounded_by_steps_times_calls(
    monkeypatch: pytest.MonkeyPatch, mode: str, glob: bool
) -> None:
    import tracemalloc

    names = [f"tool_{i}" for i in range(200)]
    calls = [{"name": names[i % 200], "arguments": {"n": i}} for i in range(20_000)]
    steps = ["tool_*"] * 200 if glob else names
    seen = counting(monkeypatch)
    tracemalloc.start()
    outcome = run_predicate("sequence", calls, {"steps": steps, "mode": mode, "key": "name"}, CTX)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert outcome.passed, outcome.message
    # each step meets each call at most once, and names and globs meet each name once
    assert seen[0] <= len(steps) * len(calls)
    if mode == "contains":
        assert seen[0] <= len(steps) * len(names)
    else:
        assert seen[0] <= len(steps) + len(calls)
    # no table of steps x calls is held: the memory grows with the calls alone
    assert peak < 200 * len(calls)


def test_sequence_work_with_call_entries_is_steps_times_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from validator.evaluation.predicates import matchers

    seen = [0]
    original = matchers.judge_arguments

    def counted(call: Any, args: dict[str, Any], ctx: TraceContext) -> Any:
        seen[0] += 1
        return original(call, args, ctx)

    monkeypatch.setattr(matchers, "judge_arguments", counted)
    calls = [call("get", {"n": i % 20}) for i in range(600)]
    steps = [{"name": "get", "args": {"n": i}} for i in range(20)]
    outcome = run_predicate("sequence", calls, {"steps": steps, "mode": "contains"}, CTX)
    assert outcome.passed and seen[0] <= len(steps) * len(calls)


ENTRY_STEPS = st.lists(
    st.one_of(
        st.sampled_from(["a", "b", "a*"]),
        st.fixed_dictionaries(
            {"name": st.sampled_from(["a", "b", "*"])},
            optional={
                "args": st.fixed_dictionaries({"x": st.sampled_from([1, 2, {"optional": 1}])})
            },
        ),
    ),
    max_size=4,
)
ENTRY_CALLS = st.lists(
    st.fixed_dictionaries(
        {
            "name": st.sampled_from(["a", "b", "ab"]),
            "arguments": st.sampled_from([{}, {"x": 1}, {"x": 2}]),
        }
    ),
    max_size=5,
)


@settings(max_examples=200, deadline=None)
@given(ENTRY_STEPS, ENTRY_CALLS)
def test_contains_with_call_entries_is_a_maximum_matching(
    steps: list[Any], calls: list[dict[str, Any]]
) -> None:
    from itertools import permutations

    def fits(step: Any, item: dict[str, Any]) -> bool:
        return run_predicate("sequence", [item], {"steps": [step], "key": "name"}, CTX).passed

    expected = any(
        all(fits(s, calls[i]) for s, i in zip(steps, chosen, strict=True))
        for chosen in permutations(range(len(calls)), len(steps))
    )
    got = run_predicate("sequence", calls, {"steps": steps, "mode": "contains", "key": "name"}, CTX)
    assert got.passed is expected, (steps, calls, got.message)
    negated = run_predicate(
        "sequence",
        calls,
        {"steps": steps, "mode": "contains", "key": "name", "present": False},
        CTX,
    )
    assert negated.passed is (not expected or not steps)


@pytest.mark.parametrize(
    ("default", "fixed", "warned"),
    [
        (1, 1.0, False),
        (1, 1, False),
        (True, 1, True),
        (1, 2, True),
        ({"a": [1]}, {"a": [1]}, False),
    ],
)
def test_a_default_warns_only_when_args_fixes_another_value(
    default: Any, fixed: Any, warned: bool
) -> None:
    from validator.evaluation.params import defaults_problems

    found = defaults_problems({"page": default}, {"page": {"equals": fixed}})
    assert [p.code for p in found if p.warning] == (["default-never-applies"] if warned else [])
