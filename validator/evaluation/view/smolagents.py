"""A smolagents benchmark output line (one question, `intermediate_steps`): tool calls from the
`tool-call` messages (Python repr text, parsed without evaluating it) or from memory steps
(`ActionStep(tool_calls=[ToolCall(...)])` repr text, or memory steps as objects), results and
errors from the `tool-response` messages or the steps' `observations` and `error`, the run's
`token_counts` as model usage, `answer` (or `prediction`) as the final answer.

Messages (2025 runner, roles `tool-call` / `tool-response`): the text after `Calling tools:`
is a Python list of `{'id', 'type', 'function': {'name', 'arguments'}}`; each response
answers the oldest call still unanswered (or the one its `Call id: ...` line names). A
response that starts with `Error:` (or holds a line `Error:`) marks its call failed and is
an `errors` entry; an error that answers no call is a failed call when it names the tool
(`Error executing tool 'NAME' with arguments {...}`), else an error of the step only (code
that did not parse, a model output without a tool call). The `assistant` message that
paraphrases each call ("Tool call ...: calling ...") is not a second call. A CodeAgent's
`python_interpreter` call, whose arguments are the code as text, reads as `{code: TEXT}`,
the shape the ToolCallingAgent records. The results drop the `Observation:` prefix.

Memory steps (older runners, one repr text per step): each `ActionStep` is one model call
(its `input_token_count`/`output_token_count` or `token_usage` when recorded) and its
`tool_calls`, whose result is the step's `observations` and whose duration is the step's
`duration` (seconds) when the step made one call; an `error` other than None fails the
step's calls and is an `errors` entry. `PlanningStep` is a model call; `TaskStep` and
`SystemPromptStep` carry no call.

Model usage: `token_counts` holds the run's totals only (as `input_tokens`/`output_tokens`/
`total_tokens`, or `input`/`output` in later files), so when no step records its own usage
the view has ONE model call with the totals and the line's `model_id` (a model call count
from such a line is 1). The answer is `answer` (else `prediction`, else the last
`final_answer` call's `answer` argument); an answer that starts "Error in generating model
output" is the run's error, not an answer. `agent_error`, `parsing_error: true` and
`iteration_limit_exceeded: true` are errors too. The duration is `end_time - start_time`
when both are epoch seconds or both date-times; the runner writes `start_time` as epoch
seconds and `end_time` as a local date-time without zone, whose offset from UTC is unknown:
then the steps' own times give the duration, else it is null (noted as unread `time`).

Messages: a memory step's `model_input_messages`, then its `model_output_message` (else
`llm_output`); a line written as chat messages gives its one model call (the run's
totals) the whole conversation.

Unread: steps whose repr text does not parse, steps of other kinds, tool call texts that do
not parse, tool responses that answer no call and are not errors, mixed-clock times.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ...problems import kind_of
from .answer import answer_text
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
    first_present,
    not_an_object,
    one_of,
    openai_call,
    order_key,
    path_at,
    summary,
    time_ns,
)
from .messages import conversation
from .pyrepr import ARGS_KEY, CLASS_KEY, balanced_prefix, read_repr

_LINE_KEYS = ("token_counts", "agent_action_type", "true_answer", "prediction", "answer")
_RUN_ERROR = "Error in generating model output"
_CALL_ID = re.compile(r"\ACall id: *(\S+)\n")
_NAMED_ERROR = re.compile(r"Error executing tool '([^'\n]{1,200})' with arguments ")
_CODE_TOOL = "python_interpreter"
_NO_CALL_STEPS = frozenset({"TaskStep", "SystemPromptStep"})
_MODEL_STEPS = frozenset({"ActionStep", "PlanningStep"})


def detect(trace: Any) -> bool:
    if not isinstance(trace, dict) or not isinstance(trace.get("intermediate_steps"), list):
        return False
    return any(key in trace for key in _LINE_KEYS)


def _text(message: dict[str, Any]) -> str | None:
    content = message.get("content")
    if isinstance(content, str):
        return content
    texts = [
        part["text"]
        for part in as_list(content)
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]
    return "\n".join(texts) if texts else None


def _is_error(text: str) -> bool:
    return text.startswith("Error:") or "\nError:\n" in text


def _error_message(text: str) -> str:
    body = _CALL_ID.sub("", text, count=1)
    return body.removeprefix("Error:").strip() or text


def _call_arguments(name: Any, arguments: Any) -> Any:
    if name == _CODE_TOOL and isinstance(arguments, str):
        return {"code": arguments}  # a CodeAgent's code, in the ToolCallingAgent's shape
    return arguments


class _Call:
    """A tool call met in the line, completed by the response that answers it."""

    def __init__(self, order: Order, name: Any, arguments: Any, call_id: Any) -> None:
        self.order, self.name, self.call_id = order, name, call_id
        self.arguments = _call_arguments(name, arguments)
        self.result: Any = None
        self.failed = False
        self.duration_ms: float | None = None

    def emit(self, builder: Builder) -> None:
        builder.tool(
            self.order,
            name=self.name,
            arguments=self.arguments,
            result=self.result,
            failed=self.failed,
            duration_ms=self.duration_ms,
            call_id=self.call_id,
        )


class _Reader:
    """One line's steps, read in order."""

    def __init__(self, builder: Builder, model: Any) -> None:
        self.builder = builder
        self.model = model
        self.calls: list[_Call] = []
        self.pending: list[_Call] = []
        self.step_llm_calls = 0
        self.step_tokens = False
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.said: list[Any] = []  # the messages of a line written as chat messages

    # ----------------------------------------------------------------- chat messages

    def tool_call_message(self, text: str, index: int, where: str) -> None:
        found = balanced_prefix(text, text.find("["))
        ok, calls = read_repr(found) if found is not None else (False, "no list of calls")
        if not ok or not isinstance(calls, list):
            message = (
                f"cannot read the tool calls of this message: {calls if not ok else 'not a list'}"
            )
            reason = "tool call texts that are not a Python list of calls"
            self.builder.cannot_read("tool-call", reason, message, where)
            return
        for within, raw in self._call_entries(calls, where):
            call = _Call(order_key(None, index, within), *openai_call(raw))
            self.calls.append(call)
            self.pending.append(call)

    def _call_entries(self, calls: list[Any], where: str) -> Iterator[tuple[int, dict[str, Any]]]:
        """(position, entry) of each tool call entry that is an object; the others noted."""
        for within, raw in enumerate(calls):
            if isinstance(raw, dict):
                yield within, raw
            else:
                reason = "tool call entries that are not objects"
                self.builder.cannot_read(
                    "tool-call", reason, f"cannot read tool call: {kind_of(raw)}", where
                )

    def _answered(self, text: str) -> _Call | None:
        named = _CALL_ID.match(text)
        if named:
            for call in self.pending:
                if call.call_id == named.group(1):
                    self.pending.remove(call)
                    return call
        return self.pending.pop(0) if self.pending else None

    def tool_response(self, text: str, index: int, where: str) -> None:
        failed = _is_error(text)
        call = self._answered(text)
        if failed:
            self.builder.error(_error_message(text), where)
        if call is None and failed:
            call = self._named_in_error(text, index)
        if call is None:
            if not failed:
                self.builder.unread("message", "tool responses that answer no tool call")
            return
        call.failed = call.failed or failed
        call.result = text.removeprefix("Observation:\n") if not failed else text

    def _named_in_error(self, text: str, index: int) -> _Call | None:
        named = _NAMED_ERROR.search(text)
        if named is None:
            return None
        found = balanced_prefix(text, named.end())
        arguments: Any = found
        if found is not None:
            ok, value = read_repr(found)
            arguments = value if ok else found
        call = _Call(order_key(None, index), named.group(1), arguments, None)
        self.calls.append(call)
        return call

    # ----------------------------------------------------------------- memory steps

    def memory_step(self, step: dict[str, Any], index: int, where: str) -> None:
        kind = step.get(CLASS_KEY)
        if one_of(kind, _NO_CALL_STEPS):
            return
        if kind is not None and not one_of(kind, _MODEL_STEPS) and kind != "FinalAnswerStep":
            self.builder.unread("step", "memory steps of a kind the view does not read")
            return
        if kind == "FinalAnswerStep":
            return
        timing = as_dict(step.get("timing"))
        start = time_ns(step.get("start_time", timing.get("start_time")), 1_000_000_000)
        end = time_ns(step.get("end_time", timing.get("end_time")), 1_000_000_000)
        if start is not None and end is not None:
            self.starts.append(start)
            self.ends.append(end)
        self._step_llm(step, start, index)
        in_text = CLASS_KEY in step  # a repr text: no JSONPath inside it
        failed = self._step_error(step.get("error"), where if in_text else path_at(where, "error"))
        calls = as_list(step.get("tool_calls"))
        duration = as_number(step.get("duration", timing.get("duration")))
        for within, raw in self._call_entries(calls, where):
            call = _Call(order_key(start, index, within), *openai_call(raw))
            call.failed = failed
            call.result = step.get("observations")
            if len(calls) == 1 and duration is not None:
                call.duration_ms = duration * 1000
            self.calls.append(call)

    def _step_llm(self, step: dict[str, Any], start: int | None, index: int) -> None:
        usage = as_dict(step.get("token_usage"))
        inp = first_number(usage, ("input_tokens",))
        out = first_number(usage, ("output_tokens",))
        if inp is None and out is None:
            inp = as_number(step.get("input_token_count"))
            out = as_number(step.get("output_token_count"))
        self.step_tokens = self.step_tokens or inp is not None or out is not None
        self.step_llm_calls += 1
        output = first_present(step, ("model_output_message", "llm_output", "model_output"))
        self.builder.llm(
            order_key(start, index),
            model=self.model,
            input_tokens=inp,
            output_tokens=out,
            messages=conversation(step.get("model_input_messages"), output, self.builder),
        )

    def _step_error(self, error: Any, where: str) -> bool:
        if error is None:
            return False
        if isinstance(error, dict):
            args = as_list(error.get(ARGS_KEY))
            text = error.get("message", args[0] if args else None)
            kind = error.get(CLASS_KEY, error.get("type"))
            message = f"{kind}: {text}" if kind and text else str(text or kind or error)
        else:
            message = str(error)
        self.builder.error(message, where)
        return True


