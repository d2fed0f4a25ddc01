"""Where each match of a query is: its concrete JSONPath (`$.a[0]['b c']`), for people
writing specs (the `query` command). The paths come from jsonpath-ng's own evaluation, the
reference semantics; a value is never shown at a wrong place."""

from __future__ import annotations

import re
from typing import Any

from . import ng


def located(path: Any, values: list[Any], document: Any) -> list[tuple[str | None, Any]]:
    """Each of `values` (what the compiled query found in `document`) with its concrete
    JSONPath, from jsonpath-ng's evaluation of `path`. When that cannot be had for a match
    (a `len` or `sub()` result, an evaluation jsonpath-ng cannot finish, or one that
    disagrees with the values), its path is None."""
    if not values:
        return []
    try:
        matches = ng.find_matches(path, document)
        paths = [concrete_path(match) for match in matches]
        agree = len(matches) == len(values) and all(
            m.value is v or (type(m.value) is type(v) and m.value == v)
            for m, v in zip(matches, values, strict=True)
        )
    except Exception:  # RecursionError included: the values stand without their paths
        agree = False
    if not agree:
        return [(None, value) for value in values]
    return list(zip(paths, values, strict=True))


_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def concrete_path(datum: Any) -> str | None:
    """`$.a[0]['b c']` for a jsonpath-ng match: its chain of contexts from the root, each a
    field name or a (non-negative) index; None when a step is not one, or when the value is
    computed rather than found (`len`, `sub()`, `sorted`)."""
    chain = []
    while datum is not None:
        chain.append(datum)
        datum = datum.context
    if not isinstance(chain[-1].path, ng.Root):  # a computed value (`sub()`, `sorted`)
        return None
    out = ["$"]
    for node in reversed(chain):
        step = node.path
        if isinstance(step, (ng.Root, ng.This)):
            continue
        if isinstance(step, ng.Fields) and len(step.fields) == 1:
            name = step.fields[0]
            if _PLAIN_NAME.match(name):
                out.append(f".{name}")
            else:
                quoted = name.replace("\\", "\\\\").replace("'", "\\'")
                out.append(f"['{quoted}']")
        elif isinstance(step, ng.Index) and len(step.indices) == 1:
            index = step.indices[0]
            parent = node.context.value if node.context is not None else None
            if index < 0 and isinstance(parent, list):
                index += len(parent)
            out.append(f"[{index}]")
        else:
            return None
    return "".join(out)
