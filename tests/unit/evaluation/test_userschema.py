"""Spec `inputs:` schemas follow the rules of a call-matches `json-schema` matcher: refs stay
inside the input's own schema, nothing is retrieved, patterns run on the linear-time engine.
No command but `capture` opens a network connection (socket is patched to prove it)."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

SPEC = """id: shape
description: the input has the right shape
inputs:
  tree:
{schema}
    default: null
when_input: tree
query: $.finalAnswer
predicate: exists
"""


def _suite(tmp_path: Path, schema: str, value: str = "{children: [{children: []}]}") -> Path:
    (tmp_path / "specs").mkdir()
    (tmp_path / "cases").mkdir()
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "specs" / "shape.yaml").write_text(SPEC.format(schema=schema), "utf-8")
    (tmp_path / "cases" / "c1.yaml").write_text(
        f"id: c1\nquestion: q\nchecks: [shape]\ntree: {value}\n", "utf-8"
    )
    (tmp_path / "fixtures" / "c1.json").write_text(
        '{"caseId": "c1", "question": "q", "finalAnswer": "hi"}', "utf-8"
    )
    return tmp_path


def _run(root: Path) -> Any:
    return run_cli(
        "run", "--cases", "cases", "--specs", "specs", "--fixtures", "fixtures",
        "--out", "out", "--jobs", "1", cwd=root,
    )  # fmt: skip


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    tried: list[Any] = []

    def refuse(self: Any, address: Any, *args: Any) -> None:
        tried.append(address)
        raise OSError("network use in a test of an offline command")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: refuse(None, a))
    return tried


RECURSIVE = """    $defs:
      node:
        type: object
        properties:
          children: {type: array, items: {$ref: "#/$defs/node"}}
    $ref: "#/$defs/node\""""


def test_a_recursive_ref_resolves_against_the_inputs_own_schema(tmp_path: Path) -> None:
    root = _suite(tmp_path, RECURSIVE)
    result = _run(root)
    assert result.code == 0, result.err
    assert "internal error" not in result.err


def test_a_recursive_ref_still_validates_the_case(tmp_path: Path) -> None:
    root = _suite(tmp_path, RECURSIVE, "{children: [{children: 3}]}")
    result = _run(root)
    assert result.code == 2
    assert "cases/c1.yaml:4:" in result.err and "tree.children[0].children" in result.err


@pytest.mark.parametrize(
    "ref", ["http://127.0.0.1:9/schema.json", "https://example.com/s.json", "file:///etc/passwd"]
)
def test_a_ref_outside_the_input_is_a_located_error_and_nothing_is_fetched(
    tmp_path: Path, no_network: list[Any], ref: str
) -> None:
    root = _suite(tmp_path, f'    $ref: "{ref}"')
    lint = run_cli("lint", "--specs", "specs", "cases", cwd=root)
    assert lint.code == 1
    assert "specs/shape.yaml:5:11: error: input 'tree'" in lint.out, lint.out
    assert "nothing is ever retrieved" in lint.out
    result = _run(root)
    assert result.code == 2
    assert "internal error" not in result.err and "Traceback" not in result.err
    assert "specs/shape.yaml:5:11" in result.err
    assert no_network == []


def test_a_case_bound_matcher_schema_with_a_remote_ref_is_never_fetched(
    tmp_path: Path, no_network: list[Any]
) -> None:
    spec = """id: calls
description: calls fit
inputs:
  args_schema: {type: object, default: null}
when_input: args_schema
query: $.view.tool_calls
predicate: call-matches
params:
  tool: lookup
  args: {order: {json-schema: {case: args_schema}}}
"""
    (tmp_path / "specs").mkdir()
    (tmp_path / "cases").mkdir()
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "specs" / "calls.yaml").write_text(spec, "utf-8")
    (tmp_path / "cases" / "c1.yaml").write_text(
        'id: c1\nquestion: q\nchecks: [calls]\nargs_schema: {$ref: "http://127.0.0.1:9/s"}\n',
        "utf-8",
    )
    (tmp_path / "fixtures" / "c1.json").write_text(
        '{"caseId": "c1", "question": "q", "finalAnswer": "hi", "toolInvocations":'
        ' [{"toolName": "lookup", "arguments": {"order": 1}, "status": "success"}]}',
        "utf-8",
    )
    result = _run(tmp_path)
    assert "internal error" not in result.err and "Traceback" not in result.err
    assert no_network == []


def test_a_pattern_without_a_linear_time_form_is_a_lint_error(tmp_path: Path) -> None:
    root = _suite(tmp_path, '    type: string\n    pattern: "^(?=a)b"', "ab")
    lint = run_cli("lint", "--specs", "specs", "cases", cwd=root)
    assert lint.code == 1
    assert "specs/shape.yaml:6:" in lint.out and "'pattern'" in lint.out, lint.out


def test_pattern_properties_in_an_input_is_refused(tmp_path: Path) -> None:
    root = _suite(tmp_path, '    type: object\n    patternProperties: {"^a": {type: string}}')
    lint = run_cli("lint", "--specs", "specs", "cases", cwd=root)
    assert lint.code == 1
    assert "specs/shape.yaml:6:5: error: input 'tree'" in lint.out, lint.out
    assert "patternProperties" in lint.out


def test_an_input_pattern_runs_in_bounded_time(tmp_path: Path) -> None:
    # Python's engine takes exponential time on this pair; the linear-time one answers at once
    root = _suite(tmp_path, '    type: string\n    pattern: "^(a+)+$"', '"' + "a" * 40 + '!"')
    result = _run(root)
    assert result.code == 2
    assert "does not match" in result.err
