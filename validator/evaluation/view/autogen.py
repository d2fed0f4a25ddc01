"""Microsoft AutoGen (autogen-core 0.4+): a saved chat-completion context (`{"messages":
[...]}` of `LLMMessage`s, each with a `type`), or the model calls a `ChatCompletionClientRecorder`
recorded (a list of `{mode, messages, response}` records).

Tool calls are the function calls of an `AssistantMessage` whose `content` is a list
(`{id, name, arguments}`, arguments as JSON text); the `FunctionExecutionResultMessage`
entry with the same `call_id` gives the result (`content`), and its `is_error: true` fails
the call and is an `errors` entry. In a recording, the calls are those of each record's
`response.content` (when it is a list), and their results are looked up in the messages of
every record.

Model calls: each recorded record is one model call, with `response.usage.prompt_tokens` and
`completion_tokens` (a `cached: true` response is counted like any other, as recorded). A
chat context records no usage: each `AssistantMessage` is one model call with unknown
tokens (so a token budget fails rather than passing on nothing). Neither shape records the
model's name or any time: `model` and the durations are null. The answer is the last
`AssistantMessage` with text content (a recording: the last record's `response.content`
when it is text).

Messages: a record's `messages` then its `response.content`; in a chat context, the
messages since the previous `AssistantMessage`, then its own (each message once; the role
is the message `type`).

Unread: messages of a type the view does not know, results that answer no call, records
that are not objects or hold no response.
"""

from __future__ import annotations

from typing import Any

from ...problems import kind_of
from .building import (
    Adapter,
    Builder,
    View,
    ViewOptions,
    as_dict,
    as_list,
    first_number,
    id_text,
    not_an_object,
    one_of,
    order_key,
    path_at,
    summary,
)
from .messages import INPUT, OUTPUT, Message, one_message, read_messages

_TYPES = frozenset(
    {"SystemMessage", "UserMessage", "AssistantMessage", "FunctionExecutionResultMessage"}
)
_RESULT = "FunctionExecutionResultMessage"
_UNANSWERED = "tool results that answer no function call"


def _first_is_message(messages: Any) -> bool:
    first = messages[0] if isinstance(messages, list) and messages else None
    return isinstance(first, dict) and one_of(first.get("type"), _TYPES)


def _is_recording(trace: Any) -> bool:
    first = trace[0] if isinstance(trace, list) and trace else None
    return isinstance(first, dict) and "response" in first and "mode" in first


def detect(trace: Any) -> bool:
    if isinstance(trace, dict):
        return _first_is_message(trace.get("messages"))
    return _is_recording(trace)


def _results(messages: list[tuple[Any, str]]) -> dict[str, tuple[dict[str, Any], str]]:
    """Each function result by call_id (the first one met), with where it is."""
    found: dict[str, tuple[dict[str, Any], str]] = {}
    for message, where in messages:
        if not isinstance(message, dict) or message.get("type") != _RESULT:
            continue
        for index, result in enumerate(as_list(message.get("content"))):
            call_id = id_text(as_dict(result).get("call_id"))
            if call_id is not None and call_id not in found:
                found[call_id] = (as_dict(result), path_at(path_at(where, "content"), index))
    return found


def _said(messages: list[tuple[Any, str]]) -> list[Message] | None:
    """A model call's conversation: the messages of the types the view knows, as {role,
    content} (the others are noted unread where they are met)."""
    said = [
        one_message(m, INPUT)
        for m, _ in messages
        if isinstance(m, dict) and one_of(m.get("type"), _TYPES)
    ]
    return [m for m in said if m is not None] or None


