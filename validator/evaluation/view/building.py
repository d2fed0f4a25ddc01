"""What every adapter builds with: the adapter record, the small readers of raw values, and
the `Builder` that collects a view's calls, errors and unread content in any order.

A view never raises for a JSON value: readers return None for what they cannot read, and
the builder records it (an `errors` entry for a problem the trace has, an `unread` entry for
content the adapter met but could not take in; docs/VIEW.md lists both).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from ...dataclass import dataclass
from ...problems import counted, kind_of

View = dict[str, Any]


@dataclass(frozen=True)
class ViewOptions:
    """How to build a view.

    `messages`: a JSONPath naming the message list, for `openai-messages` (default: the trace
    itself when it is a list, else the first top-level field holding a list of messages).
    `parent`: the document the trace was split from; exposed unchanged as `view["parent"]`.
    """

    messages: str | None = None
    parent: Any = None


@dataclass(frozen=True)
class Adapter:
    """One family of trace shapes: how to recognize it and how to build its view.

    `doc` is one line, the first paragraph of the adapter module's docstring (the module's
    docstring is the adapter's user documentation); `recognized` says in one line what
    `detect` looks for. docs/VIEW.md's adapter table is made from both."""

    name: str
    doc: str
    recognized: str
    # Cheap: looks at the top-level shape and keys only, never walks the trace.
    detect: Callable[[Any], bool]
    build: Callable[[Any, ViewOptions], View]


def summary(docstring: str | None) -> str:
    """The first paragraph of a docstring as one line (an adapter's `doc`)."""
    first = (docstring or "").strip().split("\n\n", 1)[0]
    return " ".join(first.split())


# What `$.view.unread` may name, and what each covers: the kinds of content an adapter can
# meet and fail to take in. Each entry is {what, count, reason}; docs/VIEW.md's table of
# them is made from this mapping.
UNREAD_KINDS: dict[str, str] = {
    "trace": "the whole trace: no adapter recognizes it, or it is not the shape the named "
    "adapter reads",
    "span": "OpenTelemetry spans that are not a tool, model or agent call by their attributes "
    "(read for errors and times only), and span entries that are not objects",
    "attributes": "span or event attributes in a form the view does not read (neither a "
    "key/value list nor a mapping), and key/value entries without a text key",
    "parent-link": "parent links (span, observation or run ids) that form a cycle or point at "
    "the item itself: each item on the cycle is read as a top-level item",
    "observation": "Langfuse observations of a type other than GENERATION, TOOL and AGENT, and "
    "observations that are not objects",
    "run": "LangSmith runs of a type other than llm and tool (the root run excepted: it gives "
    "the answer and the duration), and runs that are not objects",
    "message": "chat messages that are not objects, tool messages (or AutoGen function "
    "results, smolagents tool responses) that answer no tool call, AutoGen messages of a "
    "type the view does not know, and messages of a model call's conversation with a role "
    "the view does not know",
    "item": "OpenAI Agents SDK generated items of a type the view does not read (MCP "
    "requests, computer and shell actions, ...), tool outputs that answer no tool call item, "
    "and items or model responses that are not objects",
    "record": "Claude Code records the view has no field for (file-history-snapshot, "
    "queue-operation, system, hook progress, thinking blocks), records that are not objects, "
    "and tool results answering no tool_use of the transcript; AutoGen recorded model calls "
    "that are not objects or hold no response",
    "step": "smolagents memory steps written as Python repr text that does not parse, steps "
    "that are neither objects nor text, and steps of a kind the view does not read",
    "time": "start and end times the view cannot put on one clock (epoch seconds against a "
    "local date-time without zone), so the duration they would give is not read",
    "tool-call": "tool calls in a form the view does not read: entries that are not objects, "
    "a tool call list that is not a list, tool calls written as content parts "
    "(tool_use, function_call) or as the legacy function_call field, and tool call texts "
    "(smolagents) that do not parse as a Python list of calls",
    "event": "OpenHands events that are not objects, and observations citing an action the "
    "event list does not hold",
}


