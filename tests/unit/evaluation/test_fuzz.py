"""Property-based tests: arbitrary traces and arbitrary valid cases never break the harness.

For every generated (case, trace): evaluation never raises, each case ends in exactly one of
the four statuses, the report validates against the shipped report schema and is strict JSON,
and evaluating the same input twice gives the same result.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validator.evaluation.evaluator import evaluate_trace
from validator.inputs import standard_spec_folders
from validator.loading.schema import load_schema
from validator.loading.suite import fields_of, load_specs
from validator.model import Case, Suite
from validator.report.document import build_report
from validator.results import STATUSES, CaseResult

pytestmark = pytest.mark.slow  # fuzz

SPECS, _ = load_specs(standard_spec_folders())
FIELDS = fields_of(SPECS)
REPORT_SCHEMA = jsonschema.Draft202012Validator(load_schema("report"))

WORDS = st.sampled_from(
    ["PASS", "REJECT", "REVISE", "slow query", "慢查询", "index", "mysql_explain", "ｘ", ""]
)
TEXT = st.text(max_size=40) | WORDS
SCALAR = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT
ANY = st.recursive(
    SCALAR,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=15,
)


def _maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return strategy | ANY


TOOL = st.fixed_dictionaries(
    {}, optional={"toolName": _maybe(WORDS), "status": ANY, "durationMs": ANY}
)
TRACE = st.fixed_dictionaries(
    {},
    optional={
        "caseId": st.sampled_from(["fuzz-case"]) | ANY,
        "toolInvocations": _maybe(st.lists(TOOL, max_size=4)),
        "executorAnswer": _maybe(TEXT),
        "finalAnswer": _maybe(TEXT),
        "durationMs": ANY,
        "selfEvaluation": _maybe(
            st.fixed_dictionaries(
                {},
                optional={
                    "verifier_evaluation": _maybe(
                        st.fixed_dictionaries(
                            {},
                            optional={
                                "verdict": _maybe(WORDS),
                                "trace_summaries": _maybe(
                                    st.lists(
                                        st.fixed_dictionaries({}, optional={"tool": _maybe(WORDS)}),
                                        max_size=3,
                                    )
                                ),
                            },
                        )
                    )
                },
            )
        ),
    },
)
NONEMPTY = st.text(min_size=1, max_size=12) | WORDS.filter(bool)
KEYWORDS = st.lists(NONEMPTY | st.lists(NONEMPTY, min_size=1, max_size=3), min_size=1, max_size=4)


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    keywords = draw(KEYWORDS)
    fields: dict[str, Any] = {
        "id": "fuzz-case",
        "question": draw(NONEMPTY),
        "root_cause_keywords": keywords,
        "required_tools": draw(st.lists(NONEMPTY, max_size=3)),
        "allowed_verdicts": draw(st.lists(WORDS.filter(bool), min_size=1, max_size=3)),
    }
    optional = {
        "min_keyword_coverage": st.integers(1, len(keywords)) | st.floats(0.01, 1.0),
        "forbidden_keywords": st.lists(NONEMPTY, max_size=3),
        "forbidden_verdicts": st.lists(WORDS.filter(bool), max_size=2),
        "degraded_markers": st.lists(NONEMPTY, min_size=1, max_size=3),
        "checks": st.lists(
            st.sampled_from([s.id for s in SPECS.values() if s.is_check]), min_size=1, max_size=6
        ),
    }
    for key, strategy in optional.items():
        if draw(st.booleans()):
            fields[key] = draw(strategy)
    return fields


@settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), trace=TRACE | ANY)
def test_arbitrary_traces_and_cases_never_break_the_harness(
    case: dict[str, Any], trace: Any
) -> None:
    suite = Suite({"fuzz-case": Case("fuzz-case", "fuzz.yaml", case)}, SPECS, FIELDS)
    original = copy.deepcopy(trace)
    first = evaluate_trace(suite, trace, "fuzz-case", "f.json")
    second = evaluate_trace(suite, copy.deepcopy(original), "fuzz-case", "f.json")
    assert trace == original, "evaluation must not modify the trace"
    assert first.status in STATUSES
    assert "internal error" not in (first.reason or ""), first.reason
    result = CaseResult("fuzz-case", [first], "fuzz.yaml")
    report = build_report([result]).as_dict()
    assert (
        report["cases"]
        == build_report([CaseResult("fuzz-case", [second], "fuzz.yaml")]).as_dict()["cases"]
    )
    json.dumps(report, allow_nan=False)
    errors = sorted(REPORT_SCHEMA.iter_errors(report), key=lambda e: list(e.path))
    assert not errors, errors[0].message
