"""The conversation of a model call: `llm_calls[*].messages`, read from any message shape.

A model call's messages are its input messages (system, user, assistant, tool) then its
output message(s), each `{"role": "system" | "user" | "assistant" | "tool", "content":
text}`. Frameworks write them in many shapes: OpenAI chat messages (`tool_calls`), the
OpenAI Responses API's input and output items (`function_call`, `function_call_output`),
Anthropic content blocks (`tool_use`, `tool_result`), Gemini requests and responses
(`contents`, `parts`, `system_instruction`), GenAI semantic-convention `parts`, LangChain
messages (serialized constructors, `{type, data}`), AutoGen `LLMMessage`s, Vercel AI SDK
prompts and tool call lists, JSON written as text. `read_messages` reads them all.

Rules (docs/VIEW.md says them to users):

- **Content is text.** A list of content parts is joined with newlines; a tool call request
  is shown as `name(arguments)` (arguments as written, or compact JSON); a tool result part
  as its content; a part that is not text is named, e.g. `[image]`, `[audio]`, `[thinking]`.
- **Role.** The four roles, with the usual aliases (`developer` is system, `human` user,
  `ai` and `model` assistant, `function` tool). A message without a role takes the side it
  is on: `user` for an input, `assistant` for an output; a message whose parts are all tool
  results is a `tool` message. A role the view does not know (neither one of these nor an
  alias) leaves the message out, noted as unread `message`.
- **Anything else is shown, not hidden.** An input or output that is not message-shaped
  (a structured output, a request object of unknown shape) becomes one message of its
  side's role whose content is its JSON text.
"""

from __future__ import annotations

from typing import Any

from .building import MAX_DEPTH, Builder, as_dict, as_list, json_text, openai_call, parse_json

Message = dict[str, str]

ROLES = ("system", "user", "assistant", "tool")
INPUT = "user"  # the role of a message without one, on the input side
OUTPUT = "assistant"  # ... on the output side
_ROLE_ALIASES: dict[str, str] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "model": "assistant",
    "bot": "assistant",
    "tool": "tool",
    "function": "tool",
    "ipython": "tool",
    # smolagents' memory written as messages
    "tool-call": "assistant",
    "tool-response": "tool",
    # AutoGen LLMMessage types, LangChain message classes
    "SystemMessage": "system",
    "UserMessage": "user",
    "AssistantMessage": "assistant",
    "FunctionExecutionResultMessage": "tool",
    "HumanMessage": "user",
    "AIMessage": "assistant",
    "AIMessageChunk": "assistant",
    "ToolMessage": "tool",
    "FunctionMessage": "tool",
    "ChatMessage": "",  # its role is in kwargs.role
}
UNKNOWN_ROLE = "messages with a role the view does not know (not system, user, assistant or tool)"

_TEXT_TYPES = frozenset({"text", "input_text", "output_text"})
_CALL_TYPES = frozenset({"tool_call", "tool_use", "function_call", "tool-call", "function"})
_RESULT_TYPES = frozenset(
    {
        "tool_result",
        "tool_call_response",
        "function_response",
        "function_call_output",
        "tool-result",
        "functionResponse",
    }
)
_IMAGE_TYPES = frozenset({"image", "image_url", "input_image", "inline_data", "inlineData"})
_REASONING_TYPES = frozenset({"thinking", "reasoning", "redacted_thinking"})


def call_text(name: Any, arguments: Any) -> str:
    """A tool call request as one line of text: `name(arguments)`."""
    args = (
        arguments
        if isinstance(arguments, str)
        else ""
        if arguments is None
        else json_text(arguments)
    )
    return f"{name if isinstance(name, str) else '?'}({args})"


def _as_text(value: Any, depth: int) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return content_text(value, depth + 1)
    return json_text(value)


_KIND_OF_TYPE: dict[str, str] = {
    **dict.fromkeys(_TEXT_TYPES, "text"),
    **dict.fromkeys(_CALL_TYPES, "call"),
    **dict.fromkeys(_RESULT_TYPES, "result"),
    **dict.fromkeys(_IMAGE_TYPES, "image"),
    **dict.fromkeys(_REASONING_TYPES, "reasoning"),
}
# Parts without a type, by their keys (Gemini, Vercel AI SDK, any-agent)
_KIND_OF_KEYS = (
    ("call", ("function_call", "functionCall", "toolName", "tool.name")),
    ("result", ("function_response", "functionResponse")),
    ("image", ("inline_data", "inlineData", "image_url")),
)


def _part_kind(part: dict[str, Any]) -> str:
    """call | result | text | image | reasoning | other, from the part's type or keys."""
    kind = part.get("type")
    if isinstance(kind, str):
        return _KIND_OF_TYPE.get(kind, "other")
    for name, keys in _KIND_OF_KEYS:
        if any(key in part for key in keys):
            return name
    if "name" in part and "arguments" in part:
        return "call"  # AutoGen FunctionCall
    if "call_id" in part and "content" in part:
        return "result"  # AutoGen FunctionExecutionResult
    return "text"


