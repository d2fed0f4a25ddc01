"""FirstOf: several compiled queries, the matches of the first that matches anything."""

from __future__ import annotations

from typing import Any

from .compiled import Query


class FirstOf:
    """Several compiled queries tried in turn: the matches of the first one that matches
    anything. The trace-fields spec writes one as a list (`tool_calls: [$.toolInvocations,
    $.view.tool_calls]`: the trace's own field, else the normalized view's), so that the
    report's columns work on every trace shape. `TraceContext.find` gives each alternative
    its own document (the trace, or the view for `$.view...`); `find` on one document tries
    them all on it."""

    __slots__ = ("alternatives", "expression")

    def __init__(self, alternatives: tuple[Query, ...]) -> None:
        self.alternatives = alternatives
        self.expression = ", else ".join(q.expression for q in alternatives)

    def find(self, document: Any) -> list[Any]:
        for query in self.alternatives:
            found = query.find(document)
            if found:
                return found
        return []