# Unread content that is not of a kind checks read: items the adapter recognized, by their
# type or attributes, as neither a tool nor a model call (HTTP, queue and framework spans,
# Langfuse SPAN and EVENT observations, LangSmith chain runs). The view reads them for errors
# and times only; `--fail-on unread` does not count them. One reason per kind: an adapter
# notes such items with `builder.unread(what, NOT_CALLS[what], count)`. Every other unread
# entry (a part the adapter could not read at all, a tool call in a form it does not read,
# attributes in an unread form, a cycle of parent links, a whole trace) counts.
NOT_CALLS: dict[str, str] = {
    "span": "spans that are not a tool, model or agent call by their attributes "
    "(read for errors and times only)",
    "observation": "observations of a type other than GENERATION, TOOL and AGENT "
    "(read for errors and times only)",
    "run": "runs of a type other than llm and tool, the root run excepted (read for errors only)",
}


# Other (kind, reason) pairs an adapter notes for items it recognized as bookkeeping, never a
# call or a message (a Claude Code transcript's file snapshots and hook progress, the model's
# thinking): listed by the adapter's module with `not_a_call`.
BOOKKEEPING: set[tuple[str, str]] = set()


def not_a_call(what: str, reason: str) -> str:
    """Declare `reason` (of unread kind `what`) as bookkeeping `--fail-on unread` never
    counts; returns the reason, for the adapter to note with `builder.unread`."""
    BOOKKEEPING.add((what, reason))
    return reason


# Kinds whose content, unread, leaves one view field null instead of leaving out an entry of
# a list (`time`: no `duration_ms`): a check on that field sees null and fails ("a trace
# without a duration fails"), so no check can pass without it and `--fail-on unread` does
# not count it; the run notes it, and lint lists it without warning.
LEFT_NULL: dict[str, str] = {"time": "duration_ms"}


def read_by_checks(entry: dict[str, Any]) -> bool:
    """Whether an unread entry is content of a kind checks read (a call, a message, the
    attributes or links that make one): `--fail-on unread` counts it. Not: the items an
    adapter recognized as neither a tool nor a model call (NOT_CALLS, BOOKKEEPING), and
    content that leaves a field null (LEFT_NULL)."""
    what, reason = entry.get("what", ""), entry.get("reason")
    if what in LEFT_NULL:
        return False
    return NOT_CALLS.get(what) != reason and (what, reason) not in BOOKKEEPING


def unread_text(entries: list[dict[str, Any]]) -> str:
    """`2 tool-calls (tool calls written as content parts ...); 1 span (...)`: unread
    entries in one line."""
    return "; ".join(
        f"{counted(e.get('count'), str(e.get('what')))} ({e.get('reason')})" for e in entries
    )


# --------------------------------------------------------------------------- small readers

MAX_DEPTH = 32  # how deep attribute values and answer texts are looked into
_INT_TEXT = re.compile(r"-?\d{1,20}")
_FLOAT_TEXT = re.compile(r"-?(\d{1,30}(\.\d{0,30})?|\.\d{1,30})([eE][-+]?\d{1,4})?")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def path_at(path: str, step: str | int) -> str:
    """The JSONPath of `step` below `path`: `$.a.b`, `$.a[3]`, `$.a['gen_ai.x']`."""
    if isinstance(step, int):
        return f"{path}[{step}]"
    if _IDENT.fullmatch(step):
        return f"{path}.{step}"
    quoted = step.replace("\\", "\\\\").replace("'", "\\'")
    return f"{path}['{quoted}']"


def as_number(value: Any) -> int | float | None:
    """A finite number, or numeric text (OTLP writes 64-bit integers as text), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip()
        if _INT_TEXT.fullmatch(text):
            return int(text)
        if _FLOAT_TEXT.fullmatch(text):
            number = float(text)
            return number if math.isfinite(number) else None
    return None


def json_number(value: Any) -> int | float | None:
    """A finite JSON number (not text, not true/false): formats that define a number field."""
    return None if isinstance(value, str) else as_number(value)


def first_number(mapping: dict[str, Any], keys: Iterable[str]) -> int | float | None:
    for key in keys:
        number = as_number(mapping.get(key))
        if number is not None:
            return number
    return None


def first_text(mapping: dict[str, Any], keys: Iterable[str]) -> str | None:
    for key in keys:
        value = mapping.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def first_present(mapping: dict[str, Any], keys: Iterable[str]) -> Any:
    for key in keys:
        if mapping.get(key) is not None:
            return mapping[key]
    return None


def one_of(value: Any, names: frozenset[str]) -> bool:
    """`value in names` for any JSON value (a list or object is unhashable, and never a name)."""
    return isinstance(value, str) and value in names


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def id_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value or None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _iso_ns(text: str) -> int | None:
    """Nanoseconds since the epoch of an ISO 8601 time; a time without zone is taken as UTC."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000


