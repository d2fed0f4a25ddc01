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

import argparse
import json
from collections.abc import Iterable
from dataclasses import field
from pathlib import Path

from .. import codes
from ..dataclass import dataclass
from ..display import github_command, one_line
from ..inputs import (
    DEFAULT_PACKS,
    display_path,
    is_standard,
    not_a_file,
    spec_files,
    spec_folders,
    yaml_files,
)
from ..loading.config import Config
from ..loading.specs import spec_file_problems
from ..loading.suite import load_suite_and_problems
from ..loading.yamlfile import load_yaml
from ..model import TraceSettings
from ..problems import ERROR, WARNING, Problem, ProblemsFound, UsageError
from ..units import explained, read_value
from . import EXIT_FAILED, EXIT_OK, options
from .layout import Layout, SuiteFlags, read_config, resolve
from .lintfixtures import fixture_problems

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


def main(args: argparse.Namespace) -> int:
    """Lint the PATHs (default: cases/ and specs/, or the suite config's), print the
    problems, return the exit code."""
    flags = SuiteFlags.of(args)
    config = read_config(flags)
    layout = resolve(flags, config)
    paths = [Path(p) for p in args.paths]
    if not paths and config is not None:
        # The config's own cases and spec folders; one it names wrongly is reported on it.
        paths = [p for p in [layout.cases, *(layout.specs or [])] if p.exists()]
    inputs = collect_inputs(paths, layout.specs, layout.packs, allow_none=config is not None)
    follow = bool(getattr(args, "follow_symlinks", False))
    problems, files = lint(inputs, _fixtures(args, layout), config, layout.traces, follow)
    if getattr(args, "explain_values", False) and args.format == "text":
        for line in explain_values(inputs, config):
            print(line)
    print(render(problems, files, args.format), end="")
    errors = sum(p.severity == ERROR for p in problems)
    warnings = sum(p.severity == WARNING for p in problems)
    if errors or (args.strict and warnings):
        return EXIT_FAILED
    return EXIT_OK


def explain_values(inputs: Inputs, config: Config | None) -> list[str]:
    """`FILE:LINE:COL: KEY: 20s = 20000 milliseconds` for each case value written with a
    unit, as run reads it."""
    loaded = load_suite_and_problems(inputs.cases, inputs.folders, config)
    out = []
    for path in inputs.cases:
        try:
            doc = load_yaml(path, display_path(path))
        except ProblemsFound:
            continue
        if not isinstance(doc.data, dict):
            continue
        for key, value in doc.data.items():
            kind = loaded.format.unit_of(str(key)) if isinstance(value, str) else None
            if kind is not None and read_value(kind, value) is not None:
                at = doc.value_at((key,))
                out.append(
                    f"{doc.file}:{at.line}:{at.column}: {key}: {explained(kind, value)}"
                    f" (read as a {kind})"
                )
    return out


def _fixtures(args: argparse.Namespace, layout: Layout) -> Path | None:
    """The traces to check: --fixtures, else those the suite config names (if it does)."""
    fixtures = Path(args.fixtures) if args.fixtures else None
    if fixtures is None and layout.config is not None and layout.fixtures_named:
        fixtures = layout.fixtures
        if layout.config.has_target and not fixtures.exists():
            return None  # capture has not made the folder yet: no trace to check
    if fixtures is not None and not fixtures.exists():
        raise UsageError(
            f"fixtures {fixtures} does not exist: pass --fixtures with the folder of saved"
            " traces (or a .jsonl file)"
        )
    return fixtures


# --------------------------------------------------------------------------------------------
# Which files, and which of them are specs


def collect_inputs(
    paths: list[Path],
    specs: list[Path] | list[str] | None,
    packs: tuple[str, ...] = DEFAULT_PACKS,
    allow_none: bool = False,
) -> Inputs:
    """The case and spec files named by `paths` (folders expanded). Raises UsageError.

    `allow_none`: no paths lint nothing (a suite config names the paths, and may name none
    that exist, which its own problems say) instead of the default cases/ and specs/."""
    given = [Path(s) for s in specs] if specs is not None else None
    folders = spec_folders(given, packs)  # as `run` loads them
    files = [] if allow_none and not paths else _named_files(paths)
    users = [f for f in folders if not is_standard(f)]  # the standard specs are ours
    spec_roots = [f.resolve() for f in users]
    loaded = {p.resolve() for folder in folders for p in spec_files(folder)}
    user_specs = {p.resolve() for folder in users for p in spec_files(folder)}
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
        root = next(
            (f for f in folders if not is_standard(f) and real.is_relative_to(f.resolve())), None
        )
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


def lint(
    inputs: Inputs,
    fixtures: Path | None = None,
    config: Config | None = None,
    traces: TraceSettings | None = None,
    follow_links: bool = False,
) -> tuple[list[Problem], int]:
    """Every problem in the inputs, the suite config and, with `fixtures`, the trace plan
    (sorted), and the number of files checked."""
    loaded = load_suite_and_problems(inputs.cases, inputs.folders, config)
    problems = set(loaded.problems)
    files = inputs.files
    if config is not None:
        problems.update(config.problems)
        files += 1
    for path in inputs.specs:
        name = display_path(path)
        if path in inputs.unread:
            problems.add(
                Problem(
                    name,
                    1,
                    1,
                    WARNING,
                    codes.SPEC_NOT_LOADED,
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
        problems.update(fixture_problems(fixtures, loaded, traces, follow_links, config))
    return sorted(problems), files


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


FORMATS = ("text", "json", "github")  # lint --format


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


# --------------------------------------------------------------------------------------------
# The command line

LINT_EPILOG = """\
examples:
  %(prog)s
  %(prog)s cases/mysql-slow-query.yaml
  %(prog)s --specs my-specs --fixtures fixtures --strict
  %(prog)s --format github     (annotations in GitHub Actions)

with a suite config (validator.yaml, or --config), lint checks it too, and its
cases and spec folders by default; when it names fixtures, they are checked too.

spec or case: a file under a --specs folder is a spec; otherwise the nearest
folder named specs/ or cases/ decides; otherwise a file with query, predicate,
clauses or fields is a spec, and any other file a case.

exit codes: 0 no errors (warnings allowed); 1 errors found (or warnings with
            --strict); 2 usage error (a PATH that matches no file, a missing folder)
"""


def build_parser(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Check case and spec files like a compiler: every problem with file, line, column"
        " and a fix."
    )
    parser.epilog = LINT_EPILOG
    options.config_option(parser)
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="case/spec files or folders (default: cases/ and specs/, whichever exist)",
    )
    options.path_option(
        parser,
        "--specs",
        "spec folder, as given to run: its specs are checked, and cases may name them in"
        " 'checks'; repeatable (default: specs/ when it exists)",
    )
    options.path_option(
        parser,
        "--fixtures",
        "saved traces (folder or file): also report cases without a trace and traces"
        " without a case (warnings), matched as run matches them (default: the config's"
        " fixtures, when it names them)",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="output format (default: text)",
    )
    parser.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="with --fixtures: read traces through links leading outside the fixtures folder,"
        " as run --follow-symlinks does",
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    parser.add_argument(
        "--explain-values",
        action="store_true",
        help="also say what each case value written with a unit was read as (20s = 20000"
        " milliseconds), before the problems (text format)",
    )


__all__ = ["SPEC_MARKERS", "collect_inputs", "is_spec", "lint", "main", "render"]
