"""The `claude-code` view adapter on the real Claude Code transcripts in
TRACE_DATA/claude-code (skipped when TRACE_DATA is unset), each read as `group: file` makes
it: a JSON list of the file's records in line order. Expected values were read by hand from
the files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import run_cli

from validator.evaluation.view import VIEW_SCHEMA, detect, make_view

DATA = os.environ.get("TRACE_DATA")
needs_data = pytest.mark.skipif(not DATA, reason="set TRACE_DATA to the shared trace data folder")
VALIDATOR = jsonschema.Draft202012Validator(VIEW_SCHEMA)
REJECTED = "The user doesn't want to proceed with this tool use."


def _folder() -> Path:
    folder = Path(DATA or "") / "claude-code"
    if not folder.is_dir():
        pytest.skip(f"{folder} is not there (TRACE_DATA names another folder?)")
    return folder


def _records(name: str) -> list[Any]:
    text = (_folder() / name).read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _view(trace: Any) -> dict[str, Any]:
    view, adapter = make_view(trace)
    assert adapter == "claude-code"
    assert not list(VALIDATOR.iter_errors(view))
    return view


@needs_data
def test_rejected_calls_are_failed_calls_and_usage_counts_once_per_response() -> None:
    view = _view(_records("short.jsonl"))
    calls = view["tool_calls"]
    assert [(c["name"], c["status"]) for c in calls] == [("Bash", "error"), ("Glob", "error")]
    assert calls[0]["arguments"] == {"command": "mix phx.server 2>&1 | head -80", "timeout": 30000}
    assert calls[0]["id"] == "toolu_0116Hyi5v8ut7Ffb7d8qV1Sc"
    assert calls[0]["result"].startswith(REJECTED)
    assert calls[0]["duration_ms"] == 1363.0  # 21:12:01.117 (tool_use line) to 21:12:02.480
    # five lines of one response (msg_01MKH1cc...) repeat its usage: one model call
    assert view["llm_calls"] == [
        {
            "model": "claude-opus-4-6",
            "input_tokens": 3 + 13835 + 11515,
            "output_tokens": 13,
            "total_tokens": 25366,
            "cost": None,
            "duration_ms": None,
        }
    ]
    assert view["final_answer"] is None  # its last response asked for tools; no answer came
    messages = [(e["message"][:52], e["where"]) for e in view["errors"]]
    assert messages == [
        (REJECTED, "$[10].message.content[0].is_error"),
        (REJECTED, "$[11].message.content[0].is_error"),
        ("[Request interrupted by user for tool use]", "$[12].message.content"),
    ]
    assert view["duration_ms"] == 259943.0  # 21:11:52.438 to 21:16:12.381


@needs_data
def test_the_last_line_of_a_response_gives_its_usage_and_durations_come_from_the_results() -> None:
    view = _view(_records("tool_heavy.jsonl"))
    assert [c["name"] for c in view["tool_calls"]] == [
        "Bash",
        "Bash",
        "WebSearch",
        "Glob",
        "Read",
        "WebFetch",
    ]
    # msg_019BN3Fr... is on lines 34 (output_tokens 25) and 37 (173): the last line counts
    assert [c["output_tokens"] for c in view["llm_calls"]] == [27, 1, 11, 173]
    durations = {c["name"]: c["duration_ms"] for c in view["tool_calls"]}
    assert durations["Glob"] == 230  # toolUseResult.durationMs
    assert durations["WebSearch"] == pytest.approx(6473.83981)  # durationSeconds x 1000
    assert durations["WebFetch"] == 5249
    assert view["tool_calls"][0]["duration_ms"] == 1172.0  # no durationMs: 22:57:57.941 to :59.113
    assert all(c["status"] == "ok" for c in view["tool_calls"])
    assert view["final_answer"] is None


@needs_data
def test_a_sub_agents_streamed_calls_are_read_and_the_last_text_is_the_answer() -> None:
    view = _view(_records("subagent.jsonl"))
    names = [c["name"] for c in view["tool_calls"]]
    assert len(names) == 25
    task = next(c for c in view["tool_calls"] if c["name"] == "Task")
    assert task["arguments"]["subagent_type"] == "Plan"
    assert task["duration_ms"] == 38799  # the Task result's totalDurationMs
    # the Plan sub-agent's first read (streamed in a progress record) failed: EISDIR
    failed = [c for c in view["tool_calls"] if c["status"] == "error"]
    assert failed[0]["name"] == "Read"
    assert failed[0]["result"] == "EISDIR: illegal operation on a directory, read"
    models = [c["model"] for c in view["llm_calls"]]
    assert models.count("claude-opus-4-6") == 12
    assert models.count("claude-haiku-4-5-20251001") == 5
    assert view["final_answer"].startswith("## Beads Created\n\nEpic `spotter-0p7`")
    unread = {u["reason"]: u["count"] for u in view["unread"]}
    assert unread["thinking blocks (the model's reasoning)"] == 4


@needs_data
def test_a_sub_agents_own_transcript_answers_from_its_sidechain() -> None:
    view = _view(_records("subagents/agent-aac57f5.jsonl"))
    names = [c["name"] for c in view["tool_calls"]]
    assert names == ["WebSearch"] * 6 + ["WebFetch"] * 6
    assert {c["model"] for c in view["llm_calls"]} == {"claude-sonnet-4-5-20250929"}
    assert len(view["llm_calls"]) == 3
    assert view["final_answer"].startswith("Perfect! I now have all the version information")
    assert view["errors"] == []


@needs_data
def test_one_record_without_group_is_still_recognized() -> None:
    records = _records("short.jsonl")
    assert detect(records) == detect(records[4]) == "claude-code"
    view = _view(records[7])  # the line with the Bash tool_use, its result in another line
    assert [c["name"] for c in view["tool_calls"]] == ["Bash"]
    assert view["tool_calls"][0]["result"] is None


def test_damaged_records_are_named_unread_never_a_crash() -> None:
    records = [
        {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "hi"}},
        7,
        {
            "type": "user",
            "sessionId": "s",
            "message": {"content": [{"type": "tool_result", "tool_use_id": "gone"}]},
        },
        {"type": "assistant", "sessionId": "s", "message": {"id": "m", "content": "Hello"}},
    ]
    view = _view(records)
    assert view["final_answer"] == "Hello"
    assert [(e["where"]) for e in view["errors"]] == ["$[1]"]
    unread = {u["reason"]: u["count"] for u in view["unread"]}
    assert unread == {
        "records that are not objects": 1,
        "tool results answering no tool_use of the transcript": 1,
    }


@needs_data
def test_run_with_group_file_makes_each_transcript_one_case(tmp_path: Path) -> None:
    """Through the command line: `group: file` and `case_id: "{file_stem}"` make each
    transcript (sub-agents' included) one trace; the detected adapter reads it."""
    root = tmp_path / "suite"
    (root / "cases").mkdir(parents=True)
    (root / "validator.yaml").write_text(
        f"cases: cases\nfixtures: {_folder()}\npacks: [agent]\n"
        "traces:\n  pattern: '**.jsonl'\n  group: file\n  case_id: '{file_stem}'\n"
        "  allow_unmatched: true\n",
        "utf-8",
    )
    (root / "cases" / "tool_heavy.yaml").write_text(
        "id: tool_heavy\nmax_llm_calls: 4\nmax_total_tokens: 106193\n", "utf-8"
    )
    (root / "cases" / "agent-aac57f5.yaml").write_text(
        "id: agent-aac57f5\nmax_tool_calls: 11\n", "utf-8"
    )
    out = tmp_path / "out"
    result = run_cli("run", "--out", str(out), cwd=root)
    assert result.code == 1, result.out + result.err
    report = json.loads((out / "report.json").read_text("utf-8"))
    statuses = {c["case_id"]: c["status"] for c in report["cases"]}
    assert statuses == {"tool_heavy": "pass", "agent-aac57f5": "fail"}
    heavy = next(c for c in report["cases"] if c["case_id"] == "tool_heavy")
    assert any("claude-code adapter (detected)" in note for note in heavy["notes"])
    failed = next(c for c in report["cases"] if c["case_id"] == "agent-aac57f5")
    assert "12" in failed["failed_checks"][0]["message"], failed["failed_checks"]
