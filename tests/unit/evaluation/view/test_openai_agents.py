"""The openai-agents adapter: the SDK's serialized run states in TRACE_DATA/openai-agents,
through `query --json` (the adapter detected), with values read by hand from the files; and
the shapes those fixtures lack (an answer, a rejection, a tool error, the trace export)."""

from __future__ import annotations

import os
from typing import Any

import pytest
from conftest import queried_views

from validator.evaluation.view import make_view

DATA = os.environ.get("TRACE_DATA")
needs_data = pytest.mark.skipif(not DATA, reason="set TRACE_DATA to the shared trace data folder")


def _view(name: str) -> dict[str, Any]:
    [view] = queried_views("openai-agents", name)
    assert view["adapter"] == "openai-agents"
    return view


@needs_data
def test_a_run_paused_for_approval_has_its_call_and_the_interruption() -> None:
    view = _view("v1_13_pending_tool_approval.json")
    # the tool_call_item and the tool_approval_item are one call
    [call] = view["tool_calls"]
    assert call["name"] == "historical_approval" and call["id"] == "historical-approval-1"
    assert call["arguments"] == {"account_id": "account-1"}  # JSON text, parsed
    assert call["result"] is None and call["status"] == "ok"
    assert view["errors"] == [
        {
            "message": "the run is interrupted, awaiting approval: "
            "historical_approval (historical-approval-1)",
            "where": "$.current_step",
        }
    ]
    [llm] = view["llm_calls"]  # one model response, usage all 0 in this fixture
    assert llm["input_tokens"] == 0 and llm["total_tokens"] == 0
    assert view["final_answer"] is None and view["duration_ms"] is None


@needs_data
def test_a_program_call_and_the_function_it_called_are_two_calls() -> None:
    view = _view("v1_13_programmatic_tool_calling.json")
    program, lookup = view["tool_calls"]
    assert (program["name"], program["arguments"], program["result"]) == (
        "program",
        {"code": "lookup()"},
        "done",
    )
    assert (lookup["name"], lookup["arguments"], lookup["id"]) == ("lookup", {}, "function-call")
    assert view["errors"] == [] and view["unread"] == []


@needs_data
def test_run_totals_stand_for_the_model_calls_when_no_response_is_kept() -> None:
    view = _view("v1_12_input_cache_write_usage.json")
    [llm] = view["llm_calls"]  # context.usage: requests 1, input_tokens 10
    assert llm["input_tokens"] == 10 and llm["output_tokens"] == 0
    assert _view("v1_3_resumed_trace_state.json")["llm_calls"] == []  # requests 0


@needs_data
def test_an_output_without_its_call_is_noted_unread() -> None:
    view = _view("v1_11_tool_output_custom_data.json")
    assert view["tool_calls"] == []
    assert view["unread"] == [
        {"what": "item", "count": 1, "reason": "tool outputs that answer no tool call item"}
    ]


def _item(kind: str, raw: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": kind, "agent": {"name": "a"}, "raw_item": raw, **more}


def test_rejections_tool_errors_and_the_answer_of_a_finished_run() -> None:
    call = {"type": "function_call", "name": "refund", "arguments": '{"n": 1}', "call_id": "c1"}
    search = {"type": "function_call", "name": "search", "arguments": "{}", "call_id": "c2"}
    error = "An error occurred while running the tool. Please try again. Error: timeout"
    state = {
        "$schemaVersion": "1.13",
        "generated_items": [
            _item("tool_call_item", call),
            _item("tool_call_item", search),
            _item(
                "tool_call_output_item",
                {"type": "function_call_output", "call_id": "c2"},
                output=error,
            ),
            _item("mcp_list_tools_item", {}),
            _item(
                "message_output_item",
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "No refund."}],
                },
            ),
            "junk",
        ],
        "model_responses": [{"usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}}],
        "context": {"approvals": {"refund": {"approved": [], "rejected": ["c1"]}}},
        "current_step": None,
    }
    view, adapter = make_view(state)
    assert adapter == "openai-agents"
    assert [(c["name"], c["status"]) for c in view["tool_calls"]] == [
        ("refund", "error"),
        ("search", "error"),
    ]
    messages = [e["message"] for e in view["errors"]]
    assert "the call of refund (c1) was rejected" in messages
    assert f"tool search failed: {error}" in messages
    assert view["final_answer"] == "No refund."
    assert view["llm_calls"][0]["total_tokens"] == 7
    assert {u["reason"] for u in view["unread"]} == {
        "generated items of a type the view does not read",
        "generated items that are not objects",
    }


def test_the_sdk_trace_export_reads_function_and_generation_spans() -> None:
    body = {
        "data": [
            {"object": "trace", "id": "trace_1", "workflow_name": "w"},
            {
                "object": "trace.span",
                "started_at": "2025-03-01T10:00:00.000000+00:00",
                "ended_at": "2025-03-01T10:00:01.500000+00:00",
                "span_data": {
                    "type": "generation",
                    "model": "gpt-4o",
                    "usage": {"input_tokens": 20, "output_tokens": 4},
                    "output": [{"role": "assistant", "content": "It is 12."}],
                },
                "error": None,
            },
            {
                "object": "trace.span",
                "started_at": "2025-03-01T10:00:00.500000+00:00",
                "ended_at": "2025-03-01T10:00:00.750000+00:00",
                "span_data": {
                    "type": "function",
                    "name": "clock",
                    "input": '{"tz": "UTC"}',
                    "output": "12",
                },
                "error": {"message": "Error running tool", "data": None},
            },
            {"object": "trace.span", "span_data": {"type": "agent", "name": "a"}},
        ]
    }
    view, adapter = make_view(body)
    assert adapter == "openai-agents"
    [tool] = view["tool_calls"]
    assert (tool["name"], tool["arguments"], tool["status"], tool["duration_ms"]) == (
        "clock",
        {"tz": "UTC"},
        "error",
        250.0,
    )
    [llm] = view["llm_calls"]
    assert (llm["model"], llm["total_tokens"], llm["duration_ms"]) == ("gpt-4o", 24, 1500.0)
    assert view["final_answer"] == "It is 12." and view["duration_ms"] == 1500.0
    assert view["errors"] == [{"message": "Error running tool", "where": "$.data[2].error"}]
    assert [u["what"] for u in view["unread"]] == ["span"]


@pytest.mark.parametrize(
    "hostile",
    [
        {
            "$schemaVersion": "1",
            "generated_items": [
                None,
                3,
                {"type": ["x"]},
                {"type": "tool_call_item", "raw_item": 5},
            ],
        },
        {"$schemaVersion": "1", "generated_items": [], "model_responses": [None], "context": 7},
        {
            "$schemaVersion": "1",
            "generated_items": [],
            "current_step": {"type": "next_step_interruption", "data": []},
        },
        [{"object": "trace.span", "span_data": None, "started_at": [], "error": "x"}, 4],
    ],
)
def test_hostile_values_never_raise(hostile: Any) -> None:
    view, adapter = make_view(hostile)
    assert adapter == "openai-agents"
    assert not any("could not read this trace" in e["message"] for e in view["errors"])
