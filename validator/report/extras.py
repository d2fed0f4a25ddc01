"""The HTML report's side channel: what a trace says beyond report.json's rows.

report.json's case rows carry checks, verdicts and counts, not the question, the final
answer or the tool calls. The HTML page shows those when the command that wrote it also
read them (`validator run` does when `html` is among its formats; see
`validator/commands/extras.py`), through `Report.extras`:

    Report.extras: {case_id: CaseExtra} | None      (None: nothing was collected)

    CaseExtra = {
        "question": str | None,        # from the case file
        "description": str | None,     # from the case file
        "runs": {fixture: RunExtra},   # keyed like the rows' `fixture`; the runs read again
    }
    RunExtra = {
        "status": str,                 # the run's status (pass | fail), as in the rows
        "adapter": str,                # the view adapter that read the trace
        "answer": str | None,          # the view's final_answer, clipped to ANSWER_LIMIT
        "answer_length": int,          # its full length, in characters
        "marks": [[start, end, kind]], # spans of `answer` to highlight; kind: hit | bad
        "tool_calls": [ToolCall],      # at most MAX_CALLS
        "tool_call_total": int,
        "llm_calls": [LlmCall],        # at most MAX_CALLS
        "llm_call_total": int,
        "duration_ms": number | None,  # the whole run's
        "errors": [str],               # at most MAX_ERRORS of the view's errors
        "unreadable": str | None,      # why the trace could not be read again (then no view)
    }
    ToolCall = {"name", "status", "duration_ms", "arguments", "arguments_length",
                "result", "result_length"}   # arguments/result clipped, as text
    LlmCall = {"model", "input_tokens", "output_tokens", "total_tokens", "cost", "duration_ms",
               "messages": [Message],  # absent when the view has none for the call, or the
                                       # run's conversation is not kept; [] when the run's
                                       # allowance did not reach it (see below)
               "message_total": int,   # how many messages the view has for the call
               "messages_before": int} # leading messages left out: the previous call's,
                                       # shown with it (a conversation is not repeated)
    Message = {"role": "system" | "user" | "assistant" | "tool", "text": str, "length": int}
                                       # text clipped to MESSAGE_LIMIT; length: the full one
    RunExtra["conversation"]: bool     # whether the run's llm_calls carry their messages

Every part is optional for the page: a missing key is shown as "not recorded". The page
never writes any of it back into report.json, and the other reporters never read it.

Limits (characters): answers are cut at ANSWER_LIMIT, tool arguments at ARGUMENTS_LIMIT,
tool results at RESULT_LIMIT; the page says how long the full text was. They keep a page of
2,000 cases under 10 MB (see bench/report_html.py) while showing most answers whole.

Conversations (the messages of each model call) are the largest part of a trace, so they are
kept only where a reviewer needs them, the runs that did not pass (`conversation: true`), and
bounded per run: each message cut at MESSAGE_LIMIT, at most MAX_MESSAGES messages and
MESSAGES_LIMIT characters per run (the latest messages first), leading messages a call
repeats from the previous call left out (`messages_before`). So a run adds at most about
MESSAGES_LIMIT characters, and only a failing one.
"""

from __future__ import annotations

import json
from typing import Any

ANSWER_LIMIT = 4000
ARGUMENTS_LIMIT = 300
RESULT_LIMIT = 400
MAX_CALLS = 100  # tool calls (and model calls) drawn per run
MAX_ERRORS = 20
MAX_RUNS_READ = 20  # runs of one case whose traces are read again for the page
# About 4.5 KB per failing run on the tau2-bench example (8 KB at twice these limits): a
# 3,000-case report with 300 failing runs carries about 1.4 MB of conversation.
MESSAGE_LIMIT = 500  # one message's text
MAX_MESSAGES = 24  # messages kept per run, over all its model calls
MESSAGES_LIMIT = 4000  # characters of messages kept per run
ROLES = frozenset({"system", "user", "assistant", "tool"})

HIT = "hit"  # a root-cause keyword
BAD = "bad"  # a forbidden keyword


def as_text(value: Any) -> str | None:
    """A value to show as text: text as it is, anything else as compact JSON."""
    if value is None or isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ": "), default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def clip(value: Any, limit: int) -> tuple[str | None, int]:
    """(the first `limit` characters of the value as text, the full length)."""
    text = as_text(value)
    if text is None:
        return None, 0
    return text[:limit], len(text)


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def tool_call(call: dict[str, Any]) -> dict[str, Any]:
    arguments, arguments_length = clip(call.get("arguments"), ARGUMENTS_LIMIT)
    result, result_length = clip(call.get("result"), RESULT_LIMIT)
    return {
        "name": as_text(call.get("name")),
        "status": call.get("status") if call.get("status") in ("ok", "error") else None,
        "duration_ms": _number(call.get("duration_ms")),
        "arguments": arguments,
        "arguments_length": arguments_length,
        "result": result,
        "result_length": result_length,
    }


