"""Check spec files -> compiled `Spec` objects, or positioned problems.

A spec is data: JSONPath queries, a predicate from the registry, its parameters (literal or
bound to a case field or to another query), and optional guards. Every JSONPath expression is
compiled here, once per run; evaluation never parses an expression.

It is over 600 lines because it is one concept: a spec file's every rule (its keys, guards,
parameters, bindings, queries and messages), in the order a person reads the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .. import codes
from ..evaluation.amounts import duration_ms
from ..evaluation.interpreter import compile_condition
from ..evaluation.messages import TemplateError, parse_template, placeholder_problem
from ..evaluation.params import PARAM_TYPES, defaults_problems, value_problems
from ..evaluation.predicates import PREDICATES, Param, Predicate, param_type_error, reads_view
from ..evaluation.query import FirstOf, QueryError, compile_query
from ..evaluation.userschema import rule_problems as schema_rule_problems
from ..evaluation.viewfields import view_field_problem
from ..model import (
    FIELDS_SPEC_ID,
    TRACE_FIELDS,
    Binding,
    Clause,
    Condition,
    Finder,
    Spec,
    Template,
)
from ..problems import ERROR, WARNING, Problem, closest, did_you_mean, show, typo_of
from ..units import UNIT_KINDS, UNIT_MARK
from .caseformat import INPUT_NAME, CaseFormat
from .cases import blank_entries, blank_keyword_message, bound_cuts
from .schema import TYPE_WORDS, build_validator, describe_path, load_schema, schema_problems
from .schemacheck import compile_schema
from .yamlfile import PathKey, YamlDocument


def spec_file_problems(doc: YamlDocument, fmt: CaseFormat) -> list[Problem]:
    """Everything wrong with one spec file (schema, predicates, parameters, JSONPath).

    The checks beyond the schema run even when the schema found errors, on the parts that
    have the right shape, so that one pass reports every mistake.
    """
    problems = set(bound_cuts(doc, _bound, "the check reads this value"))
    problems.update(schema_problems(doc, "spec"))
    problems.update(_SpecChecker(doc, fmt).problems())
    return sorted(problems)


def compile_spec(doc: YamlDocument) -> Spec:
    """Build a Spec from a file already known to be free of errors."""
    data = doc.data
    if "fields" in data:
        return _fields_spec(doc)
    return Spec(
        id=data["id"],
        description=data["description"],
        file=doc.file,
        default=bool(data.get("default", False)),
        inputs=dict(data.get("inputs") or {}),
        reads=tuple(dict.fromkeys(_bound_case_keys(data))),
        report_as=data.get("report_as"),
        clauses=_clauses(data),
        when=_condition(data["when"]) if "when" in data else None,
        unless=_condition(data["unless"]) if "unless" in data else None,
        skip_reason=data.get("skip_reason"),
        severity=data.get("severity", "error"),
        when_input=data.get("when_input"),
        allow_empty=data.get("allow_empty") is True,
    )


def _field_query(value: str | list[str]) -> Finder:
    """A trace field's query: one JSONPath, or a list tried in turn (the first that matches)."""
    if isinstance(value, str):
        return compile_query(value)
    return FirstOf(tuple(compile_query(v) for v in value))


def _fields_spec(doc: YamlDocument) -> Spec:
    """The trace-fields spec: its field queries, and the verdicts and tools it lists."""
    data = doc.data
    fields: dict[str, Finder] = {k: _field_query(v) for k, v in data["fields"].items()}
    return Spec(
        data["id"],
        data["description"],
        doc.file,
        fields=fields,
        verdicts=tuple(data["verdicts"]) if "verdicts" in data else None,
        tools=tuple(data["tools"]) if "tools" in data else None,
    )


def _clauses(data: dict[str, Any]) -> tuple[Clause, ...]:
    """The spec's clauses; a single query/predicate/params is its one clause, named after
    the spec. The spec's `message` serves every clause without its own."""
    raw_clauses = data.get("clauses") or [
        {k: data[k] for k in ("query", "predicate", "params") if k in data}
    ]
    spec_message = _template(data.get("message"))
    return tuple(
        Clause(
            name=c.get("name") or (f"clause {i + 1}" if len(raw_clauses) > 1 else data["id"]),
            condition=_condition(c, c.get("pick") or data.get("pick")),
            when=_condition(c["when"]) if "when" in c else None,
            unless=_condition(c["unless"]) if "unless" in c else None,
            skip_reason=c.get("skip_reason"),
            message=_template(c.get("message")) or spec_message,
            allow_empty=c.get("allow_empty") is True,
        )
        for i, c in enumerate(raw_clauses)
    )


