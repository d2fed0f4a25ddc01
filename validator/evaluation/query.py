"""Compiled JSONPath queries: the names the rest of the package imports.

The machinery is the `jsonpath` package beside this module (parsing and jsonpath-ng in
`jsonpath/ng.py`, the plain-Python evaluator in `jsonpath/fast.py`, ...); see its docstring.
"""

from __future__ import annotations

from .jsonpath import (
    MAX_JSONPATH_NG_DEPTH,
    NODE_BUDGET,
    FirstOf,
    Query,
    QueryError,
    QueryEvaluationError,
    compile_query,
    reads_view,
)

__all__ = [
    "MAX_JSONPATH_NG_DEPTH",
    "NODE_BUDGET",
    "FirstOf",
    "Query",
    "QueryError",
    "QueryEvaluationError",
    "compile_query",
    "reads_view",
]
