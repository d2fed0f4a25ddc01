"""A chat message list (the trace itself, the field ViewOptions.messages names, or the first
top-level list of objects with a role, such as a tau2-bench simulation's messages):
assistant tool_calls in the OpenAI, tau2-bench or Inspect AI shape, answered by tool
messages of the same call id; assistant usage as model calls; the last assistant text as the
final answer.

Messages: a model call (an assistant message with usage) has the list's messages since
the previous model call, then its own: each message is in one call, and the calls'
messages in order are the conversation.

Unread: messages that are not objects, tool messages that answer no recorded call, tool
calls written in a form this adapter does not read (content parts such as Anthropic's
tool_use, the legacy function_call field, entries that are not objects), and a trace with no
message list. User-side tool calls (tau2-bench telecom) are left out on purpose: the view
describes the agent.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ...problems import kind_of
from .answer import ASSISTANT_ROLES, TOOL_MARKS, message_text
from .building import (
    Adapter,
    Builder,
    View,
    ViewOptions,
    as_dict,
    as_list,
    elapsed_ms,
    first_number,
    id_text,
    json_text,
    one_of,
    openai_call,
    order_key,
    path_at,
    summary,
    time_ns,
)
from .messages import INPUT, UNKNOWN_ROLE, Message, one_message

_NO_LIST = "no message list found in the trace"
_UNANSWERED = "tool messages that answer no recorded tool call"


def _is_message_list(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and isinstance(value[0], dict)
        and "role" in value[0]
    )


def detect(trace: Any) -> bool:
    if isinstance(trace, list):
        return _is_message_list(trace)
    return isinstance(trace, dict) and any(_is_message_list(v) for v in trace.values())


@lru_cache(maxsize=64)
def _compiled_path(text: str) -> Any:
    from jsonpath_ng.ext import parse  # heavy import: only when a messages path is given

    return parse(text)


def _jsonpath_of(node: Any) -> str | None:
    """A jsonpath-ng full path (Child/Fields/Index/Root) as JSONPath text, or None."""
    from jsonpath_ng import Child, Fields, Index, Root, This

    if isinstance(node, (Root, This)):
        return "$"
    if isinstance(node, Child):
        left = _jsonpath_of(node.left)
        right = _jsonpath_of(node.right)
        return None if left is None or right is None else left + right[1:]
    if isinstance(node, Fields) and len(node.fields) == 1:
        return path_at("$", node.fields[0])
    if isinstance(node, Index) and isinstance(getattr(node, "index", None), int):
        return path_at("$", node.index)
    return None


def _messages_by_path(trace: Any, text: str, builder: Builder) -> list[tuple[Any, str]]:
    try:
        matches = _compiled_path(text).find(trace)
    except Exception as exc:  # jsonpath-ng raises plain Exception for syntax errors
        message = f"the messages path {text!r} is not a usable JSONPath: {exc}"
        builder.cannot_read("trace", _NO_LIST, message, "$")
        return []
    if not matches:
        message = f"the messages path {text!r} matches nothing in this trace"
        builder.cannot_read("trace", _NO_LIST, message, "$")
        return []
    first = matches[0]
    if isinstance(first.value, list):
        base = _jsonpath_of(first.full_path) or text
        return [(m, path_at(base, j)) for j, m in enumerate(first.value)]
    return [(m.value, _jsonpath_of(m.full_path) or text) for m in matches]


def _find_messages(trace: Any, options: ViewOptions, builder: Builder) -> list[tuple[Any, str]]:
    if options.messages is not None:
        return _messages_by_path(trace, options.messages, builder)
    if isinstance(trace, list):
        return [(m, path_at("$", j)) for j, m in enumerate(trace)]
    if isinstance(trace, dict):
        for key, value in trace.items():
            if _is_message_list(value):
                return [(m, path_at(path_at("$", key), j)) for j, m in enumerate(value)]
    message = (
        f"no message list found: the trace is {kind_of(trace)} with no list of messages"
        " (objects with a role)"
    )
    builder.cannot_read("trace", _NO_LIST, message, "$")
    return []


def _tool_failure(message: dict[str, Any]) -> str | None:
    """Why a tool message reports failure (tau2 `error: true`, Inspect AI `error: {message}`)."""
    error = message.get("error")
    if error is True:
        content = message.get("content")
        return content if isinstance(content, str) and content else "the tool reported an error"
    if isinstance(error, dict):
        text = error.get("message")
        return text if isinstance(text, str) and text else json_text(error)
    if isinstance(error, str) and error:
        return error
    return None


def _results_by_id(messages: list[tuple[Any, str]]) -> dict[str, tuple[dict[str, Any], str]]:
    results: dict[str, tuple[dict[str, Any], str]] = {}
    for message, where in messages:
        if isinstance(message, dict) and message.get("role") == "tool":
            key = id_text(message.get("tool_call_id")) or id_text(message.get("id"))
            if key is not None:
                results.setdefault(key, (message, where))
    return results


def _unasked(messages: list[tuple[Any, str]]) -> int:
    """How many tool messages answer no tool call of any message (the call is not recorded)."""
    asked: set[str] = set()
    for message, _ in messages:
        for call in as_list(as_dict(message).get("tool_calls")):
            key = id_text(as_dict(call).get("id"))
            if key is not None:
                asked.add(key)
    unasked = 0
    for message, _ in messages:
        if isinstance(message, dict) and message.get("role") == "tool":
            keys = (id_text(message.get("tool_call_id")), id_text(message.get("id")))
            unasked += not any(key in asked for key in keys if key is not None)
    return unasked


def _unread_tool_forms(builder: Builder, message: dict[str, Any]) -> None:
    """Tool calls an assistant message writes in a form this adapter does not read."""
    if message.get("function_call") is not None:
        builder.unread("tool-call", "the legacy function_call field of assistant messages")
    content = message.get("content", message.get("parts"))
    parts = sum(1 for part in as_list(content) if _is_tool_part(part))
    builder.unread(
        "tool-call", "tool calls written as content parts (tool_use, function_call)", parts
    )


def _is_tool_part(part: Any) -> bool:
    return isinstance(part, dict) and (
        one_of(part.get("type"), TOOL_MARKS) or "functionCall" in part
    )


def _message_tools(
    builder: Builder,
    message: dict[str, Any],
    where: str,
    position: int,
    results: dict[str, tuple[dict[str, Any], str]],
) -> None:
    calls = message.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        message_ = f"cannot read tool_calls: {kind_of(calls)}, not a list"
        reason = "tool_calls that are not lists"
        builder.cannot_read("tool-call", reason, message_, path_at(where, "tool_calls"))
        return
    for number, call in enumerate(calls or []):
        if not isinstance(call, dict):
            builder.cannot_read(
                "tool-call",
                "tool calls that are not objects",
                f"cannot read tool call: it is {kind_of(call)}, not an object",
                path_at(path_at(where, "tool_calls"), number),
            )
            continue
        name, arguments, call_id = openai_call(call)
        answer, answer_where = results.get(id_text(call_id) or "", (None, ""))
        failure = _tool_failure(answer) if answer is not None else None
        if failure is not None:
            builder.error(failure, path_at(answer_where, "error"))
        builder.tool(
            order_key(None, position, number),
            name=name,
            arguments=arguments,
            result=answer.get("content") if answer is not None else None,
            failed=failure is not None,
            call_id=call_id,
        )


def _said(messages: list[tuple[Any, str]], builder: Builder) -> list[Message | None]:
    """Every message as {role, content} (None: not an object, or a role the view does not
    know). A model call's messages are those since the previous call, then its own: each
    message once, and the view stays linear in the transcript."""
    said = [one_message(m, INPUT) if isinstance(m, dict) else None for m, _ in messages]
    unknown = sum(
        1 for (m, _), r in zip(messages, said, strict=True) if isinstance(m, dict) and r is None
    )
    builder.unread("message", UNKNOWN_ROLE, unknown)
    return said


def build(trace: Any, options: ViewOptions) -> View:
    builder = Builder("openai-messages", options)
    messages = _find_messages(trace, options, builder)
    results = _results_by_id(messages)
    builder.unread("message", _UNANSWERED, _unasked(messages))
    said: list[Message | None] | None = None  # read once, when a model call needs them
    since = 0  # the first message after the previous model call
    for position, (message, where) in enumerate(messages):
        if not isinstance(message, dict):
            text = f"cannot read message: it is {kind_of(message)}, not an object"
            builder.cannot_read("message", "messages that are not objects", text, where)
            continue
        if not one_of(message.get("role"), ASSISTANT_ROLES):
            continue  # user-side tool calls (tau2 telecom) and the user simulator's usage are left out
        _message_tools(builder, message, where, position, results)
        _unread_tool_forms(builder, message)
        usage = message.get("usage")
        if isinstance(usage, dict):
            said = said if said is not None else _said(messages, builder)
            builder.llm(
                order_key(None, position),
                model=message.get("model"),
                input_tokens=first_number(usage, ("prompt_tokens", "input_tokens")),
                output_tokens=first_number(usage, ("completion_tokens", "output_tokens")),
                total_tokens=usage.get("total_tokens"),
                cost=message.get("cost"),
                messages=[m for m in said[since : position + 1] if m is not None] or None,
            )
            since = position + 1
        text = message_text(message, 0)
        if isinstance(text, str) and text.strip():
            builder.final_answer = text
    if isinstance(trace, dict):
        builder.duration_ms = elapsed_ms(
            time_ns(trace.get("start_time"), 10**9), time_ns(trace.get("end_time"), 10**9)
        )
    return builder.finish()


ADAPTER = Adapter(
    name="openai-messages",
    doc=summary(__doc__),
    recognized="a list whose first item has a `role`, or an object with a top-level field "
    "holding such a list",
    detect=detect,
    build=build,
)
