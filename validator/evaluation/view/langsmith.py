"""LangSmith run-ingest bodies {post, patch} (or one run with child_runs): llm runs are
model calls (usage_metadata), tool runs tool calls (else the tool calls the model asked for
in outputs.choices[0].message), run errors errors; the final answer is the root run's output.

Messages: an llm run's `inputs.messages` (or `prompts`), then its output message
(`outputs.choices[0].message`, or `outputs.generations[0][0]`).

A patch completes the post of the same id, else the same dotted_order. Unread: runs of any
other type (chain, retriever, prompt, parser, ...) except the root run, runs that are not
objects, requested tool calls that are not objects, parent links that form a cycle.
"""

from __future__ import annotations

from typing import Any

from ...dataclass import dataclass
from ...problems import kind_of
from .answer import answer_text
from .building import (
    NOT_CALLS,
    Adapter,
    Builder,
    Order,
    View,
    ViewOptions,
    as_dict,
    as_list,
    elapsed_ms,
    first_number,
    first_text,
    id_text,
    json_text,
    not_an_object,
    openai_call,
    order_key,
    path_at,
    summary,
    time_ns,
    wrappers,
)
from .messages import conversation

_NOT_OBJECTS = "runs that are not objects"
_OTHER_TYPES = NOT_CALLS["run"]


@dataclass
class _Run:
    """A LangSmith run of the export, with where its error field is and its position."""

    data: dict[str, Any]
    where: str  # where the run's error field is
    position: int


def detect(trace: Any) -> bool:
    if not isinstance(trace, dict):
        return False
    if isinstance(trace.get("post"), list) or isinstance(trace.get("patch"), list):
        return True
    return "run_type" in trace and ("inputs" in trace or "outputs" in trace)


def _ingest_runs(trace: dict[str, Any], builder: Builder) -> list[_Run]:
    """Batch-ingest bodies: each patch completes the post of the same id (or dotted order)."""
    runs: list[_Run] = []
    by_key: dict[str, _Run] = {}
    for side in ("post", "patch"):
        items = trace.get(side, [])
        if not isinstance(items, list):
            message = f"cannot read {side}: {kind_of(items)}, not a list"
            builder.cannot_read("run", "run lists that are not lists", message, path_at("$", side))
            continue
        for index, item in enumerate(items):
            where = path_at(path_at("$", side), index)
            if not isinstance(item, dict):
                message = f"cannot read run: it is {kind_of(item)}, not an object"
                builder.cannot_read("run", _NOT_OBJECTS, message, where)
                continue
            keys = [k for k in (id_text(item.get("id")), id_text(item.get("dotted_order"))) if k]
            run = next((by_key[k] for k in keys if k in by_key), None)
            if run is None:
                run = _Run({}, path_at(where, "error"), len(runs))
                runs.append(run)
            run.data.update(item)  # the patch's fields (end_time, outputs, error) win
            if "error" in item:
                run.where = path_at(where, "error")
            for key in keys:
                by_key.setdefault(key, run)
    return runs


def _tree_runs(root: dict[str, Any], builder: Builder) -> list[_Run]:
    """A run with nested child_runs, flattened in depth-first order (no recursion)."""
    runs: list[_Run] = []
    stack: list[tuple[Any, str, str | None]] = [(root, "$", None)]
    while stack:
        run, path, parent = stack.pop()
        if not isinstance(run, dict):
            message = f"cannot read run: it is {kind_of(run)}, not an object"
            builder.cannot_read("run", _NOT_OBJECTS, message, path)
            continue
        data = dict(run)
        if parent is not None and data.get("parent_run_id") is None:
            data["parent_run_id"] = parent
        runs.append(_Run(data, path_at(path, "error"), len(runs)))
        children = as_list(run.get("child_runs"))
        for index in range(len(children) - 1, -1, -1):
            stack.append(
                (
                    children[index],
                    path_at(path_at(path, "child_runs"), index),
                    id_text(run.get("id")) or path,
                )
            )
    return runs


def _run_times(run: _Run) -> tuple[int | None, int | None]:
    # Python SDK: ISO text; JS SDK: epoch milliseconds.
    return time_ns(run.data.get("start_time"), 1_000_000), time_ns(
        run.data.get("end_time"), 1_000_000
    )


def _run_model(data: dict[str, Any]) -> Any:
    outputs, inputs = as_dict(data.get("outputs")), as_dict(data.get("inputs"))
    metadata = as_dict(as_dict(data.get("extra")).get("metadata"))
    return (
        first_text(outputs, ("model",))
        or first_text(metadata, ("ls_model_name",))
        or inputs.get("model")
    )


def _run_llm(builder: Builder, run: _Run, order: Order) -> None:
    data = run.data
    outputs = as_dict(data.get("outputs"))
    usage = as_dict(outputs.get("usage_metadata")) or as_dict(outputs.get("usage"))
    start, end = _run_times(run)
    builder.llm(
        order,
        model=_run_model(data),
        input_tokens=first_number(usage, ("input_tokens", "prompt_tokens"))
        if usage
        else data.get("prompt_tokens"),
        output_tokens=first_number(usage, ("output_tokens", "completion_tokens"))
        if usage
        else data.get("completion_tokens"),
        total_tokens=first_number(usage, ("total_tokens",)) if usage else data.get("total_tokens"),
        cost=data.get("total_cost"),
        duration_ms=elapsed_ms(start, end),
        messages=conversation(data.get("inputs"), data.get("outputs"), builder),
    )


