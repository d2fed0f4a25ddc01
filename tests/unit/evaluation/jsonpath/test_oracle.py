"""The plain-Python JSONPath evaluator against its oracle, jsonpath-ng: every differential
test of query evaluation is here.

The evaluator (validator/evaluation/jsonpath/fast.py) answers from jsonpath-ng's parsed AST;
`reference` below is jsonpath-ng's own `find` on a fresh parse, the truth for every value
and its order. They are compared on the JSONPath Compliance Test Suite (set JSONPATH_CTS to
its cts.json), on generated expressions and documents (hypothesis), and on the quirks the
evaluator mirrors on purpose. What differs on purpose (an evaluation jsonpath-ng fails on is
an error, never "no match") is tested in test_query_eval.py.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonpath_ng.ext import parse as reference_parse

from validator.evaluation.query import compile_query

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


# ------------------------------------------------------------------ values and quirks


@pytest.mark.parametrize("falsy", [0, "", False, [], {}, None, 0.0])
@pytest.mark.parametrize("expression", ["$.k", "$['k']", "$.l[0]", "$.l[*]", "$..k", "$.*.k"])
def test_falsy_values_are_matches(expression: str, falsy: Any) -> None:
    document = {"k": falsy, "l": [falsy], "o": {"k": falsy}}
    expected = reference(expression, document)
    result = compile_query(expression).find(document)
    assert same(result, expected)
    assert result and all(same([value], [falsy]) for value in result)


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


# ------------------------------------------------------------------ filters, unions, `$`

conditions = st.sampled_from(
    [
        "@.a",
        "!@.a",
        "@.a == 1",
        "@.a != 'xyz'",
        "@.a == 'xyz'",
        "@.a > 1",
        "@.a <= 'b'",
        "@.a == null",
        "@.a != null",
        "@.a == true",
        "@.a != false",
        "@.a =~ 'x'",
        "@.a =~ '^a$'",
        "@ == 1",
        "@ =~ '.'",
        "@.a == @.b",
        "@.a < @.b",
        "@.a == $.c",
        "$.c",
        "@.a && @.b",
        "@.a || @.b == 1",
        "(@.a || @.b) && !@.c",
        "@.a[0] == 1",
        "@.a.b",
        "@.*",
        "@.a.`len` > 1",
        "a",
        "@['a b'] == 1",
    ]
)


filter_expressions = st.builds(
    lambda head, cond, tail: f"{head}[?({cond})]{tail}",
    st.sampled_from(["$", "$..", "$.*", "$.a", "$..*"]),
    conditions,
    st.sampled_from(["", "", ".a", "[0]", "..b"]),
)


other_expressions = st.sampled_from(
    [
        "$.a|$.b",
        "$.a|$.b|$.c",
        "a|b|c",
        "$.a.(b|c)",
        "$..(a|b)",
        "$.a.$",
        "$['a','b']",
        "$[0,1]",
        "$[1:]",
        "$.*[::-1]",
        "$.a.`len`",
        "$..`keys`",
        "$[*].`str()`",
        "$..a|$..b",
        "$.a where b",
        "$.*.a wherenot b",
    ]
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expression=filter_expressions, document=json_documents)
def test_native_filters_match_jsonpath_ng(expression: str, document: Any) -> None:
    query = compile_query(expression)
    assert query.native, expression
    assert same(query.find(document), reference(expression, document)), expression


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expression=other_expressions, document=json_documents)
def test_unions_root_and_segments_match_jsonpath_ng(expression: str, document: Any) -> None:
    query = compile_query(expression)
    assert query.native, expression
    assert same(query.find(document), reference(expression, document)), expression


@pytest.mark.parametrize(
    ("expression", "document"),
    [
        ("$.a.`parent`", {"a": [1]}),
        ("$..`path`", {"a": [{"b": 2}]}),
        ("$.a[/b]", {"a": [{"b": 2, "a": 1}, {"b": 1}]}),
        ("$.a.`sorted`", {"a": [3, 1, 2]}),
        ("$.a[?(@.a)].`parent`", {"a": [{"a": 1}, {"b": 1}]}),
    ],
)
def test_nodes_that_look_at_parents_stay_with_jsonpath_ng(expression: str, document: Any) -> None:
    query = compile_query(expression)
    assert not query.native
    assert same(query.find(document), reference(expression, document))


@pytest.mark.parametrize(
    "expression",
    [
        "$.v[*].`sub(/_/, -)`",
        "$.v[*].`sub(/(\\\\w+)_(\\\\w+)/, \\\\2 \\\\1)`",
        "$.v[*].`sub(/^drop$/, DROP)`",
        "$.v[*].`sub(/[aeiou]+/, *)`",
        "$.v[?(@.`sub(/_/, -)` == 'mysql-explain')]",
    ],
)
def test_sub_matches_jsonpath_ng_on_text(expression: str) -> None:
    document = {"v": ["mysql_explain", "drop", "drop\n", "a_b_c", "ünï_cödé", "plain"]}
    assert same(compile_query(expression).find(document), reference(expression, document))
