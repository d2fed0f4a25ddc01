"""Load a whole suite: case files and spec folders -> a `Suite`, plus every problem found.

Cross-file rules live here: unique case ids, `checks` that name known specs, and spec
folders overriding the standard specs by id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..problems import ERROR, Problem, ProblemsFound, did_you_mean, has_errors
from ..suite import Suite, TraceFields
from .cases import Case, build_case, case_files, case_problems
from .specs import (
    FIELDS_SPEC_ID,
    Spec,
    case_field_names,
    compile_spec,
    spec_file_problems,
    spec_files,
)
from .yamlfile import YamlDocument, load_yaml


def standard_specs_dir() -> Path:
    """Where the standard specs are: inside the installed package, or the repository's specs/."""
    here = Path(__file__).resolve().parent.parent
    packaged = here / "specs"
    return packaged if packaged.is_dir() else here.parent / "specs"


@dataclass
class LoadResult:
    suite: Suite | None
    problems: list[Problem] = field(default_factory=list)
    case_docs: dict[str, YamlDocument] = field(default_factory=dict)  # case id -> its document

    @property
    def ok(self) -> bool:
        return self.suite is not None and not has_errors(self.problems)


def display_path(path: Path) -> str:
    """A path as the user would write it: relative to the working folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def load_specs(folders: list[Path]) -> tuple[dict[str, Spec], list[Problem]]:
    """Specs of all folders, later folders overriding earlier ones by id."""
    specs: dict[str, Spec] = {}
    problems: list[Problem] = []
    fields = case_field_names()
    for folder in folders:
        seen_here: dict[str, str] = {}
        for path in spec_files(folder):
            name = display_path(path)
            try:
                doc = load_yaml(path, name)
            except ProblemsFound as exc:
                problems.extend(exc.problems)
                continue
            found = spec_file_problems(doc, fields)
            problems.extend(found)
            if has_errors(found):
                continue
            spec = compile_spec(doc)
            if spec.id in seen_here:
                at = doc.value_at(("id",))
                problems.append(
                    Problem(
                        name,
                        at.line,
                        at.column,
                        ERROR,
                        "duplicate-spec-id",
                        f"spec id '{spec.id}' is also used by {seen_here[spec.id]}: ids must be unique",
                    )
                )
                continue
            seen_here[spec.id] = name
            specs[spec.id] = spec
    return specs, problems


def load_cases(paths: list[Path]) -> tuple[dict[str, Case], dict[str, YamlDocument], list[Problem]]:
    cases: dict[str, Case] = {}
    docs: dict[str, YamlDocument] = {}
    problems: list[Problem] = []
    for path in paths:
        name = display_path(path)
        try:
            doc = load_yaml(path, name)
        except ProblemsFound as exc:
            problems.extend(exc.problems)
            continue
        found = case_problems(doc)
        problems.extend(found)
        if has_errors(found):
            continue
        case = build_case(doc)
        if case.id in cases:
            at = doc.value_at(("id",))
            problems.append(
                Problem(
                    name,
                    at.line,
                    at.column,
                    ERROR,
                    "duplicate-case-id",
                    f"case id '{case.id}' is also used by {cases[case.id].file}: give each case its own id",
                )
            )
            continue
        cases[case.id] = case
        docs[case.id] = doc
    return dict(sorted(cases.items())), docs, problems


def check_references(
    cases: dict[str, Case], docs: dict[str, YamlDocument], specs: dict[str, Spec]
) -> list[Problem]:
    """Every `checks` entry must name a check spec."""
    problems = []
    check_ids = [s.id for s in specs.values() if s.is_check]
    for case_id, case in cases.items():
        for i, name in enumerate(case.checks or []):
            spec = specs.get(name)
            if spec is not None and spec.is_check:
                continue
            at = docs[case_id].value_at(("checks", i))
            if spec is not None:
                msg = f"'{name}' describes trace fields, it is not a check: remove it from checks"
            else:
                hint = did_you_mean(name, check_ids)
                msg = f"checks names '{name}', which is no known spec{hint or '; known: ' + ', '.join(sorted(check_ids))}"
            problems.append(Problem(case.file, at.line, at.column, ERROR, "unknown-check", msg))
    return problems


def fields_of(specs: dict[str, Spec]) -> TraceFields | None:
    spec = specs.get(FIELDS_SPEC_ID)
    if spec is None or spec.fields is None:
        return None
    try:
        return TraceFields(
            **{k: spec.fields[k] for k in ("case_id", "verdict", "tool_calls", "duration_ms")}
        )
    except KeyError:
        return None


def load_suite(cases: list[Path], spec_folders: list[Path]) -> LoadResult:
    """Load case files and spec folders (the standard folder first, then the user's)."""
    specs, problems = load_specs(spec_folders)
    case_map, docs, case_found = load_cases(cases)
    problems += case_found
    problems += check_references(case_map, docs, specs)
    fields = fields_of(specs)
    if fields is None and not has_errors(problems):
        problems.append(
            Problem(
                "<specs>",
                1,
                1,
                ERROR,
                "missing-trace-fields",
                f"no spec '{FIELDS_SPEC_ID}' with fields case_id, verdict, tool_calls and duration_ms was found",
            )
        )
    problems = sorted(set(problems))
    if has_errors(problems) or fields is None:
        return LoadResult(None, problems, docs)
    return LoadResult(Suite(case_map, specs, fields), problems, docs)


__all__ = ["LoadResult", "case_files", "display_path", "load_suite", "standard_specs_dir"]
