"""`lint --fixtures`: an `ignore` entry of a call entry that matches no argument of the calls
the traces hold (`ignore-matches-nothing`).

An `ignore` entry (`ignore: [request_id, "*_id"]`) names arguments neither compared nor
counted; one that names no argument any call has is most likely misspelt (`reqest_id`), and
then the argument it meant to ignore still fails `exact` calls. The calls are those the
check's query finds in the traces lint reads (every trace, whatever its case), of the name
the entry gives (a glob too; every call without a name); an argument is any key at any depth
of their arguments, named as `ignore` names it (a dotted path, or its last step). When no
such call is seen, nothing is learned and nothing is said.

Entries are found where they are written: under a check's `params` (`ignore`, and each entry
of `expect` or `steps`) in its spec file, and in the case files for a check whose entries are
bound to a case key (`expect: {case: tool_calls_match}`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import field
from pathlib import Path
from typing import Any

from .. import codes
from ..dataclass import dataclass
from ..evaluation.context import TraceContext
from ..evaluation.predicates.matchers import ignored, parse_arguments
from ..evaluation.predicates.order import ordered_items
from ..evaluation.predicates.values import field_of, name_matches
from ..evaluation.query import QueryEvaluationError
from ..loading.suite import LoadResult
from ..loading.yamlfile import PathKey, YamlDocument, load_yaml
from ..model import Binding, Condition, Finder
from ..problems import WARNING, Problem, ProblemsFound, did_you_mean


@dataclass
class _Ignores:
    """The `ignore` list of one call entry, where it is written, and what it applies to."""

    file: str
    doc: YamlDocument
    path: PathKey  # of the list
    patterns: list[str]
    name: Any  # the entry's tool name (or glob); None: every call
    queries: tuple[Finder, ...]
    name_key: str
    args_key: str
    seen: set[str] = field(default_factory=set)  # every argument path of the calls seen
    calls: int = 0


class IgnoreLint:
    """Collects the `ignore` entries of a suite, sees each trace's calls, and reports."""

    def __init__(self, loaded: LoadResult | None) -> None:
        self.entries = list(_entries(loaded)) if loaded is not None else []

    def see(self, ctx: TraceContext) -> None:
        found: dict[str, list[Any]] = {}
        for entry in self.entries:
            for query in entry.queries:
                if query.expression not in found:
                    try:
                        found[query.expression] = ordered_items(ctx.find(query))
                    except QueryEvaluationError:
                        found[query.expression] = []
                for call in found[query.expression]:
                    if entry.name is not None and not (
                        isinstance(field_of(call, entry.name_key), str)
                        and name_matches(entry.name, field_of(call, entry.name_key))
                    ):
                        continue
                    arguments, problem = parse_arguments(field_of(call, entry.args_key))
                    if problem is None:
                        entry.calls += 1
                        entry.seen.update(_paths(arguments))

    def problems(self) -> list[Problem]:
        out = []
        for entry in self.entries:
            if not entry.calls:
                continue  # no call seen: nothing learned
            for index, pattern in enumerate(entry.patterns):
                if any(ignored(path, [pattern]) for path in entry.seen):
                    continue
                at = entry.doc.value_at((*entry.path, index))
                calls = f"{entry.calls} call{'' if entry.calls == 1 else 's'}"
                named = f" to {entry.name}" if entry.name is not None else ""
                last = sorted({p.rsplit(".", 1)[-1] for p in entry.seen})
                hint = did_you_mean(pattern, sorted(entry.seen | set(last)))
                has = ", ".join(sorted(entry.seen)[:12]) or "none"
                message = (
                    f"ignore entry '{pattern}' matches no argument of the {calls}{named} the"
                    f" traces hold{hint} (their arguments: {has}): fix it to an argument"
                    f" they have, or remove it"
                )
                out.append(
                    Problem(
                        entry.file,
                        at.line,
                        at.column,
                        WARNING,
                        codes.IGNORE_MATCHES_NOTHING,
                        message,
                    )
                )
        return out


def _paths(value: Any, prefix: str = "") -> Iterator[str]:
    """Every key path of `value` at any depth (lists are passed through, as `ignore` is)."""
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            yield path
            yield from _paths(item, path)
    elif isinstance(value, list):
        for item in value:
            yield from _paths(item, prefix)


def _entries(loaded: LoadResult) -> Iterator[_Ignores]:
    suite = loaded.suite
    if suite is None:
        return
    docs: dict[str, YamlDocument | None] = {}
    for spec in suite.specs.values():
        doc = _doc(spec.file, docs)
        if doc is None or not isinstance(doc.data, dict):
            continue
        clauses = doc.data.get("clauses")
        for index, clause in enumerate(spec.clauses):
            base: PathKey = ("clauses", index) if isinstance(clauses, list) else ()
            yield from _of_condition(clause.condition, doc, (*base, "params"), loaded, docs)


def _of_condition(
    condition: Condition,
    doc: YamlDocument,
    at: PathKey,
    loaded: LoadResult,
    docs: dict[str, YamlDocument | None],
) -> Iterator[_Ignores]:
    params = condition.params
    keys = (params.get("name_key", "name"), params.get("args_key", "arguments"))
    if not all(isinstance(k, str) for k in keys):
        return
    where = (condition.queries, *keys)
    if isinstance(params.get("ignore"), list):
        yield _Ignores(doc.file, doc, (*at, "ignore"), params["ignore"], params.get("name"), *where)
    for key in ("expect", "steps"):
        value = params.get(key)
        if isinstance(value, list):
            yield from _of_list(value, doc, (*at, key), where)
        elif isinstance(value, Binding) and value.case and loaded.suite is not None:
            for case in loaded.suite.cases.values():
                bound = case.fields.get(value.case)
                case_doc = _doc(case.file, docs) if isinstance(bound, list) else None
                if case_doc is not None and isinstance(bound, list):
                    yield from _of_list(bound, case_doc, (value.case,), where)


def _of_list(
    entries: list[Any], doc: YamlDocument, at: PathKey, where: tuple[Any, str, str]
) -> Iterator[_Ignores]:
    for index, entry in enumerate(entries):
        if isinstance(entry, dict) and isinstance(entry.get("ignore"), list):
            patterns = [p for p in entry["ignore"] if isinstance(p, str)]
            yield _Ignores(
                doc.file, doc, (*at, index, "ignore"), patterns, entry.get("name"), *where
            )


def _doc(file: str, docs: dict[str, YamlDocument | None]) -> YamlDocument | None:
    if file not in docs:
        try:
            docs[file] = load_yaml(Path(file), file)
        except (ProblemsFound, OSError):
            docs[file] = None
    return docs[file]
