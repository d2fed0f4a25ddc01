"""The per-trace state every check of one trace shares: the document, its normalized texts,
and the normalized view (`$.view`), made once and only when a query reads it.

Its own module, not the predicate package's: the interpreter, the evaluator and the `query`
and `explain` commands hold a `TraceContext` without judging anything, and it depends only
on the query, text and view modules, never on a predicate.

Normalized texts are also remembered across traces (`SharedTexts`): repeated runs of a case
and templated answers ("Diagnosis not verified ...") repeat texts, and rendering Markdown is
most of a run's work.
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


class SharedTexts:
    """Longer texts normalized once per process, the most recently used kept: a text another
    trace of the run had (a pass^k run's identical answers, a template an agent falls back
    to) is not rendered again. Bounded by the characters of the texts it holds, and it
    holds none longer than `longest`, so a stream of distinct answers costs a dict entry
    each and never grows it; a trace's own cache (`TraceContext.text`) still keeps what it
    reads twice. Not locked: threads sharing it at worst drop an entry (normalized again)
    or misjudge the budget until it next empties.
    """

    def __init__(self, budget: int, longest: int) -> None:
        self.budget, self.longest = budget, longest
        self._held: dict[tuple[str, bool], tuple[str, str | None]] = {}
        self._chars = 0

    def get(self, value: str, markdown: bool) -> tuple[str, str | None] | None:
        """The normalized text and its note, if held (then it is the most recently used)."""
        key = (value, markdown)
        found = self._held.pop(key, None)
        if found is not None:
            self._held[key] = found
        return found

    def put(self, value: str, markdown: bool, normalized: tuple[str, str | None]) -> None:
        """Hold `value`'s normalized text and note, the oldest dropped past the budget."""
        key, held = (value, markdown), self._held
        if len(value) > self.longest or key in held:
            return
        held[key] = normalized
        self._chars += len(value) + len(normalized[0])
        try:
            while self._chars > self.budget and held:
                oldest = next(iter(held))
                dropped = held.pop(oldest)
                self._chars -= len(oldest[0]) + len(dropped[0])
        except (RuntimeError, StopIteration, KeyError):  # another thread took it first
            pass
        if not held:
            self._chars = 0

    def held_chars(self) -> int:
        """The characters of the texts held, normalized ones included."""
        return self._chars


# ~1 M characters: ~250 answers of 2 KB with their normalized texts, 1-4 MB (a case's runs
# come one after another, so its repeated answers are among the most recent).
shared_texts = SharedTexts(budget=1_000_000, longest=65_536)


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
            normalized = shared_texts.get(value, markdown)
            if normalized is None:
                normalized = (
                    normalize_markdown_ex(value) if markdown else (normalize_plain(value), None)
                )
                shared_texts.put(value, markdown, normalized)
            cached, note = normalized
            if note is not None:
                self.text_notes[value] = note
            self._texts[key] = cached
        return cached
