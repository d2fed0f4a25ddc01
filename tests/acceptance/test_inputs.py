"""Case keys declared by specs (`inputs:`): a team's own checks read values from its cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO, Workspace, run_cli

BUDGET_SPEC = """\
id: llm-budget
description: The agent made at most max_llm_calls model calls.
inputs:
  max_llm_calls:
    description: most model calls a run may make
    type: integer
    minimum: 1
    default: 3
query: $.llmCalls[*]
predicate: count
params:
  max: {case: max_llm_calls}
"""

TOOL_SPEC = """\
id: banned-tool
description: The agent never called the case's banned_tool.
inputs:
  banned_tools:
    description: tools this case must never call
    type: array
    items: {type: string, minLength: 1}
query: $.toolInvocations[*].toolName
predicate: not-in
params:
  values: {case: banned_tools}
"""


@pytest.fixture
def team(ws: Workspace) -> Workspace:
    specs = ws.root / "specs"
    specs.mkdir()
    (specs / "llm-budget.yaml").write_text(BUDGET_SPEC, "utf-8")
    return ws


def _case(ws: Workspace, text: str, name: str = "budget") -> None:
    (ws.cases / f"{name}.yaml").write_text(text, "utf-8")


def _trace(ws: Workspace, calls: int, name: str = "budget") -> None:
    trace = {"caseId": name, "llmCalls": [{"model": "m"}] * calls}
    (ws.fixtures / f"{name}.json").write_text(json.dumps(trace), "utf-8")


def test_a_case_that_applies_only_its_own_spec_needs_no_diagnosis_keys(team: Workspace) -> None:
    _case(team, "id: budget\nchecks: [llm-budget]\nmax_llm_calls: 2\n")
    _trace(team, 2)
    assert run_cli("lint", "cases", "specs", cwd=team.root).out.endswith(
        "0 errors, 0 warnings in 2 files\n"
    )
    result = team.run()
    assert result.code == 0, result.out + result.err
    _trace(team, 3)
    result = team.run()
    assert result.code == 1
    assert "found 3 matches, but at most 2 are allowed" in json.dumps(team.case_result("budget"))


def test_an_input_left_out_gets_its_declared_default(team: Workspace) -> None:
    _case(team, "id: budget\nchecks: [llm-budget]\n")
    _trace(team, 3)
    assert team.run().code == 0
    _trace(team, 4)
    assert team.run().code == 1


def test_a_required_input_left_out_names_the_spec_that_needs_it(team: Workspace) -> None:
    (team.root / "specs" / "banned-tool.yaml").write_text(
        TOOL_SPEC.replace("banned_tools", "banned_tool"), "utf-8"
    )
    _case(team, "id: budget\nchecks: [banned-tool]\n")
    result = run_cli("lint", "cases", cwd=team.root)
    assert "cases/budget.yaml:1:1: error: missing required key 'banned_tool'" in result.out, (
        result.out
    )
    assert "(needed by banned-tool)" in result.out


def test_a_wrong_type_is_placed_on_the_value(team: Workspace) -> None:
    _case(team, "id: budget\nchecks: [llm-budget]\nmax_llm_calls: two\n")
    result = run_cli("lint", "cases", cwd=team.root)
    assert "cases/budget.yaml:3:16: error: max_llm_calls must be a whole number" in result.out, (
        result.out
    )


def test_an_unknown_key_names_the_closest_declared_input(team: Workspace) -> None:
    _case(team, "id: budget\nchecks: [llm-budget]\nmax_llm_call: 2\n")
    result = run_cli("lint", "cases", cwd=team.root)
    assert (
        "cases/budget.yaml:3:1: error: unknown key 'max_llm_call' (did you mean 'max_llm_calls'?)"
        in result.out
    ), result.out


def test_a_binding_to_a_key_no_spec_declares_is_an_error(team: Workspace) -> None:
    # banned_tool is bound, but the spec declares banned_tools
    bound = TOOL_SPEC.replace("{case: banned_tools}", "{case: banned_tool}")
    (team.root / "specs" / "banned-tool.yaml").write_text(bound, "utf-8")
    result = run_cli("lint", "specs", cwd=team.root)
    assert "[unknown-case-field]" in result.out and "did you mean 'banned_tools'?" in result.out, (
        result.out
    )


def test_two_specs_declaring_one_key_differently_is_a_spec_error(team: Workspace) -> None:
    other = BUDGET_SPEC.replace("id: llm-budget", "id: other-budget").replace(
        "type: integer", "type: string"
    )
    other = other.replace("    minimum: 1\n", "").replace("default: 3", "default: three")
    (team.root / "specs" / "other-budget.yaml").write_text(other, "utf-8")
    result = run_cli("lint", "specs", cwd=team.root)
    assert "[input-conflict]" in result.out, result.out
    assert "spec 'llm-budget'" in result.out


def test_an_input_name_and_default_are_checked(team: Workspace) -> None:
    bad = BUDGET_SPEC.replace("max_llm_calls:\n", "Max-Calls:\n").replace(
        "default: 3", "default: 0"
    )
    (team.root / "specs" / "llm-budget.yaml").write_text(bad, "utf-8")
    result = run_cli("lint", "specs", cwd=team.root)
    assert result.out.count("[bad-input]") == 1, result.out  # the name; its default is not reached
    fixed_name = BUDGET_SPEC.replace("default: 3", "default: 0")
    (team.root / "specs" / "llm-budget.yaml").write_text(fixed_name, "utf-8")
    result = run_cli("lint", "specs", cwd=team.root)
    assert (
        "specs/llm-budget.yaml:8:14: error: the default of input 'max_llm_calls' does not fit"
        in result.out
    ), result.out


def test_schema_case_lists_the_inputs_of_the_specs_in_use(team: Workspace) -> None:
    result = run_cli("schema", "case", "--specs", "specs", cwd=team.root)
    schema = json.loads(result.out)
    assert schema["properties"]["max_llm_calls"]["minimum"] == 1
    assert "root_cause_keywords" in schema["required"]  # the default plan: the diagnosis checks
    assert "max_llm_calls" not in schema["required"]  # it has a default


def test_existing_case_files_keep_working(tmp_path: Path) -> None:
    repo = REPO
    result = run_cli("lint", str(repo / "cases"), cwd=tmp_path)
    assert result.code == 0 and "0 errors, 0 warnings" in result.out, result.out
