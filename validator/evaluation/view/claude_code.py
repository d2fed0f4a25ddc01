"""A Claude Code conversation transcript (`~/.claude/projects/<project>/<conversation-id>.jsonl`, read as
one trace with `traces.group: file`, or a sub-agent's `agent-*.jsonl`): `tool_use` blocks of
assistant records are tool calls, the `tool_result` blocks citing them their results,
`message.usage` once per API response the model calls, the last response's text the answer.

Tool calls: each `tool_use` content block (`name`, `input`, `id`) of an `assistant` record,
and of the sub-agent messages that `progress` records with `data.type: agent_progress`
stream (`data.message`), in file order. The result is the `content` of the `tool_result`
block whose `tool_use_id` is the call's id; the call failed when that block has
`is_error: true` (a rejected call, a sub-agent's failed read). The duration is the record's
`toolUseResult.durationMs` (or `totalDurationMs`, or `durationSeconds` x 1000), else the
result record's `timestamp` minus the call record's.

Model calls: one per distinct `message.id`. One API response is written over several lines
(one content block each) that repeat its usage, with `output_tokens` growing as it streams:
the usage of the response's last line counts, once. `input_tokens` is the prompt as the
model read it: `input_tokens` + `cache_creation_input_tokens` + `cache_read_input_tokens`;
`output_tokens` as recorded; `model` is `message.model`. No cost and no duration are
recorded. A synthetic API error record (`isApiErrorMessage`) is an error, not a model call.

Final answer: the text blocks of the conversation's last API response, when that response asks
for no tool (text written before a tool call is narration, not an answer); responses of the
main conversation (`isSidechain` false) first, a sub-agent's own transcript otherwise.
Duration: first to last record `timestamp`. Errors: each failed tool call (the result text),
each `[Request interrupted by user ...]` message, `system` records with `level: error`.

Unread (`record`): file-history-snapshot, queue-operation and non-error system records, hook
progress, thinking blocks, records that are not objects, tool results answering no
`tool_use` of the file (their call is in another file). Left out: user prompts, the
structured `toolUseResult` beyond durations (reachable in the raw trace), the sub-agent
totals of a Task result (`totalTokens`: its calls are read from the progress records).
"""

from __future__ import annotations

from typing import Any

from ...problems import kind_of
from .building import (
    Adapter,
    Builder,
    Order,
    View,
    ViewOptions,
    as_dict,
    as_list,
    as_number,
    elapsed_ms,
    first_number,
    id_text,
    json_text,
    not_a_call,
    one_of,
    order_key,
    path_at,
    span_ms,
    summary,
    time_ns,
)

_RECORD_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "summary",
    }
)
_RECORD_KEYS = ("sessionId", "uuid", "messageId", "leafUuid")
_INTERRUPTED = "[Request interrupted by user"
_UNANSWERED = "tool results answering no tool_use of the transcript"
# Bookkeeping records and blocks: noted in $.view.unread, never counted by --fail-on unread.
_THINKING = not_a_call("record", "thinking blocks (the model's reasoning)")
_SYSTEM = not_a_call("record", "system records (local commands, hook summaries)")
_PROGRESS = not_a_call("record", "progress records other than a sub-agent's messages")
_BOOKKEEPING = not_a_call("record", "file-history-snapshot, queue-operation and summary records")


def _is_record(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and one_of(value.get("type"), _RECORD_TYPES)
        and any(key in value for key in _RECORD_KEYS)
    )


def detect(trace: Any) -> bool:
    if isinstance(trace, list):
        return bool(trace) and _is_record(trace[0])
    return _is_record(trace)


def _text(content: Any) -> str:
    """The text of a tool result's or message's content (text, or text blocks)."""
    if isinstance(content, str):
        return content
    parts = [as_dict(b).get("text") for b in as_list(content)]
    return "\n".join(p for p in parts if isinstance(p, str))


def _messages(record: dict[str, Any], where: str) -> list[tuple[dict[str, Any], str, bool]]:
    """(the record holding a message, its path, streamed by a sub-agent) for a record and the
    sub-agent message a progress record carries."""
    if record.get("type") in ("user", "assistant"):
        return [(record, where, False)]
    data = as_dict(record.get("data"))
    inner = data.get("message")
    progress = record.get("type") == "progress" and data.get("type") == "agent_progress"
    if progress and isinstance(inner, dict):
        return [(inner, path_at(path_at(where, "data"), "message"), True)]
    return []


Result = tuple[dict[str, Any], dict[str, Any], str]  # the block, its record, its path


def _results(records: list[tuple[Any, str]]) -> dict[str, Result]:
    found: dict[str, Result] = {}
    for record, where in records:
        if not isinstance(record, dict):
            continue
        for holder, at, _ in _messages(record, where):
            if holder.get("type") != "user":
                continue
            content = as_dict(holder.get("message")).get("content")
            for j, block in enumerate(as_list(content)):
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    key = id_text(block.get("tool_use_id"))
                    place = path_at(path_at(path_at(at, "message"), "content"), j)
                    if key is not None:
                        found.setdefault(key, (block, holder, place))
    return found


def _tool_duration(call: dict[str, Any], result: dict[str, Any] | None) -> float | None:
    if result is None:
        return None
    structured = as_dict(result.get("toolUseResult"))
    millis = first_number(structured, ("durationMs", "totalDurationMs"))
    if millis is not None:
        return float(millis)
    seconds = as_number(structured.get("durationSeconds"))
    if seconds is not None:
        return seconds * 1000
    return elapsed_ms(time_ns(call.get("timestamp"), 1), time_ns(result.get("timestamp"), 1))


