"""JSONPath queries on traces: compiled once, evaluated in plain Python where it can be.

One module per concept; the listing is the design:

    ng.py        jsonpath-ng, read in this one module: the parser, the AST classes, its own
                 evaluation (the reference semantics); a clear error naming the installed
                 version when it lacks a name the evaluator reads
    errors.py    QueryError (compile time, with the column), QueryEvaluationError (one
                 document, with the reason)
    regexes.py   `=~` and `sub()` patterns put on the linear-time engine, located errors
    fast.py      the plain-Python evaluator derived from the AST, and NODE_BUDGET
    compiled.py  Query and compile_query: parse, guard, take the fast path when it can
    located.py   each match's concrete path, from jsonpath-ng's evaluation (`query`)
    firstof.py   FirstOf: a trace field's list of paths, the first that matches

The evaluator and its oracle (jsonpath-ng) are compared in one place:
tests/unit/evaluation/jsonpath/test_oracle.py. The rest of the package imports these names from here (or
from `validator.evaluation.query`, which re-exports them).
"""

from __future__ import annotations

from .compiled import MAX_JSONPATH_NG_DEPTH, Query, compile_query, reads_view
from .errors import QueryError, QueryEvaluationError
from .fast import NODE_BUDGET
from .firstof import FirstOf

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