def _read_steps(trace: dict[str, Any], reader: _Reader) -> None:
    builder = reader.builder
    for index, step in enumerate(trace["intermediate_steps"]):
        where = path_at("$.intermediate_steps", index)
        if isinstance(step, str):
            ok, value = read_repr(step)
            if not ok or not isinstance(value, dict):
                why = value if not ok else f"it is {kind_of(value)}"
                reason = "memory steps written as Python repr text that does not parse"
                builder.cannot_read("step", reason, f"cannot read this step: {why}", where)
                continue
            reader.memory_step(value, index, where)
        elif isinstance(step, dict) and "role" in step:
            reader.said.append(step)
            text = _text(step)
            role = step.get("role")
            if role == "tool-call" and text is not None:
                reader.tool_call_message(text, index, where)
            elif role == "tool-response" and text is not None:
                reader.tool_response(text, index, where)
        elif isinstance(step, dict):
            reader.memory_step(step, index, where)
        else:
            reason = "steps that are neither objects nor repr text"
            builder.cannot_read("step", reason, f"cannot read step: {kind_of(step)}", where)


def _token_totals(trace: dict[str, Any], reader: _Reader) -> None:
    counts = trace.get("token_counts")
    if not isinstance(counts, dict) or reader.step_tokens:
        return
    # Steps without usage: the totals stand for the run, and so does its conversation.
    said = [m for _, call in reader.builder.llms for m in call.get("messages", ())]
    said.extend(conversation(reader.said, None, reader.builder) or ())
    reader.builder.llms.clear()
    reader.builder.llm(
        order_key(None, 0),
        model=reader.model,
        input_tokens=first_number(counts, ("input_tokens", "input")),
        output_tokens=first_number(counts, ("output_tokens", "output")),
        total_tokens=first_number(counts, ("total_tokens", "total")),
        messages=said or None,
    )


