"""The autogen adapter on the real AutoGen files in TRACE_DATA/autogen, through `query --json`
(the adapter detected), with values read by hand from the files; and the shapes they lack
(a failed function call, calls in a recording, hostile values)."""

from __future__ import annotations

import os
from typing import Any

import pytest
from conftest import queried_views

from validator.evaluation.view import make_view

DATA = os.environ.get("TRACE_DATA")
needs_data = pytest.mark.skipif(not DATA, reason="set TRACE_DATA to the shared trace data folder")


def _view(name: str) -> dict[str, Any]:
    [view] = queried_views("autogen", name)
    assert view["adapter"] == "autogen"
    return view


@needs_data
def test_a_saved_chat_context_reads_the_handoff_call_its_result_and_the_answer() -> None:
    view = _view("history-wile_e_coyote_1.json")
    [call] = view["tool_calls"]
    assert call["name"] == "transfer_to_issues_and_repairs"
    assert call["id"] == "call_iRnHdOjAk80LBNwPxMdxwwqM"
    assert call["arguments"] == {}
    assert call["result"] == "Transferred to IssuesAndRepairsAgent. Adopt persona immediately."
    assert call["status"] == "ok"
    assert view["final_answer"] == (
        "Could you please describe what happened with your rocket-powered unicycle before it"
        " exploded?"
    )
    # three AssistantMessages: three model calls, no usage recorded
    assert [c["total_tokens"] for c in view["llm_calls"]] == [None, None, None]
    assert view["errors"] == [] and view["unread"] == [] and view["duration_ms"] is None


@needs_data
@pytest.mark.parametrize(
    ("name", "calls", "prompt", "completion", "first"),
    [("teachability", 16, 4924, 2360, (108, 2)), ("demonstration", 12, 5172, 1423, (252, 335))],
)
def test_a_recording_is_one_model_call_per_record_with_its_usage(
    name: str, calls: int, prompt: int, completion: int, first: tuple[int, int]
) -> None:
    view = _view(f"task_centric_memory_sessions/{name}/session.json")
    llms = view["llm_calls"]
    assert len(llms) == calls
    assert (llms[0]["input_tokens"], llms[0]["output_tokens"]) == first
    assert sum(c["input_tokens"] for c in llms) == prompt
    assert sum(c["output_tokens"] for c in llms) == completion
    assert sum(c["total_tokens"] for c in llms) == prompt + completion
    assert view["tool_calls"] == [] and view["final_answer"] == "1"


def test_a_failed_function_call_and_calls_in_a_recording() -> None:
    call = {"id": "c1", "name": "lookup", "arguments": '{"q": "x"}'}
    result = {
        "type": "FunctionExecutionResultMessage",
        "content": [
            {"content": "KeyError: x", "name": "lookup", "call_id": "c1", "is_error": True},
            {"content": "late", "name": "other", "call_id": "zz", "is_error": False},
        ],
    }
    records = [
        {
            "mode": "create",
            "messages": [{"type": "UserMessage", "content": "q", "source": "User"}],
            "response": {"content": [call], "usage": {"prompt_tokens": 3, "completion_tokens": 1}},
        },
        {"mode": "create", "messages": [result], "response": {"content": "sorry", "usage": {}}},
        {"mode": "create", "messages": []},
    ]
    view, adapter = make_view(records)
    assert adapter == "autogen"
    [tool] = view["tool_calls"]
    assert (tool["name"], tool["arguments"], tool["status"], tool["result"]) == (
        "lookup",
        {"q": "x"},
        "error",
        "KeyError: x",
    )
    assert view["errors"][0] == {
        "message": "lookup failed: KeyError: x",
        "where": "$[1].messages[0].content[0]",
    }
    assert {(u["what"], u["count"]) for u in view["unread"]} == {("message", 1), ("record", 1)}
    assert len(view["llm_calls"]) == 2 and view["llm_calls"][1]["total_tokens"] is None


@pytest.mark.parametrize(
    "hostile",
    [
        {
            "messages": [
                {"type": "UserMessage"},
                None,
                {"type": "AssistantMessage", "content": [3, None]},
            ]
        },
        {
            "messages": [
                {"type": "SystemMessage"},
                {"type": "Odd"},
                {"type": "FunctionExecutionResultMessage", "content": 5},
            ]
        },
        [{"mode": "create", "response": {"content": {"a": 1}, "usage": []}}, 7],
    ],
)
def test_hostile_values_never_raise(hostile: Any) -> None:
    view, adapter = make_view(hostile)
    assert adapter == "autogen"
    assert not any("could not read this trace" in e["message"] for e in view["errors"])
