"""`$.view.llm_calls[*].messages`: each model call's conversation, read from the real traces of
every adapter whose data holds messages (TRACE_DATA), and from the shapes around them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import queried_views, run_cli

from validator.evaluation.view import VIEW_FIELDS, make_view
from validator.evaluation.view.messages import UNKNOWN_ROLE


def roles(call: dict[str, Any]) -> list[str]:
    return [m["role"] for m in call["messages"]]


def data_file(data_set: str, name: str) -> Path:
    data = os.environ.get("TRACE_DATA")
    path = Path(data or "") / data_set / name
    if not data or not path.is_file():
        pytest.skip(f"{data_set}/{name} is not in TRACE_DATA ({data})")
    return path


# --------------------------------------------------------------------------- otel-genai


def test_indexed_prompt_and_completion_attributes_jaeger() -> None:
    (view,) = queried_views("jaeger-genai", "helm.json")
    first, second = view["llm_calls"]
    assert roles(first) == ["system", "user", "assistant"]
    assert first["messages"][1]["content"] == "list all Helm releases"
    assert first["messages"][2]["content"] == "helm_list_releases({})"  # the tool request
    assert roles(second) == ["system", "user", "assistant", "tool", "assistant"]
    assert second["messages"][3]["content"].startswith("NAME")  # the tool's result
    assert second["messages"][4]["content"].startswith("There are two Helm releases")
    assert view["unread"] == [u for u in view["unread"] if u["what"] == "span"]  # as before


def test_openinference_input_and_output_messages() -> None:
    (view,) = queried_views("openinference", "chat-multiturn.json")
    (call,) = view["llm_calls"]
    assert call["messages"] == [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Hello!"},
        {"role": "assistant", "content": "Hello! How can I assist you today?"},
        {"role": "user", "content": "Answer in up to 5 words: What's the weather like?"},
        {"role": "assistant", "content": "What city or region?"},
    ]
    (tools,) = queried_views("openinference", "chat-tools.json")
    assert tools["llm_calls"][0]["messages"][-1] == {
        "role": "assistant",
        "content": 'get_current_weather({"location":"Boston, MA","unit":"fahrenheit"})',
    }


def test_any_agent_input_messages_and_outputs() -> None:
    (view,) = queried_views("otel-agent-traces", "openai.json")
    first, second, third = view["llm_calls"]
    assert roles(first) == ["system", "user", "assistant"]
    assert first["messages"][0]["content"] == "Use the available tools to answer."
    assert first["messages"][2]["content"] == 'get_current_time({"timezone": "America/New_York"})'
    # later calls record only their output
    assert second["messages"] == [{"role": "assistant", "content": 'write_file({"text": "2025"})'}]
    assert third["messages"][0]["content"].startswith('{"steps"')  # a structured answer: JSON


# --------------------------------------------------------------------------- langfuse, langsmith


def test_langfuse_generations_gemini_request_and_response() -> None:
    (view,) = queried_views("langfuse-traces", "google-adk-2025-08-28.trace.json")
    _, second = view["llm_calls"]
    assert roles(second) == ["system", "user", "assistant", "tool", "assistant"]
    assert second["messages"][0]["content"].startswith("Always greet using the say_hello tool.")
    assert second["messages"][2]["content"] == "say_hello({})"
    assert second["messages"][4]["content"] == "Hello Langfuse 👋!\n"


def test_langfuse_generations_other_shapes() -> None:
    (vercel,) = queried_views("langfuse-traces", "vercel-aisdk-2025-11-17.trace.json")
    assert vercel["llm_calls"][0]["messages"] == [
        {"role": "user", "content": "What is the weather like today in San Francisco?"},
        {"role": "assistant", "content": 'getWeather({"location":"San Francisco"})'},
    ]
    (agents,) = queried_views("langfuse-traces", "openai-agents-2025-09-30.trace.json")
    last = agents["llm_calls"][-1]
    assert roles(last) == ["user", "assistant", "tool", "assistant"]  # Responses API items
    assert last["messages"][2]["content"] == "The weather in Tokyo is sunny."
    (pydantic,) = queried_views("langfuse-traces", "pydantic-ai-tools-2025-12-04.trace.json")
    first = pydantic["llm_calls"][0]["messages"]
    assert [m["role"] for m in first] == ["system", "user", "assistant"]
    assert first[2]["content"].count("\n") == 2  # three tool calls in one message, one a line


def test_langsmith_llm_runs() -> None:
    (view,) = queried_views("langsmith-runs", "langsmith_py_wrap_openai_.json")
    assert view["llm_calls"][0]["messages"] == [
        {"role": "user", "content": "howdy"},
        {"role": "assistant", "content": "Howdy! How can I assist you today?"},
    ]


# --------------------------------------------------------------------------- message lists


def test_tau2_simulation_each_message_in_one_call() -> None:
    results = json.loads(
        data_file("tau2-bench", "gpt-4.1_retail_defautl_gpt-4.1_1trials.json").read_text()
    )
    simulation = results["simulations"][0]
    view, _ = make_view(simulation)
    calls = view["llm_calls"]
    assert len(calls) == 8
    for call in calls:
        assert call["messages"][-1]["role"] == "assistant"  # its own output last
    # the calls' messages in order are the conversation, up to the last model call
    said = [m for call in calls for m in call["messages"]]
    raw = simulation["messages"]
    last = max(i for i, m in enumerate(raw) if m.get("role") == "assistant" and m.get("usage"))
    assert [m["role"] for m in said] == [m["role"] for m in raw[: last + 1]]
    assert calls[0]["messages"][0]["content"] == "Hi! How can I help you today?"
    assert calls[1]["messages"] == [
        {"role": "user", "content": "Sure, it’s isabella.lopez3271@example.com."},
        {
            "role": "assistant",
            "content": 'find_user_id_by_email({"email":"isabella.lopez3271@example.com"})',
        },
    ]


def test_autogen_context_and_recorded_calls() -> None:
    (context,) = queried_views("autogen", "history-wile_e_coyote_1.json")
    assert [roles(c) for c in context["llm_calls"]] == [
        ["user", "assistant"],
        ["user", "assistant"],
        ["tool", "assistant"],
    ]
    assert context["llm_calls"][1]["messages"][1]["content"] == "transfer_to_issues_and_repairs({})"
    (session,) = queried_views("autogen", "task_centric_memory_sessions/teachability/session.json")
    assert len(session["llm_calls"]) == 16
    for call in session["llm_calls"]:
        assert call["messages"][0]["role"] == "system"
        assert call["messages"][-1]["role"] == "assistant"


def test_smolagents_memory_steps_and_message_lines() -> None:
    steps = queried_views("smolagents", "code_o1_27-01_text.jsonl")[0]
    first = steps["llm_calls"][0]
    assert roles(first) == ["assistant"]  # the step's llm_output; no input recorded
    assert first["messages"][0]["content"].startswith("To solve this task")
    line = queried_views("smolagents", "gpt-4o__tool-calling__math__2025-07-24.jsonl")[0]
    (call,) = line["llm_calls"]  # the run's totals: its whole conversation
    assert roles(call)[:5] == ["system", "user", "assistant", "assistant", "tool"]
    assert call["messages"][4]["content"] == "Observation:\nStdout:\n\nOutput: 12.0"


def test_openai_agents_model_responses() -> None:
    (view,) = queried_views("openai-agents", "v1_13_programmatic_tool_calling.json")
    assert view["llm_calls"][0]["messages"] == [
        {"role": "assistant", "content": "program(lookup())"},
        {"role": "assistant", "content": "lookup({})"},
        {"role": "tool", "content": "done"},
    ]


# --------------------------------------------------------------------------- absent, checks


def test_absent_when_the_trace_records_none() -> None:
    (usage_only,) = queried_views("openai-agents", "v1_12_input_cache_write_usage.json")
    (call,) = usage_only["llm_calls"]
    assert "messages" not in call
    view, _ = make_view([{"role": "assistant", "content": "hi", "usage": {"prompt_tokens": 1}}])
    assert view["llm_calls"][0]["messages"] == [{"role": "assistant", "content": "hi"}]
    spans = [{"name": "chat", "attributes": {"gen_ai.operation.name": "chat"}, "spanId": "1"}]
    view, _ = make_view(spans)
    assert "messages" not in view["llm_calls"][0]


def test_a_query_reads_the_messages(tmp_path: Path) -> None:
    assert "llm_calls[*].messages[*].content" in VIEW_FIELDS
    path = data_file("openinference", "chat-basic.json")
    query = "$.view.llm_calls[*].messages[?(@.role == 'user')].content"
    result = run_cli("query", "--json", query, str(path), cwd=tmp_path)
    assert result.code == 0, result.err
    assert [m["value"] for m in json.loads(result.out)["matches"]] == ["Hello!"]


# --------------------------------------------------------------------------- shapes


def _one(message: Any, output: Any = None) -> list[dict[str, str]]:
    span = {
        "name": "chat",
        "spanId": "1",
        "attributes": {
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": json.dumps(message),
            **({"gen_ai.output.messages": json.dumps(output)} if output is not None else {}),
        },
    }
    view, _ = make_view([span])
    messages: list[dict[str, str]] = view["llm_calls"][0]["messages"]
    return messages


def test_content_parts_are_text_images_are_named() -> None:
    parts = [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        {"type": "input_audio", "input_audio": {"data": "AAAA"}},
    ]
    assert _one([{"role": "user", "content": parts}]) == [
        {"role": "user", "content": "what is this?\n[image]\n[input_audio]"}
    ]


def test_anthropic_blocks_and_roles() -> None:
    messages = [
        {"role": "developer", "content": "be brief"},
        {"role": "human", "content": "weather?"},
        {"role": "ai", "content": [{"type": "tool_use", "name": "w", "input": {"c": "P"}}]},
        {"role": "user", "content": [{"type": "tool_result", "content": "sunny"}]},
        {"role": "model", "content": [{"type": "thinking", "thinking": "..."}]},
    ]
    assert _one(messages) == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": 'w({"c":"P"})'},
        {"role": "tool", "content": "sunny"},
        {"role": "assistant", "content": "[thinking]"},
    ]


def test_a_role_the_view_does_not_know_is_left_out_and_unread() -> None:
    span = {
        "name": "chat",
        "spanId": "1",
        "attributes": {
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": json.dumps(
                [{"role": "critic", "content": "no"}, {"role": "user", "content": "yes"}]
            ),
        },
    }
    view, _ = make_view([span])
    assert view["llm_calls"][0]["messages"] == [{"role": "user", "content": "yes"}]
    assert view["unread"] == [{"what": "message", "count": 1, "reason": UNKNOWN_ROLE}]


def test_an_unknown_shape_is_shown_as_its_json_text() -> None:
    assert _one({"query": "x"}, {"answer": 42}) == [
        {"role": "user", "content": '{"query": "x"}'},
        {"role": "assistant", "content": '{"answer": 42}'},
    ]


@pytest.mark.parametrize(
    "value",
    [None, 3, "text", [], {}, [None, 1, "a", [["b"]]], {"role": ["x"]}, {"type": {"a": 1}}],
)
def test_hostile_values_never_raise(value: Any) -> None:
    for shape in (
        {"input": value, "output": value},
        {"input": [value], "output": {"content": value}},
    ):
        trace = {
            "trace": {"id": "t"},
            "observations": [{"id": "g", "type": "GENERATION", **shape}],
        }
        view, adapter = make_view(trace)
        assert adapter == "langfuse" and not view["errors"], view["errors"]
        for message in view["llm_calls"][0].get("messages", []):
            assert message["role"] in ("system", "user", "assistant", "tool")
            assert isinstance(message["content"], str)


def test_a_long_transcript_gives_each_message_once() -> None:
    transcript: list[dict[str, Any]] = []
    for number in range(10_000):
        transcript.append({"role": "user", "content": f"q{number}"})
        transcript.append({"role": "assistant", "content": f"a{number}", "usage": {}})
    view, _ = make_view(transcript)
    assert len(view["llm_calls"]) == 10_000
    said = [m for call in view["llm_calls"] for m in call["messages"]]
    assert len(said) == 20_000  # linear in the transcript, not one copy of it per call
    assert said[-2:] == [
        {"role": "user", "content": "q9999"},
        {"role": "assistant", "content": "a9999"},
    ]