def time_ns(value: Any, unit_ns: int) -> int | None:
    """A time as nanoseconds since the epoch: a number in `unit_ns` units, or ISO text."""
    number = as_number(value)
    if number is not None:
        return int(number * unit_ns) if abs(number) < 1e30 else None
    if isinstance(value, str):
        return _iso_ns(value)
    return None


def elapsed_ms(start_ns: int | None, end_ns: int | None) -> float | None:
    if start_ns is None or end_ns is None or end_ns < start_ns:
        return None
    return (end_ns - start_ns) / 1_000_000


def span_ms(starts: list[int], ends: list[int]) -> float | None:
    """First start to last end, in milliseconds; None when either list is empty (or the
    span runs backwards)."""
    return elapsed_ms(min(starts), max(ends)) if starts and ends else None


def json_text(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def parse_json(text: str) -> tuple[bool, Any]:
    """(True, value) when `text` is JSON, else (False, the parser's message)."""
    try:
        return True, json.loads(text)
    except json.JSONDecodeError as exc:
        return False, exc.msg + f" (line {exc.lineno}, column {exc.colno})"
    except (ValueError, RecursionError) as exc:  # nesting deeper than the parser allows
        return False, f"{type(exc).__name__}: {exc}"


def _arguments(value: Any) -> tuple[Any, str | None]:
    """Arguments as an object, or the value as found and why it is not one."""
    if value is None or isinstance(value, dict):
        return value, None
    if isinstance(value, str):
        ok, parsed = parse_json(value)
        if not ok:
            return value, f"arguments are not JSON: {parsed}"
        if isinstance(parsed, dict):
            return parsed, None
        return value, f"arguments are JSON {kind_of(parsed)}, not an object"
    return value, f"arguments are {kind_of(value)}, not an object"


def openai_call(call: dict[str, Any]) -> tuple[Any, Any, Any]:
    """(name, arguments, id) of a tool call in the OpenAI, tau2-bench or Inspect AI shape."""
    function = call.get("function")
    if isinstance(function, dict):  # OpenAI: {id, type, function: {name, arguments}}
        return function.get("name"), function.get("arguments"), call.get("id")
    if isinstance(function, str):  # Inspect AI: {id, function: <name>, arguments}
        return function, call.get("arguments"), call.get("id")
    return call.get("name"), call.get("arguments"), call.get("id")  # tau2-bench


# --------------------------------------------------------------------------- the builder

Order = tuple[int, int, int, int]


def order_key(start_ns: int | None, position: int, within: int = 0) -> Order:
    """Start time first (unknown start times last), then position in the file, then the
    position inside that item (the n-th tool call of one message or span)."""
    return (0, start_ns, position, within) if start_ns is not None else (1, 0, position, within)


class Builder:
    """Collects a view's parts in any order; `finish` sorts the calls and numbers them."""

    def __init__(self, adapter: str, options: ViewOptions) -> None:
        self.adapter = adapter
        self.parent = options.parent
        self.tools: list[tuple[Order, View]] = []
        self.llms: list[tuple[Order, View]] = []
        self.errors: list[View] = []
        self.unread_counts: dict[tuple[str, str], int] = {}
        self.final_answer: str | None = None
        self.verdict: str | None = None
        self.duration_ms: float | None = None

    def error(self, message: str, where: str) -> None:
        self.errors.append({"message": message, "where": where})

    def unread(self, what: str, reason: str, count: int = 1) -> None:
        """Content the adapter met and could not take in; entries of one kind and reason add
        up. `what` is a key of UNREAD_KINDS."""
        if what not in UNREAD_KINDS:
            raise ValueError(f"unknown kind of unread content {what!r}")
        if count > 0:
            key = (what, reason)
            self.unread_counts[key] = self.unread_counts.get(key, 0) + count

    def cannot_read(self, what: str, reason: str, message: str, where: str) -> None:
        """A part in a shape the adapter does not read: an error where it is, and unread."""
        self.error(message, where)
        self.unread(what, reason)

    def tool(
        self,
        order: Order,
        *,
        name: Any,
        arguments: Any,
        result: Any,
        failed: bool = False,
        duration_ms: float | None = None,
        call_id: Any = None,
    ) -> None:
        args, args_error = _arguments(arguments)
        call = {
            "name": name if isinstance(name, str) else None,
            "arguments": args,
            "arguments_error": args_error,
            "result": result,
            "status": "error" if failed else "ok",
            "duration_ms": duration_ms,
            "index": 0,
            "id": id_text(call_id),
        }
        self.tools.append((order, call))

    def llm(
        self,
        order: Order,
        *,
        model: Any,
        input_tokens: Any,
        output_tokens: Any,
        total_tokens: Any = None,
        cost: Any = None,
        duration_ms: float | None = None,
        messages: list[dict[str, str]] | None = None,
    ) -> None:
        """One model call; `messages` (its conversation, see messages.py) is left out of
        the call when None: the trace records none."""
        inp, out = as_number(input_tokens), as_number(output_tokens)
        total = as_number(total_tokens)
        if total is None and inp is not None and out is not None:
            total = inp + out  # documented: computed only when the trace records no total
        call: View = {
            "model": model if isinstance(model, str) and model else None,
            "input_tokens": inp,
            "output_tokens": out,
            "total_tokens": total,
            "cost": as_number(cost),
            "duration_ms": duration_ms,
        }
        if messages is not None:
            call["messages"] = messages
        self.llms.append((order, call))

    def finish(self) -> View:
        tools = [call for _, call in sorted(self.tools, key=lambda pair: pair[0])]
        for index, call in enumerate(tools):
            call["index"] = index
        return {
            "tool_calls": tools,
            "llm_calls": [call for _, call in sorted(self.llms, key=lambda pair: pair[0])],
            "final_answer": self.final_answer,
            "verdict": self.verdict,
            "duration_ms": self.duration_ms,
            "errors": self.errors,
            "unread": [
                {"what": what, "count": count, "reason": reason}
                for (what, reason), count in self.unread_counts.items()
            ],
            "adapter": self.adapter,
            "parent": self.parent,
        }


def not_an_object(builder: Builder, trace: Any, expected: str) -> View:
    message = f"the {builder.adapter} adapter reads {expected}; this trace is {kind_of(trace)}"
    builder.error(message, "$")
    builder.unread("trace", message)
    return builder.finish()


# --------------------------------------------------------------------------- parent links

Node = tuple[str | None, str | None, str]  # id, parent id, "llm" | "barrier" | ""


def acyclic_parents(nodes: list[Node]) -> tuple[dict[str, str | None], set[str]]:
    """Each node's parent, with the links of every cycle cut, and the nodes cut loose.

    A parent link that leads back to its own node (two spans naming each other, a span that
    is its own parent) says nothing true about nesting, and following it would make every
    model call on the cycle the wrapper of another. Every node on a cycle is read as a
    top-level node: the choice does not depend on which node is met first. Linear: each
    node is walked once."""
    parent_of: dict[str, str | None] = {node: parent for node, parent, _ in nodes if node}
    state: dict[str, int] = {}  # 1: on the walk in progress, 2: done
    cut: set[str] = set()
    for start, _, _ in nodes:
        if start is None or start in state:
            continue
        walk: list[str] = []
        current: str | None = start
        while current is not None and current in parent_of and current not in state:
            state[current] = 1
            walk.append(current)
            current = parent_of[current]
        if current is not None and state.get(current) == 1:
            for node in walk[walk.index(current) :]:
                parent_of[node] = None
                cut.add(node)
        for node in walk:
            state[node] = 2
    return parent_of, cut


def wrappers(nodes: list[Node], builder: Builder, item: str = "span") -> set[str]:
    """Ids of the nodes that contain a model call: the model-call nodes among them are
    wrappers of that call, not calls of their own.

    One model call is often recorded at several levels (an agent framework's `call_llm`
    span around the provider library's `openai.chat` span); counting each would multiply
    calls and tokens, so only the innermost is kept. The search upwards stops at a tool or
    agent node (a "barrier"): a model call made inside a tool (a sub-agent) is a call of its
    own, and so is the model call around that tool. Parent links on a cycle are cut first
    (noted as unread `parent-link`), so a cycle never hides a model call."""
    parent_of, cut = acyclic_parents(nodes)
    builder.unread(
        "parent-link",
        f"{item} parent links that form a cycle or point at the {item} itself: "
        f"each {item} on the cycle is read as a top-level {item}",
        len(cut),
    )
    barriers = {node for node, _, role in nodes if node is not None and role == "barrier"}
    marked: set[str] = set()
    for node, parent, role in nodes:
        if role != "llm" or node is None:
            continue
        current = None if node in cut else parent
        while current is not None and current not in marked and current not in barriers:
            marked.add(current)
            current = parent_of.get(current)
    return marked
