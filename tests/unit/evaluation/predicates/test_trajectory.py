"""Trajectory and budget predicates: sequence, precedes, no-repeat, compare."""

from __future__ import annotations

import os
import shutil
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest
from conftest import Workspace, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from validator.evaluation.interpreter import run_predicate
from validator.evaluation.predicates import TraceContext

CTX = TraceContext({})


def check(name: str, values: list[Any], **args: Any) -> tuple[bool, str]:
    outcome = run_predicate(name, values, args, CTX)
    return outcome.passed, outcome.message


@pytest.mark.parametrize(
    ("items", "steps", "mode", "passed"),
    [
        ([], [], "exact", True),
        ([], ["a"], "exact", False),
        (["a", "b"], ["a", "b"], "exact", True),
        (["a", "b", "c"], ["a", "b"], "exact", False),
        (["a", "x", "b"], ["a", "b"], "in-order", True),
        (["b", "a"], ["a", "b"], "in-order", False),
        (["a"], ["a", "a"], "in-order", False),  # each step uses an item of its own
        (["a", "a"], ["a", "a"], "contains", True),
        (["a"], ["a", "a"], "contains", False),
        (["b", "a"], ["a", "b"], "contains", True),
        ([], [], "contains", True),
        ([], ["a"], "contains", False),
        ([], ["a"], "only", True),  # an empty list uses nothing outside the allow-list
        (["a", "b"], ["a"], "only", False),
        (["mysql_slow_log", "mysql_explain"], ["mysql_*"], "only", True),
        (["mysql_explain"], ["mysql_*", "mysql_explain"], "contains", False),  # one item, two steps
        ([1, "1"], [1, "1"], "exact", True),
        (["1"], [1], "exact", False),  # typed: the number 1 is not the text "1"
        (["a", "b", "c"], ["a", "c", "b"], "in-order", False),  # steps longer than what fits
    ],
)
def test_sequence_modes(items: list[Any], steps: list[Any], mode: str, passed: bool) -> None:
    assert check("sequence", items, steps=steps, mode=mode)[0] is passed


def test_sequence_failures_say_what_is_missing_and_where() -> None:
    assert (
        'the first step (a) occurs in order, but "c"'
        in check("sequence", ["a", "b"], steps=["a", "c"])[1]
    )
    assert "missing b" in check("sequence", ["a"], steps=["a", "b"], mode="contains")[1]
    assert 'item 1 is "rm"' in check("sequence", ["ls", "rm"], steps=["ls"], mode="only")[1]


def test_sequence_reads_one_list_or_the_matches_and_call_objects_by_key() -> None:
    calls = [{"name": "a"}, {"name": "b"}]
    assert check("sequence", [calls], steps=["a", "b"], mode="exact", key="name")[0]
    assert check("sequence", calls, steps=["b"], mode="contains", key="name")[0]


def test_a_misspelt_mode_is_a_lint_error_with_a_suggestion(ws: Workspace) -> None:
    (ws.root / "specs").mkdir()
    (ws.root / "specs" / "order.yaml").write_text(
        "id: order\ndescription: d\nquery: $.view.tool_calls[*].name\npredicate: sequence\n"
        "params: {steps: [a], mode: inorder}\n",
        "utf-8",
    )
    result = run_cli("lint", "specs", cwd=ws.root)
    assert (
        "specs/order.yaml:5:28: error: parameter 'mode' of 'sequence' must be one of" in result.out
    ), result.out
    assert "did you mean 'in-order'?" in result.out


STEPS = st.lists(st.sampled_from(["a", "b", "c", "a*", "[ab]", "?"]), max_size=5)
ITEMS = st.lists(st.sampled_from(["a", "b", "c", "ab", "ba"]), max_size=6)


@settings(max_examples=300, deadline=None)
@given(STEPS, ITEMS, st.sampled_from(["contains", "only"]))
def test_unordered_modes_never_depend_on_the_order_of_steps(
    steps: list[str], items: list[str], mode: str
) -> None:
    results = {check("sequence", items, steps=list(p), mode=mode)[0] for p in permutations(steps)}
    assert len(results) == 1, (steps, items, mode)


