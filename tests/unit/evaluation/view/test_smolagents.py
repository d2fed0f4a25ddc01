"""The smolagents adapter on the real benchmark outputs in TRACE_DATA/smolagents, through
`query --json` (each JSON Lines line is one trace, the adapter detected), with values read by
hand from the files; and the repr reader on text that must never be evaluated."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from conftest import queried_views

from validator.evaluation.view import make_view

DATA = os.environ.get("TRACE_DATA")
needs_data = pytest.mark.skipif(not DATA, reason="set TRACE_DATA to the shared trace data folder")


def _views(name: str) -> list[dict[str, Any]]:
    return queried_views("smolagents", name)


@needs_data
def test_tool_calling_lines_read_calls_results_errors_tokens_and_the_answer() -> None:
    views = _views("gpt-4o__tool-calling__math__2025-07-24.jsonl")
    assert len(views) == 50 and {v["adapter"] for v in views} == {"smolagents"}
    first = views[0]
    assert [c["name"] for c in first["tool_calls"]] == ["python_interpreter", "final_answer"]
    call = first["tool_calls"][0]
    assert call["id"] == "call_5r6DxWOLWjigq13V0saDRV0p"
    assert call["arguments"]["code"].startswith("# Given\nhexagon_side_length = 16")
    assert call["result"] == "Stdout:\n\nOutput: 12.0" and call["status"] == "ok"
    assert first["tool_calls"][1]["arguments"] == {
        "answer": "Each side of the octagon is 12 cm long."
    }
    assert [{k: v for k, v in c.items() if k != "messages"} for c in first["llm_calls"]] == [
        {
            "model": "gpt-4o",
            "input_tokens": 3219,
            "output_tokens": 179,
            "total_tokens": 3398,
            "cost": None,
            "duration_ms": None,
        }
    ]
    assert first["final_answer"] == "Each side of the octagon is 12 cm long."
    # start_time is epoch seconds, end_time a local date-time without zone: no duration
    assert first["duration_ms"] is None
    assert [u["what"] for u in first["unread"]] == ["time"]
    # an error that answers no tool-call message still names its tool: a failed call
    failed = views[1]["tool_calls"][0]
    assert failed["status"] == "error" and failed["name"] == "python_interpreter"
    assert failed["arguments"]["code"].startswith("from sympy import symbols, solve, tan, Eq")
    assert "Import from sympy is not allowed" in views[1]["errors"][0]["message"]
    # the README counts 44 tool responses that are errors
    assert sum(c["status"] == "error" for v in views for c in v["tool_calls"]) == 44
    assert sum(len(v["tool_calls"]) for v in views) == 148


@needs_data
def test_code_agent_lines_read_the_code_as_the_interpreter_argument() -> None:
    views = _views("gpt-4o__code__math__2025-07-24.jsonl")
    first = views[0]
    assert first["tool_calls"][0]["id"] == "call_1"
    assert first["tool_calls"][0]["arguments"]["code"].startswith("import math\n")
    assert first["tool_calls"][0]["result"] == "Execution logs:\nLast output from code snippet:\n2"
    assert first["final_answer"] == "2"
    # 35 error responses: 23 answer a call ("Call id: call_N\nError:"), 12 are code that did
    # not parse (a step error, no call)
    assert sum(len(v["errors"]) for v in views) == 35
    assert sum(c["status"] == "error" for v in views for c in v["tool_calls"]) == 23
    parse_error = views[12]
    assert parse_error["errors"][0]["message"].startswith("Error in code parsing")
    assert parse_error["errors"][0]["where"] == "$.intermediate_steps[3]"
    assert [c["id"] for c in parse_error["tool_calls"]] == ["call_2", "call_3"]


@needs_data
def test_a_run_that_failed_before_the_model_answered_has_an_error_and_no_answer() -> None:
    views = _views("gpt-4o__code__gaia__2025-09-08.jsonl")
    assert len(views) == 32
    for view in views:
        assert view["tool_calls"] == [] and view["final_answer"] is None
        assert view["errors"][0]["where"] == "$.answer"
        assert "AuthenticationError" in view["errors"][0]["message"]
        # token_counts spelled {input, output}
        assert view["llm_calls"][0]["input_tokens"] == 0
        assert view["llm_calls"][0]["total_tokens"] == 0


@needs_data
def test_memory_steps_written_as_repr_text_are_parsed_not_evaluated() -> None:
    [view] = _views("code_o1_27-01_text.jsonl")
    assert [c["id"] for c in view["tool_calls"]] == ["call_2", "call_3", "call_4", "call_5"]
    assert {c["name"] for c in view["tool_calls"]} == {"python_interpreter"}
    first = view["tool_calls"][0]
    assert first["arguments"]["code"].startswith("graveyard_page = navigational_web_search(")
    assert first["duration_ms"] == pytest.approx(10910.567, abs=0.01)
    assert first["result"].startswith("Execution logs:\nAddress: https://www.benjerry.com")
    assert len(view["llm_calls"]) == 4  # one per ActionStep; no usage recorded
    assert {c["total_tokens"] for c in view["llm_calls"]} == {None}
    assert view["final_answer"] == "Caused its demise"
    assert view["duration_ms"] == 31000.0  # both times are date-times: 21:26:25 to 21:26:56
    assert view["errors"] == [] and view["unread"] == []


def test_hostile_repr_text_is_never_evaluated_and_is_noted_unread(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    line = {
        "intermediate_steps": [
            f"__import__('pathlib').Path({str(marker)!r}).touch()",
            "ActionStep(tool_calls=[ToolCall(name='x', arguments=1+1, id='c')])",
            "ActionStep(tool_calls=[ToolCall(name='search', arguments={'q': 'a'}, id='c1')],"
            " error=AgentExecutionError('boom'), observations='none')",
            "[" * 5000,
            7,
        ],
        "prediction": "done",
    }
    view, adapter = make_view(line)
    assert adapter == "smolagents" and not marker.exists()
    assert [c["name"] for c in view["tool_calls"]] == ["search"]
    assert view["tool_calls"][0]["status"] == "error"
    assert view["tool_calls"][0]["arguments"] == {"q": "a"}
    assert "AgentExecutionError: boom" in [e["message"] for e in view["errors"]]
    assert sum(u["count"] for u in view["unread"] if u["what"] == "step") == 4
    assert view["final_answer"] == "done"


@pytest.mark.parametrize(
    "calls",
    [
        "Calling tools:\n[{'id': 'c', 'function': {'name': 1 + 2}}]",
        "Calling tools:",
        "",
        "[{'a': [",
    ],
)
def test_a_tool_call_text_that_does_not_parse_is_an_error_and_unread(calls: str) -> None:
    text = {"type": "text", "text": calls}
    line = {"answer": "a", "intermediate_steps": [{"role": "tool-call", "content": [text]}]}
    view, _ = make_view(line)
    assert view["tool_calls"] == []
    assert [u["what"] for u in view["unread"]] == ["tool-call"]
    assert view["errors"][0]["where"] == "$.intermediate_steps[0]"
