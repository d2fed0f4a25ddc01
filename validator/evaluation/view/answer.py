"""The text an output says to the user, in any of the message shapes models and frameworks
write (OpenAI choices and Responses items, Anthropic content blocks, Gemini parts, GenAI
semantic-convention message lists, JSON written as text): the `final_answer` of every
adapter."""

from __future__ import annotations

from typing import Any

from .building import MAX_DEPTH, as_list, json_text, one_of, parse_json

_UNKNOWN = object()  # a value with no recognized message shape
ASSISTANT_ROLES = frozenset({"assistant", "ai", "model"})
_TEXT_PART_TYPES = frozenset({"text", "output_text"})
# Parts and items that request a tool instead of saying something to the user.
TOOL_MARKS = frozenset({"tool_call", "tool_use", "function_call", "tool-call", "function"})
_TOOL_KEYS = ("toolCallId", "tool_call_id", "tool.name", "tool_calls", "function_call")


def _part_text(part: Any) -> str | None:
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return None
    kind = part.get("type")
    if kind is not None and not one_of(kind, _TEXT_PART_TYPES):
        return None  # tool calls, images, reasoning: not what the user was told
    text = part.get("text", part.get("content"))
    return text if isinstance(text, str) else None


def _parts_text(parts: list[Any]) -> str | None:
    texts = [t for t in (_part_text(p) for p in parts) if t]
    return "\n".join(texts) if texts else None


def _content_text(content: Any, depth: int) -> Any:
    if isinstance(content, str):
        return content or None
    if isinstance(content, list):
        return _parts_text(content)
    if isinstance(content, dict) and isinstance(content.get("parts"), list):
        return _parts_text(content["parts"])  # Gemini: {"content": {"parts": [...]}}
    return _extract(content, depth + 1) if content is not None else None


def _is_tool_item(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    return one_of(item.get("type"), TOOL_MARKS) or any(k in item for k in _TOOL_KEYS)


def _messages_text(messages: list[Any], depth: int) -> Any:
    """The text of the last assistant message that has text."""
    for message in reversed(messages):
        if isinstance(message, dict) and one_of(message.get("role"), ASSISTANT_ROLES):
            text = message_text(message, depth)
            if isinstance(text, str):
                return text
    return None


def message_text(message: dict[str, Any], depth: int) -> Any:
    if "parts" in message and isinstance(message["parts"], list):
        return _parts_text(message["parts"])
    return _content_text(message.get("content"), depth)


def _list_text(value: list[Any], depth: int) -> Any:
    if not value:
        return _UNKNOWN
    first = value[0]
    if isinstance(first, dict) and "role" in first:
        return _messages_text(value, depth)
    if all(_is_tool_item(item) for item in value):
        return None  # only tool calls were produced: no answer text
    if isinstance(first, dict) and one_of(first.get("type"), _TEXT_PART_TYPES):
        return _parts_text(value)
    return _UNKNOWN


def _responses_text(output: list[Any]) -> str | None:
    """OpenAI Responses API: the text of its `message` output items."""
    texts = [
        _parts_text(as_list(item.get("content")))
        for item in output
        if isinstance(item, dict) and item.get("type") == "message"
    ]
    joined = [t for t in texts if t]
    return "\n".join(joined) if joined else None


def _dict_text(value: dict[str, Any], depth: int) -> Any:
    choices = value.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return _extract(choices[0].get("message", choices[0].get("text")), depth + 1)
    if "role" in value or "content" in value:
        return message_text(value, depth)
    if isinstance(value.get("parts"), list):
        return _parts_text(value["parts"])
    output = value.get("output")
    if isinstance(output, list):
        return _responses_text(output)
    if isinstance(output, str):
        return output or None
    if isinstance(value.get("text"), str):
        return value["text"] or None
    return None if _is_tool_item(value) else _UNKNOWN


def _extract(value: Any, depth: int) -> Any:
    """The answer text in a known message shape, None for "no text", or _UNKNOWN."""
    if depth > MAX_DEPTH:
        return _UNKNOWN
    if isinstance(value, str):
        if value.lstrip()[:1] not in ("{", "[", '"'):
            return value
        ok, decoded = parse_json(value)
        if not ok:
            return value
        found = _extract(decoded, depth + 1)
        return value if found is _UNKNOWN else found
    if isinstance(value, list):
        return _list_text(value, depth)
    if isinstance(value, dict):
        return _dict_text(value, depth)
    return _UNKNOWN


def answer_text(value: Any) -> str | None:
    """The text an output says to the user (a structured answer becomes compact JSON text)."""
    if value is None:
        return None
    found = _extract(value, 0)
    if found is _UNKNOWN:
        return value if isinstance(value, str) else json_text(value)
    return found if isinstance(found, str) else None
