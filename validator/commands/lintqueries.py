"""`lint --fixtures` reads the traces it is given with the specs' queries.

Every query a case applies (a check's, a clause's, a `when`/`unless` guard's) is evaluated
on every readable trace (the standard specs' are not: they read the documented trace format,
whose optional fields a trace may lack, and run marks a check of theirs that examined nothing), by the one query engine checks use (`$.view` made by the same
adapter). A query that matches nothing in any trace is a `query-matches-nothing` warning at
the spec's line, with the same "did you mean" `query` gives (`missing_step`): a negative
check on such a path (contains-none, not-in, count max, quantifier none) would always pass.
A spec or clause with `allow_empty: true` says zero matches are expected, and is not
warned about. For `absent`, zero matches is the verdict it judges: only a name spelt close
to a key the traces hold is warned about.

Parameters that name a field of each matched item (`key` of sequence and precedes,
`name_key` and `args_key` of no-repeat and call-matches, any parameter named `key` or
`*_key`) are checked the same way: a key that no item of any trace holds is an
`item-key-missing` warning, with the keys the items hold. An item key is read as the
predicates read it: the key itself, else a dotted path (`function.name`).
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import Any

from .. import codes
from ..dataclass import dataclass
from ..evaluation.interpreter import PRESENCE_PREDICATES
from ..evaluation.predicates import PREDICATES, TraceContext
from ..evaluation.predicates.values import field_of
from ..evaluation.query import QueryEvaluationError
from ..evaluation.tracefile import Trace
from ..inputs import standard_specs_dir
from ..loading.yamlfile import PathKey, YamlDocument, load_yaml
from ..model import Condition, Spec, Suite, TraceSettings
from ..problems import WARNING, Problem, ProblemsFound, did_you_mean
from .pathhints import listed_keys, missing_step


def item_key_params(predicate: str) -> tuple[str, ...]:
    """The parameters of a predicate that name a field of each matched item."""
    params = PREDICATES[predicate].params
    return tuple(n for n in params if n == "key" or n.endswith("_key"))


@dataclass
class _Probe:
    """One query (or item key) of a spec, and what the traces showed of it."""

    spec: Spec
    path: PathKey  # where it is written in the spec file
    condition: Condition
    query: int | None  # the index of the query in the condition; None for an item key
    key: str | None = None  # the item key (for an item-key probe)
    param: str | None = None
    presence: bool = False
    matched: bool = False
    hint: str | None = None  # the first "did you mean" a trace gave
    keys: dict[str, None] = field(default_factory=dict)  # keys the items hold (item keys)


class QueryProbes:
    """The probes of every check the suite's cases apply; `see` each readable trace, then
    `problems()`."""

    def __init__(self, suite: Suite | None, settings: TraceSettings) -> None:
        self.settings = settings
        self.probes: list[_Probe] = []
        self.seen = 0
        if suite is None:
            return
        shipped = standard_specs_dir().resolve()
        specs: dict[str, Spec] = {}
        for case in suite.cases.values():
            for spec in suite.checks_for(case):
                if spec.id not in specs and not _inside(spec.file, shipped):
                    specs[spec.id] = spec
        for spec in specs.values():
            self.probes += _probes_of(spec)

    def see(self, trace: Trace) -> None:
        if not self.probes:
            return
        self.seen += 1
        ctx = TraceContext(trace.document, self.settings.view, self.settings.messages, trace.parent)
        for probe in self.probes:
            if probe.matched:
                continue
            try:
                _look(probe, ctx)
            except (QueryEvaluationError, RecursionError, ValueError):
                probe.matched = True  # run reports what it cannot evaluate, on its own

    def problems(self) -> list[Problem]:
        if not self.seen:
            return []  # nothing read, nothing learned
        docs: dict[str, YamlDocument | None] = {}
        out = []
        traces = f"{self.seen} trace{'' if self.seen == 1 else 's'}"
        for probe in self.probes:
            if probe.matched or (probe.query is None and not probe.keys):
                continue  # matched, or no trace holds an item to look at
            if probe.presence and "did you mean" not in (probe.hint or ""):
                continue  # absent on a name no trace holds: what it expects
            if probe.spec.file not in docs:
                docs[probe.spec.file] = _document(probe.spec.file)
            doc = docs[probe.spec.file]
            out.append(_problem(probe, doc, traces))
        return out


def _inside(file: str, folder: Path) -> bool:
    try:
        return Path(file).resolve().is_relative_to(folder)
    except (OSError, ValueError):
        return False


def _document(file: str) -> YamlDocument | None:
    try:
        return load_yaml(Path(file), file)
    except (ProblemsFound, OSError):
        return None


def _problem(probe: _Probe, doc: YamlDocument | None, traces: str) -> Problem:
    condition = probe.condition
    if probe.query is not None:
        expression = condition.queries[probe.query].expression
        code = codes.QUERY_MATCHES_NOTHING
        hint = f": {probe.hint}" if probe.hint else ""
        message = (
            f"{expression} matches nothing in any of the {traces} lint read{hint}; a"
            f" {condition.predicate} check on it passes with nothing to examine: fix the path,"
            " or write allow_empty: true when no match is expected"
        )
    else:
        code = codes.ITEM_KEY_MISSING
        keys = list(probe.keys)
        listed = listed_keys(keys)
        dotted = " (nor the dotted path)" if probe.key and "." in probe.key else ""
        message = (
            f"{probe.param} '{probe.key}': no item {condition.where} matches has a key"
            f" '{probe.key}'{dotted}{did_you_mean(probe.key or '', keys)} in any of the"
            f" {traces} lint read; their keys: {listed or 'none'}; {condition.predicate} reads"
            f" null for every item: fix {probe.param}"
        )
    file = probe.spec.file
    if doc is None:
        return Problem(file, 1, 1, WARNING, code, message)
    at = doc.value_at(probe.path)
    return Problem(doc.file, at.line, at.column, WARNING, code, message)


def _look(probe: _Probe, ctx: TraceContext) -> None:
    condition = probe.condition
    if probe.query is not None:
        query = condition.queries[probe.query]
        if ctx.find(query):
            probe.matched = True
        elif probe.hint is None:
            probe.hint = missing_step(query.expression, ctx.document(query))
        return
    values: list[Any] = []
    for query in condition.queries:
        values += ctx.find(query)
    items = values[0] if len(values) == 1 and isinstance(values[0], list) else values
    key = probe.key or ""
    for item in items:
        if isinstance(item, dict):
            if key in item or field_of(item, key) is not None:  # a key, or a dotted path
                probe.matched = True
                return
            probe.keys.update(dict.fromkeys(str(k) for k in item))


def _conditions(spec: Spec) -> list[tuple[PathKey, Condition, bool]]:
    """(where, condition, probe its queries) of every condition of a spec: a guard's queries
    always (a misspelt guard silently decides skip or apply), a clause's unless it allows
    zero matches."""
    single = len(spec.clauses) == 1 and spec.clauses[0].name == spec.id
    out: list[tuple[PathKey, Condition, bool]] = []
    for role, guard in (("when", spec.when), ("unless", spec.unless)):
        if guard is not None:
            out.append(((role,), guard, True))
    for index, clause in enumerate(spec.clauses):
        base: PathKey = () if single else ("clauses", index)
        out.append((base, clause.condition, not (spec.allow_empty or clause.allow_empty)))
        for role, guard in (("when", clause.when), ("unless", clause.unless)):
            if guard is not None:
                out.append(((*base, role), guard, True))
    return out


def _probes_of(spec: Spec) -> list[_Probe]:
    out: list[_Probe] = []
    for base, condition, probed in _conditions(spec):
        many = len(condition.queries) > 1
        presence = condition.predicate in PRESENCE_PREDICATES
        for index in range(len(condition.queries) if probed else 0):
            path = (*base, "query", index) if many else (*base, "query")
            out.append(_Probe(spec, path, condition, index, presence=presence))
        declared = PREDICATES[condition.predicate].params
        for pname in item_key_params(condition.predicate):
            raw = condition.params.get(pname, declared[pname].default)
            if isinstance(raw, str) and raw:
                written = pname in condition.params
                path = (*base, "params", pname) if written else (*base, "predicate")
                out.append(_Probe(spec, path, condition, None, key=raw, param=pname))
    return out
