"""Check spec files -> compiled `Spec` objects, or positioned problems.

A spec is data: JSONPath queries, a predicate from the registry, its parameters (literal or
bound to a case field or to another query), and optional guards. Every JSONPath expression is
compiled here, once per run; evaluation never parses an expression.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..predicates import PREDICATES, param_type_error
from ..problems import ERROR, Problem, did_you_mean
from ..query import Query, QueryError, compile_query
from .schema import describe_path, load_schema, schema_problems
from .yamlfile import PathKey, YamlDocument

FIELDS_SPEC_ID = "trace-fields"
TRACE_FIELDS = ("case_id", "verdict", "tool_calls", "duration_ms")


@dataclass(frozen=True)
class Binding:
    """A parameter whose value comes from the case (`case`) or from the trace (`trace`)."""

    case: str | None = None
    trace: Query | None = None
    default: Any = None


@dataclass(frozen=True)
class Condition:
    queries: tuple[Query, ...]
    predicate: str
    params: dict[str, Any]  # literal values or Binding


@dataclass(frozen=True)
class Clause:
    name: str
    condition: Condition
    when: Condition | None = None
    unless: Condition | None = None
    skip_reason: str | None = None


@dataclass(frozen=True)
class Spec:
    id: str
    description: str
    file: str
    default: bool = False
    report_as: str | None = None
    clauses: tuple[Clause, ...] = ()
    when: Condition | None = None
    unless: Condition | None = None
    skip_reason: str | None = None
    fields: dict[str, Query] | None = None  # only for the trace-fields spec

    @property
    def is_check(self) -> bool:
        return self.fields is None


def spec_file_problems(doc: YamlDocument, case_fields: set[str]) -> list[Problem]:
    """Everything wrong with one spec file (schema, predicates, parameters, JSONPath)."""
    problems = schema_problems(doc, "spec")
    if problems:
        return problems
    return list(_SpecChecker(doc, case_fields).problems())


def compile_spec(doc: YamlDocument) -> Spec:
    """Build a Spec from a file already known to be free of errors."""
    data = doc.data
    if "fields" in data:
        fields = {k: compile_query(v) for k, v in data["fields"].items()}
        return Spec(data["id"], data["description"], doc.file, fields=fields)
    raw_clauses = data.get("clauses") or [
        {k: data[k] for k in ("query", "predicate", "params") if k in data}
    ]
    clauses = tuple(
        Clause(
            name=c.get("name") or (f"clause {i + 1}" if len(raw_clauses) > 1 else data["id"]),
            condition=_condition(c),
            when=_condition(c["when"]) if "when" in c else None,
            unless=_condition(c["unless"]) if "unless" in c else None,
            skip_reason=c.get("skip_reason"),
        )
        for i, c in enumerate(raw_clauses)
    )
    return Spec(
        id=data["id"],
        description=data["description"],
        file=doc.file,
        default=bool(data.get("default", False)),
        report_as=data.get("report_as"),
        clauses=clauses,
        when=_condition(data["when"]) if "when" in data else None,
        unless=_condition(data["unless"]) if "unless" in data else None,
        skip_reason=data.get("skip_reason"),
    )


def _queries(raw: str | list[str]) -> tuple[Query, ...]:
    return tuple(compile_query(q) for q in ([raw] if isinstance(raw, str) else raw))


def _condition(raw: dict[str, Any]) -> Condition:
    params = {k: _param(v) for k, v in (raw.get("params") or {}).items()}
    return Condition(_queries(raw["query"]), raw["predicate"], params)


def _param(value: Any) -> Any:
    if isinstance(value, dict):
        if "trace" in value:
            return Binding(trace=compile_query(value["trace"]), default=value.get("default"))
        return Binding(case=value.get("case"), default=value.get("default"))
    return value


class _SpecChecker:
    """Checks what the schema cannot: predicates, their parameters, bindings and JSONPath."""

    def __init__(self, doc: YamlDocument, case_fields: set[str]) -> None:
        self.doc = doc
        self.case_fields = case_fields
        self.out: list[Problem] = []

    def problems(self) -> list[Problem]:
        data = self.doc.data
        is_fields = "fields" in data
        check_keys = [
            k for k in ("query", "predicate", "params", "clauses", "when", "unless") if k in data
        ]
        if is_fields:
            if data["id"] != FIELDS_SPEC_ID:
                self._add(
                    ("id",),
                    "spec-shape",
                    f"only the spec with id '{FIELDS_SPEC_ID}' may have 'fields'",
                )
            for key in check_keys:
                self._add(("fields",), "spec-shape", f"a 'fields' spec cannot also have '{key}'")
            for name, expr in data["fields"].items():
                self._jsonpath(("fields", name), expr)
            return self.out
        has_single = "query" in data or "predicate" in data
        if has_single and "clauses" in data:
            self._add(
                ("clauses",),
                "spec-shape",
                "write either query/predicate/params or clauses, not both",
            )
            return self.out
        if not has_single and "clauses" not in data:
            self._add(
                (),
                "spec-shape",
                "a check spec needs 'query' and 'predicate', or a list of 'clauses'",
            )
            return self.out
        if has_single:
            for key in ("query", "predicate"):
                if key not in data:
                    self._add(
                        (),
                        "missing-key",
                        f"missing required key '{key}' (it goes with '{'predicate' if key == 'query' else 'query'}')",
                    )
            if "query" in data and "predicate" in data:
                self._condition((), data)
        else:
            for i, clause in enumerate(data["clauses"]):
                self._condition(("clauses", i), clause)
                for guard in ("when", "unless"):
                    if guard in clause:
                        self._condition(("clauses", i, guard), clause[guard])
        for guard in ("when", "unless"):
            if guard in data:
                self._condition((guard,), data[guard])
        if "skip_reason" in data and not ("when" in data or "unless" in data):
            self._add(
                ("skip_reason",),
                "spec-shape",
                "skip_reason is only used with 'when' or 'unless'",
                severity="warning",
            )
        return self.out

    def _add(
        self,
        path: PathKey,
        code: str,
        message: str,
        *,
        key: bool = False,
        severity: str = ERROR,
        detail: tuple[str, ...] = (),
    ) -> None:
        at = self.doc.key_at(path) if key else self.doc.value_at(path)
        self.out.append(Problem(self.doc.file, at.line, at.column, severity, code, message, detail))

    def _condition(self, path: PathKey, raw: dict[str, Any]) -> None:
        query = raw["query"]
        if isinstance(query, str):
            self._jsonpath((*path, "query"), query)
        else:
            for i, q in enumerate(query):
                self._jsonpath((*path, "query", i), q)
        name = raw["predicate"]
        pred = PREDICATES.get(name)
        if pred is None:
            hint = did_you_mean(name, PREDICATES)
            tail = hint or f"; known predicates: {', '.join(sorted(PREDICATES))}"
            self._add(
                (*path, "predicate"), "unknown-predicate", f"unknown predicate '{name}'{tail}"
            )
            return
        params = raw.get("params") or {}
        for pname, value in params.items():
            ppath = (*path, "params", pname)
            param = pred.params.get(pname)
            if param is None:
                hint = did_you_mean(pname, pred.params)
                takes = ", ".join(pred.params) or "no parameters"
                self._add(
                    ppath,
                    "unknown-parameter",
                    f"predicate '{name}' has no parameter '{pname}'{hint or f'; it takes: {takes}'}",
                    key=True,
                )
                continue
            if isinstance(value, dict):
                self._binding(ppath, pname, param, value)
            else:
                problem = param_type_error(param, value)
                if problem:
                    self._add(ppath, "bad-parameter", f"parameter '{pname}' of '{name}' {problem}")
        for pname, param in pred.params.items():
            if param.required and pname not in params:
                self._add(
                    path or (),
                    "missing-parameter",
                    f"predicate '{name}' needs parameter '{pname}' ({param.doc})",
                )

    def _binding(self, path: PathKey, pname: str, param: Any, value: dict[str, Any]) -> None:
        sources = [k for k in ("case", "trace") if k in value]
        extra = [k for k in value if k not in ("case", "trace", "default")]
        if len(sources) != 1 or extra:
            self._add(
                path,
                "bad-binding",
                f"parameter '{pname}': a bound value is {{case: <case key>}} or {{trace: <JSONPath>}}, optionally with 'default'; found keys {', '.join(value)}",
            )
            return
        if "case" in value:
            field = value["case"]
            if not isinstance(field, str) or field not in self.case_fields:
                hint = did_you_mean(str(field), self.case_fields)
                tail = hint or f"; case keys: {', '.join(sorted(self.case_fields))}"
                self._add(
                    (*path, "case"),
                    "unknown-case-field",
                    f"parameter '{pname}' is bound to case key '{field}', which cases do not have{tail}",
                )
        else:
            expr = value["trace"]
            if not isinstance(expr, str):
                self._add(
                    (*path, "trace"),
                    "bad-binding",
                    f"parameter '{pname}': 'trace' must be a JSONPath text",
                )
            else:
                self._jsonpath((*path, "trace"), expr)
        if "default" in value and param.type != "values":
            problem = param_type_error(param, value["default"])
            if problem:
                self._add(
                    (*path, "default"), "bad-parameter", f"default of parameter '{pname}' {problem}"
                )

    def _jsonpath(self, path: PathKey, expr: str) -> None:
        try:
            compile_query(expr)
        except QueryError as exc:
            self._add(
                path,
                "bad-jsonpath",
                f"{describe_path(path)}: JSONPath does not compile: {exc.message}",
                detail=tuple(exc.caret_lines()),
            )


def case_field_names() -> set[str]:
    """The keys a case file may have; spec parameters may be bound to these."""
    return set(load_schema("case")["properties"])


def spec_files(folder: Path) -> list[Path]:
    """The YAML files of a spec folder, sorted, not descending into sub-folders."""
    return sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
