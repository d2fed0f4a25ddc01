"""An OpenHands event list (a saved trajectory, an evaluation output line's `history`, a
conversation folder grouped with `traces.group: folder`, or the older resolver output): actions
are tool calls, the observations that cite them (`cause`) their results, the model
responses in `tool_call_metadata` the model calls, the `finish` action the final answer.

Tool calls: actions with `tool_call_metadata` (named by its `function_name`), and actions
without it whose kind is not conversation bookkeeping (`message`, `system`, `recall`,
`change_agent_state`, `condensation`, ...): the older resolver shape, named by the action
kind (`run`, `run_ipython`). Arguments are the model's own (the tool call of
`tool_call_metadata.model_response` with the same id, JSON text), else the action's `args`
without `thought` and the confirmation fields (older shape: the event's fields
without `action`, `thought` and those). The
result is the citing observation's `content` (older shape, with no ids: the observation
right after the action); the call failed when that observation has `success: false`, a
non-zero `extras.metadata.exit_code` (older: `exit_code`), or is an `error` observation.
The duration is the observation's timestamp minus the action's.

Model calls: one per distinct `tool_call_metadata.model_response.id` (the actions of one
response share it; observations repeat it and are not counted): `model`,
`usage.prompt_tokens` / `completion_tokens` / `total_tokens`; the cost is the rise of
`llm_metrics.accumulated_cost` since the previous step; the duration is the evaluation
line's `metrics.response_latencies[]` entry with that `response_id` (seconds). An agent
action without tool metadata whose `llm_metrics` totals rose is a model call of the rise.
The older shape records no responses: one model call per `metrics.costs[]` entry, cost only.

Final answer: the `finish` action's `args.final_thought`, else its tool call's `message`
argument, else its `thought` (older shape), else its `message`; without `finish`, the last
agent `message` action's `args.content`. Duration: first to last event `timestamp` (no zone:
read as UTC). Errors: each failed tool call, each `error` observation (it cites no action),
an `agent_state_changed` observation to state `error`, the line's `error` text.

Unread: events that are not objects, observations citing an action the list does not hold.
Left out: the `system` prompt, user messages, `recall` context, `think` content beyond its
call, the line's `instance`, `test_result`, `metadata` (reachable in the raw trace).
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
    as_number,
    elapsed_ms,
    first_text,
    id_text,
    json_text,
    not_an_object,
    order_key,
    path_at,
    span_ms,
    summary,
    time_ns,
)

# Action kinds that are conversation bookkeeping, not a tool the agent called.
_NOT_TOOLS = frozenset(
    {
        "message",
        "system",
        "recall",
        "change_agent_state",
        "condensation",
        "condensation_request",
        "null",
    }
)
# Fields of an action that say how it was run, not what the agent asked for.
_NOT_ARGUMENTS = frozenset(
    {
        "action",
        "thought",
        "keep_prompt",
        "is_confirmed",
        "confirmation_state",
        "action_risk",
        "security_risk",
    }
)
_UNCITED = "observations citing an action the event list does not hold"
_NOT_EVENTS = "events that are not objects"


def _is_event(value: Any) -> bool:
    return isinstance(value, dict) and ("action" in value or "observation" in value)


def detect(trace: Any) -> bool:
    if isinstance(trace, list):
        return bool(trace) and _is_event(trace[0])
    if isinstance(trace, dict):
        history = trace.get("history")
        if isinstance(history, list):
            return bool(history) and _is_event(history[0])
        return _is_event(trace) and "source" in trace and "timestamp" in trace
    return False


class _Steps:
    """The running totals of `llm_metrics`, to turn cumulative figures into per-call ones."""

    def __init__(self) -> None:
        self.cost: float = 0.0
        self.prompt: float = 0.0
        self.completion: float = 0.0

    def rise(self, event: dict[str, Any]) -> tuple[Any, Any, Any] | None:
        """(cost, prompt, completion) added since the last step with metrics, or None."""
        metrics = event.get("llm_metrics")
        if not isinstance(metrics, dict):
            return None
        usage = as_dict(metrics.get("accumulated_token_usage"))
        cost = as_number(metrics.get("accumulated_cost"))
        prompt = as_number(usage.get("prompt_tokens"))
        completion = as_number(usage.get("completion_tokens"))
        found = (
            None if cost is None else cost - self.cost,
            None if prompt is None else prompt - self.prompt,
            None if completion is None else completion - self.completion,
        )
        self.cost = cost if cost is not None else self.cost
        self.prompt = prompt if prompt is not None else self.prompt
        self.completion = completion if completion is not None else self.completion
        return found


def _events(trace: Any, builder: Builder) -> tuple[list[Any], str, dict[str, Any]]:
    if isinstance(trace, list):
        return trace, "$", {}
    if "history" not in trace and _is_event(trace):
        return [trace], _SINGLE, {}  # one event file of an event store, read on its own
    history = trace.get("history")
    if not isinstance(history, list):
        message = f"cannot read history: {kind_of(history)}, not a list of events"
        builder.cannot_read("trace", "a history that is not a list", message, "$.history")
        return [], "$.history", trace
    return history, "$.history", trace


_SINGLE = ""  # the path of the events when the trace is one event, not a list


def _at(path: str, position: int) -> str:
    """The JSONPath of the event at `position` (`$` itself for a single event)."""
    return "$" if path == _SINGLE else path_at(path, position)


def _latencies(line: dict[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    for entry in as_list(as_dict(line.get("metrics")).get("response_latencies")):
        entry = as_dict(entry)
        key, seconds = id_text(entry.get("response_id")), as_number(entry.get("latency"))
        if key is not None and seconds is not None:
            out.setdefault(key, seconds * 1000)
    return out


def _model_arguments(metadata: dict[str, Any]) -> Any:
    """The arguments the model wrote for this call (JSON text), or None."""
    wanted = id_text(metadata.get("tool_call_id"))
    choices = as_list(as_dict(metadata.get("model_response")).get("choices"))
    message = as_dict(as_dict(choices[0]).get("message")) if choices else {}
    for call in as_list(message.get("tool_calls")):
        call = as_dict(call)
        if wanted is not None and id_text(call.get("id")) == wanted:
            return as_dict(call.get("function")).get("arguments")
    return None


def _exit_code(observation: dict[str, Any]) -> Any:
    code = as_number(as_dict(as_dict(observation.get("extras")).get("metadata")).get("exit_code"))
    return code if code is not None else as_number(observation.get("exit_code"))


def _failure(name: Any, observation: dict[str, Any]) -> str | None:
    """Why the observation reports a failed call, or None."""
    content = observation.get("content")
    first_line = content.strip().split("\n", 1)[0][:200] if isinstance(content, str) else ""
    if observation.get("observation") == "error":
        return first_line or "the tool call failed"
    code = _exit_code(observation)
    if (code is not None and code != 0) or observation.get("success") is False:
        said = f"{name or 'the tool'} exited with code {code}" if code is not None else None
        said = said or f"{name or 'the tool'} failed"
        return f"{said}: {first_line}" if first_line else said
    return None


def _citations(
    events: list[Any], path: str, builder: Builder
) -> tuple[dict[str, tuple[dict[str, Any], str]], dict[int, tuple[dict[str, Any], str]]]:
    """Observations by the action id they cite, and (older shape, no ids) by the position of
    the action right before them."""
    ids = {id_text(e.get("id")) for e in events if isinstance(e, dict) and "action" in e}
    cited: dict[str, tuple[dict[str, Any], str]] = {}
    following: dict[int, tuple[dict[str, Any], str]] = {}
    uncited = 0
    for position, event in enumerate(events):
        if not isinstance(event, dict) or "observation" not in event:
            continue
        cause = id_text(event.get("cause"))
        if cause is not None:
            if cause in ids:
                cited.setdefault(cause, (event, _at(path, position)))
            else:
                uncited += 1
        elif "id" not in event and position > 0 and _is_action(events[position - 1]):
            following[position - 1] = (event, _at(path, position))
    builder.unread("event", _UNCITED, uncited)
    return cited, following


def _is_action(value: Any) -> bool:
    return isinstance(value, dict) and "action" in value


def _arguments_of(event: dict[str, Any], metadata: dict[str, Any]) -> Any:
    found = _model_arguments(metadata) if metadata else None
    if found is not None:
        return found
    args = event.get("args")
    if isinstance(args, dict):
        return {k: v for k, v in args.items() if k not in _NOT_ARGUMENTS}
    if "args" in event:
        return args
    return {k: v for k, v in event.items() if k not in _NOT_ARGUMENTS}


class _Reader:
    def __init__(self, builder: Builder, events: list[Any], path: str, line: dict[str, Any]):
        self.builder = builder
        self.path = path
        self.latency = _latencies(line)
        self.cited, self.following = _citations(events, path, builder)
        self.steps = _Steps()
        self.responses: set[str] = set()
        self.finish: tuple[dict[str, Any], Any] | None = None
        self.said: str | None = None  # the last agent message's text

    def action(self, event: dict[str, Any], position: int) -> None:
        metadata = as_dict(event.get("tool_call_metadata"))
        kind = event.get("action")
        rise = self.steps.rise(event)
        self._model_call(event, metadata, rise, position)
        arguments = None
        if metadata or (isinstance(kind, str) and kind not in _NOT_TOOLS):
            arguments = self._tool(event, metadata, kind, position)
        if kind == "finish":
            self.finish = (event, arguments)
        elif kind == "message" and event.get("source") == "agent":
            text = as_dict(event.get("args")).get("content")
            self.said = text if isinstance(text, str) and text.strip() else self.said

    def _model_call(
        self, event: dict[str, Any], metadata: dict[str, Any], rise: Any, position: int
    ) -> None:
        response = as_dict(metadata.get("model_response"))
        key = id_text(response.get("id"))
        if key is not None:
            if key in self.responses:
                return
            self.responses.add(key)
            usage = as_dict(response.get("usage"))
            self.builder.llm(
                order_key(None, position),
                model=response.get("model"),
                input_tokens=usage.get("prompt_tokens"),
                output_tokens=usage.get("completion_tokens"),
                total_tokens=usage.get("total_tokens"),
                cost=rise[0] if rise is not None else None,
                duration_ms=self.latency.get(key),
            )
        elif rise is not None and event.get("source") == "agent" and any(rise[1:]):
            model = as_dict(as_dict(event.get("llm_metrics")).get("accumulated_token_usage"))
            self.builder.llm(
                order_key(None, position),
                model=model.get("model") if model.get("model") != "default" else None,
                input_tokens=rise[1],
                output_tokens=rise[2],
                cost=rise[0],
            )

    def _tool(
        self, event: dict[str, Any], metadata: dict[str, Any], kind: Any, position: int
    ) -> Any:
        name = first_text(metadata, ("function_name",)) or (kind if isinstance(kind, str) else None)
        key = id_text(event.get("id"))
        answer, where = self.cited.get(key, (None, "")) if key is not None else (None, "")
        if answer is None:
            answer, where = self.following.get(position, (None, ""))
        failure = _failure(name, answer) if answer is not None else None
        if failure is not None:
            self.builder.error(failure, where)
        arguments = _arguments_of(event, metadata)
        start = time_ns(event.get("timestamp"), 1)
        end = time_ns(answer.get("timestamp"), 1) if answer is not None else None
        self.builder.tool(
            order_key(None, position),
            name=name,
            arguments=arguments,
            result=answer.get("content") if answer is not None else None,
            failed=failure is not None,
            duration_ms=elapsed_ms(start, end),
            call_id=metadata.get("tool_call_id"),
        )
        return arguments

    def observation(self, event: dict[str, Any], where: str) -> None:
        kind = event.get("observation")
        if kind == "error" and id_text(event.get("cause")) is None:
            content = first_text(event, ("content", "message")) or "an error observation"
            self.builder.error(content, path_at(where, "content"))
        elif kind == "agent_state_changed":
            extras = as_dict(event.get("extras"))
            if extras.get("agent_state") == "error":
                reason = first_text(extras, ("reason",)) or "the agent stopped in state error"
                self.builder.error(reason, path_at(where, "extras"))

    def answer(self) -> str | None:
        if self.finish is None:
            return self.said
        event, arguments = self.finish
        args = as_dict(event.get("args"))
        parsed = as_dict(arguments) if isinstance(arguments, dict) else {}
        for found in (
            args.get("final_thought"),
            parsed.get("message"),
            args.get("thought"),
            event.get("thought"),
            event.get("message"),
        ):
            if isinstance(found, str) and found.strip():
                return found
        return None


def _older_costs(builder: Builder, line: dict[str, Any]) -> None:
    """The older resolver shape: one model call per `metrics.costs[]` entry (cost only)."""
    for position, entry in enumerate(as_list(as_dict(line.get("metrics")).get("costs"))):
        cost = as_number(entry) if not isinstance(entry, dict) else as_number(entry.get("cost"))
        model = entry.get("model") if isinstance(entry, dict) else None
        builder.llm(
            order_key(None, position), model=model, input_tokens=None, output_tokens=None, cost=cost
        )


def build(trace: Any, options: ViewOptions) -> View:
    builder = Builder("openhands", options)
    if not isinstance(trace, (list, dict)):
        return not_an_object(builder, trace, "an OpenHands event list, or an object with `history`")
    events, path, line = _events(trace, builder)
    reader = _Reader(builder, events, path, line)
    times: list[int] = []
    for position, event in enumerate(events):
        where = _at(path, position)
        if not isinstance(event, dict):
            message = f"cannot read event: it is {kind_of(event)}, not an object"
            builder.cannot_read("event", _NOT_EVENTS, message, where)
            continue
        moment = time_ns(event.get("timestamp"), 1)
        if moment is not None:
            times.append(moment)
        if "action" in event:
            reader.action(event, position)
        elif "observation" in event:
            reader.observation(event, where)
    if not builder.llms:
        _older_costs(builder, line)
    error = line.get("error")
    if isinstance(error, str) and error.strip():
        builder.error(error, "$.error")
    elif error not in (None, "", False):
        builder.error(json_text(error), "$.error")
    builder.final_answer = reader.answer()
    builder.duration_ms = span_ms(times, times)
    return builder.finish()


ADAPTER = Adapter(
    name="openhands",
    doc=summary(__doc__),
    recognized="a list whose first item has an `action` or `observation`, or an object whose "
    "`history` is such a list",
    detect=detect,
    build=build,
)
