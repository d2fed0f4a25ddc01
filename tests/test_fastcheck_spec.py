"""The fast spec pre-check must agree with jsonschema on every spec document it is shown.

Every run loads the standard specs; with this pre-check a run imports jsonschema only when a
spec file has a problem to report.
"""

from __future__ import annotations

import copy
from typing import Any

from conftest import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validator.loading.fastcheck import (
    SPEC_CHECKS,
    SPEC_REQUIRED,
    SPEC_SCHEMA_FINGERPRINT,
    schema_fingerprint,
    spec_is_valid_fast,
)
from validator.loading.schema import _validator, load_schema
from validator.loading.yamlfile import load_yaml


def schema_valid(doc: Any) -> bool:
    return next(iter(_validator("spec").iter_errors(doc)), None) is None


SHIPPED = [
    load_yaml(p).data
    for folder in (REPO / "specs", REPO / "examples" / "otel-genai" / "specs")
    for p in sorted(folder.rglob("*.yaml"))
]


def test_spec_fastcheck_is_in_step_with_the_schema() -> None:
    schema = load_schema("spec")
    assert set(SPEC_CHECKS) == set(schema["properties"])
    assert set(SPEC_REQUIRED) == set(schema["required"])
    new = schema_fingerprint(schema)
    assert new == SPEC_SCHEMA_FINGERPRINT, (
        "spec.schema.json changed its validation rules: update the spec checks in"
        f" validator/loading/fastcheck.py, run this file, then set SPEC_SCHEMA_FINGERPRINT to {new}"
    )


def test_every_shipped_spec_passes_the_fast_path() -> None:
    assert SHIPPED
    for doc in SHIPPED:
        assert spec_is_valid_fast(doc), doc["id"]


ODD = st.sampled_from(
    [
        None,
        "",
        "x",
        "$.a",
        0,
        1,
        1.5,
        True,
        False,
        [],
        [""],
        ["$.a"],
        ["$.a", 3],
        {},
        {"x": 1},
        "PASS",
        "keyword_coverage",
        "Bad Id",
    ]
)
KEYS = st.sampled_from(
    [
        *SPEC_CHECKS,
        "name",
        "case_id",
        "verdict",
        "tool_calls",
        "duration_ms",
        "querry",
        "predicat",
        "extra",
    ]
)


def _containers(node: Any) -> list[Any]:
    """Every mapping and list in a document, the document first."""
    out = [node]
    children = node.values() if isinstance(node, dict) else node
    for child in children:
        if isinstance(child, (dict, list)):
            out += _containers(child)
    return out


@st.composite
def mutated(draw: st.DrawFn) -> Any:
    """A shipped spec with a few random edits anywhere in it: near-valid documents."""
    doc = copy.deepcopy(draw(st.sampled_from(SHIPPED)))
    for _ in range(draw(st.integers(0, 2))):
        node = draw(st.sampled_from(_containers(doc)))
        action = draw(st.sampled_from(["set", "set", "drop", "empty"]))
        if isinstance(node, dict):
            if action == "drop" and node:
                node.pop(draw(st.sampled_from(sorted(node))))
            elif action == "empty":
                node.clear()
            else:  # mostly an existing key (a wrong type), sometimes any key
                key = draw(st.sampled_from(sorted(node)) | KEYS) if node else draw(KEYS)
                node[key] = copy.deepcopy(draw(ODD))
        elif action == "drop" and node:
            node.pop(draw(st.integers(0, len(node) - 1)))
        elif action == "empty":
            node.clear()
        else:
            node.append(copy.deepcopy(draw(ODD)))
    return doc


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=mutated())
def test_fast_answer_agrees_with_jsonschema(doc: Any) -> None:
    if spec_is_valid_fast(doc):
        assert schema_valid(doc), "the fast path accepted a spec jsonschema rejects"
    else:
        assert not schema_valid(doc), (
            "the fast path rejected a valid spec (only slower, but out of step)"
        )


def _paths(node: Any, path: tuple = ()) -> list[tuple]:
    """The path of every mapping and list in a document."""
    out = [path]
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, child in items:
        if isinstance(child, (dict, list)):
            out += _paths(child, (*path, key))
    return out


def _at(doc: Any, path: tuple) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def test_every_single_edit_of_a_shipped_spec_gets_the_same_answer() -> None:
    """Exhaustive: each key of each mapping (and each list item) of each shipped spec replaced
    by each odd value, or removed; the fast answer must be jsonschema's."""
    odd_values = ODD.elements
    checked = 0
    for original in SHIPPED:
        for path in _paths(original):
            node = _at(original, path)
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            for key in keys:
                for value in [*odd_values, "<drop>"]:
                    doc = copy.deepcopy(original)
                    target = _at(doc, path)
                    if value == "<drop>":
                        del target[key]
                    else:
                        target[key] = copy.deepcopy(value)
                    assert spec_is_valid_fast(doc) == schema_valid(doc), (path, key, value)
                    checked += 1
    assert checked > 1000
