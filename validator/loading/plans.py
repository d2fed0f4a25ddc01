"""Rules between a case and the checks it applies (its plan), which neither file alone shows.

- `severity_overrides` may name only checks the case applies (a typo would otherwise be
  ignored and the check keep failing the case, or a check the case never runs be "relaxed").
- A check a case names in `checks` whose spec has `when_input` needs that input: naming the
  check and leaving its input out would only ever skip it.
- A case value bound to a parameter that looks inside its values (a regular expression, an
  argument matcher, a list of call expectations) is checked there, at its place in the case
  file, as a literal in a spec is: the case schema knows only its overall shape.
- The vacuity guard: when every check of a case may be skipped, its runs can pass without
  anything being examined; lint says so (a warning: `run --fail-on vacuous` makes such runs
  fail). A check with `when_input` is known here: it applies exactly when the case sets its
  input. A `when`/`unless` guard depends on the trace, so such a check may be skipped.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

from .. import codes
from ..evaluation.params import PARAM_TYPES, value_problems
from ..evaluation.predicates import PREDICATES
from ..model import Binding, Condition, Spec
from ..problems import ERROR, WARNING, Problem, did_you_mean
from .yamlfile import YamlDocument


def written(data: dict[str, Any], name: str) -> bool:
    """Whether a case file writes `name` with a value that turns a check on (`Case.sets`)."""
    value = data.get(name)
    return value is not None and value is not False


def plan_problems(
    doc: YamlDocument, plan: tuple[Spec, ...], specs: dict[str, Spec], broken: set[str]
) -> list[Problem]:
    """The problems of one case file's `severity_overrides`, `checks` and plan."""
    return [
        *_overrides(doc, plan, specs, broken),
        *_missing_inputs(doc, specs),
        *_vacuous(doc, plan),
        *_answer_keywords(doc),
        *_bound_values(doc, plan),
        *_count_or_share(doc, plan),
    ]


def _conditions(spec: Spec) -> list[Condition]:
    found = [spec.when, spec.unless]
    for clause in spec.clauses:
        found += [clause.condition, clause.when, clause.unless]
    return [c for c in found if c is not None]


def _bound_values(doc: YamlDocument, plan: tuple[Spec, ...]) -> list[Problem]:
    """What is wrong inside the case values the plan's parameters look into, at its place."""
    out: list[Problem] = []
    seen: set[str] = set()
    for key, kind in _looked_into(plan):
        value = doc.data.get(key)
        if key in seen or value is None:
            continue
        seen.add(key)
        for found in value_problems(kind, value):
            if found.key and found.code == codes.BAD_PARAMETER:
                continue  # an unknown key: the case schema names it (unknown-key)
            message = f"{key}: {found.message}"
            severity = WARNING if found.warning else ERROR
            problem = doc.problem((key, *found.path), severity, found.code, message, key=found.key)
            out.append(replace(problem, detail=found.caret_lines()))
    return out


@lru_cache(maxsize=64)
def _looked_into(plan: tuple[Spec, ...]) -> tuple[tuple[str, str], ...]:
    """(case key, parameter type) of each parameter of the plan bound to a case key whose
    type looks inside its values, in order: the same for every case of one plan (most
    cases of a suite share one), so found once per plan."""
    out = []
    for spec in plan:
        for condition in _conditions(spec):
            params = PREDICATES[condition.predicate].params
            for pname, raw in condition.params.items():
                if not isinstance(raw, Binding) or raw.case is None or pname not in params:
                    continue
                kind = PARAM_TYPES[params[pname].type]
                if kind.problems is not None:
                    out.append((raw.case, kind.name))
    return tuple(out)


# Parameter types of "at least N of the list" (a count, or a share of the list), and of the
# list they count.
_AT_LEAST = (codes.COUNT_OR_SHARE,)
_LISTS = ("keywords", "text-list", "scalar-list", "names")


@lru_cache(maxsize=64)
def _counted(plan: tuple[Spec, ...]) -> tuple[tuple[str, str], ...]:
    """(count key, list key) of each condition of the plan whose "at least N of the list"
    parameter and whose list are both read from the case."""
    out = []
    for spec in plan:
        for condition in _conditions(spec):
            params = PREDICATES[condition.predicate].params
            counts, lists = [], []
            for pname, raw in condition.params.items():
                if not isinstance(raw, Binding) or raw.case is None or pname not in params:
                    continue
                if params[pname].type in _AT_LEAST:
                    counts.append(raw.case)
                elif params[pname].type in _LISTS:
                    lists.append(raw.case)
            out += [(count, listed) for count in counts for listed in lists[:1]]
    return tuple(dict.fromkeys(out))


