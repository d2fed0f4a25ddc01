"""The predicate registry: what a check spec can say must hold of the values its query selects.

Every predicate is one small function with the same signature::

    def predicate(values: list[Any], args: dict[str, Any], ctx: TraceContext) -> Outcome

- `values` are the JSON values the clause's queries matched, in order (an empty list when the
  path does not exist). JSON `null` counts as "no value" wherever a predicate asks whether
  something is there; `0`, `""`, `false`, `[]` and `{}` are values like any other.
- `args` are the predicate's declared parameters, already resolved (literal, bound to a case
  field, or read from the trace) and checked against the declared types.
- `ctx` gives normalized text, computed once per trace and shared by every check.

A predicate never raises and never knows which file or query it serves: the interpreter adds
the JSONPath after every message. A message says what is wrong in plain words ("the value is
"REVISE", which is not one of the allowed values PASS"); a failure the predicate judged also
carries `facts`, the values a spec's `message:` template may show (`gives=` names them, see
`evaluation.messages`). Adding a predicate means one function, its declared parameters,
its docstring (shown in `README.md`), and its tests in `tests/unit/evaluation/predicates/test_predicates.py`; the function
goes in the module of its family, and a new family is a module added to `FAMILIES`.

A predicate's docstring is user documentation: it states what zero, one and several matches mean.

The families, one module each: `values` (exists, absent, in, not-in, equals, count),
`keywords` (contains-all, contains-min, contains-none, no-shared-run, matches), `order`
(sequence, precedes), `calls` (no-repeat, call-matches, call-matches-each, with the argument
matchers in `matchers`) and `numbers` (compare). `declare` holds what a predicate declares
(`Param`, `Predicate`, `Outcome`); the per-trace state is `evaluation.context.TraceContext`.
"""

from __future__ import annotations

from ..context import TraceContext
from ..query import reads_view
from . import calls, keywords, numbers, order, values
from .declare import (
    Outcome,
    Param,
    Predicate,
    PredicateFn,
    declared_count,
    declared_in,
    param_type_error,
    predicate,
    show,
)
from .keywords import required_count
from .matchers import parse_arguments

# The families in the order the registry (and the README's table) lists them.
FAMILIES = (values, keywords, order, calls, numbers)

PREDICATES: dict[str, Predicate] = {
    entry.name: entry for family in FAMILIES for entry in declared_in(family.__name__)
}
assert len(PREDICATES) == declared_count(), "every module that declares predicates is a family"

__all__ = [
    "FAMILIES",
    "PREDICATES",
    "Outcome",
    "Param",
    "Predicate",
    "PredicateFn",
    "TraceContext",
    "param_type_error",
    "parse_arguments",
    "predicate",
    "reads_view",
    "required_count",
    "show",
]
