"""JSONPath queries on traces: compiled once, evaluated in plain Python where it can be.

One module per concept; the listing is the design:

    ng.py        jsonpath-ng, read in this one module: the parser, the AST classes, its own
                 evaluation (the reference semantics); a clear error naming the installed
                 version when it lacks a name the evaluator reads
    errors.py    QueryError (compile time, with the column), QueryEvaluationError (one
                 document, with the reason)
    regexes.py   `=~` and `sub()` patterns put on the linear-time engine, located errors
    fast.py      the plain-Python evaluator of a plan (a list of steps), and NODE_BUDGET
    planner.py   jsonpath-ng's AST as a plan (filters as tests); None when it has none
    plain.py     the plainest expressions ($.a.b[*].c) planned from their text, the plan
                 their AST gives, without loading jsonpath-ng
    compiled.py  Query and compile_query: plan from the text or parse, guard, take the fast
                 path when it can
    located.py   each match's concrete path, from jsonpath-ng's evaluation (`query`)
    firstof.py   FirstOf: a trace field's list of paths, the first that matches

The evaluator and its oracle (jsonpath-ng) are compared in one place:
tests/unit/evaluation/jsonpath/test_oracle.py; the plans made from text and those of the
AST in tests/unit/evaluation/jsonpath/test_plain.py. The rest of the package imports these names from here (or
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
