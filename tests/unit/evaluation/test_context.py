"""The per-trace state (validator.evaluation.context): what it computes once per trace."""

from __future__ import annotations

from typing import Any

import pytest

from validator.evaluation.context import TraceContext
from validator.evaluation.jsonpath.compiled import Query
from validator.evaluation.query import compile_query


def test_a_path_read_by_several_checks_is_evaluated_once_per_trace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    real = Query.find

    def counting(self: Query, document: Any) -> list[Any]:
        calls.append(self.expression)
        return real(self, document)

    monkeypatch.setattr(Query, "find", counting)
    ctx = TraceContext({"verdict": "PASS", "calls": [{"n": "a"}, {"n": "b"}]})
    # Two specs compile the same path into two objects; a third reads another path.
    first, second = compile_query("$.calls[*].n"), compile_query("$.calls[*].n")
    assert ctx.find(first) == ["a", "b"]
    found = ctx.find(second)
    assert found == ["a", "b"]
    found.append("changed by a caller")  # a caller's copy: the next reader is not affected
    assert ctx.find(first) == ["a", "b"]
    assert ctx.find(compile_query("$.verdict")) == ["PASS"]
    assert calls == ["$.calls[*].n", "$.verdict"]
    # Another trace evaluates again.
    assert TraceContext({"calls": []}).find(first) == []
    assert calls == ["$.calls[*].n", "$.verdict", "$.calls[*].n"]


def _counting_markdown(monkeypatch: pytest.MonkeyPatch, note: str | None = None) -> list[str]:
    """Count (and record) the Markdown texts rendered from here on, with a fresh store of
    shared texts; `note` is what each rendering says (as when markdown-it fails)."""
    from validator.evaluation import context

    rendered: list[str] = []
    real = context.normalize_markdown_ex

    def counting(value: str) -> tuple[str, str | None]:
        rendered.append(value)
        return real(value)[0], note

    monkeypatch.setattr(context, "normalize_markdown_ex", counting)
    monkeypatch.setattr(context, "shared_texts", context.SharedTexts(4_000, 1_000))
    return rendered


def test_an_answer_other_traces_repeat_is_rendered_once(monkeypatch: pytest.MonkeyPatch) -> None:
    rendered = _counting_markdown(monkeypatch, note="rendered without Markdown")
    answer = "## Diagnosis not verified\n\nThe **binlog** disk is full. " + "x" * 100
    contexts = [TraceContext({"n": i}) for i in range(5)]
    texts = {ctx.text(answer, True) for ctx in contexts}
    assert len(rendered) == 1
    assert texts == {"diagnosis not verified the binlog disk is full. " + "x" * 100}
    # Each trace still carries the note its text has, for its own run in the report.
    assert all(ctx.text_notes == {answer: "rendered without Markdown"} for ctx in contexts)
    # Plain normalization of the same text is another text: not taken for the rendered one.
    assert contexts[0].text("**bold**" + "y" * 300, False) == "**bold**" + "y" * 300


def test_the_shared_texts_stay_within_their_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    from validator.evaluation import context

    rendered = _counting_markdown(monkeypatch)
    kept = "*kept* " + "k" * 100
    for i in range(200):  # distinct answers, ~600 characters each, and one used again and again
        TraceContext({}).text(kept, True)
        TraceContext({}).text(f"answer {i} " + "a" * 300, True)
        assert context.shared_texts.held_chars() <= 4_000
    assert rendered.count(kept) == 1  # the most recently used stays
    assert len(rendered) == 201
    # A text longer than the longest shared is rendered for each trace that reads it.
    long = "b" * 1_001
    TraceContext({}).text(long, True)
    TraceContext({}).text(long, True)
    assert rendered.count(long) == 2
