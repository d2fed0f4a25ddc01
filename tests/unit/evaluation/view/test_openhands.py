"""The `openhands` view adapter on the real OpenHands files in TRACE_DATA/openhands (skipped
when TRACE_DATA is unset): an evaluation output line, the same events as a saved trajectory
(a top-level list), a conversation's event store (one event a file, as `group: folder`
gives it) and the older resolver output. Expected values were read by hand from the files
(and cross-checked against the totals the files record themselves)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import run_cli

from validator.evaluation.view import VIEW_SCHEMA, detect, make_view

DATA = os.environ.get("TRACE_DATA")
needs_data = pytest.mark.skipif(not DATA, reason="set TRACE_DATA to the shared trace data folder")
VALIDATOR = jsonschema.Draft202012Validator(VIEW_SCHEMA)
SESSION = "session-63b4315947a049e2b7a51249b3d4fcc3"


def _folder() -> Path:
    folder = Path(DATA or "") / "openhands"
    if not folder.is_dir():
        pytest.skip(f"{folder} is not there (TRACE_DATA names another folder?)")
    return folder


def _lines(name: str) -> list[Any]:
    text = (_folder() / name).read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _events() -> list[Any]:
    """The event store as `group: folder` makes it: the files in number order."""
    files = (_folder() / SESSION / "events").glob("*.json")
    ordered = sorted(files, key=lambda p: int(p.stem))
    return [json.loads(p.read_text("utf-8")) for p in ordered]


def _view(trace: Any) -> dict[str, Any]:
    view, adapter = make_view(trace)
    assert adapter == "openhands"
    assert not list(VALIDATOR.iter_errors(view))
    return view


@needs_data
def test_an_evaluation_line_gives_calls_results_exit_codes_and_the_finish_answer() -> None:
    line = _lines("multi_swe_bench_output.jsonl")[0]
    assert line["instance_id"] == "ponylang__ponyc-4595"
    view = _view(line)
    names = [c["name"] for c in view["tool_calls"]]
    assert len(names) == 23
    assert {n: names.count(n) for n in set(names)} == {
        "execute_bash": 13,
        "str_replace_editor": 8,
        "think": 1,
        "finish": 1,
    }
    first = view["tool_calls"][0]
    assert first["arguments"] == {"command": "ls -l /workspace/ponylang__ponyc__0.1"}
    assert first["id"] == "toolu_01"
    assert first["result"].startswith("total 300\n")
    assert first["status"] == "ok"
    assert first["duration_ms"] == pytest.approx(619.637)  # 16:32:58.441272 - 16:32:57.821635
    # events 36, 38, 40, 42 and 46 report exit codes 127, 2, 2, 127, 127
    failed = [c for c in view["tool_calls"] if c["status"] == "error"]
    assert len(failed) == 5
    assert view["errors"][0] == {
        "message": "execute_bash exited with code 127: bash: ponyc: command not found",
        "where": "$.history[35]",
    }
    assert view["final_answer"].startswith(
        "The issue with the `ponyc` compiler segfaulting when using a single-element tuple"
    )
    assert view["duration_ms"] == pytest.approx(88241.15)  # 16:32:54.707474 to 16:34:22.948624
    assert view["unread"] == []


@needs_data
def test_model_calls_are_one_per_response_and_add_up_to_the_lines_own_totals() -> None:
    line = _lines("multi_swe_bench_output.jsonl")[0]
    calls = _view(line)["llm_calls"]
    assert len(calls) == 23 == len(line["metrics"]["token_usages"])
    usage = line["metrics"]["accumulated_token_usage"]
    assert sum(c["input_tokens"] for c in calls) == usage["prompt_tokens"] == 565158
    assert sum(c["output_tokens"] for c in calls) == usage["completion_tokens"] == 2558
    assert calls[0]["model"] == "meta-llama/llama-4-maverick"
    assert (calls[0]["input_tokens"], calls[0]["output_tokens"]) == (5920, 128)
    assert calls[0]["duration_ms"] == pytest.approx(3056.952, abs=1e-3)  # response_latencies
    assert calls[0]["cost"] == 0.0  # OpenRouter's cost was not tracked: 0.0 as recorded


@needs_data
def test_an_error_observation_is_an_error_and_no_call_and_a_run_error_is_kept() -> None:
    lines = _lines("multi_swe_bench_output.jsonl")
    second = _view(lines[1])
    assert len(second["tool_calls"]) == 33 == len(second["llm_calls"])
    assert {
        "message": "Parameter 'command' is expected to be one of ['view', 'create', "
        "'str_replace', 'insert', 'undo_edit'].",
        "where": "$.history[28].content",
    } in second["errors"]
    third = _view(lines[2])
    assert third["final_answer"] is None  # no finish: the agent ran out of iterations
    assert "finish" not in [c["name"] for c in third["tool_calls"]]
    assert third["errors"][-1]["where"] == "$.error"
    assert third["errors"][-1]["message"].startswith(
        "RuntimeError: Agent reached maximum iteration in headless mode"
    )


@needs_data
def test_a_saved_trajectory_is_the_same_list_at_the_top_level() -> None:
    line = _lines("multi_swe_bench_output.jsonl")[0]
    assert detect(line["history"]) == "openhands"
    listed = _view(line["history"])
    whole = _view(line)
    assert [c["name"] for c in listed["tool_calls"]] == [c["name"] for c in whole["tool_calls"]]
    assert listed["final_answer"] == whole["final_answer"]
    assert listed["errors"][0]["where"] == "$[35]"


@needs_data
def test_an_event_store_gives_the_cost_and_tokens_its_metadata_records() -> None:
    view = _view(_events())
    assert [c["name"] for c in view["tool_calls"]] == [
        "execute_ipython_cell",
        "execute_ipython_cell",
        "finish",
    ]
    assert view["tool_calls"][1]["result"].startswith("The coin flip result is: Heads")
    assert view["tool_calls"][2]["arguments"] == {
        "message": "The coin flip result is: Heads",
        "task_completed": "true",
    }
    assert view["final_answer"] == "The coin flip result is: Heads"
    metadata = json.loads((_folder() / SESSION / "metadata.json").read_text("utf-8"))
    calls = view["llm_calls"]
    assert sum(c["cost"] for c in calls) == pytest.approx(metadata["accumulated_cost"])
    assert sum(c["total_tokens"] for c in calls) == metadata["total_tokens"] == 13634
    assert calls[0]["cost"] == pytest.approx(0.02631075)  # the first step's cumulative cost
    assert calls[1]["cost"] == pytest.approx(0.0044064)  # the rise to the second step
    assert view["duration_ms"] == pytest.approx(199080.641)  # 13:38:00.940581 to 13:41:20.021222


@needs_data
def test_one_event_file_read_on_its_own_is_a_list_of_one_event() -> None:
    event = json.loads((_folder() / SESSION / "events" / "12.json").read_text("utf-8"))
    view = _view(event)
    assert view["final_answer"] == "The coin flip result is: Heads"
    assert [c["name"] for c in view["tool_calls"]] == ["finish"]
    assert view["errors"] == []


@needs_data
def test_the_older_resolver_output_pairs_each_action_with_the_next_observation() -> None:
    line = _lines("resolver_mock_output.jsonl")[0]
    view = _view(line)
    assert [c["name"] for c in view["tool_calls"]] == ["run", "run_ipython", "run", "finish"]
    first = view["tool_calls"][0]
    assert first["arguments"] == {"command": "touch LICENSE"}
    assert first["result"] == "\r\nroot@bcd3959393a1:/workspace # "
    assert view["tool_calls"][2]["result"].startswith("MIT License\r\n")
    costs = [c["cost"] for c in view["llm_calls"]]
    assert costs == line["metrics"]["costs"]
    assert sum(costs) == pytest.approx(0.070713)
    assert view["final_answer"].startswith("The MIT License has been successfully added")
    assert view["duration_ms"] is None  # this shape records no timestamps


def test_damaged_events_are_named_unread_never_a_crash() -> None:
    events = [
        {"id": 1, "source": "agent", "action": "run", "args": {"command": "ls"}},
        "not an event",
        {"id": 2, "source": "agent", "observation": "run", "cause": 1, "content": "a"},
        {"id": 3, "source": "agent", "observation": "run", "cause": 99, "content": "?"},
        {"id": 4, "observation": "agent_state_changed", "extras": {"agent_state": "error"}},
    ]
    view = _view(events)
    assert [(c["name"], c["result"], c["arguments"]) for c in view["tool_calls"]] == [
        ("run", "a", {"command": "ls"})
    ]
    unread = {(u["what"], u["reason"]): u["count"] for u in view["unread"]}
    assert unread == {
        ("event", "events that are not objects"): 1,
        ("event", "observations citing an action the event list does not hold"): 1,
    }
    assert [e["where"] for e in view["errors"]] == ["$[1]", "$[4].extras"]


@needs_data
def test_run_on_the_event_store_with_group_folder(tmp_path: Path) -> None:
    """Through the command line: `group: folder` makes the fourteen event files one trace,
    read by the detected adapter; a case on it passes and fails on the view's values."""
    root = tmp_path / "suite"
    (root / "cases").mkdir(parents=True)
    (root / "validator.yaml").write_text(
        f"cases: cases\nfixtures: {_folder()}\npacks: [agent]\n"
        "traces:\n  pattern: '*/events/*.json'\n  group: folder\n",
        "utf-8",
    )
    case = root / "cases" / f"{SESSION}.yaml"
    case.write_text(
        f"id: {SESSION}\nrequired_tools: [finish]\nmax_llm_calls: 3\nanswer_keywords: [heads]\n",
        "utf-8",
    )
    out = tmp_path / "out"
    result = run_cli("run", "--out", str(out), cwd=root)
    assert result.code == 0, result.out + result.err
    report = json.loads((out / "report.json").read_text("utf-8"))
    (only,) = report["cases"]
    assert only["status"] == "pass"
    assert any("openhands adapter (detected)" in note for note in only["notes"]), only["notes"]
    case.write_text(f"id: {SESSION}\nmax_llm_calls: 2\n", "utf-8")
    result = run_cli("run", "--out", str(out), cwd=root)
    assert result.code == 1
    assert re.search(r"agent-max-llm-calls", result.out), result.out
