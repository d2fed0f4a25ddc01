"""Problem codes: A spec file: predicates, parameters, bindings, JSONPaths, inputs."""

from __future__ import annotations

from .code import ERROR, WARNING, Code

__all__ = [
    "BAD_BINDING",
    "BAD_INPUT",
    "BAD_JSONPATH",
    "BAD_MATCHER",
    "BAD_PARAMETER",
    "BAD_REGEX",
    "DEFAULT_NEVER_APPLIES",
    "DUPLICATE_SPEC_ID",
    "INPUT_CONFLICT",
    "MISSING_PARAMETER",
    "MISSING_TRACE_FIELDS",
    "SPEC_NOT_LOADED",
    "SPEC_SHAPE",
    "UNKNOWN_CASE_FIELD",
    "UNKNOWN_PARAMETER",
    "UNKNOWN_PREDICATE",
    "UNKNOWN_VIEW_FIELD",
]

DUPLICATE_SPEC_ID = Code(
    "duplicate-spec-id",
    ERROR,
    "two spec files in one folder use one id",
    "two specs with the same id in one folder",
    "give each spec its own id",
)

UNKNOWN_PREDICATE = Code(
    "unknown-predicate",
    ERROR,
    "a predicate that is not in the registry",
    "`predicate: exist`",
    "`predicate: exists`",
)

UNKNOWN_PARAMETER = Code(
    "unknown-parameter",
    ERROR,
    "a parameter the predicate does not take",
    "`contains-min` with `minimum: 2`",
    "`min: 2`",
)

MISSING_PARAMETER = Code(
    "missing-parameter",
    ERROR,
    "a required parameter of the predicate is missing",
    "`predicate: in` without `params`",
    "`params: {values: [PASS]}`",
)

BAD_PARAMETER = Code(
    "bad-parameter",
    ERROR,
    "a parameter value of the wrong type",
    "`count` with `min: one`",
    "`min: 1`",
)

BAD_REGEX = Code(
    "bad-regex",
    ERROR,
    "a regular expression parameter that does not compile, or that the linear-time"
    " engine cannot run with Python's meaning",
    "`regex: '^(\\w+)-\\1$'` (a backreference)",
    "`regex: '^\\w+-\\w+$'`",
)

BAD_MATCHER = Code(
    "bad-matcher",
    ERROR,
    "an argument matcher of call-matches written wrongly (unknown operator, empty"
    " matcher, an operand of the wrong type, an invalid JSON Schema)",
    "`args: {command: {contians: rm}}`",
    "`args: {command: {contains: rm}}`",
)

DEFAULT_NEVER_APPLIES = Code(
    "default-never-applies",
    WARNING,
    "a call entry's `defaults` names an argument that `args` fixes to another value,"
    " so the default never makes a call match",
    "`args: {page: 2}, defaults: {page: 1}`",
    "`args: {page: {in: [1, 2]}}`, or drop the default",
)

BAD_BINDING = Code(
    "bad-binding",
    ERROR,
    "a bound parameter ({case: ...} or {trace: ...}) written wrongly",
    "`keywords: {case: x, trace: $.y}`",
    "one source: `keywords: {case: root_cause_keywords}`",
)

UNKNOWN_CASE_FIELD = Code(
    "unknown-case-field",
    ERROR,
    "a parameter bound to a case key that cases do not have",
    "`items: {case: required_tool}`",
    "`items: {case: required_tools}`",
)

BAD_JSONPATH = Code(
    "bad-jsonpath",
    ERROR,
    "a JSONPath that does not compile",
    "`query: $.toolInvocations[*.toolName`",
    "`query: $.toolInvocations[*].toolName`",
)

UNKNOWN_VIEW_FIELD = Code(
    "unknown-view-field",
    ERROR,
    "a $.view query names a field the normalized view does not have",
    "`query: $.view.tool_call[*].name`",
    "`query: $.view.tool_calls[*].name`",
)

SPEC_SHAPE = Code(
    "spec-shape",
    ERROR,
    "a spec whose parts do not fit together",
    "`query`/`predicate` and `clauses` in one spec",
    "one or the other",
    also_warning=True,
)

MISSING_TRACE_FIELDS = Code(
    "missing-trace-fields",
    ERROR,
    "no usable trace-fields spec",
    "no usable `trace-fields` spec",
    "restore `specs/trace-fields.yaml` (or reinstall)",
)

BAD_INPUT = Code(
    "bad-input",
    ERROR,
    "a spec input with a name a case key cannot have, or a default that does not fit",
    "`inputs: {Max-Turns: {type: integer}}`",
    "`inputs: {max_turns: {type: integer, minimum: 1, default: 20}}`",
    also_warning=True,
)

INPUT_CONFLICT = Code(
    "input-conflict",
    ERROR,
    "two specs declare one case key with different schemas",
    "`max_turns: {type: integer}` in one spec, `{type: string}` in another",
    "one schema for the key, or two names",
)

SPEC_NOT_LOADED = Code(
    "spec-not-loaded",
    WARNING,
    "a spec file that run does not read",
    "`specs/more/x.yaml`",
    "move it up: spec folders are read one level deep",
)