def _answer(trace: dict[str, Any], builder: Builder, calls: list[_Call]) -> None:
    key = "answer" if "answer" in trace else "prediction"
    value = trace.get(key)
    if isinstance(value, str) and value.startswith(_RUN_ERROR):
        builder.error(value, path_at("$", key))
        value = None
    answer = answer_text(value) if value is not None else None
    if answer is None and not isinstance(trace.get(key), str):
        finals = [c for c in calls if c.name == "final_answer" and not c.failed]
        if finals:
            args = finals[-1].arguments
            answer = answer_text(as_dict(args).get("answer", args))
    builder.final_answer = answer
    if trace.get("agent_error") is not None:
        builder.error(f"agent error: {trace['agent_error']}", "$.agent_error")
    for flag, message in (
        ("parsing_error", "the agent's output could not be parsed"),
        ("iteration_limit_exceeded", "the agent reached its iteration limit"),
    ):
        if trace.get(flag) is True:
            builder.error(message, path_at("$", flag))


def _duration(trace: dict[str, Any], reader: _Reader) -> float | None:
    start, end = trace.get("start_time"), trace.get("end_time")
    if isinstance(start, str) == isinstance(end, str):
        found = elapsed_ms(time_ns(start, 1_000_000_000), time_ns(end, 1_000_000_000))
        if found is not None:
            return found
    if reader.starts:
        return elapsed_ms(min(reader.starts), max(reader.ends))
    if start is not None and end is not None:
        reader.builder.unread(
            "time",
            "start_time and end_time in two clocks (epoch seconds and a local date-time "
            "without zone): the run's duration is not known",
        )
    return None


def build(trace: Any, options: ViewOptions) -> View:
    builder = Builder("smolagents", options)
    if not isinstance(trace, dict) or not isinstance(trace.get("intermediate_steps"), list):
        return not_an_object(builder, trace, "a smolagents line {intermediate_steps, ...}")
    reader = _Reader(builder, trace.get("model_id"))
    _read_steps(trace, reader)
    for call in reader.calls:
        call.emit(builder)
    _token_totals(trace, reader)
    _answer(trace, builder, reader.calls)
    builder.duration_ms = _duration(trace, reader)
    return builder.finish()


ADAPTER = Adapter(
    name="smolagents",
    doc=summary(__doc__),
    recognized="an object with an `intermediate_steps` list and one of `token_counts`, "
    "`agent_action_type`, `true_answer`, `prediction`, `answer`",
    detect=detect,
    build=build,
)
