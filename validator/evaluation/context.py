"""The per-trace state every check of one trace shares: the document, its normalized texts,
and the normalized view (`$.view`), made once and only when a query reads it.

Its own module, not the predicate package's: the interpreter, the evaluator and the `query`
and `explain` commands hold a `TraceContext` without judging anything, and it depends only
on the query, text and view modules, never on a predicate.
"""

from __future__ import annotations

from typing import Any

from ..model import Finder
from .query import FirstOf, Query, reads_view
from .text import normalize_markdown_ex, normalize_plain

# Short plain texts (keywords, markers) normalized once per process and shared by every
# trace: a case's keywords are the same for each of its traces. Bounded, so a stream of
# distinct values cannot grow it without limit.
_SHORT = 200
_SHARED_MAX = 50_000
_shared_plain: dict[str, str] = {}


class TraceContext:
    """Per-trace state shared by all checks: the document, its normalized texts, and the
    normalized view (`$.view`), made once and only when a query reads it."""

    def __init__(
        self, trace: Any, view: str | None = None, messages: str | None = None, parent: Any = None
    ) -> None:
        self.trace = trace
        self._texts: dict[tuple[str, bool], str] = {}
        # Markdown values matched without rendering (over the budget), and the note saying so.
        self.text_notes: dict[str, str] = {}
        self._view_settings = (view, messages)
        self.parent = parent
        self._view_document: dict[str, Any] | None = None
        self.view_adapter: str | None = None  # the adapter that made the view, once made
        # What each plain query matched, by its text: specs often read the same path (the
        # verdict, the answer) several times per trace. Callers get a copy.
        self._found: dict[str, list[Any]] = {}
        # Whether the run will be compacted (`evaluator.Evaluator._check`): a check that
        # passes then makes no message, since none is kept.
        self.brief = False

    def document(self, query: Finder) -> Any:
        """The document `query` reads: the view's for `$.view...`, else the trace."""
        if reads_view(query.expression):
            return self.view_document()
        return self.trace

    def find(self, query: Finder) -> list[Any]:
        if type(query) is Query:  # the common case, kept cheap
            found = self._found.get(query.expression)
            if found is None:
                found = query.find(self.view_document() if query.view else self.trace)
                self._found[query.expression] = found
            return list(found)
        if type(query) is FirstOf:  # the trace-fields spec's list of paths
            for alternative in query.alternatives:
                found = self.find(alternative)
                if found:
                    return found
            return []
        return query.find(self.document(query))

    def view_document(self) -> dict[str, Any]:
        if self._view_document is None:
            # The view (every adapter) is imported by the first trace a check reads it of.
            from .view import ViewOptions, make_view

            adapter, messages = self._view_settings
            options = ViewOptions(messages=messages, parent=self.parent)
            view, self.view_adapter = make_view(self.trace, adapter, options)
            self._view_document = {"view": view}
        return self._view_document

    def text(self, value: str, markdown: bool) -> str:
        """`value` normalized for matching (Markdown rendered first when asked), cached."""
        if not markdown and len(value) <= _SHORT:
            cached = _shared_plain.get(value)
            if cached is None:
                if len(_shared_plain) >= _SHARED_MAX:
                    _shared_plain.clear()
                cached = _shared_plain[value] = normalize_plain(value)
            return cached
        key = (value, markdown)
        cached = self._texts.get(key)
        if cached is None:
            if markdown:
                cached, note = normalize_markdown_ex(value)
                if note is not None:
                    self.text_notes[value] = note
            else:
                cached = normalize_plain(value)
            self._texts[key] = cached
        return cached
