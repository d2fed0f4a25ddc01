"""Tests for validator.evaluation.query: compiling, errors with their column, the fast flag,
evaluation that never fails silently. The comparisons with jsonpath-ng, the oracle for every
evaluated value, are in test_jsonpath_oracle.py."""

from __future__ import annotations

import pickle
import sys
from typing import Any

import pytest

from validator.evaluation.query import Query, QueryError, QueryEvaluationError, compile_query

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
    # A query with no plan (an AST node the planner does not know) is evaluated by
    # jsonpath-ng: this exercises that branch.
    # It used to return [] ("no match"), which let an `absent` check pass unexamined.
    query = Query("$.x", _ExplodingPath(error), None)
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
