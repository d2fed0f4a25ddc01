"""Plain expressions planned from their text (jsonpath/plain.py) against jsonpath-ng's parser.

A plan plain.py makes must be the plan jsonpath-ng's AST gives (planner.py): compared on
every selector of the JSONPath Compliance Test Suite (set JSONPATH_CTS), every JSONPath of
the repository's YAML files, and generated expressions built from the pieces that sit on
the edge of the plain grammar (reserved words, digits, `-`, `@`, spaces, quotes, slices).
Where an expression is evaluated, the oracle tests (test_oracle.py) already run it through
`compile_query`, so the plans made here are evaluated against jsonpath-ng's `find` too.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from validator.evaluation.jsonpath import ng, plain, planner
from validator.evaluation.query import compile_query

REPO = Path(__file__).resolve().parents[4]


def ng_plan(expression: str) -> list[tuple[str, Any]] | None:
    """The plan of jsonpath-ng's AST, or None when its parser refuses the expression."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            path = ng.parse(expression)
    except Exception:
        return None
    try:
        return planner.plan_of(path)
    except Exception:  # not plannable: plain must not have taken it
        return None


def compare(expressions: list[str]) -> int:
    """Assert every plan plain.py makes is jsonpath-ng's; the number it made."""
    taken = 0
    for expression in expressions:
        made = plain.plan(expression)
        if made is None:
            continue
        taken += 1
        assert made == ng_plan(expression), expression
    return taken


def test_cts_selectors_plan_as_jsonpath_ng_does() -> None:
    path = os.environ.get("JSONPATH_CTS")
    if not path:
        pytest.skip("set JSONPATH_CTS to the path of cts.json to compare on its selectors")
    tests = json.loads(Path(path).read_text("utf-8"))["tests"]
    selectors = [test["selector"] for test in tests]  # invalid ones included: never taken
    assert compare(selectors) >= 15


# A JSONPath as the docs write one in text: from `$` to a space, a quote or a bracket
# that closes something around it.
_IN_TEXT = re.compile(r"\$[.\[][^\s'\"`,)}]*")


def _repository_queries() -> list[str]:
    """Every text value starting with `$` in the repository's YAML files, and every
    JSONPath-looking word of its docs."""
    from validator.loading.yamlfile import load_yaml

    found: set[str] = set()
    folders = ("specs", "examples", "docs", "validator")
    for path in [REPO / "README.md", *(REPO / "docs").rglob("*.md")]:
        found.update(_IN_TEXT.findall(path.read_text("utf-8")))
    for path in (p for f in folders for p in (REPO / f).rglob("*.y*ml")):
        stack = [load_yaml(path).data]
        while stack:
            value = stack.pop()
            if isinstance(value, dict):
                stack.extend(value.values())
            elif isinstance(value, list):
                stack.extend(value)
            elif isinstance(value, str) and value.startswith("$"):
                found.add(value)
    return sorted(found)


def test_repository_queries_plan_as_jsonpath_ng_does() -> None:
    queries = _repository_queries()
    assert len(queries) >= 80
    assert compare(queries) >= 50


# Pieces of expressions: plain segments, and their near misses.
_NAMES = ["a", "toolName", "_x", "A1", "b_2", "where", "wherenot", "null", "true", "len"]
_NAMES += ["id", "in", "this", "Where", "x-y", "@a", "1a", "01", "名", "é", "sorted", "T"]
_SEGMENTS = ["[*]", ".*", "[0]", "[12]", "[-1]", "[-0]", "[007]", "[1:2]", "[0,1]", "['a']"]
_SEGMENTS += ['["a"]', "[ 1]", "[?(@.a)]", "..*", "..", ".", "[", "|$.a", " ", "$", ".`len`"]


def _generated(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        parts = ["$"]
        for _ in range(rng.randint(0, 5)):
            roll = rng.random()
            if roll < 0.45:
                parts.append(rng.choice([".", ".."]) + rng.choice(_NAMES))
            elif roll < 0.8:
                parts.append(rng.choice(_SEGMENTS[:5]))
            else:
                parts.append(rng.choice(_SEGMENTS))
        out.append("".join(parts))
    return out


def test_generated_expressions_plan_as_jsonpath_ng_does() -> None:
    expressions = _generated(3000, seed=29)
    taken = compare(expressions)
    assert 500 <= taken < len(expressions)  # both paths exercised


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("$", []),
        ("$.finalAnswer", [("field", "finalAnswer")]),
        ("$.a.b[*].c", [("field", "a"), ("field", "b"), ("wildcard", None), ("field", "c")]),
        ("$.messages[0].content", [("field", "messages"), ("index", 0), ("field", "content")]),
        ("$.a[-1]", [("field", "a"), ("index", -1)]),
        ("$.*", [("wildcard", None)]),
        ("$..error", [("descend", None), ("field", "error")]),
    ],
)
def test_plain_expressions_are_planned(expression: str, expected: list[Any]) -> None:
    assert plain.plan(expression) == expected
    assert ng_plan(expression) == expected


@pytest.mark.parametrize(
    "expression",
    [
        "$.where",  # a word jsonpath-ng's lexer reserves: its parser refuses it
        "$.len",  # an extension's name: left to the parser, whatever it means there
        "$.tool-name",  # `-` and `@` are name characters for jsonpath-ng only
        "$['a']",
        "$.a[0:2]",
        "$.a[-0]",  # jsonpath-ng reads index 0: no second spelling here
        "$.a[007]",
        "$ .a",
        "$.a[?(@.b == 1)]",
        "$.a|$.b",
        "$..*",
        "$.名字",
        "$.a.",
        "a.b",
    ],
)
def test_other_expressions_are_left_to_jsonpath_ng(expression: str) -> None:
    assert plain.plan(expression) is None


def test_a_plain_query_still_says_where_it_matched() -> None:
    # find_located needs jsonpath-ng's AST: parsed then, for the query planned from text.
    query = compile_query("$.calls[*].name")
    assert query.fast
    found = query.find_located({"calls": [{"name": "a"}, {"name": "b"}]})
    assert found == [("$.calls[0].name", "a"), ("$.calls[1].name", "b")]


_PROBE = """
import sys
from validator.evaluation.query import compile_query
for expression in sys.argv[1:]:
    compile_query(expression)
print(any(name.startswith("jsonpath_ng") for name in sys.modules))
"""


@pytest.mark.parametrize(
    ("expressions", "loaded"),
    [
        (["$.finalAnswer", "$.toolInvocations[*].toolName", "$..error", "$.a[0]"], "False"),
        (["$.finalAnswer", "$.toolInvocations[?(@.status == 'error')]"], "True"),
    ],
)
def test_jsonpath_ng_is_loaded_only_for_what_plain_does_not_take(
    expressions: list[str], loaded: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *expressions],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    assert done.stdout.strip() == loaded
