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
