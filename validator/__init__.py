"""trace-validator: a declarative, offline validator for LLM-agent diagnosis traces.

Library use (one process or many)::

    from validator import load_suite, evaluate_trace, build_report

    suite = load_suite("cases", specs="specs")       # validate and compile once
    run = evaluate_trace(suite, trace_dict)          # plain, picklable RunResult
    report = build_report([...case results...])      # the JSON report document

See README.md, "Library API".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:  # pragma: no cover
    from .suite import Suite

__all__ = ["__version__", "evaluate_trace", "load_suite"]


def load_suite(cases: Any, specs: Any = None) -> Suite:
    """Load and validate case files and spec folders; raise `ProblemsFound` on errors."""
    from .api import load_suite as _load

    return _load(cases, specs)


def evaluate_trace(suite: Suite, trace: Any, case_id: str | None = None) -> Any:
    """Evaluate one parsed trace (a dict) against its case; returns a `RunResult`."""
    return suite.evaluate(trace, case_id)