def _call_part(part: dict[str, Any]) -> str:
    inner = part.get("function_call", part.get("functionCall"))
    if isinstance(inner, dict):  # Gemini: {function_call: {name, args}}
        return call_text(inner.get("name"), inner.get("args"))
    if "toolName" in part:  # Vercel AI SDK
        return call_text(part.get("toolName"), part.get("input", part.get("args")))
    if "tool.name" in part:  # any-agent
        return call_text(part.get("tool.name"), part.get("tool.args"))
    if isinstance(part.get("function"), dict):
        return call_text(*openai_call(part)[:2])
    arguments = part.get("arguments", part.get("input", part.get("args")))
    return call_text(part.get("name"), arguments)


def _result_part(part: dict[str, Any], depth: int) -> str:
    inner = part.get("function_response", part.get("functionResponse"))
    if isinstance(inner, dict):  # Gemini: {function_response: {name, response}}
        return _as_text(inner.get("response"), depth)
    for key in ("content", "response", "output", "result"):
        if key in part:
            return _as_text(part[key], depth)
    return ""


def _part_text(part: Any, depth: int) -> tuple[str, str]:
    """(the part's kind, its text)."""
    if isinstance(part, str):
        return "text", part
    if not isinstance(part, dict):
        return "other", json_text(part)
    kind = _part_kind(part)
    if kind == "call":
        return kind, _call_part(part)
    if kind == "result":
        return kind, _result_part(part, depth)
    if kind == "text":
        text = part.get("text", part.get("content"))
        return kind, text if isinstance(text, str) else json_text(part)
    if kind == "image":
        return kind, "[image]"
    if kind == "reasoning":
        return kind, "[thinking]"
    return kind, f"[{part.get('type')}]"


def content_text(content: Any, depth: int = 0) -> str:
    """A message's content as text (parts joined with newlines)."""
    if depth > MAX_DEPTH:
        return ""
    if isinstance(content, list):
        texts = [_part_text(part, depth)[1] for part in content]
        return "\n".join(text for text in texts if text)
    if isinstance(content, dict) and isinstance(content.get("parts"), list):
        return content_text(content["parts"], depth + 1)
    return _as_text(content, depth)


def _all_results(parts: Any) -> bool:
    items = as_list(parts)
    return bool(items) and all(
        isinstance(part, dict) and _part_kind(part) == "result" for part in items
    )


def _langchain(raw: dict[str, Any]) -> tuple[Any, dict[str, Any]] | None:
    """(role, body) of a serialized LangChain message, or None."""
    if raw.get("type") == "constructor" and isinstance(raw.get("kwargs"), dict):
        ident = as_list(raw.get("id"))
        name = ident[-1] if ident else None
        body = raw["kwargs"]
        role = body.get("role") if name == "ChatMessage" else name
        return role, body
    if isinstance(raw.get("data"), dict) and "role" not in raw:
        return raw.get("type"), raw["data"]  # {type: human, data: {content}}
    return None


def _responses_item(raw: dict[str, Any]) -> Message | None:
    """An OpenAI Responses API item that is a call or a call's output, or None."""
    kind = raw.get("type")
    if kind == "function_call":
        return {"role": "assistant", "content": call_text(raw.get("name"), raw.get("arguments"))}
    if kind == "program":  # the Agents SDK's programmatic tool calling: code
        return {"role": "assistant", "content": call_text(kind, raw.get("code"))}
    if not isinstance(kind, str) or "role" in raw:
        return None
    if kind.endswith("_output"):  # function_call_output, program_output, ...
        return {"role": "tool", "content": _as_text(raw.get("output", raw.get("result")), 0)}
    if kind.endswith("_call"):  # hosted tools: web_search_call, computer_call, ...
        return {"role": "assistant", "content": f"[{kind}]"}
    return None


def _role(raw_role: Any, side: str) -> str | None:
    if raw_role is None:
        return side
    if not isinstance(raw_role, str):
        return None
    return _ROLE_ALIASES.get(raw_role) or _ROLE_ALIASES.get(raw_role.lower()) or None


def _body_text(body: dict[str, Any], depth: int) -> str:
    if isinstance(body.get("parts"), list):
        text = content_text(body["parts"], depth + 1)
    elif "content" in body:
        text = content_text(body.get("content"), depth + 1)
    else:
        text = _as_text(body.get("text"), depth)
    calls = [
        call_text(*openai_call(call)[:2])
        for call in as_list(body.get("tool_calls"))
        if isinstance(call, dict)
    ]
    legacy = body.get("function_call")
    if isinstance(legacy, dict):
        calls.append(call_text(legacy.get("name"), legacy.get("arguments")))
    return "\n".join(part for part in (text, *calls) if part)