class _Response:
    """One API response, over the lines that carry its blocks."""

    def __init__(self, order: Order, main: bool) -> None:
        self.order = order
        self.main = main
        self.usage: dict[str, Any] = {}
        self.model: Any = None
        self.texts: list[str] = []
        self.asks_tool = False


class _Reader:
    def __init__(self, builder: Builder, results: dict[str, Result]) -> None:
        self.builder = builder
        self.results = results
        self.asked: set[str] = set()
        self.responses: dict[str, _Response] = {}
        self.last: dict[bool, _Response] = {}  # the last response of the main line / sidechain

    def assistant(self, holder: dict[str, Any], where: str, position: int, streamed: bool) -> None:
        message = as_dict(holder.get("message"))
        if holder.get("isApiErrorMessage") is True:
            text = _text(message.get("content")) or "an API error"
            self.builder.error(text, path_at(where, "message"))
            return
        key = id_text(message.get("id")) or f"line {where}"
        response = self.responses.get(key)
        if response is None:
            main = holder.get("isSidechain") is not True and not streamed
            response = self.responses[key] = _Response(order_key(None, position), main)
        if isinstance(message.get("usage"), dict):
            response.usage = message["usage"]  # the last line's usage is the final one
        response.model = message.get("model") or response.model
        if not streamed:
            self.last[response.main] = response
        self._blocks(response, holder, message, where, position)

    def _blocks(
        self,
        response: _Response,
        holder: dict[str, Any],
        message: dict[str, Any],
        where: str,
        position: int,
    ) -> None:
        content = message.get("content")
        if isinstance(content, str) and content.strip():
            response.texts.append(content)
        for j, block in enumerate(as_list(content)):
            kind = as_dict(block).get("type")
            if kind == "tool_use":
                response.asks_tool = True
                self._tool(block, holder, position, j)
            elif kind == "text" and isinstance(block.get("text"), str) and block["text"].strip():
                response.texts.append(block["text"])
            elif kind in ("thinking", "redacted_thinking"):
                self.builder.unread("record", _THINKING)

    def _tool(self, block: dict[str, Any], holder: dict[str, Any], position: int, j: int) -> None:
        key = id_text(block.get("id"))
        if key is not None:
            self.asked.add(key)
        answer, answered, place = self.results.get(key or "", (None, None, ""))
        failed = answer is not None and answer.get("is_error") is True
        if failed and answer is not None:
            said = _text(answer.get("content")).strip() or "the tool call failed"
            self.builder.error(said, path_at(place, "is_error"))
        self.builder.tool(
            order_key(None, position, j),
            name=block.get("name"),
            arguments=block.get("input"),
            result=answer.get("content") if answer is not None else None,
            failed=failed,
            duration_ms=_tool_duration(holder, answered),
            call_id=key,
        )

    def user(self, holder: dict[str, Any], where: str) -> None:
        content = as_dict(holder.get("message")).get("content")
        blocks = [content] if isinstance(content, str) else as_list(content)
        for block in blocks:
            text = block if isinstance(block, str) else as_dict(block).get("text")
            if isinstance(text, str) and text.startswith(_INTERRUPTED):
                self.builder.error(text, path_at(path_at(where, "message"), "content"))

    def finish(self) -> None:
        for response in self.responses.values():
            usage = response.usage
            parts = [
                as_number(usage.get(k))
                for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
            ]
            known = [p for p in parts if p is not None]
            self.builder.llm(
                response.order,
                model=response.model,
                input_tokens=sum(known) if known else None,
                output_tokens=usage.get("output_tokens"),
            )
        last = self.last.get(True) or self.last.get(False)
        if last is not None and not last.asks_tool and last.texts:
            self.builder.final_answer = "\n".join(last.texts)


def _other(builder: Builder, record: dict[str, Any], where: str) -> None:
    kind = record.get("type")
    if kind == "system":
        if record.get("level") == "error":
            text = record.get("content")
            builder.error(text if isinstance(text, str) else json_text(text), where)
        else:
            builder.unread("record", _SYSTEM)
    elif kind == "progress":
        builder.unread("record", _PROGRESS)
    elif kind in ("file-history-snapshot", "queue-operation", "summary"):
        builder.unread("record", _BOOKKEEPING)
    elif kind not in ("user", "assistant"):
        builder.unread("record", "records of a type the view does not know")


def build(trace: Any, options: ViewOptions) -> View:
    builder = Builder("claude-code", options)
    if isinstance(trace, list):
        records = [(record, path_at("$", i)) for i, record in enumerate(trace)]
    else:
        records = [(trace, "$")]
    results = _results(records)
    reader = _Reader(builder, results)
    times: list[int] = []
    for position, (record, where) in enumerate(records):
        if not isinstance(record, dict):
            message = f"cannot read record: it is {kind_of(record)}, not an object"
            builder.cannot_read("record", "records that are not objects", message, where)
            continue
        moment = time_ns(record.get("timestamp"), 1)
        if moment is not None:
            times.append(moment)
        if not any(True for _ in _messages(record, where)):
            _other(builder, record, where)
        for holder, at, streamed in _messages(record, where):
            if holder.get("type") == "assistant":
                reader.assistant(holder, at, position, streamed)
            elif holder.get("type") == "user" and not streamed:
                reader.user(holder, at)
    reader.finish()
    builder.unread("record", _UNANSWERED, sum(1 for key in results if key not in reader.asked))
    builder.duration_ms = span_ms(times, times)
    return builder.finish()


ADAPTER = Adapter(
    name="claude-code",
    doc=summary(__doc__),
    recognized="a Claude Code record (`type` user, assistant, system, progress, ... with "
    "its conversation id, `uuid` or `messageId`), or a list whose first item is one",
    detect=detect,
    build=build,
)
