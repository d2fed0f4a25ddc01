"""Through the command line: `lint --fixtures` reads the traces with the specs' queries.

A spec query (a check's, a clause's, a guard's) that matches nothing in any trace is a
`query-matches-nothing` warning at the spec's line, with the "did you mean" `query` gives;
an item-key parameter (`name_key`, `args_key`, `key`) that no matched item holds is an
`item-key-missing` warning with the keys the items hold. `allow_empty: true` keeps an
expected empty match quiet; `absent` is warned about only for a name spelt close to a key.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import REPO, Workspace, good_trace, run_cli

DATA = os.environ.get("TRACE_DATA", "")


def _lint(ws: Workspace, **specs: str) -> list[dict]:
    folder = ws.root / "my-specs"
    folder.mkdir(exist_ok=True)
    for name, text in specs.items():
        (folder / f"{name}.yaml").write_text(text, "utf-8")
    ws.case(checks=list(specs))
    ws.trace("db-slow", good_trace())
    result = run_cli(
        "lint",
        "--format",
        "json",
        "--specs",
        str(folder),
        "--fixtures",
        "fixtures",
        "cases",
        cwd=ws.root,
    )
    assert "Traceback" not in result.err, result.err
    document = json.loads(result.out)
    problems = document["problems"] if isinstance(document, dict) else document
    return [p for p in problems if p["code"] in ("query-matches-nothing", "item-key-missing")]


TYPO = (
    "id: no-secret\ndescription: The answer leaks no secret.\n"
    "query: $.finalAnswr\npredicate: contains-none\nparams: {keywords: [password]}\n"
)


def test_a_misspelt_query_is_a_warning_at_its_line_with_did_you_mean(ws: Workspace) -> None:
    (problem,) = _lint(ws, **{"no-secret": TYPO})
    assert problem["code"] == "query-matches-nothing"
    assert problem["severity"] == "warning"
    assert problem["file"].endswith("no-secret.yaml")
    assert (problem["line"], problem["column"]) == (3, 8)
    assert "(did you mean 'finalAnswer'?)" in problem["message"]
    assert "allow_empty: true" in problem["message"]


def test_allow_empty_and_a_query_that_matches_are_quiet(ws: Workspace) -> None:
    right = TYPO.replace("finalAnswr", "finalAnswer")
    quiet = TYPO.replace("id: no-secret", "id: quiet") + "allow_empty: true\n"
    assert _lint(ws, **{"no-secret": right, "quiet": quiet}) == []


def test_a_clause_query_and_a_guard_query_are_probed(ws: Workspace) -> None:
    spec = (
        "id: two\ndescription: d\nclauses:\n"
        "  - query: $.finalAnswer\n    predicate: exists\n"
        "  - query: $.executorAnswr\n    predicate: contains-none\n"
        "    params: {keywords: [drop]}\n"
        "    when: {query: $.selfEvaluation.verdikt, predicate: exists}\n"
    )
    found = {(p["line"], p["column"]) for p in _lint(ws, two=spec)}
    assert found == {(6, 12), (9, 19)}


@pytest.mark.parametrize(
    ("param", "value", "hint"),
    [
        ("name_key", "toolname", "did you mean 'toolName'?"),
        ("args_key", "args.x", "nor the dotted path"),
    ],
)
def test_an_item_key_no_item_holds_is_a_warning_with_the_keys_they_hold(
    ws: Workspace, param: str, value: str, hint: str
) -> None:
    spec = (
        "id: no-loop\ndescription: d\nquery: $.toolInvocations[*]\npredicate: no-repeat\n"
        f"params:\n  name_key: toolName\n  args_key: arguments\n  {param}: {value}\n"
    ).replace(f"  {param}: {'toolName' if param == 'name_key' else 'arguments'}\n", "")
    (problem,) = _lint(ws, **{"no-loop": spec})
    assert problem["code"] == "item-key-missing"
    assert problem["line"] == 7
    assert hint in problem["message"]
    assert "toolName, arguments, status, durationMs" in problem["message"]


def test_absent_is_warned_about_only_for_a_near_miss(ws: Workspace) -> None:
    fine = "id: no-error\ndescription: d\nquery: $.error\npredicate: absent\n"
    near = "id: near\ndescription: d\nquery: $.finalAnswr\npredicate: absent\n"
    (problem,) = _lint(ws, **{"no-error": fine, "near": near})
    assert problem["file"].endswith("near.yaml")


def test_on_tau2_bench_a_dotted_item_key_and_a_misspelt_field_are_found(tmp_path: Path) -> None:
    if not DATA or not (Path(DATA) / "tau2-bench").is_dir():
        pytest.skip("set TRACE_DATA to the shared trace data folder (tau2-bench)")
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(Path(DATA).resolve(), target_is_directory=True)
    suite = tmp_path / "repo" / "examples" / "tau2-bench"
    shutil.copytree(REPO / "examples" / "tau2-bench", suite)
    specs = suite / "specs"
    (specs / "no-loops.yaml").write_text(
        "id: no-loops\ndescription: d\nquery: $.view.tool_calls[*]\npredicate: no-repeat\n"
        "params: {name_key: function.name, args_key: function.arguments}\n",
        "utf-8",
    )
    (specs / "ended-normally.yaml").write_text(
        "id: ended-normally\ndescription: d\nquery: $.termination_reasn\npredicate: not-in\n"
        "params: {values: [max_steps, too_many_errors]}\n",
        "utf-8",
    )
    result = run_cli("lint", cwd=suite)
    assert result.code == 0, result.out  # warnings
    assert "specs/no-loops.yaml:5:" in result.out
    assert "name_key 'function.name'" in result.out
    assert "args_key 'function.arguments'" in result.out
    assert "specs/ended-normally.yaml:3:8: warning: $.termination_reasn matches nothing" in (
        result.out
    )
    assert "did you mean 'termination_reason'?" in result.out