def one_message(raw: Any, side: str, depth: int = 0) -> Message | None:
    """One message as {role, content}; None when its role is one the view does not know."""
    if not isinstance(raw, dict):
        return {"role": side, "content": _as_text(raw, depth)}
    item = _responses_item(raw)
    if item is not None:
        return item
    found = _langchain(raw)
    if found is not None:
        raw_role, body = found
    else:
        kind = raw.get("type")
        raw_role = raw.get(
            "role", kind if isinstance(kind, str) and kind in _ROLE_ALIASES else None
        )
        body = raw
    role = _role(raw_role, side)
    if role is None:
        return None
    if role in ("user", "assistant") and _all_results(body.get("parts", body.get("content"))):
        role = "tool"  # Gemini and Anthropic send tool results as user parts
    return {"role": role, "content": _body_text(body, depth)}


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and (
        "role" in value
        or "content" in value
        or "parts" in value
        or _langchain(value) is not None
        or _responses_item(value) is not None
    )


def _gemini_request(value: dict[str, Any]) -> list[Any]:
    config = as_dict(value.get("config"))
    system = config.get("system_instruction", value.get("system_instruction"))
    head = [{"role": "system", "content": content_text(system)}] if system else []
    return [*head, *value["contents"]]


def _request_messages(value: dict[str, Any], side: str) -> list[Any] | None:
    """The messages of a request: {system, messages} (Anthropic, chat), Gemini's contents,
    a prompt or prompts (completion models, LangSmith)."""
    if isinstance(value.get("messages"), list):
        system = value.get("system")
        head = [{"role": "system", "content": content_text(system)}] if system else []
        return [*head, *value["messages"]]
    if isinstance(value.get("contents"), list):
        return _gemini_request(value)
    for key in ("prompt", "prompts", "input"):
        if isinstance(value.get(key), (str, list)) and side == INPUT:
            found = value[key]
            return found if isinstance(found, list) else [found]
    return None


def _response_messages(value: dict[str, Any], side: str) -> list[Any] | None:
    """The message of a response: OpenAI choices, Gemini candidates, Responses output
    items (reasoning left out), a LangChain LLMResult's first generation."""
    choices = value.get("choices")
    if isinstance(choices, list) and choices:
        first = as_dict(choices[0])
        return [first.get("message", first.get("text"))]
    candidates = value.get("candidates")
    if isinstance(candidates, list) and candidates:
        return [as_dict(candidates[0]).get("content")]
    if isinstance(value.get("output"), list):
        return [i for i in value["output"] if as_dict(i).get("type") != "reasoning"]
    generations = value.get("generations")  # [[generation]]
    if isinstance(generations, list) and generations:
        first = generations[0]
        first = as_dict(first[0] if isinstance(first, list) and first else first)
        return [first.get("message", first.get("text"))]
    return None


def _listed(value: dict[str, Any], side: str) -> list[Any] | None:
    """The message list a request or response object holds, or None."""
    found = _request_messages(value, side)
    return found if found is not None else _response_messages(value, side)


def _decoded(value: Any) -> Any:
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        ok, parsed = parse_json(value)
        if ok:
            return parsed
    return value


def read_messages(value: Any, side: str, builder: Builder, depth: int = 0) -> list[Message]:
    """The messages an input (`side` INPUT) or output (OUTPUT) holds, in order.

    Roles the view does not know are left out and noted as unread `message`."""
    written = value
    value = _decoded(value)
    if value in (None, "", [], {}) or depth > MAX_DEPTH:
        return []
    if isinstance(value, dict):
        listed = _listed(value, side)
        if listed is not None:
            return read_messages(listed, side, builder, depth + 1)
        if not _is_message(value):  # JSON text is shown as written
            text = written if isinstance(written, str) else json_text(value)
            return [{"role": side, "content": text}]
        value = [value]
    if not isinstance(value, list):
        return [{"role": side, "content": _as_text(value, depth)}]
    if value and all(_is_call_entry(item) for item in value):
        return [{"role": "assistant", "content": content_text(value, depth + 1)}]
    out: list[Message] = []
    for raw in value:
        found = one_message(_decoded(raw), side, depth + 1)
        if found is None:
            builder.unread("message", UNKNOWN_ROLE)
        else:
            out.append(found)
    return out


def _is_call_entry(item: Any) -> bool:
    """A bare tool call request (Vercel's `{toolCallId, toolName, input}`, any-agent's
    `{tool.name, tool.args}`, AutoGen's `{id, name, arguments}`): a list of them is one
    assistant message."""
    if not isinstance(item, dict) or "role" in item:
        return False
    autogen = "name" in item and "arguments" in item and "type" not in item
    return "toolName" in item or "tool.name" in item or autogen


def conversation(
    inputs: Any, outputs: Any, builder: Builder, system: Any = None
) -> list[Message] | None:
    """A model call's messages: the system instructions recorded apart (if any), its
    input's messages, then its output's; None when that is no message at all (the view then
    has no `messages` for the call: "not recorded", never an empty list)."""
    head = [{"role": "system", "content": content_text(system)}] if system else []
    found = [
        *head,
        *read_messages(inputs, INPUT, builder),
        *read_messages(outputs, OUTPUT, builder),
    ]
    return found or None