def _tool_messages(runs: list[_Run]) -> dict[str, Any]:
    """Results of requested tool calls: role "tool" messages in later model calls' inputs."""
    results: dict[str, Any] = {}
    for run in runs:
        for message in as_list(as_dict(run.data.get("inputs")).get("messages")):
            if isinstance(message, dict) and message.get("role") == "tool":
                key = id_text(message.get("tool_call_id"))
                if key is not None:
                    results.setdefault(key, message.get("content"))
    return results


def _run_requested(
    builder: Builder, llm_runs: list[tuple[Order, _Run]], all_runs: list[_Run]
) -> None:
    results = _tool_messages(all_runs)
    for order, run in llm_runs:
        choices = as_list(as_dict(run.data.get("outputs")).get("choices"))
        message = as_dict(choices[0]).get("message") if choices else None
        for number, call in enumerate(as_list(as_dict(message).get("tool_calls"))):
            if not isinstance(call, dict):
                builder.unread("tool-call", "requested tool calls that are not objects")
                continue
            name, arguments, call_id = openai_call(call)
            builder.tool(
                (*order[:3], number),
                name=name,
                arguments=arguments,
                result=results.get(id_text(call_id) or ""),
                call_id=call_id,
            )


def _run_error(builder: Builder, run: _Run) -> bool:
    error = run.data.get("error")
    if error in (None, "", False):
        return False
    builder.error(error if isinstance(error, str) else json_text(error), run.where)
    return True


def _root(ordered: list[tuple[Order, _Run]]) -> _Run | None:
    """The first run (in trace order) without a parent: the run of the whole trace."""
    return next((run for _, run in ordered if run.data.get("parent_run_id") is None), None)


def _langsmith_answer(
    ordered: list[tuple[Order, _Run]], llm_runs: list[tuple[Order, _Run]]
) -> str | None:
    root = _root(ordered)
    if root is not None:
        answer = answer_text(root.data.get("outputs"))
        if answer is not None:
            return answer
    texts = (answer_text(run.data.get("outputs")) for _, run in reversed(llm_runs))
    return next((t for t in texts if t is not None), None)


_LANGSMITH_ROLES = {"llm": "llm", "tool": "barrier"}


def _langsmith_calls(
    builder: Builder, ordered: list[tuple[Order, _Run]]
) -> list[tuple[Order, _Run]]:
    """Add the tool runs and the model runs (innermost only); return the model runs."""
    inner = wrappers(
        [
            (
                id_text(r.data.get("id")),
                id_text(r.data.get("parent_run_id")),
                _LANGSMITH_ROLES.get(str(r.data.get("run_type")), ""),
            )
            for _, r in ordered
        ],
        builder,
        "run",
    )
    root = _root(ordered)
    llm_runs: list[tuple[Order, _Run]] = []
    has_tool_runs = False
    for order, run in ordered:
        failed = _run_error(builder, run)
        kind = run.data.get("run_type")
        if kind == "tool":
            has_tool_runs = True
            builder.tool(
                order,
                name=run.data.get("name"),
                arguments=run.data.get("inputs"),
                result=run.data.get("outputs"),
                failed=failed,
                duration_ms=elapsed_ms(*_run_times(run)),
            )
        elif kind == "llm" and id_text(run.data.get("id")) not in inner:
            _run_llm(builder, run, order)
            llm_runs.append((order, run))
        elif kind != "llm" and run is not root:
            builder.unread("run", _OTHER_TYPES)
    if not has_tool_runs:  # then the calls the model asked for are the trace's tool calls
        _run_requested(builder, llm_runs, [r for _, r in ordered])
    return llm_runs


def build(trace: Any, options: ViewOptions) -> View:
    builder = Builder("langsmith", options)
    if not isinstance(trace, dict):
        return not_an_object(builder, trace, "run-ingest bodies {post, patch} or a run")
    is_ingest = "post" in trace or "patch" in trace
    runs = _ingest_runs(trace, builder) if is_ingest else _tree_runs(trace, builder)
    ordered = sorted(
        ((order_key(_run_times(r)[0], r.position), r) for r in runs), key=lambda p: p[0]
    )
    llm_runs = _langsmith_calls(builder, ordered)
    builder.final_answer = _langsmith_answer(ordered, llm_runs)
    root = _root(ordered)
    if root is not None:
        builder.duration_ms = elapsed_ms(*_run_times(root))
    return builder.finish()


ADAPTER = Adapter(
    name="langsmith",
    doc=summary(__doc__),
    recognized="`{post: [...], patch: [...]}` run-ingest bodies, or one run object (`run_type` "
    "with `inputs`/`outputs`)",
    detect=detect,
    build=build,
)
