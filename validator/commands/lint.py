"""`python -m validator lint`: check case and spec files like a compiler.

Every problem is printed as `path:line:column: severity: message [code]`, followed by a
one-line count. The checks are the loaders' own (`loading/`), so `run` refuses exactly what
`lint` reports as an error; lint adds what needs more than the suite: spec files outside the
spec folders, and, with `--fixtures`, cases without a trace and traces without a case.

Which files are specs: a file under a `--specs` folder is a spec; otherwise the nearest
enclosing folder named `specs` or `cases` decides; otherwise the content does (a mapping with
`query`, `predicate`, `clauses` or `fields` is a spec, anything else a case).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..display import github_command, one_line
from ..inputs import (
    AMBIGUOUS,
    EMPTY_FOLDER,
    OUTSIDE,
    display_path,
    is_jsonl,
    iter_jsonl,
    not_a_file,
    plan_fixtures,
    spec_files,
    spec_folders,
    yaml_files,
)
from ..loading.specs import spec_file_problems
from ..loading.suite import load_suite
from ..loading.yamlfile import Position, load_yaml
from ..problems import ERROR, WARNING, Problem, ProblemsFound, UsageError, did_you_mean
from . import EXIT_FAILED, EXIT_OK

DEFAULT_PATHS = ("cases", "specs")
SPEC_MARKERS = ("query", "predicate", "clauses", "fields")


@dataclass
class Inputs:
    """The files to lint, each as a case or a spec, and the spec folders `run` would load."""

    cases: list[Path] = field(default_factory=list)
    specs: list[Path] = field(default_factory=list)  # spec files outside the spec folders
    # Spec files in a sub-folder of a spec folder: run does not read them.
    unread: dict[Path, Path] = field(default_factory=dict)  # file -> its spec folder
    folders: list[Path] = field(default_factory=list)
    files: int = 0  # files named by the PATHs plus those of the user's spec folders
    seen: set[Path] = field(default_factory=set)  # resolved paths already filed


def cmd_lint(args: Any) -> int:
    """Lint the PATHs (default: cases/ and specs/), print the problems, return the exit code."""
    inputs = collect_inputs([Path(p) for p in args.paths], args.specs)
    fixtures = Path(args.fixtures) if args.fixtures else None
    if fixtures is not None and not fixtures.exists():
        raise UsageError(
            f"fixtures {fixtures} does not exist: pass --fixtures with the folder of saved"
            " traces (or a .jsonl file)"
        )
    problems, files = lint(inputs, fixtures)
    print(render(problems, files, args.format), end="")
    errors = sum(p.severity == ERROR for p in problems)
    warnings = sum(p.severity == WARNING for p in problems)
    if errors or (args.strict and warnings):
        return EXIT_FAILED
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# Which files, and which of them are specs


def collect_inputs(paths: list[Path], specs: list[str] | None) -> Inputs:
    """The case and spec files named by `paths` (folders expanded). Raises UsageError."""
    folders = spec_folders([Path(s) for s in specs] if specs else None)  # as `run` loads them
    files = _named_files(paths)
    spec_roots = [f.resolve() for f in folders[1:]]  # the user's; the standard set is ours
    loaded = {p.resolve() for folder in folders for p in spec_files(folder)}
    user_specs = {p.resolve() for folder in folders[1:] for p in spec_files(folder)}
    inputs = Inputs(folders=folders, files=len({p.resolve() for p in files} | user_specs))
    for path in dict.fromkeys(files, None):
        _place(inputs, path, spec_roots, loaded, folders)
    return inputs


def _place(
    inputs: Inputs, path: Path, spec_roots: list[Path], loaded: set[Path], folders: list[Path]
) -> None:
    """File one named file as a case, or as a spec (checked here unless a folder run reads
    has it)."""
    real = path.resolve()
    if real in inputs.seen:
        return
    inputs.seen.add(real)
    if not is_spec(path, spec_roots):
        inputs.cases.append(path)
    elif real not in loaded:  # spec folders are checked with the suite
        inputs.specs.append(path)
        root = next((f for f in folders[1:] if real.is_relative_to(f.resolve())), None)
        if root is not None:
            inputs.unread[path] = root


def _named_files(paths: list[Path]) -> list[Path]:
    given = list(paths)
    if not given:
        given = [p for p in map(Path, DEFAULT_PATHS) if p.is_dir() and yaml_files(p)]
        if not given:
            raise UsageError(
                "nothing to lint: there is no cases/ or specs/ folder with YAML files here;"
                " name the case and spec files or folders to check"
            )
    files: list[Path] = []
    for path in given:
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            found = yaml_files(path)
            if not found:
                raise UsageError(f"{path}: no *.yaml or *.yml file in this folder")
            files += found
        else:
            raise UsageError(not_a_file(path))
    return files


def is_spec(path: Path, spec_roots: Iterable[Path] = ()) -> bool:
    """A spec: under a --specs folder, else by the nearest `specs`/`cases` folder, else content."""
    real = path.resolve()
    if any(real.is_relative_to(root) for root in spec_roots):
        return True
    for part in reversed(Path(display_path(path)).parent.parts):
        if part in DEFAULT_PATHS:
            return part == "specs"
    try:
        doc = load_yaml(path, display_path(path))
    except ProblemsFound:
        return False  # reported the same way either way
    return any(key in doc.data for key in SPEC_MARKERS)


# --------------------------------------------------------------------------------------------
# Linting


def lint(inputs: Inputs, fixtures: Path | None = None) -> tuple[list[Problem], int]:
    """Every problem in the inputs (sorted) and the number of files checked."""
    loaded = load_suite(inputs.cases, inputs.folders)
    problems = set(loaded.problems)
    for path in inputs.specs:
        name = display_path(path)
        if path in inputs.unread:
            problems.add(
                Problem(
                    name,
                    1,
                    1,
                    WARNING,
                    "spec-not-loaded",
                    f"run reads only the files directly in the spec folder"
                    f" {display_path(inputs.unread[path])}, not in its sub-folders: move this"
                    " file up, or pass its folder with --specs",
                )
            )
        try:
            doc = load_yaml(path, name)
        except ProblemsFound as exc:
            problems.update(exc.problems)
            continue
        problems.update(spec_file_problems(doc, loaded.format))
    if fixtures is not None:
        problems.update(fixture_problems(fixtures, loaded.case_ids))
    return sorted(problems), inputs.files


def fixture_problems(fixtures: Path, case_ids: dict[str, tuple[str, Position]]) -> list[Problem]:
    """Cases without a trace and traces without a case, found as `run` finds them."""
    shown = display_path(fixtures)
    if is_jsonl(fixtures):
        return _jsonl_problems(fixtures, shown, case_ids)
    if not fixtures.is_dir():
        raise UsageError(
            f"fixtures {fixtures} is neither a folder nor a .jsonl file: pass --fixtures with"
            " the folder of saved traces"
        )
    plan = plan_fixtures(sorted(case_ids), fixtures, shown)
    out = [_missing_problem(plan.missing[c], c, shown, case_ids[c]) for c in sorted(plan.missing)]
    for name, stem in plan.orphans:  # what run warns about, in the same way
        hint = did_you_mean(stem, case_ids)
        message = (
            f"this trace matches no case: no case has the id '{stem}'{hint}; rename it"
            " after its case id, or add the case (run does not evaluate it)"
        )
        out.append(Problem(display_path(fixtures / name), 1, 1, WARNING, "orphan-fixture", message))
    return out


def _missing_problem(kind: str, case_id: str, shown: str, where: tuple[str, Position]) -> Problem:
    file, at = where
    if kind == OUTSIDE:
        code = "fixture-outside"
        msg = (
            f"case '{case_id}': {shown}/{case_id}/ is a symbolic link to a folder outside"
            f" {shown}; run refuses to read it (error) unless given --follow-symlinks"
        )
    elif kind == AMBIGUOUS:
        code = "ambiguous-fixture"
        msg = (
            f"case '{case_id}' has two fixtures, {shown}/{case_id}.json and"
            f" {shown}/{case_id}/: run reports an error for it; keep one"
        )
    else:
        code = "no-fixture"
        looked = (
            f"{shown}/{case_id}/ holds no *.json file"
            if kind == EMPTY_FOLDER
            else f"there is no {shown}/{case_id}.json (nor {shown}/{case_id}/*.json)"
        )
        msg = (
            f"case '{case_id}' has no saved trace: {looked}; save its trace there, or"
            " run reports the case as not run"
        )
    return Problem(file, at.line, at.column, WARNING, code, msg)


def _jsonl_problems(
    path: Path, shown: str, case_ids: dict[str, tuple[str, Position]]
) -> list[Problem]:
    named: set[str] = set()
    out = []
    for job in iter_jsonl(path, shown):
        case_id = _line_case_id(job.text or "")
        if case_id is None:
            continue  # run reports a line it cannot read
        named.add(case_id)
        if case_id not in case_ids:
            hint = did_you_mean(case_id, case_ids)
            line = int(job.fixture.rsplit(":", 1)[1])
            message = (
                f"this trace's caseId '{case_id}' matches no case{hint}: fix its"
                " caseId, or add the case (run does not evaluate it)"
            )
            out.append(Problem(shown, line, 1, WARNING, "orphan-fixture", message))
    for case_id, (file, at) in sorted(case_ids.items()):
        if case_id not in named:
            message = (
                f"case '{case_id}' has no saved trace: no line of {shown} has caseId"
                f" '{case_id}'; add one, or run reports the case as not run"
            )
            out.append(Problem(file, at.line, at.column, WARNING, "no-fixture", message))
    return out


def _line_case_id(text: str) -> str | None:
    try:
        case_id = json.loads(text).get("caseId")
    except (ValueError, AttributeError, RecursionError):
        return None
    return case_id if isinstance(case_id, str) else None


# --------------------------------------------------------------------------------------------
# Output


def count_line(problems: list[Problem], files: int) -> str:
    """`2 errors, 1 warning in 5 files`."""
    errors = sum(p.severity == ERROR for p in problems)
    warnings = sum(p.severity == WARNING for p in problems)
    return (
        f"{errors} error{'' if errors == 1 else 's'}, {warnings} warning{'' if warnings == 1 else 's'}"
        f" in {files} file{'' if files == 1 else 's'}"
    )


def render(problems: list[Problem], files: int, fmt: str = "text") -> str:
    """The whole output of lint in one format: text, json or github."""
    if fmt == "json":
        document = {
            "problems": [p.as_dict() for p in problems],
            "counts": {
                "errors": sum(p.severity == ERROR for p in problems),
                "warnings": sum(p.severity == WARNING for p in problems),
                "files": files,
            },
        }
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if fmt == "github":
        lines = [github_annotation(p) for p in problems]
    else:
        lines = [p.format() for p in problems]
    return "".join(line + "\n" for line in [*lines, count_line(problems, files)])


def github_annotation(problem: Problem) -> str:
    """A GitHub Actions workflow command: `::error file=F,line=L,col=C,title=CODE::message`."""
    level = "error" if problem.severity == ERROR else "warning"
    message = "\n".join(one_line(part) for part in (problem.message, *problem.detail))
    return github_command(
        level, message, file=problem.file, line=problem.line, col=problem.column, title=problem.code
    )


__all__ = ["SPEC_MARKERS", "cmd_lint", "collect_inputs", "is_spec", "lint", "render"]
