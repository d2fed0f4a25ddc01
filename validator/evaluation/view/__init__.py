"""One normalized view of every trace: `$.view`.

Traces come in many shapes (this project's reference format, OpenTelemetry GenAI spans in
several encodings, Langfuse and LangSmith exports, chat message lists). A spec that wants
"the tool calls" or "the final answer" should not have to know which. An *adapter* reads one
family of shapes and builds the same view for all of them (validator/schemas/view.schema.json
documents it field by field; docs/VIEW.md says which raw field feeds which view field).

The layout: `building` (the adapter record, the small readers, the Builder every adapter
fills), `answer` (the answer text of any message shape), `messages` (a model call's
conversation, from any message shape), `otlp` (OpenTelemetry spans in
every encoding), and one module per
adapter, each exporting `ADAPTER` with its docstring as user documentation. Adding an
adapter = one module + its entry in ADAPTERS below; the schemas' adapter enums and
docs/VIEW.md's adapter table are made from ADAPTERS (scripts/update_docs.py writes them,
tests/project/test_docs.py fails when they drift).

`make_view` never raises for a JSON value, however hostile: what an adapter cannot read
becomes an `errors` entry or an `unread` entry. Building is linear in the size of the trace
and detection looks at top-level keys only, because a run evaluates thousands of traces.

This package is a leaf of `validator.evaluation`: it imports nothing of the package except
`validator.problems` and the view's field names, so other parts can use it without import
cycles. The field names are beside it (`evaluation.viewfields`, a leaf too, re-exported here):
checking a spec's `$.view` paths needs them, not every adapter; a run imports this package
when a check first reads a trace's view.
"""

from __future__ import annotations

import copy
from typing import Any

from ...problems import did_you_mean, kind_of
from ..viewfields import VIEW_FIELDS, VIEW_SCHEMA, view_field_problem
from . import (
    autogen,
    claude_code,
    langfuse,
    langsmith,
    openai_agents,
    openai_messages,
    openhands,
    otel_genai,
    reference,
    smolagents,
)
from .building import (
    LEFT_NULL,
    NOT_CALLS,
    UNREAD_KINDS,
    Adapter,
    Builder,
    View,
    ViewOptions,
    read_by_checks,
    unread_text,
)
from .messages import ROLES

# Detection tries the adapters in this order: the specific formats first, the generic
# message list last, since many formats carry a list of messages somewhere.
ADAPTERS: dict[str, Adapter] = {
    adapter.name: adapter
    for adapter in (
        reference.ADAPTER,
        langfuse.ADAPTER,
        langsmith.ADAPTER,
        smolagents.ADAPTER,
        openai_agents.ADAPTER,
        autogen.ADAPTER,
        otel_genai.ADAPTER,
        openhands.ADAPTER,
        claude_code.ADAPTER,
        openai_messages.ADAPTER,
    )
}

DETECTION_ORDER: tuple[str, ...] = tuple(ADAPTERS)
NO_ADAPTER = "none"  # the view's adapter when no adapter recognizes the trace
# `traces.view: auto` (the default): each trace's adapter is detected from its shape.
AUTO = "auto"
VIEW_CHOICES: tuple[str, ...] = (AUTO, *ADAPTERS)  # what `traces.view` accepts


def detect(trace: Any) -> str | None:
    """The first adapter (in DETECTION_ORDER) that recognizes the trace, or None."""
    for name in DETECTION_ORDER:
        if ADAPTERS[name].detect(trace):
            return name
    return None


def _empty(adapter: str, options: ViewOptions, message: str) -> View:
    builder = Builder(adapter, options)
    builder.error(message, "$")
    builder.unread("trace", message)
    return builder.finish()


def make_view(
    trace: Any, adapter: str | None = None, options: ViewOptions | None = None
) -> tuple[View, str]:
    """The view of `trace` and the name of the adapter that built it.

    `adapter=None` detects it; when no adapter recognizes the trace the view is empty, its
    adapter is "none" and an error says so. Never raises for a JSON value; raises ValueError
    for an adapter name that is not in ADAPTERS (a configuration mistake, not a trace's)."""
    options = options if options is not None else ViewOptions()
    name = adapter if adapter is not None else detect(trace)
    if name is None:
        message = (
            f"no view adapter recognizes this trace ({kind_of(trace)});"
            f" name one of: {', '.join(ADAPTERS)}"
        )
        return _empty(NO_ADAPTER, options, message), NO_ADAPTER
    chosen = ADAPTERS.get(name)
    if chosen is None:
        hint = did_you_mean(name, ADAPTERS)
        raise ValueError(f"unknown view adapter {name!r}{hint}; known: {', '.join(ADAPTERS)}")
    try:
        return chosen.build(trace, options), name
    except Exception as exc:  # a hostile shape no reader foresaw: an empty view, never a crash
        message = f"the {name} adapter could not read this trace: {type(exc).__name__}: {exc}"
        return _empty(name, options, message), name


# --------------------------------------------------------------------------- derived facts

_MESSAGE_ROLE_PATH = tuple(
    [
        "properties",
        "llm_calls",
        "items",
        "properties",
        "messages",
        "items",
        "properties",
        "role",
        "enum",
    ]
)
# The schema enums made from the registries here: (schema file, path to the enum, values).
DERIVED_ENUMS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("config", ("properties", "traces", "properties", "view", "enum"), VIEW_CHOICES),
    ("view", ("properties", "adapter", "enum"), (*ADAPTERS, NO_ADAPTER)),
    (
        "view",
        ("properties", "unread", "items", "properties", "what", "enum"),
        tuple(UNREAD_KINDS),
    ),
    (
        "view",
        _MESSAGE_ROLE_PATH,
        ROLES,
    ),
)


def with_derived_enums(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` (the schema file `name`, e.g. "view") with the enums of DERIVED_ENUMS made
    from the registries: what the shipped file must hold."""
    out = copy.deepcopy(schema)
    for file, path, values in DERIVED_ENUMS:
        if file != name:
            continue
        node = out
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = list(values)
    return out


__all__ = [
    "ADAPTERS",
    "AUTO",
    "DERIVED_ENUMS",
    "DETECTION_ORDER",
    "LEFT_NULL",
    "NOT_CALLS",
    "NO_ADAPTER",
    "UNREAD_KINDS",
    "VIEW_CHOICES",
    "VIEW_FIELDS",
    "VIEW_SCHEMA",
    "Adapter",
    "ViewOptions",
    "detect",
    "make_view",
    "read_by_checks",
    "unread_text",
    "view_field_problem",
    "with_derived_enums",
]
