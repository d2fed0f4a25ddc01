"""Why a JSONPath matched nothing, in words: the first plain step (`.name`, `['name']`,
`[3]`) the document lacks, with what it holds instead and a did-you-mean. `query` prints it
under a query that matched nothing; `lint --fixtures` puts it beside a spec query that
matches nothing in any trace."""

from __future__ import annotations

import re
from typing import Any

from ..display import shorten
from ..problems import counted, did_you_mean, kind_of
from .locate import static_steps

KEYS_SHOWN = 12  # keys listed when a field is not where the query looks


def listed_keys(keys: list[str]) -> str:
    """`a, b, c and 9 more`: the first KEYS_SHOWN keys a trace holds, each cut short (a
    trace's key can be of any length)."""
    listed = ", ".join(shorten(key) for key in keys[:KEYS_SHOWN])
    more = len(keys) - KEYS_SHOWN
    return listed + (f" and {more} more" if more > 0 else "")


def missing_step(expression: str, document: Any) -> str | None:
    """For a query that matched nothing: the first of its plain leading steps (`.name`,
    `['name']`, `[3]`) that is not in the document, with what is there instead; None when
    every plain step exists (a filter or a wildcard after them matched nothing)."""
    where, node = "$", document
    for step in static_steps(expression):
        if isinstance(step, int):
            if not isinstance(node, list):
                return f"{where} is {kind_of(node)}, not a list"
            if not -len(node) <= step < len(node):
                return f"{where} has {counted(len(node), 'item')}: index {step} is past its end"
            node, where = node[step], f"{where}[{step}]"
        else:
            if not isinstance(node, dict):
                return f"{where} is {kind_of(node)}, it has no field '{step}'"
            if step not in node:
                return _no_field(where, step, node)
            node, where = node[step], f"{where}.{step}"
    return _missing_in_items(expression, where, node)


_EACH_FIELD = re.compile(r"(.*?)\[\*\]\.([A-Za-z_][A-Za-z0-9_]*)")


def _missing_in_items(expression: str, where: str, node: Any) -> str | None:
    """For `...[*].name` right after the plain steps: no item of the list has `name` (the
    usual slip when writing a spec against a new trace shape), with what the items have."""
    match = _EACH_FIELD.match(expression.strip())
    if match is None or static_steps(match.group(1)) != static_steps(expression):
        return None
    items = [item for item in node if isinstance(item, dict)] if isinstance(node, list) else []
    key = match.group(2)
    if not items or any(key in item for item in items):
        return None
    keys = list(dict.fromkeys(str(k) for item in items for k in item))
    listed = listed_keys(keys)
    return (
        f"no item of {where}[*] has a field '{key}'{did_you_mean(key, keys)}; their fields:"
        f" {listed}"
    )


def _no_field(where: str, key: str, node: dict[str, Any]) -> str:
    keys = [str(k) for k in node]
    listed = listed_keys(keys)
    hint = did_you_mean(key, keys)
    if where == "$" and key != "view" and did_you_mean(key, ["view"]):
        hint = " (did you mean 'view', the normalized view?)"
    return f"{where} has no field '{key}'{hint}; its fields: {listed or 'none'}"
