"""Predicate unit tests: zero, one and several matches; falsy values versus missing ones.

Each row is (predicate, values the query matched, parameters, expected pass, message fragment).
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from validator.evaluation.interpreter import run_predicate
from validator.evaluation.predicates import PREDICATES, TraceContext, required_count
from validator.evaluation.text import shared_run

FALSY = [0, "", False, [], {}]

ROWS: list[tuple[str, list[Any], dict[str, Any], bool, str]] = [
    # exists: a value that is not null
    ("exists", [], {}, False, "nothing found"),
    ("exists", [None], {}, False, "null"),
    *[("exists", [v], {}, True, "found") for v in FALSY],
    ("exists", [None, "x"], {}, True, "found"),
    # absent: nothing, or only nulls
    ("absent", [], {}, True, "nothing found"),
    ("absent", [None], {}, True, "nothing found"),
    *[("absent", [v], {}, False, "but no value is allowed") for v in FALSY],
    ("absent", [None, "x", "y"], {}, False, 'found 2 values (the first: "x"), but none is allowed'),
    # in: at least one value, every value allowed, exact types
    ("in", [], {"values": ["PASS"]}, False, "nothing found"),
    ("in", ["PASS"], {"values": ["PASS", "REVISE"]}, True, 'found "PASS"'),
    (
        "in",
        ["PASS", "REJECT"],
        {"values": ["PASS"]},
        False,
        'the value is "REJECT", which is not one',
    ),
    ("in", ["pass"], {"values": ["PASS"]}, False, 'the value is "pass"'),
    ("in", [1], {"values": [True]}, False, "a whole number"),
    ("in", [True], {"values": [1]}, False, "true/false"),
    ("in", ["1"], {"values": [1]}, False, 'the value is "1"'),
    ("in", [0], {"values": [0]}, True, "found 0"),
    ("in", [1.0], {"values": [1]}, True, "found"),
    # not-in: no value forbidden; zero matches pass
    ("not-in", [], {"values": ["REJECT"]}, True, "no forbidden"),
    ("not-in", ["PASS"], {"values": ["REJECT"]}, True, "no forbidden"),
    ("not-in", ["PASS", "REJECT"], {"values": ["REJECT"]}, False, "forbidden"),
    ("not-in", [False], {"values": [0]}, True, "no forbidden"),
    # equals
    ("equals", [], {"value": 0}, False, "nothing found"),
    ("equals", [0], {"value": 0}, True, "equals 0"),
    ("equals", [False], {"value": 0}, False, "the value is false, but 0 is required"),
    ("equals", ["", ""], {"value": ""}, True, "equals"),
    # count: every match, nulls too
    ("count", [], {"min": 1}, False, "found 0 matches"),
    ("count", [None, 0], {"min": 2, "max": 2}, True, "2 matches"),
    ("count", [1, 2, 3], {"max": 2}, False, "found 3 matches, but at most 2 are allowed"),
    ("count", [1, 2], {"max": 0}, False, "found 2 matches, but none are allowed"),
    ("count", [1], {"min": 2, "max": 2}, False, "found 1 match, but exactly 2 are required"),
    ("count", [1], {"min": 2, "max": 3}, False, "found 1 match, but between 2 and 3 are required"),
    ("count", [1], {"min": 2}, False, "found 1 match, but at least 2 are required"),
    ("count", [1], {"max": 1}, True, "1 match"),
    ("count", [], {"min": 1}, False, "found 0 matches, but at least 1 is required"),
    ("count", [1, 2], {"max": 1}, False, "found 2 matches, but at most 1 is allowed"),
    ("count", [1, 2], {"min": 1, "max": 1}, False, "but exactly 1 is required"),
    # contains-all: exact text membership
    ("contains-all", [], {"items": []}, True, "all 0 found"),
    ("contains-all", [], {"items": ["a"]}, False, "not found: a"),
    ("contains-all", ["a", "b", "a"], {"items": ["a", "b"]}, True, "all 2 found"),
    ("contains-all", ["A"], {"items": ["a"]}, False, "not found: a"),
    ("contains-all", [7, "a"], {"items": ["a"]}, True, "not text ignored"),
    # contains-min: keyword entries in normalized text
    ("contains-min", [], {"keywords": ["x"]}, False, "no text found"),
    ("contains-min", [None], {"keywords": ["x"]}, False, "no text found"),
    (
        "contains-min",
        [""],
        {"keywords": ["x"]},
        False,
        "does not mention: x (0 of 1 keyword entries found",
    ),
    ("contains-min", [["x"]], {"keywords": ["x"]}, False, "expected text, found a list"),
    ("contains-min", [3], {"keywords": ["3"]}, False, "expected text, found a whole number"),
    ("contains-min", ["Slow **Query**"], {"keywords": ["slow query"]}, True, "found 1 of 1"),
    ("contains-min", ["a", "b"], {"keywords": ["a", "b"]}, True, "found 2 of 2"),
    (
        "contains-min",
        ["慢查询"],
        {"keywords": [["slow query", "慢查询"], "index"], "min": 1},
        True,
        "1 required",
    ),
    (
        "contains-min",
        ["慢查询"],
        {"keywords": [["slow query", "慢查询"], "index"]},
        False,
        "does not mention: index",
    ),
    ("contains-min", ["ｍｙｓｑｌ"], {"keywords": ["MySQL"]}, True, "found 1 of 1"),
    ("contains-min", ["abc"], {"keywords": ["a", "b", "z"], "min": 0.6}, True, "2 required"),
    ("contains-min", ["abc"], {"keywords": ["a", "z", "y"], "min": 0.6}, False, "2 required"),
    # contains-none
    ("contains-none", [], {"keywords": ["x"]}, True, "none found"),
    ("contains-none", [None], {"keywords": ["x"]}, True, "none found"),
    (
        "contains-none",
        ["DROP TABLE x"],
        {"keywords": ["drop table"]},
        False,
        'contains forbidden "drop table"',
    ),
    ("contains-none", [{"a": 1}], {"keywords": ["x"]}, False, "found an object"),
    ("contains-none", ["fine"], {"keywords": []}, True, "none found"),
    # a keyword that is empty once normalized (spaces, invisible characters) occurs nowhere
    ("contains-none", ["any answer"], {"keywords": [" ", "\u200b", "\u3000"]}, True, "none found"),
    ("contains-min", ["any answer"], {"keywords": [" "], "min": 1}, False, "does not mention:   ("),
    ("contains-min", ["any answer"], {"keywords": [["\u200b", "answer"]]}, True, "found 1 of 1"),
    # no-shared-run
    ("no-shared-run", ["abc"], {"other": []}, True, "nothing to compare"),
    ("no-shared-run", [], {"other": ["abc"]}, True, "nothing to compare"),
    ("no-shared-run", ["x" * 40], {"other": ["y" * 40]}, True, "no shared run"),
    (
        "no-shared-run",
        ["The **same** text here"],
        {"other": ["the same text"], "min_length": 10},
        False,
        "repeats 13 characters of the other text",
    ),
    ("no-shared-run", ["abc"], {"other": [5]}, False, "found a whole number"),
    ("sequence", ["a", "b"], {"steps": ["a", "b"]}, True, "occur in order"),
    ("sequence", ["b"], {"steps": ["a"], "mode": "only"}, False, "not one of the allowed"),
    ("sequence", ["a", "x", "b"], {"steps": ["a", "b"], "present": False}, False, "item 0 (a)"),
    ("sequence", ["b", "a"], {"steps": ["a", "b"], "present": False}, True, "does not occur"),
    ("precedes", ["a", "b"], {"first": "a", "then": "b"}, True, "comes after"),
    ("precedes", ["b"], {"first": "a", "then": "b"}, False, "before any"),
    ("no-repeat", [[{"name": "q"}, {"name": "q"}]], {}, False, "called 2 times"),
    ("no-repeat", [], {}, True, "no call repeats"),
    ("compare", [3], {"op": "le", "value": 2}, False, "expected <= 2"),
    ("compare", [], {"op": "le", "value": 2}, False, "no number found"),
    # call-matches: zero calls; one; several (tests/unit/evaluation/predicates/test_calls.py has the edge cases)
    ("call-matches", [], {"name": "shell"}, False, "no call found"),
    ("call-matches", [], {"name": "shell", "quantifier": "none"}, True, "no call found"),
    ("call-matches", [{"name": "shell", "arguments": {}}], {"name": "shell"}, True, "1 of 1"),
    (
        "call-matches",
        [{"name": "ls"}, {"name": "shell", "arguments": {"command": "rm -rf /"}}],
        {"name": "shell", "args": {"command": {"contains": "rm -rf"}}, "quantifier": "none"},
        False,
        "call 1 (shell) matches, which is forbidden",
    ),
    # matches: zero texts fail; each of several must fully match; not text fails
    ("matches", [], {"regex": "a+"}, False, "no text found"),
    ("matches", ["aaa"], {"regex": "a+"}, True, "matches"),
    ("matches", ["aaa", "ab"], {"regex": "a+"}, False, '"ab" (match 1) does not fully match'),
    ("matches", [7], {"regex": "7"}, False, "found a whole number 7"),
    # call-matches-each: every entry holds, each a call-matches; an empty list expects nothing
    ("call-matches-each", [], {"expect": []}, True, "all 0 expected calls hold"),
    (
        "call-matches-each",
        [{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": '{"x": "1"}'}],
        {"expect": [{"name": "a", "args": {"x": 1}}, {"name": "b", "args": {"x": "1"}}]},
        True,
        "all 2 expected calls hold",
    ),
    (
        "call-matches-each",
        [{"name": "a", "arguments": {"x": 1}}],
        {"expect": [{"name": "a", "args": {"x": "1"}}, {"name": "a", "quantifier": "none"}]},
        False,
        "2 of 2 expected calls do not hold: entry 1 (a):",
    ),
    (
        "call-matches-each",
        [{"name": "a", "arguments": "{not json"}],
        {"expect": [{"name": "a", "args": {"x": 1}, "quantifier": "none"}]},
        False,
        "cannot tell whether",
    ),
    # whole_words: an ASCII keyword only as a whole word
    (
        "contains-min",
        ["IVF_FLAT"],
        {"keywords": ["FLAT"], "whole_words": True},
        False,
        "does not mention: FLAT",
    ),
    ("contains-none", ["IVF_FLAT"], {"keywords": ["FLAT"], "whole_words": True}, True, "none"),
]


@pytest.mark.parametrize(("name", "values", "args", "passed", "fragment"), ROWS)
def test_predicate(
    name: str, values: list[Any], args: dict[str, Any], passed: bool, fragment: str
) -> None:
    outcome = run_predicate(name, values, args, TraceContext({}))
    assert outcome.passed is passed, outcome.message
    assert fragment in outcome.message


def test_every_predicate_has_rows_and_documentation() -> None:
    assert {row[0] for row in ROWS} == set(PREDICATES)
    for pred in PREDICATES.values():
        assert "match" in pred.doc.lower(), (
            f"{pred.name}: the doc must say what zero/several matches mean"
        )


def test_bound_parameter_of_wrong_type_fails_without_raising() -> None:
    outcome = run_predicate("in", ["PASS"], {"values": "PASS"}, TraceContext({}))
    assert not outcome.passed
    assert "parameter 'values' must be a list" in outcome.message


def test_missing_required_parameter_fails() -> None:
    outcome = run_predicate("contains-min", ["x"], {}, TraceContext({}))
    assert not outcome.passed and "parameter 'keywords' has no value" in outcome.message


@pytest.mark.parametrize(
    ("minimum", "entries", "count"),
    [(None, 4, 4), (2, 4, 2), (0.7, 10, 7), (0.75, 4, 3), (0.5, 3, 2), (1.0, 3, 3), (0.1, 3, 1)],
)
def test_required_count_is_exact(minimum: Any, entries: int, count: int) -> None:
    assert required_count(minimum, entries) == count


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(sorted(PREDICATES)),
    values=st.lists(JSON, max_size=4),
    other=st.lists(JSON, max_size=2),
)
def test_no_predicate_raises_on_any_json_value(
    name: str, values: list[Any], other: list[Any]
) -> None:
    args = {
        "values": ["PASS"],
        "value": "PASS",
        "items": ["a"],
        "keywords": ["a", ["b", "c"]],
        "other": other,
    }
    outcome = run_predicate(name, values, args, TraceContext({}))
    assert isinstance(outcome.passed, bool) and isinstance(outcome.message, str)


def _widened_one_by_one(run: str, a: str, b: str) -> str:
    """The shared text no-shared-run quotes, grown a character at a time (the oracle)."""
    i, j = a.find(run), b.find(run)
    start, end = 0, len(run)
    while i - start > 0 and j - start > 0 and a[i - start - 1] == b[j - start - 1]:
        start += 1
    while i + end < len(a) and j + end < len(b) and a[i + end] == b[j + end]:
        end += 1
    return a[i - start : i + end]


TWO_LETTERS = st.text(alphabet="ab", max_size=40)


@settings(max_examples=400, deadline=None)
@given(core=st.text(alphabet="ab", min_size=3, max_size=8), a=TWO_LETTERS, b=TWO_LETTERS)
def test_no_shared_run_quotes_the_whole_shared_stretch(core: str, a: str, b: str) -> None:
    text, other = a + core + b, b + core + a
    outcome = run_predicate(
        "no-shared-run", [text], {"other": [other], "min_length": 3, "markdown": False},
        TraceContext({}),
    )  # fmt: skip
    assert not outcome.passed
    run = shared_run(text, other, 3)
    assert run is not None and outcome.facts is not None
    assert outcome.facts["found"] == _widened_one_by_one(run, text, other)


def test_spec_schema_and_docs_name_every_predicate() -> None:
    """Editors show the schema's description as help, and the docs document each one."""

    from validator.loading.schema import load_schema

    described = load_schema("spec")["$defs"]["predicate"]["description"]
    page = (REPO / "docs" / "writing-specs.md").read_text("utf-8")
    for name in PREDICATES:
        assert name in described, f"add '{name}' to the predicate description in spec.schema.json"
        assert f"| `{name}` |" in page, f"document '{name}' in docs/writing-specs.md's table"


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(st.text(), st.text(alphabet=st.sampled_from('ab"\\\n\t\x7f\u2028中 ')), st.none()),
    st.sampled_from([5, 60, 200]),
)
def test_fast_show_renders_as_problems_show(value: Any, limit: int) -> None:
    from validator.evaluation.predicates import show as fast_show
    from validator.problems import show

    assert fast_show(value, limit) == show(value, limit)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet=st.sampled_from('ab"\\\n\t\x7f\u2028中 ')), st.text(), st.integers()
        ),
        max_size=6,
    ),
    st.sampled_from([5, 60, 200]),
)
def test_fast_show_renders_lists_as_problems_show(value: list[Any], limit: int) -> None:
    """The allowed values a message quotes (`in`, `not-in`) take the same fast path."""
    from validator.evaluation.predicates import show as fast_show
    from validator.problems import show

    assert fast_show(value, limit) == show(value, limit)


def test_a_long_text_quoted_in_a_message_is_cut_with_its_quote_closed() -> None:
    from validator.evaluation.predicates import show as fast_show
    from validator.problems import show

    long = "the run is interrupted, awaiting approval: " + "x" * 100
    assert show(long) == '"the run is interrupted, awaiting approval: xxxxxxxxxxxx..."'
    assert len(show(long)) == 60
    assert fast_show(long) == show(long)
    assert show(["a" * 100]) == "[" + '"' + "a" * 55 + "..."  # a list is cut as it is