def _template(text: Any) -> Template | None:
    parsed = parse_template(text) if isinstance(text, str) else None
    return parsed if isinstance(parsed, Template) else None


def _bound_case_keys(node: Any) -> Iterator[str]:
    """Every case key a spec's parameters read ({case: NAME}), wherever they are."""
    if isinstance(node, dict):
        if isinstance(node.get("case"), str) and set(node) <= {"case", "default"}:
            yield node["case"]
        for value in node.values():
            yield from _bound_case_keys(value)
    elif isinstance(node, list):
        for value in node:
            yield from _bound_case_keys(value)


def declared_inputs(doc: YamlDocument) -> dict[str, dict[str, Any]]:
    """The inputs a spec file declares, as far as they have the right shape."""
    inputs = doc.data.get("inputs")
    if not isinstance(inputs, dict):
        return {}
    return {k: v for k, v in inputs.items() if isinstance(v, dict) and INPUT_NAME.match(k)}


def _queries(raw: str | list[str]) -> tuple[Finder, ...]:
    return tuple(compile_query(q) for q in ([raw] if isinstance(raw, str) else raw))


def _condition(raw: dict[str, Any], pick: str | None = None) -> Condition:
    """A condition (a clause's, with its `pick`, or a guard's) compiled."""
    declared = PREDICATES[raw["predicate"]].params
    params = {k: _param(v, declared.get(k)) for k, v in (raw.get("params") or {}).items()}
    return compile_condition(_queries(raw["query"]), raw["predicate"], params, pick)


def binds(value: Any, param: Param | None) -> bool:
    """Whether a parameter's value is a binding ({case: KEY} or {trace: PATH}, optionally with
    `default`) rather than a literal. For a parameter whose literal value is itself a mapping
    (argument matchers, a {min, max} quantifier), only a mapping of exactly that shape binds:
    an argument matcher for an argument named `case` or `trace` alone reads as a binding."""
    if not isinstance(value, dict):
        return False
    if param is None or "object" not in PARAM_TYPES[param.type].accepts:
        return True
    sources = [k for k in ("case", "trace") if k in value]
    return len(sources) == 1 and set(value) <= {"case", "trace", "default"}


def _param(value: Any, param: Param | None) -> Any:
    if binds(value, param):
        if "trace" in value:
            return Binding(trace=compile_query(value["trace"]), default=value.get("default"))
        return Binding(case=value.get("case"), default=value.get("default"))
    return value


_CONDITION_KEYS = ("query", "predicate", "params")
# The keys of a spec file whose values a check reads (not its description or messages).
_BOUND = frozenset({"query", "predicate", "params", "when", "unless", "clauses", "fields"})
_UNBOUND = frozenset({"message", "skip_reason", "name", "description"})


def _bound(path: PathKey) -> bool:
    return path[0] in _BOUND and not any(step in _UNBOUND for step in path)


_CHECK_KEYS = (
    "query",
    "predicate",
    "params",
    "pick",
    "clauses",
    "when",
    "unless",
    "when_input",
    "severity",
    "allow_empty",
)


