"""The fast case pre-check must agree with jsonschema: it may skip jsonschema only for files
jsonschema would find nothing wrong with, and it must know exactly the schema's rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validator.loading import fastcheck
from validator.loading.fastcheck import (
    CHECKS,
    REQUIRED,
    SCHEMA_FINGERPRINT,
    case_is_valid_fast,
    schema_fingerprint,
)
from validator.loading.schema import _validator, load_schema, schema_problems
from validator.loading.yamlfile import load_yaml, load_yaml_text

STALE = (
    "validator/schemas/case.schema.json changed its validation rules: update the checks in"
    " validator/loading/fastcheck.py to match, run this test file, then set SCHEMA_FINGERPRINT"
    " to {new}"
)


def schema_valid(doc: Any) -> bool:
    """The reference answer: the project's own jsonschema validator finds no error."""
    return next(iter(_validator("case").iter_errors(doc)), None) is None


# --------------------------------------------------------------------------------------------
# In step with the schema


def test_fastcheck_knows_exactly_the_schema_keys() -> None:
    schema = load_schema("case")
    assert set(CHECKS) == set(schema["properties"]), (
        "case.schema.json and fastcheck.CHECKS list different keys: add or remove the key's"
        " check in validator/loading/fastcheck.py"
    )
    assert set(REQUIRED) == set(schema["required"]), (
        "case.schema.json and fastcheck.REQUIRED disagree on the required keys"
    )
    assert schema.get("additionalProperties") is False


def test_fastcheck_fingerprint_matches_the_shipped_schema() -> None:
    new = schema_fingerprint(load_schema("case"))
    assert new == SCHEMA_FINGERPRINT, STALE.format(new=new)


def test_descriptions_do_not_change_the_fingerprint() -> None:
    schema = load_schema("case")
    edited = {**schema, "description": "reworded", "title": "another title"}
    edited["properties"] = {
        k: {**v, "description": f"new words for {k}"} for k, v in schema["properties"].items()
    }
    assert schema_fingerprint(edited) == schema_fingerprint(schema)
    stricter = {**schema, "properties": {**schema["properties"]}}
    stricter["properties"]["question"] = {"type": "string", "minLength": 5}
    assert schema_fingerprint(stricter) != schema_fingerprint(schema)


def test_a_stale_fingerprint_switches_the_fast_path_off(monkeypatch: pytest.MonkeyPatch) -> None:
    assert case_is_valid_fast(dict(GOOD_CASE))
    monkeypatch.setattr(fastcheck, "SCHEMA_FINGERPRINT", "0" * 64)
    fastcheck._in_step.cache_clear()
    try:
        assert not case_is_valid_fast(dict(GOOD_CASE)), "an out-of-step check must not be trusted"
    finally:
        monkeypatch.undo()
        fastcheck._in_step.cache_clear()
    assert case_is_valid_fast(dict(GOOD_CASE))


# --------------------------------------------------------------------------------------------
# Examples


def test_every_shipped_case_takes_the_fast_path() -> None:
    for path in sorted((REPO / "cases").glob("*.yaml")):
        doc = load_yaml(path)
        assert schema_valid(doc.data), path
        assert case_is_valid_fast(doc.data), f"{path.name} is valid but missed the fast path"


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("min_keyword_coverage: 2", True),
        ("min_keyword_coverage: 2.0", False),  # a decimal above 1: neither count nor share
        ("min_keyword_coverage: 1.0", True),
        ("min_keyword_coverage: 0.5", True),
        ("min_keyword_coverage: 0", False),
        ("min_keyword_coverage: 0.0", False),
        ("min_keyword_coverage: true", False),
        ("min_keyword_coverage: .nan", False),  # read as the text '.nan'
        ("min_keyword_coverage: '1'", False),
        ("min_keyword_coverage: null", False),
        ("description: ''", True),
        ("tags: []", True),
        ("checks: []", False),
        ("degraded_markers: ['']", False),
        ("forbidden_keywords: [1]", False),
        ("extra: 1", False),
    ],
)
def test_yaml_scalars_are_judged_as_jsonschema_judges_them(text: str, valid: bool) -> None:
    base = "id: db-slow\nquestion: Why?\nroot_cause_keywords: [a, [b, c]]\nrequired_tools: []\nallowed_verdicts: [PASS]\n"
    doc = load_yaml_text(base + text + "\n", "case.yaml")
    assert schema_valid(doc.data) is valid
    assert case_is_valid_fast(doc.data) is valid


@pytest.mark.parametrize("bad_id", ["Bad", "a b", "-x", "x\n", "", "é", "a/b", "db-slow\n"])
def test_bad_ids_are_never_fast(bad_id: str) -> None:
    doc = {**GOOD_CASE, "id": bad_id}
    assert not schema_valid(doc)
    assert not case_is_valid_fast(doc)


def test_invalid_files_still_get_every_jsonschema_message(tmp_path: Path) -> None:
    path = tmp_path / "db-slow.yaml"
    path.write_text(
        "id: db-slow\nquestion: ''\nroot_cause_keywords: []\nrequired_tools: [x]\n"
        "allowed_verdicts: [PASS]\nextra_key: 1\n",
        "utf-8",
    )
    doc = load_yaml(path)
    assert not case_is_valid_fast(doc.data)
    codes = {p.code for p in schema_problems(doc, "case")}
    assert {"empty-value", "empty-list", "unknown-key"} <= codes


# --------------------------------------------------------------------------------------------
# Differential: random near-valid documents

