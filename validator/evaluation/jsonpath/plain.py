"""The plainest JSONPath expressions planned from their text, without jsonpath-ng's parser.

Most specs read fields by name: ``$.finalAnswer``, ``$.toolInvocations[*].toolName``,
``$.messages[0].content``, ``$..error``. Parsing them with jsonpath-ng means loading its
parser (ply, its tables, `logging`: ~20 ms of every run's start) for a plan that is a list
of names. So an expression written only with these segments is planned here:

    .name     a name of ASCII letters, digits and `_`, not starting with a digit
    ..name    the same name at any depth
    .*  [*]   every member or item
    [N]       one index: 0, 12, -1 (at most nine digits)

after the leading `$`, with no spaces. Anything else (quotes, filters, unions, slices,
names with `-`, `@` or other letters, the words jsonpath-ng's lexer reserves) returns None
and jsonpath-ng parses it as before. A plan made here is the plan jsonpath-ng's AST gives
(planner.py): tests/unit/evaluation/jsonpath/test_plain.py compares the two on every
expression of the compliance suite, of the repository, and on generated ones.
"""

from __future__ import annotations

import re

from .fast import Plan

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_SEGMENT = re.compile(rf"\.\.({_NAME})|\.({_NAME})|\.\*|\[\*\]|\[(0|-?[1-9][0-9]{{0,8}})\]")

# Words jsonpath-ng's lexers read as something other than a name (`where`, `null`, ...),
# and the names of its extensions, left to its parser whatever they mean there.
_RESERVED = frozenset(
    {"where", "wherenot", "null", "true", "false", "and", "or", "not", "in", "this"}
    | {"len", "keys", "sorted", "str", "sub", "split"}
)


def plan(expression: str) -> Plan | None:
    """The evaluator's plan of `expression` (fast.py), or None when it is not plain."""
    if not expression.startswith("$"):
        return None
    steps: Plan = []
    position, end = 1, len(expression)
    match = _SEGMENT.match
    while position < end:
        found = match(expression, position)
        if found is None:
            return None
        deep, name, index = found.groups()
        if deep is not None:
            if deep in _RESERVED:
                return None
            steps += [("descend", None), ("field", deep)]
        elif name is not None:
            if name in _RESERVED:
                return None
            steps.append(("field", name))
        elif index is not None:
            steps.append(("index", int(index)))
        else:
            steps.append(("wildcard", None))
        position = found.end()
    return steps