class _Calls:
    def __init__(self, builder: Builder, results: dict[str, tuple[dict[str, Any], str]]) -> None:
        self.builder = builder
        self.results = results
        self.asked: set[str] = set()

    def add(self, calls: list[Any], position: int, where: str) -> None:
        for within, call in enumerate(calls):
            if not isinstance(call, dict):
                message = f"cannot read function call: {kind_of(call)}"
                reason = "tool call entries that are not objects"
                self.builder.cannot_read("tool-call", reason, message, path_at(where, within))
                continue
            call_id = id_text(call.get("id"))
            result, result_at = self.results.get(call_id or "", ({}, ""))
            if call_id is not None:
                self.asked.add(call_id)
            failed = result.get("is_error") is True
            if failed:
                self.builder.error(f"{call.get('name')} failed: {result.get('content')}", result_at)
            self.builder.tool(
                order_key(None, position, within),
                name=call.get("name"),
                arguments=call.get("arguments"),
                result=result.get("content"),
                failed=failed,
                call_id=call_id,
            )

    def note_unanswered(self) -> None:
        stray = [c for c in self.results if c not in self.asked]
        self.builder.unread("message", _UNANSWERED, len(stray))


def _build_context(trace: dict[str, Any], builder: Builder) -> View:
    messages = [(m, path_at("$.messages", i)) for i, m in enumerate(as_list(trace.get("messages")))]
    calls = _Calls(builder, _results(messages))
    since = 0  # the first message after the previous model call
    for index, (message, where) in enumerate(messages):
        if not isinstance(message, dict):
            reason = "chat messages that are not objects"
            builder.cannot_read(
                "message", reason, f"cannot read message: {kind_of(message)}", where
            )
            continue
        kind = message.get("type")
        if kind == "AssistantMessage":
            builder.llm(
                order_key(None, index),
                model=None,
                input_tokens=None,
                output_tokens=None,
                messages=_said(messages[since : index + 1]),
            )
            since = index + 1
            content = message.get("content")
            if isinstance(content, list):
                calls.add(content, index, path_at(where, "content"))
            elif isinstance(content, str) and content:
                builder.final_answer = content
        elif not one_of(kind, _TYPES):
            builder.unread("message", "messages of a type the view does not know")
    calls.note_unanswered()
    return builder.finish()


def _build_recording(records: list[Any], builder: Builder) -> View:
    messages = [
        (m, path_at(path_at(path_at("$", i), "messages"), j))
        for i, record in enumerate(records)
        for j, m in enumerate(as_list(as_dict(record).get("messages")))
    ]
    calls = _Calls(builder, _results(messages))
    for index, record in enumerate(records):
        where = path_at("$", index)
        response = as_dict(record).get("response")
        if not isinstance(response, dict):
            reason = "recorded model calls that are not objects or hold no response"
            message = f"cannot read this record: its response is {kind_of(response)}"
            builder.cannot_read("record", reason, message, where)
            continue
        usage = as_dict(response.get("usage"))
        said = _said([(m, "") for m in as_list(as_dict(record).get("messages"))]) or []
        builder.llm(
            order_key(None, index),
            model=None,
            input_tokens=first_number(usage, ("prompt_tokens",)),
            output_tokens=first_number(usage, ("completion_tokens",)),
            messages=[*said, *read_messages(response.get("content"), OUTPUT, builder)] or None,
        )
        content = response.get("content")
        if isinstance(content, list):
            calls.add(content, index, path_at(path_at(where, "response"), "content"))
        builder.final_answer = content if isinstance(content, str) and content else None
    calls.note_unanswered()
    return builder.finish()


def build(trace: Any, options: ViewOptions) -> View:
    builder = Builder("autogen", options)
    if isinstance(trace, dict):
        return _build_context(trace, builder)
    if isinstance(trace, list):
        return _build_recording(trace, builder)
    expected = "an AutoGen chat context {messages} or a list of recorded model calls"
    return not_an_object(builder, trace, expected)


ADAPTER = Adapter(
    name="autogen",
    doc=summary(__doc__),
    recognized="an object whose `messages` list starts with an AutoGen message (`type` "
    "`SystemMessage`, `UserMessage`, ...), or a list whose first item has `mode` and `response`",
    detect=detect,
    build=build,
)