@settings(max_examples=200, deadline=None)
@given(STEPS, ITEMS)
def test_contains_is_a_maximum_matching(steps: list[str], items: list[str]) -> None:
    # brute force: some assignment of distinct items to the steps exists
    from fnmatch import fnmatchcase

    def fits(step: str, item: str) -> bool:
        return fnmatchcase(item, step) if any(c in step for c in "*?[") else step == item

    expected = (
        any(
            all(fits(s, items[i]) for s, i in zip(steps, chosen, strict=True))
            for chosen in permutations(range(len(items)), len(steps))
        )
        if len(steps) <= len(items)
        else False
    )
    assert check("sequence", items, steps=steps, mode="contains")[0] is expected


def test_precedes() -> None:
    assert check("precedes", ["get_time", "write", "write"], first="get_time", then="write")[0]
    assert not check("precedes", ["write", "get_time"], first="get_time", then="write")[0]
    assert check("precedes", ["get_time"], first="get_time", then="write")[0]
    assert not check("precedes", ["get_time"], first="get_time", then="write", missing="fail")[0]


def test_no_repeat_is_the_loop_detector() -> None:
    same = [
        {"name": "q", "arguments": '{"a": 1, "b": 2}'},
        {"name": "q", "arguments": {"b": 2, "a": 1}},
    ]
    assert not check("no-repeat", same)[0]
    assert check("no-repeat", same, max_repeats=2)[0]
    different = [{"name": "q", "arguments": {"a": 1}}, {"name": "q", "arguments": {"a": 2}}]
    assert check("no-repeat", different)[0]
    assert check("no-repeat", [])[0]


@pytest.mark.parametrize(
    ("values", "args", "passed"),
    [
        ([5], {"op": "le", "value": 5}, True),  # le is inclusive
        ([5], {"op": "lt", "value": 5}, False),
        ([1200], {"op": "le", "value": "1s"}, False),  # durations in ms
        ([1.5], {"op": "le", "value": "2s", "unit": "s"}, True),
        ([], {"op": "le", "value": 3, "aggregate": "count"}, True),
        ([], {"op": "le", "value": 3}, False),  # no number: never a silent pass
        ([], {"op": "le", "value": 3, "missing": "pass"}, True),
        (["x"], {"op": "le", "value": 3}, False),
        ([True], {"op": "le", "value": 3}, False),
        ([1, 2, 3, 4, 100], {"op": "lt", "value": 50, "aggregate": "p95"}, False),  # nearest rank
        ([1, 2, 3, 4, 100], {"op": "lt", "value": 50, "aggregate": "p50"}, True),
        ([1, 2], {"op": "eq", "value": 3, "aggregate": "sum"}, True),
        ([5], {"op": "between", "min": 1, "max": 5}, True),
        ([6], {"op": "between", "min": 1, "max": 5}, False),
    ],
)
def test_compare(values: list[Any], args: dict[str, Any], passed: bool) -> None:
    assert check("compare", values, **args)[0] is passed


DATA = os.environ.get("TRACE_DATA")


@pytest.mark.skipif(not DATA, reason="set TRACE_DATA to the shared trace data folder")
def test_on_real_opentelemetry_traces_the_clock_is_read_before_the_file_is_written(
    ws: Workspace,
) -> None:
    source = Path(str(DATA)) / "otel-agent-traces"
    (ws.root / "specs").mkdir()
    (ws.root / "specs" / "order.yaml").write_text(
        "id: order\ndescription: the time is read before the file is written\n"
        "query: $.view.tool_calls[*].name\npredicate: precedes\n"
        "params: {first: get_current_time, then: write_file, missing: fail}\n",
        "utf-8",
    )
    (ws.root / "specs" / "loops.yaml").write_text(
        "id: loops\ndescription: no call repeats\nquery: $.view.tool_calls[*]\npredicate: no-repeat\n",
        "utf-8",
    )
    for path in sorted(source.glob("*.json")):
        case_id = path.stem.replace("_", "-")
        ws.case({"id": case_id, "checks": ["order", "loops"]})
        shutil.copy(path, ws.fixtures / f"{case_id}.json")
    ws.run()
    statuses = {c["case_id"]: c["status"] for c in ws.report()["cases"]}
    assert statuses and set(statuses.values()) == {"pass"}, statuses
