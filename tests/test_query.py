"""Tests for validator.query: jsonpath-ng is the oracle for every evaluated value."""

from __future__ import annotations

import json
import os
import pickle
import sys
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonpath_ng.ext import parse as reference_parse

from validator.evaluation.query import Query, QueryError, QueryEvaluationError, compile_query

CTS_ENV = "JSONPATH_CTS"


def reference(expression: str, document: Any) -> list[Any]:
    """What the brief defines as the truth: jsonpath-ng ext, values in match order."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        path = reference_parse(expression)
    return [match.value for match in path.find(document)]


def same(left: list[Any], right: list[Any]) -> bool:
    """Equal values with equal JSON types (so ``1 == True`` does not hide a mismatch)."""
    return json.dumps(left, sort_keys=False) == json.dumps(right, sort_keys=False)


# ------------------------------------------------------------------------- CTS


def _cts_cases() -> list[Any]:
    path = os.environ.get(CTS_ENV)
    if not path:
        return [
            pytest.param(
                None,
                id="cts-not-configured",
                marks=pytest.mark.skip(
                    reason=f"set {CTS_ENV} to the path of cts.json (JSONPath Compliance "
                    "Test Suite) to run the differential test against jsonpath-ng"
                ),
            )
        ]
    with open(path, encoding="utf-8") as handle:
        tests = json.load(handle)["tests"]
    return [
        pytest.param(test, id=f"{number:03d}-{test['name']}")
        for number, test in enumerate(tests)
        if not test.get("invalid_selector")
    ]


_CTS_FAST: list[str] = []
_CTS_COMPARED: list[str] = []


@pytest.mark.parametrize("case", _cts_cases())
def test_cts_matches_jsonpath_ng(case: dict[str, Any]) -> None:
    selector, document = case["selector"], case["document"]
    try:
        expected = reference(selector, document)
    except Exception as exc:  # any reference failure means "not comparable"
        pytest.skip(f"jsonpath-ng does not evaluate this selector: {type(exc).__name__}")
    query = compile_query(selector)
    actual = query.find(document)
    assert same(actual, expected), (selector, query.fast)
    _CTS_COMPARED.append(selector)
    if query.fast:
        _CTS_FAST.append(selector)


def test_cts_some_took_the_fast_path() -> None:
    # Runs after the parametrized cases (definition order), so the counters are full.
    if not os.environ.get(CTS_ENV):
        pytest.skip(f"set {CTS_ENV} to the path of cts.json to count fast-path CTS cases")
    if not _CTS_COMPARED:
        pytest.skip("CTS cases were deselected in this run")
    print(f"CTS: {len(_CTS_COMPARED)} compared, {len(_CTS_FAST)} on the fast path")
    assert len(_CTS_FAST) > 0


# ------------------------------------------------------------------ hypothesis

KEYS = ["a", "b", "c", "a b", "null", "1"]

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=3),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
    st.sampled_from(["", "a", "xyz"]),
)
json_documents = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(KEYS), children, max_size=4),
    ),
    max_leaves=25,
)

# Segment spellings that must all stay on the fast path.
name_segments = st.sampled_from([".a", ".b", ".c", "['a b']", '["a"]', "['b']", ".null", "['1']"])
index_segments = st.integers(min_value=-4, max_value=4).map(lambda n: f"[{n}]")
wildcard_segments = st.sampled_from(["[*]", ".*"])
descendant_segments = st.sampled_from(["..a", "..b", "..c", "..*", "..[0]", "..[-1]", "..['a b']"])
segments = st.one_of(name_segments, index_segments, wildcard_segments, descendant_segments)
fast_expressions = st.builds(
    lambda root, parts: root + "".join(parts),
    st.sampled_from(["$", "$", "$", " $"]),
    st.lists(segments, max_size=5),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expression=fast_expressions, document=json_documents)
def test_fast_path_matches_jsonpath_ng(expression: str, document: Any) -> None:
    query = compile_query(expression)
    assert query.fast, expression
    assert same(query.find(document), reference(expression, document))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    head=st.lists(name_segments, max_size=2),
    star=wildcard_segments,
    tail=st.lists(name_segments, min_size=1, max_size=2),
    document=json_documents,
)
def test_a_field_of_every_entry_matches_jsonpath_ng(
    head: list[str], star: str, tail: list[str], document: Any
) -> None:
    # `$.a[*].b`, how specs read a field of every entry of a list (tool names), on
    # documents where the list holds the field and where it does not.
    expression = "$" + "".join(head) + star + "".join(tail)
    query = compile_query(expression)
    assert query.fast
    assert same(query.find(document), reference(expression, document))
    assert same(
        query.find({"a": [document, {"b": document}]}),
        reference(expression, {"a": [document, {"b": document}]}),
    )


@settings(max_examples=150, deadline=None)
@given(
    first=st.sampled_from(["a", "b", "c"]),
    rest=st.lists(st.one_of(name_segments, index_segments, wildcard_segments), max_size=3),
    document=json_documents,
)
def test_bare_leading_name_matches_jsonpath_ng(first: str, rest: list[str], document: Any) -> None:
    # jsonpath-ng accepts a path without `$`; its first name applies to the document.
    expression = first + "".join(rest)
    query = compile_query(expression)
    assert query.fast
    assert same(query.find(document), reference(expression, document))


slow_expressions = st.sampled_from(
    [
        "$[?(@.a)]",
        "$..[?(@.b == 1)]",
        "$[0:2]",
        "$[::-1]",
        "$['a','b']",
        "$[0,1]",
        "$.a.`len`",
        "$.*.`keys`",
        "@.a",
        "$.a.$",
        "$.a.`parent`",
        "$[?(@.a > 1)].b",
    ]
)


@settings(max_examples=200, deadline=None)
@given(expression=slow_expressions, document=json_documents)
def test_slow_path_matches_jsonpath_ng_and_never_raises(expression: str, document: Any) -> None:
    query = compile_query(expression)
    assert not query.fast
    try:
        expected = reference(expression, document)
    except Exception:  # jsonpath-ng itself fails: we must return []
        expected = []
    assert same(query.find(document), expected)


# ----------------------------------------------------------------------- units


@pytest.mark.parametrize(
    ("expression", "column", "message_part", "caret"),
    [
        ("$.a[", 5, "unexpected end of expression", ["  $.a[", "      ^"]),
        ("$.a ? b", 5, "unexpected '?'", ["  $.a ? b", "      ^"]),
        ("$$", 2, "unexpected '$'", ["  $$", "   ^"]),
        ("", 1, "empty expression", ["  ", "  ^"]),
        ("   ", 1, "empty expression", ["     ", "  ^"]),
        ("$.#", 3, "unexpected character '#'", ["  $.#", "    ^"]),
        ("$['a", 5, "closing quote", ["  $['a", "      ^"]),
        ("$.a\n.b ?", 8, "unexpected '?'", ["  $.a .b ?", "         ^"]),
        ("$.where", 3, "['where']", ["  $.where", "    ^"]),
        ("$.a.`foo`", 5, "unknown named operator", ["  $.a.`foo`", "      ^"]),
    ],
)
def test_query_error_column_and_caret(
    expression: str, column: int, message_part: str, caret: list[str]
) -> None:
    with pytest.raises(QueryError) as info:
        compile_query(expression)
    error = info.value
    assert error.expression == expression
    assert error.column == column
    assert message_part in error.message
    assert error.caret_lines() == caret
    assert isinstance(error, ValueError)
    assert message_part in str(error)


@pytest.mark.parametrize("value", [None, 3, b"$.a", ["$.a"], {"$": 1}])
def test_non_string_expression_is_a_query_error(value: Any) -> None:
    with pytest.raises(QueryError, match="must be a string"):
        compile_query(value)


def test_query_error_pickles() -> None:
    with pytest.raises(QueryError) as info:
        compile_query("$.a[")
    clone = pickle.loads(pickle.dumps(info.value))
    assert (clone.expression, clone.column, clone.message) == (
        info.value.expression,
        info.value.column,
        info.value.message,
    )


def test_memoized_same_object() -> None:
    first = compile_query("$.memo[*].x")
    assert compile_query("$.memo[*].x") is first
    assert compile_query("".join(["$.memo", "[*].x"])) is first  # equal, not identical, str
    assert compile_query("$.memo[*].y") is not first


@pytest.mark.parametrize("falsy", [0, "", False, [], {}, None, 0.0])
@pytest.mark.parametrize("expression", ["$.k", "$['k']", "$.l[0]", "$.l[*]", "$..k", "$.*.k"])
def test_falsy_values_are_matches(expression: str, falsy: Any) -> None:
    document = {"k": falsy, "l": [falsy], "o": {"k": falsy}}
    expected = reference(expression, document)
    result = compile_query(expression).find(document)
    assert same(result, expected)
    assert result and all(same([value], [falsy]) for value in result)


@pytest.mark.parametrize(
    ("expression", "fast"),
    [
        ("$", True),
        ("$.a.b", True),
        ("$['a b']", True),
        ('$["a"]', True),
        ("$.a[*].b", True),
        ("$.a[0]", True),
        ("$.a[-1]", True),
        ("$..name", True),
        ("$.a[*].b[0].c", True),
        ("$.a..b", True),
        ("$.*", True),
        ("a.b", True),
        ("$[?(@.a)]", False),
        ("$[1:2]", False),
        ("$['a','b']", False),
        ("$[0,1]", False),
        ("$.a.`len`", False),
        ("@.a", False),
        ("$.a.$", False),
    ],
)
def test_fast_flag(expression: str, fast: bool) -> None:
    assert compile_query(expression).fast is fast


ODD_DOCUMENT: dict[str, Any] = {
    "a": {"b": {"c": 1}},
    "n": None,
    "s": "text",
    "l": [1, {"x": 2}, [3, {"x": 4}]],
    "d": {"0": "zero", "x": 5},
    "a b": 6,
    "null": 7,
    "1": 8,
}


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("$.n", [None]),  # a key whose value is None matches
        ("$.l.x", []),  # a field step on a list yields nothing
        ("$.s.x", []),  # ... and on a string
        ("$.s[*]", []),  # [*] on a string does not iterate characters
        ("$.d[*]", ["zero", 5]),  # [*] on a dict yields its values
        ("$.d[0]", []),  # [N] on a dict yields nothing, even with a "0" key
        ("$.l[-1][0]", [3]),
        ("$.l[3]", []),
        ("$.l[-4]", []),
        ("$..x", [2, 4, 5]),  # pre-order: list items before the later "d" member
        ("$['a b']", [6]),
        ("$.null", [7]),  # `null` is a field name here
        ("$.01", [8]),  # a number as a name is its int() spelling
        ("a.b.c", [1]),  # no leading `$`
    ],
)
def test_mirrored_jsonpath_ng_quirks(expression: str, expected: list[Any]) -> None:
    query = compile_query(expression)
    assert query.fast
    assert query.find(ODD_DOCUMENT) == expected
    assert same(reference(expression, ODD_DOCUMENT), expected)


@pytest.mark.parametrize("document", [None, True, 0, 1.5, "", "abc", [], {}, [[]], {"a": []}])
@pytest.mark.parametrize(
    "expression", ["$", "$.a", "$[*]", "$[0]", "$..a", "$..*", "$.a[?(@.b > 1)]", "$[1:]"]
)
def test_find_on_any_json_value(expression: str, document: Any) -> None:
    assert same(compile_query(expression).find(document), reference(expression, document))


def _nested(depth: int) -> Any:
    document: Any = {"a": 1}
    for _ in range(depth):
        document = {"k": [document]}
    return document


def test_deep_document_never_raises() -> None:
    document = _nested(sys.getrecursionlimit() * 3)
    assert compile_query("$..a").find(document) == [1]
    assert len(compile_query("$..*").find(document)) > sys.getrecursionlimit()
    assert compile_query("$.k[0].k[0].k").find(document)[0][0]["k"][0]["k"]
    # jsonpath-ng recursion (filters re-enter find per node) must be contained.
    result = compile_query("$..[?(@.a == 1)]").find(document)
    assert isinstance(result, list)


class _ExplodingPath:
    def __init__(self, error: BaseException) -> None:
        self.error = error

    def find(self, _document: Any) -> Any:
        raise self.error


def test_very_long_expression_compiles_and_never_raises() -> None:
    expression = "$" + ".a" * (sys.getrecursionlimit() * 2)
    query = compile_query(expression)
    document: Any = 1
    for _ in range(sys.getrecursionlimit() * 2):
        document = {"a": document}
    result = query.find(document)
    assert result in ([1], [])  # [] only if jsonpath-ng had to evaluate and overflowed


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (RecursionError("too deep"), "nested too deeply"),
        (TypeError("'<' not supported"), "values of different types ('<' not supported)"),
    ],
)
def test_slow_path_exception_is_an_evaluation_error(error: BaseException, reason: str) -> None:
    # An unknown AST node type is never planned, so this exercises the jsonpath-ng branch.
    # It used to return [] ("no match"), which let an `absent` check pass unexamined.
    query = Query("$.x", _ExplodingPath(error))  # type: ignore[arg-type]
    assert not query.fast
    with pytest.raises(QueryEvaluationError) as info:
        query.find({"x": 1})
    assert info.value.expression == "$.x"
    assert reason in info.value.reason


def test_query_repr_and_type() -> None:
    query = compile_query("$.r")
    assert isinstance(query, Query)
    assert query.expression == "$.r"
    assert "fast=True" in repr(query)