def _amount(value: Any) -> float | None:
    """A literal bound as a number (a duration such as `30s` in milliseconds); None for a
    binding or anything else (checked elsewhere)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    return duration_ms(value) if isinstance(value, str) else None


def _misspelling_of(mapping: dict[str, Any], name: str, allowed: tuple[str, ...]) -> bool:
    """True when `mapping` has an unknown key that looks like a misspelt `name`."""
    return any(key not in allowed and closest(key, allowed) == name for key in mapping)


def _spec_keys() -> tuple[str, ...]:
    return tuple(load_schema("spec")["properties"])


class _SpecChecker:
    """Checks what the schema cannot: predicates, their parameters, bindings and JSONPath.

    Every part is checked only when it has the shape the schema asks for: a part of the wrong
    type is already reported by the schema, and must not be reported twice.
    """

    def __init__(self, doc: YamlDocument, fmt: CaseFormat) -> None:
        self.doc = doc
        # A spec's own inputs are case keys, even when it is linted outside the suite that
        # loads it (a pack not in `packs`).
        own = declared_inputs(doc)
        if any(name not in fmt.inputs for name in own):
            fmt = CaseFormat(inputs={**own, **fmt.inputs}, declared_by=fmt.declared_by)
        self.fmt = fmt
        self.case_fields = set(fmt.keys)
        self.out: list[Problem] = []

    def problems(self) -> list[Problem]:
        data = self.doc.data
        if "fields" in data:
            self._fields_spec(data)
            return self.out
        self._misplaced(data)
        self._inputs(data.get("inputs"))
        self._when_input(data)
        has_single = "query" in data or "predicate" in data
        self._shape(data, has_single)
        if has_single:
            if "clauses" not in data:  # with clauses, the spec-shape problem says what to do
                self._single_keys(data)
            self._condition((), data)
        clauses = data.get("clauses")
        if isinstance(clauses, list):
            for i, clause in enumerate(clauses):
                if isinstance(clause, dict):
                    self._condition(("clauses", i), clause)
                    self._guards(("clauses", i), clause)
        self._guards((), data)
        self._messages(data, clauses if isinstance(clauses, list) else [])
        return self.out

    def _messages(self, data: dict[str, Any], clauses: list[Any]) -> None:
        """Each `message:` template: readable, and every placeholder one its predicate gives.
        The spec's own message serves each clause without one, so it must fit all of them."""
        own = [
            (("clauses", i), c)
            for i, c in enumerate(clauses)
            if isinstance(c, dict) and isinstance(c.get("message"), str)
        ]
        for path, clause in own:
            self._message(path, [clause.get("predicate")])
        if isinstance(data.get("message"), str):
            served = [
                c.get("predicate") for c in clauses if isinstance(c, dict) and "message" not in c
            ]
            self._message((), served if clauses else [data.get("predicate")])

    def _message(self, path: PathKey, predicates: list[Any]) -> None:
        text = self.doc.data if not path else self.doc.data[path[0]][path[1]]
        parsed = parse_template(text["message"])
        where = (*path, "message")
        if isinstance(parsed, TemplateError):
            token = re.match(r"\{[^\s{}]*\}?", text["message"][parsed.offset :])
            found = token.group() if token else ""
            self._add_at(where, found, codes.BAD_TEMPLATE, f"message: {parsed.message}")
            return
        reported: set[str] = set()
        for name in parsed.fields:
            for predicate in (p for p in predicates if isinstance(p, str) and p in PREDICATES):
                problem = placeholder_problem(
                    name, PREDICATES[predicate].gives, predicate, self.case_fields
                )
                if problem is None or name in reported:
                    continue
                reported.add(name)
                self._add_at(where, "{" + name, codes.UNKNOWN_PLACEHOLDER, f"message: {problem}")

    def _add_at(self, path: PathKey, token: str, code: str, message: str) -> None:
        """A problem at the first place `token` is written in the value at `path` (a text
        over one or several lines), else at the value."""
        at = self.doc.value_at(path)
        text = self.doc.data
        for key in path:
            text = text[key]
        lines = self.doc.source.split("\n")
        for number in range(at.line - 1, min(len(lines), at.line + str(text).count("\n") + 2)):
            start = at.column - 1 if number == at.line - 1 else 0
            column = lines[number].find(token, start) if token else -1
            if column >= 0:
                at = type(at)(number + 1, column + 1)
                break
        self.out.append(Problem(self.doc.file, at.line, at.column, ERROR, code, message))

    def _inputs(self, inputs: Any) -> None:
        """Each input: a name a case key can have, a schema, a default that fits it."""
        if not isinstance(inputs, dict):
            return
        for name, schema in inputs.items():
            if not INPUT_NAME.match(name):
                self._add(
                    ("inputs", name),
                    codes.BAD_INPUT,
                    f"input '{name}' is not a case key name: use lower-case letters, digits and"
                    " '_', starting with a letter (e.g. max_turns)",
                    key=True,
                )
            elif isinstance(schema, dict):
                problems = schema_rule_problems(schema, codes.BAD_INPUT)
                for p in problems:
                    self._add(
                        ("inputs", name, *p.path),
                        p.code,
                        f"input '{name}', at {describe_path(p.path)}: {p.message}",
                        key=p.key,
                    )
                if "default" in schema and not problems:
                    self._input_default(name, schema)
                unit = schema.get(UNIT_MARK)
                if unit is not None and unit not in UNIT_KINDS:
                    self._add(
                        ("inputs", name, UNIT_MARK),
                        codes.BAD_INPUT,
                        f"input '{name}': x-unit {show(unit)} is not a unit kind"
                        f"{did_you_mean(str(unit), UNIT_KINDS)}; the kinds are"
                        f" {', '.join(UNIT_KINDS)}",
                    )

    def _when_input(self, data: dict[str, Any]) -> None:
        """`when_input` names one of this spec's own inputs, declared optional."""
        name = data.get("when_input")
        if not isinstance(name, str) or not name:
            return  # absent, or the schema reports its type
        inputs = declared_inputs(self.doc)
        if name not in inputs:
            hint = did_you_mean(name, inputs) or (
                f"; its inputs: {', '.join(inputs)}" if inputs else "; it declares no inputs"
            )
            self._add(
                ("when_input",),
                codes.BAD_INPUT,
                f"when_input '{name}' is not an input of this spec{hint}: declare it under"
                " 'inputs' (with default: null, so cases may leave it out)",
            )
            return
        schema = inputs[name]
        if isinstance(schema, dict) and "default" in schema and schema["default"] is not None:
            self._add(
                ("inputs", name, "default"),
                codes.BAD_INPUT,
                f"input '{name}' is this spec's when_input, so the check runs only when a case"
                f" writes it; a default would never be used: write default: null",
                severity=WARNING,
            )

    def _input_default(self, name: str, schema: dict[str, Any]) -> None:
        default = schema["default"]
        if default is None:
            return  # null: optional, with no value to fill in
        rules = {k: v for k, v in schema.items() if k not in ("default", "description")}
        if not compile_schema(rules)(default) and _invalid(rules, default):
            self._add(
                ("inputs", name, "default"),
                codes.BAD_INPUT,
                f"the default of input '{name}' does not fit its own schema: fix the default"
                " or the schema",
            )

    def _misplaced(self, data: dict[str, Any]) -> None:
        """What belongs to the trace-fields spec, written in a check."""
        for key, what in (("verdicts", "the verifier's verdicts"), ("tools", "the agent's tools")):
            if key in data:
                self._add(
                    (key,),
                    codes.SPEC_SHAPE,
                    f"'{key}' lists {what} and belongs in the spec"
                    f" '{FIELDS_SPEC_ID}' (beside 'fields') or in validator.yaml: move it"
                    " there, or remove it",
                    key=True,
                )
        if data.get("id") == FIELDS_SPEC_ID:
            self._add(
                ("id",),
                codes.SPEC_SHAPE,
                f"the spec '{FIELDS_SPEC_ID}' says where the report reads trace fields: it needs"
                " 'fields' (case_id, verdict, tool_calls, duration_ms); give a check another id",
            )

    def _shape(self, data: dict[str, Any], has_single: bool) -> None:
        """A check is query/predicate/params, or clauses: one of the two."""
        if has_single and "clauses" in data:
            self._add(
                ("clauses",),
                codes.SPEC_SHAPE,
                "write either query/predicate/params or clauses, not both",
                key=True,
            )
        elif (
            not has_single
            and "clauses" not in data
            and not any(_misspelling_of(data, k, _spec_keys()) for k in _CHECK_KEYS)
        ):
            self._add(
                (),
                codes.SPEC_SHAPE,
                "a check spec needs 'query' and 'predicate', or a list of 'clauses'",
            )
        if "params" in data and not has_single:
            self._add(
                ("params",),
                codes.SPEC_SHAPE,
                "'params' belongs to a 'predicate': move it into each clause that needs it",
                key=True,
            )

    def _single_keys(self, data: dict[str, Any]) -> None:
        for key, other in (("query", "predicate"), ("predicate", "query")):
            if key not in data and not _misspelling_of(data, key, _spec_keys()):
                self._add(
                    (), codes.MISSING_KEY, f"missing required key '{key}' (it goes with '{other}')"
                )

    def _guards(self, path: PathKey, raw: dict[str, Any]) -> None:
        for guard in ("when", "unless"):
            if isinstance(raw.get(guard), dict):
                self._condition((*path, guard), raw[guard])
        if "skip_reason" in raw and not ("when" in raw or "unless" in raw):
            self._add(
                (*path, "skip_reason"),
                codes.SPEC_SHAPE,
                "skip_reason is only used with 'when' or 'unless': add the condition that skips"
                " this check, or remove skip_reason",
                key=True,
                severity=WARNING,
            )

    def _fields_spec(self, data: dict[str, Any]) -> None:
        if isinstance(data.get("id"), str) and data["id"] != FIELDS_SPEC_ID:
            self._add(
                ("id",),
                codes.SPEC_SHAPE,
                f"only the spec with id '{FIELDS_SPEC_ID}' may have 'fields':"
                f" write 'id: {FIELDS_SPEC_ID}', or remove 'fields' and write a check",
            )
        for key in (k for k in (*_CHECK_KEYS, "message") if k in data):
            self._add(
                (key,),
                codes.SPEC_SHAPE,
                f"a 'fields' spec cannot also have '{key}': remove it",
                key=True,
            )
        fields = data["fields"]
        if not isinstance(fields, dict):
            return
        for name, expr in fields.items():
            if isinstance(expr, str) and expr:
                self._jsonpath(("fields", name), expr)
            elif isinstance(expr, list):  # alternatives, tried in turn
                for i, alternative in enumerate(expr):
                    if isinstance(alternative, str) and alternative:
                        self._jsonpath(("fields", name, i), alternative)
        self._field_alternatives(fields)
        # A field it does not give keeps the standard spec's path (see suite._overriding).

    def _field_alternatives(self, fields: dict[str, Any]) -> None:
        for field in TRACE_FIELDS.values():
            if not field.required and field.name in fields and field.alternative in fields:
                self._add(
                    ("fields", field.name),
                    codes.SPEC_SHAPE,
                    f"write either {field.alternative} or {field.name}, not both:"
                    f" {field.alternative} is {TRACE_FIELDS[str(field.alternative)].doc};"
                    f" {field.name} is {field.doc}",
                    key=True,
                )

    def _add(
        self,
        path: PathKey,
        code: str,
        message: str,
        *,
        key: bool = False,
        severity: str = ERROR,
        detail: tuple[str, ...] = (),
        fix: str = "",
    ) -> None:
        at = self.doc.key_at(path) if key else self.doc.value_at(path)
        self.out.append(
            Problem(self.doc.file, at.line, at.column, severity, code, message, detail, fix)
        )

    def _condition(self, path: PathKey, raw: dict[str, Any]) -> None:
        self._queries(path, raw.get("query"))
        name = raw.get("predicate")
        params = raw.get("params")
        if not isinstance(params, dict):
            params = None  # absent, or the schema reports its type
        if not isinstance(name, str) or not name:
            return
        pred = PREDICATES.get(name)
        if pred is None:
            self._unknown_predicate(path, name, params)
            return
        for pname, value in (params or {}).items():
            self._param(path, pred, pname, value)
        if params and isinstance(params.get("defaults"), dict) and "args" in params:
            for found in defaults_problems(params["defaults"], params["args"]):
                if found.warning:  # a default that args fixes to another value
                    where = (*path, "params", "defaults", *found.path)
                    self._add(where, found.code, found.message, key=True, severity=WARNING)
        if "params" in raw and params is None:
            return
        self._missing_params(path, pred, params)
        self._range(path, pred, params or {})

    def _range(self, path: PathKey, pred: Predicate, params: dict[str, Any]) -> None:
        """A `min` above `max` (count, compare's between): no value can fit, so the check
        could never pass. Bounds with units (`30s`) are compared in milliseconds."""
        if "min" not in pred.params or "max" not in pred.params:
            return
        low, high = (_amount(params.get(name)) for name in ("min", "max"))
        if low is not None and high is not None and low > high:
            self._add(
                (*path, "params", "min"),
                codes.BAD_PARAMETER,
                f"parameter 'min' ({show(params['min'])}) is more than 'max'"
                f" ({show(params['max'])}) of '{pred.name}': no value lies between them; swap"
                " them",
            )

    def _queries(self, path: PathKey, query: Any) -> None:
        if isinstance(query, str) and query:
            self._jsonpath((*path, "query"), query)
        elif isinstance(query, list):
            for i, q in enumerate(query):
                if isinstance(q, str) and q:
                    self._jsonpath((*path, "query", i), q)

    def _unknown_predicate(self, path: PathKey, name: str, params: dict[str, Any] | None) -> None:
        hint = did_you_mean(name, PREDICATES)
        tail = hint or f"; known predicates: {', '.join(sorted(PREDICATES))}"
        self._add(
            (*path, "predicate"), codes.UNKNOWN_PREDICATE, f"unknown predicate '{name}'{tail}"
        )
        for pname, value in (params or {}).items():
            if isinstance(value, dict) and isinstance(value.get("case"), str):
                self._case_field((*path, "params", pname), pname, value["case"], None)

    def _param(self, path: PathKey, pred: Predicate, pname: str, value: Any) -> None:
        ppath = (*path, "params", pname)
        param = pred.params.get(pname)
        if param is None:
            hint = did_you_mean(pname, pred.params)
            takes = ", ".join(pred.params) or "no parameters"
            self._add(
                ppath,
                codes.UNKNOWN_PARAMETER,
                f"predicate '{pred.name}' has no parameter '{pname}'{hint or f'; it takes: {takes}'}",
                key=True,
            )
        elif binds(value, param):
            self._binding(ppath, pname, param, value)
        else:
            problem = param_type_error(param, value, pname)
            if problem:
                self._bad_value(
                    ppath, f"parameter '{pname}' of '{pred.name}'", param, value, problem
                )
            else:
                self._value_warnings(ppath, f"parameter '{pname}' of '{pred.name}'", param, value)
            if not problem and param.type == "keywords":
                self._blank_keywords(ppath, f"parameter '{pname}'", value)

    def _bad_value(self, path: PathKey, what: str, param: Param, value: Any, problem: str) -> None:
        """A parameter value of the wrong type, or each thing wrong inside it at its own
        place (a regular expression with a caret under the bad character)."""
        located = value_problems(param.type, value)
        if not located:
            self._add(path, codes.BAD_PARAMETER, f"{what} {problem}")
        for found in located:
            self._add(
                (*path, *found.path),
                found.code,
                f"{what} {found.message}",
                key=found.key,
                severity=WARNING if found.warning else ERROR,
                detail=found.caret_lines(),
            )

    def _value_warnings(self, path: PathKey, what: str, param: Param, value: Any) -> None:
        """What works in a value of the right type but does not do what it seems to."""
        if PARAM_TYPES[param.type].problems is None:
            return
        for found in value_problems(param.type, value):
            if found.warning:
                self._add(
                    (*path, *found.path),
                    found.code,
                    f"{what} {found.message}",
                    key=found.key,
                    severity=WARNING,
                )

    def _missing_params(
        self, path: PathKey, pred: Predicate, params: dict[str, Any] | None
    ) -> None:
        for pname, param in pred.params.items():
            if not param.required or pname in (params or {}):
                continue
            if params and _misspelling_of(params, pname, tuple(pred.params)):
                continue  # the unknown-parameter problem suggests it
            where: PathKey = (*path, "params") if params is not None else (*path, "predicate")
            self._add(
                where,
                codes.MISSING_PARAMETER,
                f"predicate '{pred.name}' needs parameter '{pname}' ({param.doc}):"
                f" add it under 'params'",
                key=True,
            )

    def _undeclared(self, path: PathKey, pname: str, field: str, param: Any) -> None:
        """A binding to a name of its own, not a slip of a known key's spelling: it is to be
        declared under the spec's `inputs:` (the fix: three lines, the type the parameter
        takes)."""
        takes: frozenset[str] = (PARAM_TYPES[param.type].accepts if param else None) or frozenset()
        kinds = [k for k in ("number", "integer", "array") if k in takes]
        kind = kinds[0] if kinds else "string"
        self._add(
            (*path, "case"),
            codes.UNKNOWN_CASE_FIELD,
            f"parameter '{pname}' is bound to case key '{field}', which no spec declares:"
            f" declare `{field}` under this spec's `inputs:`, e.g. `inputs:` /"
            f" `  {field}:` / `    type: {kind}` (three lines)",
            fix=f"inputs:\n  {field}:\n    type: {kind}",
        )

    def _case_field(self, path: PathKey, pname: str, field: Any, param: Any) -> None:
        """A `{case: NAME}` binding: NAME is a case key some spec declares, of a type the
        parameter takes."""
        if (
            isinstance(field, str)
            and field not in self.case_fields
            and typo_of(field, self.case_fields) is None
            and _NAME.fullmatch(field)
        ):
            self._undeclared(path, pname, field, param)
            return
        if not isinstance(field, str) or field not in self.case_fields:
            hint = did_you_mean(str(field), self.case_fields)
            tail = hint or f"; case keys: {', '.join(sorted(self.case_fields))}"
            self._add(
                (*path, "case"),
                codes.UNKNOWN_CASE_FIELD,
                f"parameter '{pname}' is bound to case key '{field}', which cases do not have{tail}",
            )
            return
        accepts = PARAM_TYPES[param.type].accepts if param is not None else None
        types = self.fmt.types_of(field)
        if accepts is not None and types and not (types & accepts):
            words = PARAM_TYPES[param.type].words
            self._add(
                (*path, "case"),
                codes.BAD_BINDING,
                f"parameter '{pname}' takes {words}, but case key '{field}' holds"
                f" {' or '.join(sorted(TYPE_WORDS.get(t, t) for t in types))}:"
                " bind it to another case key",
            )

    def _binding(self, path: PathKey, pname: str, param: Param, value: dict[str, Any]) -> None:
        sources = [k for k in ("case", "trace") if k in value]
        extra = [k for k in value if k not in ("case", "trace", "default")]
        if len(sources) != 1 or extra:
            hint = "".join(did_you_mean(k, ("case", "trace", "default")) for k in extra[:1])
            self._add(
                path,
                codes.BAD_BINDING,
                f"parameter '{pname}': a bound value is {{case: <case key>}} or"
                f" {{trace: <JSONPath>}}, optionally with 'default'; found keys"
                f" {', '.join(value) or 'none'}{hint}",
            )
            return
        if "case" in value:
            self._case_field(path, pname, value["case"], param)
        elif not isinstance(value["trace"], str) or not value["trace"]:
            self._add(
                (*path, "trace"),
                codes.BAD_BINDING,
                f"parameter '{pname}': 'trace' must be a JSONPath text, e.g. $.executorAnswer",
            )
        else:
            self._jsonpath((*path, "trace"), value["trace"])
        if "default" in value and param.type != "values":
            self._binding_default((*path, "default"), pname, param, value["default"])

    def _binding_default(self, path: PathKey, pname: str, param: Param, default: Any) -> None:
        problem = param_type_error(param, default)
        if problem:
            self._bad_value(path, f"default of parameter '{pname}'", param, default, problem)
        elif param.type == "keywords":
            self._blank_keywords(path, f"the default of parameter '{pname}'", default)

    def _blank_keywords(self, path: PathKey, where: str, keywords: list[Any]) -> None:
        for index, keyword in blank_entries(keywords):
            self._add((*path, *index), codes.BLANK_KEYWORD, blank_keyword_message(where, keyword))

    def _jsonpath(self, path: PathKey, expr: str) -> None:
        try:
            compile_query(expr)
        except QueryError as exc:
            self._add(
                path,
                codes.BAD_JSONPATH,
                f"{describe_path(path)}: JSONPath does not compile at character {exc.column}:"
                f" {exc.message}",
                detail=tuple(exc.caret_lines()),
            )
            return
        steps = view_steps(expr) if reads_view(expr) else None
        problem = view_field_problem(steps) if steps is not None else None
        if problem is not None:
            self._add(path, codes.UNKNOWN_VIEW_FIELD, f"{describe_path(path)}: {problem}")


_VIEW_STEP = re.compile(r"\.\.|\.([A-Za-z_][\w-]*|\*)|\['([^']*)'\]|\[[^\]]*\]")


def view_steps(expr: str) -> list[str] | None:
    """The steps of a `$.view...` path after `view` (names, `*`, bracket text, `..`), or
    None when the path is written in a way this simple reading does not follow."""
    rest, at = expr[len("$.view") :], 0
    steps: list[str] = []
    while at < len(rest):
        match = _VIEW_STEP.match(rest, at)
        if match is None:
            return None
        text = match.group()
        if text == "..":  # anything may match below a recursive descent: stop reading here
            return [*steps, ".."]
        steps.append(match.group(1) or match.group(2) or text)
        at = match.end()
    return steps


def _invalid(schema: dict[str, Any], value: Any) -> bool:
    """jsonschema's verdict, asked only when the fast check was not sure."""
    return any(True for _ in build_validator(schema).iter_errors(value))


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
