"""trace-validator: a declarative, offline validator for LLM-agent diagnosis traces.

Library use (one process or many)::

    from validator import load_suite, evaluate_partition, report_from_runs

    suite = load_suite("cases", specs="specs")       # validate and compile once; picklable
    run = suite.evaluate(trace_dict)                 # one trace -> a plain, picklable RunResult
    runs = evaluate_partition(suite, traces)         # a batch (e.g. a Dask or Ray partition)
    report = report_from_runs(suite, runs)           # all partitions' runs -> report.json's dict

See README.md, "Library API".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:  # pragma: no cover
    from .suite import Suite

__all__ = [
    "__version__",
    "evaluate_partition",
    "evaluate_trace",
    "load_suite",
    "report_from_runs",
]


def load_suite(cases: Any, specs: Any = None) -> Suite:
    """Load and validate case files and spec folders; raise `ProblemsFound` on errors."""
    from .api import load_suite as _load

    return _load(cases, specs)


def evaluate_trace(suite: Suite, trace: Any, case_id: str | None = None) -> Any:
    """Evaluate one parsed trace (a dict) against its case; returns a `RunResult`."""
    return suite.evaluate(trace, case_id)


def evaluate_partition(suite: Suite, traces: Any) -> list[Any]:
    """Evaluate a batch of traces (or `(name, trace)` pairs); returns compact `RunResult`s."""
    from .api import evaluate_partition as _evaluate

    return _evaluate(suite, traces)


def report_from_runs(
    suite: Suite, runs: Any, inputs: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The report document (report.json's content) from runs evaluated anywhere, in order."""
    from .api import report_from_runs as _report

    return _report(suite, runs, inputs)