TRICKY: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    2,
    -1,
    0.0,
    -0.0,
    0.5,
    1.0,
    1.5,
    2.0,
    1e-300,
    float("nan"),
    float("inf"),
    "",
    "x",
    "X",
    "a b",
    "a\n",
    "\n",
    "é",
    "1",
    [],
    [""],
    ["a"],
    ["a", ""],
    [1],
    [None],
    [[]],
    [["a"]],
    [["a", ""]],
    [["a", 1]],
    [["a"], "b"],
    [[["a"]]],
    {},
    {"a": 1},
]

text = st.text(alphabet=st.sampled_from("ab -_.Z\n\u00e9\u6162"), max_size=4)
good_text = st.text(alphabet=st.sampled_from("abc xyz"), min_size=1, max_size=6)
good_id = st.from_regex(r"[a-z0-9][a-z0-9._-]{0,6}", fullmatch=True)
scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 5),
    st.floats(-2, 3, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, 1.0, 2.0, 0.5, 1e-300, -0.0]),
    text,
)
value = st.recursive(
    scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "id", "b"]), inner, max_size=2),
    ),
    max_leaves=6,
)
text_list = st.lists(st.one_of(good_text, good_text, scalar), max_size=3)
keyword_entry = st.one_of(good_text, st.lists(st.one_of(good_text, scalar), max_size=3), scalar)

FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "id": st.one_of(good_id, good_id, text, scalar),
    "question": st.one_of(good_text, text, scalar),
    "root_cause_keywords": st.one_of(st.lists(keyword_entry, max_size=3), value),
    "min_keyword_coverage": st.one_of(
        st.integers(-2, 6),
        st.floats(-1, 2.5, allow_nan=False, allow_infinity=False),
        st.sampled_from([0, 1, 2, 0.0, 1.0, 2.0, 0.5, 0.75, True, False, None, "1", "0.5"]),
    ),
    "required_tools": st.one_of(text_list, value),
    "allowed_verdicts": st.one_of(text_list, value),
    "forbidden_keywords": st.one_of(text_list, value),
    "forbidden_verdicts": st.one_of(text_list, value),
    "degraded_markers": st.one_of(text_list, value),
    "checks": st.one_of(text_list, value),
    "tags": st.one_of(text_list, value),
    "description": st.one_of(text, scalar),
}


VALID_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "min_keyword_coverage": st.one_of(
        st.integers(1, 4), st.floats(0, 1, exclude_min=True), st.sampled_from([1, 1.0, 0.5])
    ),
    "forbidden_keywords": st.lists(good_text, max_size=2),
    "forbidden_verdicts": st.lists(good_text, max_size=2),
    "degraded_markers": st.lists(good_text, min_size=1, max_size=2),
    "checks": st.lists(good_id, min_size=1, max_size=2),
    "tags": st.lists(good_text, max_size=2),
    "description": st.one_of(text, good_text),
}


def one_in(n: int) -> st.SearchStrategy[bool]:
    return st.sampled_from([False] * (n - 1) + [True])


@st.composite
def near_valid_cases(draw: st.DrawFn) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": draw(good_id),
        "question": draw(good_text),
        "root_cause_keywords": draw(
            st.lists(
                st.one_of(good_text, st.lists(good_text, min_size=1, max_size=2)),
                min_size=1,
                max_size=3,
            )
        ),
        "required_tools": draw(st.lists(good_text, max_size=2)),
        "allowed_verdicts": draw(
            st.lists(st.sampled_from(["PASS", "REVISE", "REJECT"]), min_size=1, max_size=2)
        ),
    }
    for key in draw(st.lists(st.sampled_from(sorted(VALID_VALUES)), max_size=4, unique=True)):
        doc[key] = draw(VALID_VALUES[key])  # optional keys
    if not draw(one_in(4)):
        key = draw(st.sampled_from(sorted(FIELD_VALUES)))
        # any value, often a wrong one, for any key
        doc[key] = draw(st.one_of(st.sampled_from(TRICKY), FIELD_VALUES[key]))
    if draw(one_in(4)):
        key = draw(st.sampled_from(REQUIRED))
        doc.pop(key, None)  # a missing required key
    if draw(one_in(8)):
        doc[draw(st.sampled_from(["extra", "Tags", "min_keywords", "check"]))] = draw(value)
    return doc


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_valid_cases())
def test_fast_answer_equals_jsonschema(doc: dict[str, Any]) -> None:
    assert case_is_valid_fast(doc) == schema_valid(doc), doc


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_valid_cases(), st.sampled_from(sorted(CHECKS)))
def test_fast_answer_equals_jsonschema_with_each_tricky_value(
    doc: dict[str, Any], key: str
) -> None:
    for tricky in TRICKY:
        changed = {**doc, key: tricky}
        assert case_is_valid_fast(changed) == schema_valid(changed), changed


@pytest.mark.parametrize("key", sorted(CHECKS))
def test_fast_answer_equals_jsonschema_for_each_key_and_tricky_value(key: str) -> None:
    for tricky in TRICKY:
        doc = {**GOOD_CASE, key: tricky}
        assert case_is_valid_fast(doc) == schema_valid(doc), (key, tricky)
    for required in REQUIRED:
        doc = {k: v for k, v in GOOD_CASE.items() if k != required}
        assert not case_is_valid_fast(doc) and not schema_valid(doc)


@settings(max_examples=300, deadline=None)
@given(st.one_of(value, st.dictionaries(st.sampled_from(sorted(CHECKS)), value, max_size=6)))
def test_fast_answer_equals_jsonschema_on_arbitrary_values(doc: Any) -> None:
    assert case_is_valid_fast(doc) == schema_valid(doc), doc
