"""What the page gets of each model call's conversation (`extras["llm_calls"][i]["messages"]`):
only for runs that did not pass, each message once, clipped, the run bounded."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, Workspace

from validator.evaluation.view import make_view
from validator.report.extras import (
    MAX_MESSAGES,
    MESSAGE_LIMIT,
    MESSAGES_LIMIT,
    run_extra,
)


def tau2_view() -> dict[str, Any]:
    data = os.environ.get("TRACE_DATA")
    path = Path(data or "") / "tau2-bench" / "gpt-4.1_retail_defautl_gpt-4.1_1trials.json"
    if not data or not path.is_file():
        pytest.skip(f"tau2-bench is not in TRACE_DATA ({data})")
    view, _ = make_view(json.loads(path.read_text("utf-8"))["simulations"][0])
    return view


def shown(extra: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for call in extra["llm_calls"] for m in call["messages"]]


def real_view(data_set: str, name: str) -> dict[str, Any]:
    data = os.environ.get("TRACE_DATA")
    path = Path(data or "") / data_set / name
    if not data or not path.is_file():
        pytest.skip(f"{data_set}/{name} is not in TRACE_DATA ({data})")
    view, _ = make_view(json.loads(path.read_text("utf-8")))
    return view


def test_a_call_does_not_repeat_the_previous_calls_messages() -> None:
    view = real_view("jaeger-genai", "helm.json")  # each span records its whole input
    first, second = run_extra(view, conversation=True)["llm_calls"]
    assert (first["messages_before"], first["message_total"]) == (0, 3)
    assert [m["role"] for m in first["messages"]] == ["system", "user", "assistant"]
    system = view["llm_calls"][0]["messages"][0]["content"]
    assert first["messages"][0] == {
        "role": "system",
        "text": system[:MESSAGE_LIMIT],
        "length": len(system),
    }
    assert (second["messages_before"], second["message_total"]) == (3, 5)
    assert [m["role"] for m in second["messages"]] == ["tool", "assistant"]


def test_each_message_once_in_order_on_a_real_conversation() -> None:
    view = tau2_view()  # a transcript: each call has the messages since the previous one
    extra = run_extra(view, conversation=True)
    assert extra["conversation"] is True
    assert extra["llm_calls"][-1]["messages"][-1]["text"] == view["final_answer"][:MESSAGE_LIMIT]
    for call, full in zip(extra["llm_calls"], view["llm_calls"], strict=True):
        assert call["message_total"] == len(full["messages"])
        assert call["messages_before"] == 0
        kept = len(call["messages"])  # the latest first: the tail of the call's messages
        tail = full["messages"][len(full["messages"]) - kept :]
        for message, source in zip(call["messages"], tail, strict=True):
            assert message["role"] == source["role"]
            assert message["length"] == len(source["content"])
            assert message["text"] == source["content"][:MESSAGE_LIMIT]


def test_passing_runs_and_views_without_messages_carry_none() -> None:
    extra = run_extra(tau2_view())  # a run that passed
    assert extra["conversation"] is False
    assert all("messages" not in call for call in extra["llm_calls"])
    view, _ = make_view(
        [{"name": "chat", "spanId": "1", "attributes": {"gen_ai.operation.name": "chat"}}]
    )
    assert "messages" not in run_extra(view, conversation=True)["llm_calls"][0]


def test_a_long_conversation_is_bounded_latest_messages_first() -> None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "s" * 5000}]
    for number in range(60):
        messages.append({"role": "user", "content": f"question {number} " + "q" * 300})
        messages.append(
            {"role": "assistant", "content": f"answer {number}", "usage": {"prompt_tokens": 1}}
        )
    view, _ = make_view(messages)
    extra = run_extra(view, conversation=True)
    kept = shown(extra)
    assert len(kept) <= MAX_MESSAGES
    assert sum(len(m["text"]) for m in kept) <= MESSAGES_LIMIT
    assert kept[-1] == {"role": "assistant", "text": "answer 59", "length": 9}
    first = extra["llm_calls"][0]
    assert first["messages"] == [] and first["message_total"] == 3  # not reached: said so
    assert all(m["length"] >= len(m["text"]) for m in kept)


def test_the_run_command_gives_a_failing_run_its_conversation(ws: Workspace) -> None:
    from validator.commands.extras import collect_extras
    from validator.commands.run import load_checked
    from validator.evaluation.grouping import group_results
    from validator.evaluation.runner import evaluate_all
    from validator.inputs import find_case_files, plan_fixtures, spec_folders

    ws.case()
    chat = [
        {"role": "system", "content": "You are an SRE."},
        {"role": "user", "content": GOOD_CASE["question"]},
        {"role": "assistant", "content": "It is the weather.", "usage": {"prompt_tokens": 9}},
    ]
    ws.trace("db-slow", chat)
    suite = load_checked(find_case_files(ws.cases), spec_folders(None))
    plan = plan_fixtures(list(suite.cases), ws.fixtures, "fixtures")
    cases, _ = group_results(suite, evaluate_all(suite, plan.jobs(), 1), plan)
    assert cases[0].runs[0].status != "pass"
    extras = collect_extras(suite, cases, plan.jobs(), None, 1 << 20)
    (run,) = extras["db-slow"]["runs"].values()
    assert run["conversation"] is True
    # Each message also carries its keyword marks (the page's highlighting).
    messages = run["llm_calls"][0]["messages"]
    assert all(isinstance(m.pop("marks"), list) for m in messages)
    assert messages == [
        {"role": "system", "text": "You are an SRE.", "length": 15},
        {"role": "user", "text": GOOD_CASE["question"], "length": len(GOOD_CASE["question"])},
        {"role": "assistant", "text": "It is the weather.", "length": 18},
    ]