def _count_or_share(doc: YamlDocument, plan: tuple[Spec, ...]) -> list[Problem]:
    """A whole number that counts entries of a list, where a share was likely meant: 1 with
    several entries (one of them, not all), or a number whose comment says `%`."""
    out = []
    for key, listed in _counted(plan):
        value, entries = doc.data.get(key), doc.data.get(listed)
        if type(value) is not int or not isinstance(entries, list):
            continue
        n = len(entries)
        at = doc.value_at((key,))
        lines = doc.source.split("\n")
        line = lines[at.line - 1] if 0 < at.line <= len(lines) else ""
        comment = line[line.find(" #", at.column - 1) :] if " #" in line[at.column - 1 :] else ""
        if value == 1 and n > 1:
            message = (
                f"{key}: 1 means one of {n} {listed} entries; for all of them write {n} or 1.0"
            )
        elif "%" in comment:
            message = (
                f"{key}: {value} is a count ({value} of {n} {listed} entries), but its comment"
                f" says '%': for a share write a decimal such as 0.8, or a percentage in quotes"
                f' such as "80%"'
            )
        else:
            continue
        out.append(doc.problem((key,), WARNING, codes.COUNT_OR_SHARE, message))
    return out


def _answer_keywords(doc: YamlDocument) -> list[Problem]:
    """min_answer_keywords (a count) asks for no more entries than answer_keywords has."""
    need, entries = doc.data.get("min_answer_keywords"), doc.data.get("answer_keywords")
    if not isinstance(need, int) or isinstance(need, bool) or not isinstance(entries, list):
        return []  # absent, or the schema reports its type
    if not entries or need <= len(entries):
        return []
    message = (
        f"min_answer_keywords {need} is more than the {len(entries)} answer_keywords entries:"
        f" write at most {len(entries)}, or add keywords"
    )
    return [doc.problem(("min_answer_keywords",), ERROR, codes.COVERAGE_TOO_HIGH, message)]


def _overrides(
    doc: YamlDocument, plan: tuple[Spec, ...], specs: dict[str, Spec], broken: set[str]
) -> list[Problem]:
    overrides = doc.data.get("severity_overrides")
    if not isinstance(overrides, dict):
        return []
    applied = [s.id for s in plan]
    checks = [s.id for s in specs.values() if s.is_check]
    out = []
    for name in overrides:
        if not isinstance(name, str) or name in applied or name in broken:
            continue
        if name in checks:
            message = (
                f"severity_overrides names '{name}', a check this case does not apply"
                f" (it applies: {', '.join(applied) or 'none'}): add it to the case's checks,"
                " or remove the override"
            )
        else:
            hint = did_you_mean(name, applied) or did_you_mean(name, checks)
            known = "" if hint else f"; this case applies: {', '.join(applied) or 'none'}"
            message = f"severity_overrides names '{name}', which is no known check{hint}{known}"
        out.append(
            doc.problem(("severity_overrides", name), ERROR, codes.UNKNOWN_CHECK, message, key=True)
        )
    return out


def _missing_inputs(doc: YamlDocument, specs: dict[str, Spec]) -> list[Problem]:
    checks = doc.data.get("checks")
    if not isinstance(checks, list):
        return []
    out = []
    for i, name in enumerate(checks):
        spec = specs.get(name) if isinstance(name, str) else None
        need = spec.when_input if spec is not None else None
        if need is None or written(doc.data, need):
            continue
        message = (
            f"checks names '{name}', which applies only when the case sets {need}, and this"
            f" case does not: add '{need}: ...' (see the spec's inputs), or remove '{name}'"
            " from checks"
        )
        out.append(doc.problem(("checks", i), ERROR, codes.MISSING_INPUT, message))
    return out


def may_skip(spec: Spec, data: dict[str, Any]) -> str | None:
    """Why a check of this case may be skipped on some trace (None: it always applies)."""
    if spec.when_input is not None and not written(data, spec.when_input):
        return f"{spec.id} needs {spec.when_input}"
    if spec.when is not None or spec.unless is not None:
        return f"{spec.id} has a when/unless guard"
    if spec.clauses and all(c.when is not None or c.unless is not None for c in spec.clauses):
        return f"every clause of {spec.id} has a when/unless guard"
    return None


def _vacuous(doc: YamlDocument, plan: tuple[Spec, ...]) -> list[Problem]:
    if not plan or not isinstance(doc.data.get("id"), str):
        return []
    if any(may_skip(spec, doc.data) is None for spec in plan):
        return []  # the common case: a check that always applies
    why = [may_skip(spec, doc.data) for spec in plan]
    inputs = [s.when_input for s in plan if s.when_input is not None]
    fix = (
        f"set one of its inputs ({', '.join(inputs[:6])}{', ...' if len(inputs) > 6 else ''})"
        if inputs
        else "add a check without a guard"
    )
    shown = "; ".join(str(w) for w in why[:4]) + ("; ..." if len(why) > 4 else "")
    message = (
        f"every check of case '{doc.data['id']}' may be skipped ({shown}), so a run could"
        f" pass with nothing examined: {fix}, or run with --fail-on vacuous"
    )
    return [doc.problem(("id",), WARNING, codes.NO_EFFECTIVE_CHECKS, message)]
