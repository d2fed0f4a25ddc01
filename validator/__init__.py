"""trace-validator: a declarative, offline validator for LLM-agent diagnosis traces.

Library use (one process or many)::

    from validator import load_suite, evaluate_trace, evaluate_partition, report_from_runs

    suite = load_suite("cases", specs="specs")       # validate and compile once; picklable
    run = evaluate_trace(suite, trace_dict)          # one trace -> a plain, picklable RunResult
    runs = evaluate_partition(suite, traces)         # a batch (e.g. a Dask or Ray partition)
    report = report_from_runs(suite, runs)           # all partitions' runs -> report.json's dict
    write_reports(report, "reports", ["json", "md", "junit", "sarif", "html"])  # any formats

See docs/library-api.md. The names are defined in `validator.api` and imported from
there on first use, so `python -m validator --help` does not load the library.
"""

from __future__ import annotations

from typing import Any

from .version import __version__

__all__ = [
    "__version__",
    "evaluate_partition",
    "evaluate_trace",
    "load_suite",
    "report_from_runs",
    "write_reports",
]

_API = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> Any:
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'validator' has no attribute '{name}'")
