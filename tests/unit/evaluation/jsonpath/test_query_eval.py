"""validator.query beyond plain paths: filters, unions, `$`, regexes and evaluation errors.

jsonpath-ng stays the oracle for every value (the comparisons are in test_jsonpath_oracle.py);
what differs on purpose is that nothing it would fail on (or recurse too deeply for) is ever
read as "no match".
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from scaling import growth
from test_oracle import reference, same

import validator.evaluation.jsonpath.fast as fast_module
from validator.evaluation.jsonpath.errors import Unevaluable
from validator.evaluation.jsonpath.plain import plan
from validator.evaluation.query import (
    MAX_JSONPATH_NG_DEPTH,
    NODE_BUDGET,
    QueryError,
    QueryEvaluationError,
    compile_query,
)


def test_sorting_values_of_different_types_is_an_evaluation_error() -> None:
    with pytest.raises(QueryEvaluationError, match="values of different types"):
        compile_query("$.a.`sorted`").find({"a": [{"b": 1}, {"b": 2}]})


# ------------------------------------------------------------------ never "no match"


def test_sub_on_a_number_is_an_evaluation_error() -> None:
    query = compile_query("$.tools[*].`sub(/_/, -)`")
    assert query.find({"tools": ["drop_table"]}) == ["drop-table"]
    with pytest.raises(QueryEvaluationError) as info:
        query.find({"tools": ["drop_table", 42]})
    assert "`sub()` applies to text, found a whole number 42" in str(info.value)
    assert info.value.expression == "$.tools[*].`sub(/_/, -)`"


def test_sub_inside_a_filter_fails_on_a_number_instead_of_matching_nothing() -> None:
    query = compile_query("$.calls[?(@.name.`sub(/_/, -)` == 'drop-database')]")
    calls = [{"name": 7}, {"name": "drop_database"}]
    with pytest.raises(QueryEvaluationError, match="applies to text"):
        query.find({"calls": calls})


def test_parent_of_the_root_is_an_evaluation_error() -> None:
    with pytest.raises(QueryEvaluationError, match="has no parent"):
        compile_query("$.`parent`").find({"a": 1})


def test_jsonpath_ng_recursion_on_a_deep_document_is_an_evaluation_error() -> None:
    document: Any = {"a": 1}
    for _ in range(sys.getrecursionlimit() * 2):
        document = {"k": document}
    # Left to jsonpath-ng (`parent`), whose `$` climbs the parent chain one call per level.
    query = compile_query("$.k..`parent`.$")
    assert not query.native
    with pytest.raises(QueryEvaluationError, match="nested too deeply"):
        query.find(document)


def test_runaway_union_chain_hits_the_node_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    # `$.k0|$.k1|...` is `$.(k0|$).(k1|$)...`: every `|$` adds the whole document again,
    # so the values grow like Fibonacci numbers.
    assert NODE_BUDGET == 10_000_000  # the documented figure
    monkeypatch.setattr(fast_module, "NODE_BUDGET", 100_000)  # reached sooner, same code
    expression = "|".join(f"$.k{i}" for i in range(60))
    document = {f"k{i}": {f"k{j}": j for j in range(60)} for i in range(60)}
    with pytest.raises(QueryEvaluationError, match="more than 100,000 values"):
        compile_query(expression).find(document)


def test_descendants_of_descendants_hit_the_node_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast_module, "NODE_BUDGET", 100_000)
    document: Any = []
    for _ in range(2000):
        document = [document]
    assert len(compile_query("$..*").find(document)) == 2000
    with pytest.raises(QueryEvaluationError, match="more than 100,000 values"):
        compile_query("$..*..*").find(document)


@pytest.mark.parametrize(
    ("members", "field", "over"),
    [
        (49_998, "b", False),  # 1 + 49,998 + 49,998 = 99,997 values
        (50_000, "b", True),  # 1 + 50,000 + 50,000: one over
        (99_999, "c", False),  # no member has `c`: nothing more is produced
        (100_000, "c", True),  # the members alone are over
    ],
)
def test_a_field_of_each_record_counts_every_value_against_the_budget(
    monkeypatch: pytest.MonkeyPatch, members: int, field: str, over: bool
) -> None:
    # `$.a[*].b` is evaluated in one pass (`_records_chain`); it must fail exactly where
    # the step-by-step evaluation fails, counting the head, the members and the matches.
    monkeypatch.setattr(fast_module, "NODE_BUDGET", 100_000)
    document = {"a": [{"b": i} for i in range(members)]}
    stepwise = fast_module._step_chain(fast_module._build_steps(plan(f"$.a[*].{field}")))
    query = compile_query(f"$.a[*].{field}")
    if over:
        with pytest.raises(Unevaluable):
            stepwise(document, document)
        with pytest.raises(QueryEvaluationError, match="more than 100,000 values"):
            query.find(document)
    else:
        assert query.find(document) == stepwise(document, document)


# ------------------------------------------------------------------ 5,000-way unions


def test_five_thousand_names_in_brackets_evaluate() -> None:
    names = [f"k{i}" for i in range(5000)]
    expression = "$[" + ",".join(f"'{n}'" for n in names) + "]"
    document = {n: i for i, n in enumerate(names)}
    document["other"] = -1
    assert compile_query(expression).find(document) == list(range(5000))


def test_five_thousand_way_bar_union_evaluates_like_jsonpath_ng() -> None:
    # jsonpath-ng itself overflows the stack on this AST (5,000 nested Child nodes), so
    # the answer is checked against its result on a short chain and the shape it implies:
    # no `k` name exists, so every step keeps just the document, and the last `.k4999`
    # finds nothing; with the last name present, one match.
    expression = "|".join(f"$.k{i}" for i in range(5000))
    query = compile_query(expression)
    assert query.native
    assert query.find({"x": 1}) == []
    assert query.find({"k4999": "last"}) == ["last"]
    short = "|".join(f"$.k{i}" for i in range(6))
    document = {"k0": {"k1": 1}, "k3": {"k4": 2}, "k5": 3}
    assert same(compile_query(short).find(document), reference(short, document))


def test_deep_expression_jsonpath_ng_must_evaluate_is_refused_when_compiled() -> None:
    expression = "$" + ".a" * (MAX_JSONPATH_NG_DEPTH + 5) + ".`parent`"
    with pytest.raises(QueryError, match=r"nests \d+ levels deep"):
        compile_query(expression)


# ------------------------------------------------------------------ regexes


@pytest.mark.parametrize(
    ("expression", "column", "message"),
    [
        ("$.toolInvocations[?(@.toolName =~ '(drop')]", 36, "missing ), unterminated subpattern"),
        ("$.t[?(@.n =~ 'ab[')]", 17, "unterminated character set"),
        ('$.t[?(@.n =~ "x\\\\qy")]', 16, "bad escape \\q"),
        ("$.t[?(@.n =~ '(a)\\\\1')]", 18, "backreferences"),
        ("$.t[?(@.n =~ 'x(?=y)')]", 16, "lookahead"),
        ("$.t[?(@.n =~ 5)]", 14, "must be quoted text"),
        ("$.t[?(@.a == 'x(' && @.n =~ 'x(')]", 31, "missing )"),
        ("$.t.`sub(/(a/, b)`", 11, "invalid regular expression '(a' in sub()"),
        ("$.t.`sub(/a$b/, c)`", 12, "`$` is supported only at the end"),
        ("$.t.`sub(/(a)/, \\\\2)`", 19, "invalid replacement"),
        ("$.t.`sub(/a*/, b)`", 11, "must not be able to match empty text"),
        ("$.t.`sub(/(a?b?)*c/, x)`", 11, "must not repeat a part that can match empty text"),
    ],
)
def test_bad_regex_is_a_compile_error_at_its_column(
    expression: str, column: int, message: str
) -> None:
    with pytest.raises(QueryError) as info:
        compile_query(expression)
    assert message in info.value.message, info.value
    assert info.value.column == column, info.value.caret_lines()


def test_intersection_is_a_compile_error_at_the_ampersand() -> None:
    with pytest.raises(QueryError) as info:
        compile_query("$.a & $.b")
    assert info.value.column == 5
    assert "intersection" in info.value.message


@pytest.mark.parametrize(
    "expression", ["$.v[?(@ =~ '^(a+)+$')]", "$.v[*].`sub(/^(a+)+$/, b)`", "$..[?(@ =~ '(a|a)*c')]"]
)
def test_catastrophic_regexes_finish(expression: str) -> None:
    document = {"v": ["a" * 31 + "!", "aaa"]}
    query = compile_query(expression)
    result = query.find(document)
    # Linear: twice the text costs at most about twice (backtracking: thousands of times).
    small, large = {"v": ["a" * 12 + "!"]}, {"v": ["a" * 24 + "!"]}
    ratio = growth(lambda: query.find(small), lambda: query.find(large), inner=200)
    assert ratio < 3, ratio
    if "sub" in expression:
        assert result == ["b"]  # only "aaa" changes; unchanged values are not matches
    else:
        assert result == (["aaa"] if "a+" in expression else [])


def test_regex_keeps_python_meaning_in_filters() -> None:
    query = compile_query("$.v[?(@ =~ '^\\\\d+$')]")  # \d is Unicode in Python, ASCII in RE2
    assert query.find({"v": ["١٢", "12", "12\n", "x"]}) == ["١٢", "12", "12\n"]


# ------------------------------------------------------------------ big traces


@pytest.mark.slow  # benchmark-like: measures how a cost grows
def test_descendant_filter_on_a_big_trace_is_linear() -> None:
    calls = [
        {"toolName": f"t{i}", "status": "error" if i % 97 == 0 else "ok", "rows": [{"v": i}] * 5}
        for i in range(20_000)
    ]
    document = {"toolInvocations": calls}
    query = compile_query("$..[?(@.status == 'error')]")
    found = query.find(document)
    assert [c["toolName"] for c in found] == [f"t{i}" for i in range(0, 20_000, 97)]
    assert json.dumps(found[:1])
    # Linear: twice the calls cost about twice.
    half = {"toolInvocations": calls[:5_000]}
    whole = {"toolInvocations": calls[:10_000]}
    ratio = growth(lambda: query.find(half), lambda: query.find(whole), repeats=3)
    assert ratio < 3, ratio