class Budget:
    """What is left of one run's allowance of messages (MAX_MESSAGES, MESSAGES_LIMIT)."""

    def __init__(self) -> None:
        self.messages = MAX_MESSAGES
        self.chars = MESSAGES_LIMIT

    def take(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The message as the page shows it, clipped; None when the allowance is spent."""
        if self.messages <= 0 or self.chars <= 0:
            return None
        text, length = clip(message.get("content"), min(MESSAGE_LIMIT, self.chars))
        role = message.get("role")
        self.messages -= 1
        self.chars -= len(text or "")
        return {"role": role if role in ROLES else "user", "text": text or "", "length": length}


def _shared_prefix(messages: list[Any], previous: list[Any]) -> int:
    count = 0
    for mine, theirs in zip(messages, previous, strict=False):
        if mine != theirs:
            break
        count += 1
    return count


def llm_call(call: dict[str, Any]) -> dict[str, Any]:
    """A model call as the page shows it, without its messages (see `conversations`)."""
    keys = ("input_tokens", "output_tokens", "total_tokens", "cost", "duration_ms")
    shown: dict[str, Any] = {"model": as_text(call.get("model"))}
    shown.update((k, _number(call.get(k))) for k in keys)
    return shown


def conversations(calls: list[dict[str, Any]], shown: list[dict[str, Any]]) -> None:
    """Give each shown model call its messages, within one run's allowance (Budget).

    A call's leading messages that are the previous call's (a chat model is sent the whole
    conversation each time) are left out, counted in `messages_before`: each message is
    shown once. The allowance goes to the latest messages first, where a failing run went
    wrong (the question and the answer are on the page already); a call whose messages
    it does not reach has `messages: []`, and `message_total` says how many it had."""
    fresh: list[tuple[int, list[Any]]] = []
    previous: list[Any] = []
    for call in calls:
        messages = call.get("messages")
        if not isinstance(messages, list):
            fresh.append((0, []))
            continue
        before = _shared_prefix(messages, previous)
        fresh.append((before, messages))
        previous = messages
    budget = Budget()
    for index in reversed(range(len(shown))):
        before, messages = fresh[index]
        if not isinstance(calls[index].get("messages"), list):
            continue
        kept: list[dict[str, Any]] = []
        for message in reversed(messages[before:]):
            taken = budget.take(message) if isinstance(message, dict) else None
            if taken is None:
                break
            kept.append(taken)
        shown[index]["messages"] = kept[::-1]
        shown[index]["message_total"] = len(messages)
        shown[index]["messages_before"] = before


def run_extra(view: dict[str, Any], conversation: bool = False) -> dict[str, Any]:
    """What the page shows of one trace's normalized view (validator/evaluation/view/),
    clipped to the limits above; the model calls' messages when `conversation` (a run that
    did not pass). `marks` is left empty: the caller computes it on `answer`."""
    answer, answer_length = clip(view.get("final_answer"), ANSWER_LIMIT)
    tools = [c for c in view.get("tool_calls") or [] if isinstance(c, dict)]
    llms = [c for c in view.get("llm_calls") or [] if isinstance(c, dict)]
    errors = [e for e in view.get("errors") or [] if isinstance(e, dict)]
    shown_llms = [llm_call(c) for c in llms[:MAX_CALLS]]
    if conversation:
        conversations(llms[:MAX_CALLS], shown_llms)
    extra: dict[str, Any] = {
        "adapter": as_text(view.get("adapter")),
        "answer": answer,
        "answer_length": answer_length,
        "marks": [],
        "tool_calls": [tool_call(c) for c in tools[:MAX_CALLS]],
        "tool_call_total": len(tools),
        "llm_calls": shown_llms,
        "llm_call_total": len(llms),
        "conversation": conversation,
        "duration_ms": _number(view.get("duration_ms")),
        "errors": [
            f"{as_text(e.get('where'))}: {as_text(e.get('message'))}" for e in errors[:MAX_ERRORS]
        ],
        "unreadable": None,
    }
    return extra


def unreadable(reason: str) -> dict[str, Any]:
    """The extra of a run whose trace could not be read again."""
    return {"unreadable": reason}
