"""Load a whole suite: case files and spec folders -> a `Suite`, plus every problem found.

Cross-file rules live here: unique case ids, `checks` that name known specs, and spec
folders overriding the standard specs by id.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field, replace
from pathlib import Path
from typing import Any

from .. import codes
from ..dataclass import dataclass
from ..inputs import display_path, spec_files
from ..model import (
    FIELDS_SPEC_ID,
    TRACE_FIELDS,
    Case,
    Spec,
    Suite,
    TraceFields,
    default_plan,
    plan_of,
)
from ..problems import ERROR, Problem, ProblemsFound, did_you_mean, has_errors, processing
from ..processes import map_in_processes
from .caseformat import CaseFormat, validation_part
from .cases import ID_PATTERN, build_case, case_problems
from .config import Config
from .plans import plan_problems
from .schema import load_schema
from .specs import compile_spec, declared_inputs, spec_file_problems
from .tools import ToolName, exact_name_problems, marked_inputs, tool_names, undeclared_tools
from .yamlfile import Position, YamlDocument, load_yaml


@dataclass
class LoadResult:
    """A loaded suite (None when any file has an error) and every problem found."""

    suite: Suite | None
    problems: list[Problem] = field(default_factory=list)
    format: CaseFormat = field(default_factory=CaseFormat)  # the case keys of this suite
    # Every valid case id written in a readable case file (even one with other errors) ->
    # the file and where the id is written (the first file, when two use it).
    case_ids: dict[str, tuple[str, Position]] = field(default_factory=dict)
    # Of those cases, the `fixture:` key of each that has one (text), and where it is.
    picks: dict[str, tuple[str, Position]] = field(default_factory=dict)
    # Where traces keep their case id, verdict...: None when no usable trace-fields spec.
    fields: TraceFields | None = None
    # Every tool name the case files write (under inputs marked x-tool-names), and the tools
    # the suite declares (None: not declared) with where, as a message names it.
    tool_names: list[ToolName] = field(default_factory=list)
    tools: tuple[str, ...] | None = None
    tools_from: str = ""


@dataclass
class Specs:
    """The spec files read: the compiled specs by id, their problems, the case keys they declare."""

    specs: dict[str, Spec] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    broken: set[str] = field(default_factory=set)  # ids of spec files with errors
    format: CaseFormat = field(default_factory=CaseFormat)  # the case keys the specs declare


def _written_id(doc: YamlDocument) -> str | None:
    """The file's id when it is a valid id, even if the rest of the file has errors."""
    value = doc.data.get("id")
    return value if isinstance(value, str) and ID_PATTERN.match(value) else None


def _load(path: Path, problems: list[Problem]) -> tuple[str, YamlDocument | None]:
    """Read one YAML file, recording its problems when it cannot be used."""
    name = display_path(path)
    try:
        with processing(name):
            return name, load_yaml(path, name)
    except ProblemsFound as exc:
        problems.extend(exc.problems)
        return name, None


def read_specs(folders: list[Path]) -> Specs:
    """Every spec of every folder, later folders overriding earlier ones by id.

    Two passes: the inputs all specs declare make the case format that bindings are checked
    against, so every file is read before any is checked."""
    out = Specs()
    docs: list[tuple[str, YamlDocument]] = []
    for folder in folders:
        seen_here: dict[str, tuple[str, int]] = {}
        for path in spec_files(folder):
            name, doc = _load(path, out.problems)
            if doc is not None and not _duplicate_id(doc, name, seen_here, out.problems):
                docs.append((name, doc))
    out.format, conflicts = _format_of(docs)
    out.problems.extend(conflicts)
    for name, doc in docs:
        with processing(name):
            found = spec_file_problems(doc, out.format)
        out.problems.extend(found)
        spec_id = _written_id(doc)
        if has_errors(found):
            if spec_id is not None:
                out.broken.add(spec_id)
            continue
        spec = compile_spec(doc)
        out.specs[spec.id] = _overriding(spec, out.specs.get(spec.id))
        out.broken.discard(spec.id)
    return out


def _overriding(spec: Spec, earlier: Spec | None) -> Spec:
    """A trace-fields spec overrides the one before it field by field: the fields it does
    not give keep the earlier paths (a field given replaces its alternative, so
    `tool_call_matches` replaces `tool_calls`)."""
    if spec.fields is None or earlier is None or earlier.fields is None:
        return spec
    kept = {
        name: query
        for name, query in earlier.fields.items()
        if name not in spec.fields and TRACE_FIELDS[name].alternative not in spec.fields
    }
    return replace(spec, fields={**kept, **spec.fields})


def _duplicate_id(
    doc: YamlDocument, name: str, seen: dict[str, tuple[str, int]], problems: list[Problem]
) -> bool:
    spec_id = _written_id(doc)
    if spec_id is None:
        return False
    if spec_id in seen:
        other, line = seen[spec_id]
        message = (
            f"spec id '{spec_id}' is used by both {other} (line {line}) and {name}:"
            " give each spec its own id"
        )
        problems.append(doc.problem(("id",), ERROR, codes.DUPLICATE_SPEC_ID, message))
        return True
    seen[spec_id] = (name, doc.value_at(("id",)).line)
    return False


def _format_of(docs: list[tuple[str, YamlDocument]]) -> tuple[CaseFormat, list[Problem]]:
    """The inputs every spec file declares, and the conflicts between them: one key with two
    different schemas (a spec that overrides another by id replaces its inputs)."""
    latest: dict[str, YamlDocument] = {}
    for _, doc in docs:
        latest[_written_id(doc) or doc.file] = doc
    fmt = CaseFormat()
    first: dict[str, tuple[str, YamlDocument]] = {}
    problems = []
    core = load_schema("case-core")["properties"]
    for spec_id, doc in latest.items():
        for name, schema in declared_inputs(doc).items():
            if name in core and validation_part(schema) != validation_part(core[name]):
                problems.append(_conflict(doc, name, "the core case key of that name"))
            elif name in first and validation_part(schema) != validation_part(fmt.inputs[name]):
                other_id, other = first[name]
                where = (
                    f"spec '{other_id}' ({other.file} line {other.key_at(('inputs', name)).line})"
                )
                problems.append(_conflict(doc, name, where))
            else:
                first.setdefault(name, (spec_id, doc))
                fmt.inputs.setdefault(name, schema)
                fmt.declared_by.setdefault(name, []).append(spec_id)
    # A spec replaced by id still says what its keys are: a team's override that reads
    # required_tools without declaring it keeps the standard meaning of the key.
    for _, doc in docs:
        for name, schema in declared_inputs(doc).items():
            fmt.inputs.setdefault(name, schema)
    return fmt, problems


def _conflict(doc: YamlDocument, name: str, other: str) -> Problem:
    message = (
        f"input '{name}' is declared here with another schema than by {other}: a case key has"
        " one meaning in a suite; use the same schema, or another name"
    )
    return doc.problem(("inputs", name), ERROR, codes.INPUT_CONFLICT, message, key=True)


def load_specs(folders: list[Path]) -> tuple[dict[str, Spec], list[Problem]]:
    """The specs of spec folders (later folders overriding earlier ones by id) and their
    problems, without any case: for tools that build cases in memory rather than from files
    (`Suite(cases, specs, fields_of(specs))`), such as the differential tests."""
    loaded = read_specs(folders)
    return loaded.specs, loaded.problems


@dataclass
class _Cases:
    """The case files read: the cases by id, what the cross-file rules need, the problems."""

    cases: dict[str, Case] = field(default_factory=dict)
    ids: dict[str, tuple[str, Position]] = field(default_factory=dict)  # written id -> file
    picks: dict[str, tuple[str, Position]] = field(default_factory=dict)  # id -> fixture:
    problems: list[Problem] = field(default_factory=list)
    tool_names: list[ToolName] = field(default_factory=list)  # of every readable file


@dataclass(fast_init=True)
class CaseFile:
    """One case file read, validated and built, with what the cross-file rules need of it
    (not its YAML document): plain data, so a loading process can send it back."""

    name: str
    problems: list[Problem] = field(default_factory=list)  # its own, and its `checks` entries'
    case_id: str | None = None  # the id written, when it is a valid one
    id_at: Position | None = None  # where that id is written
    pick: tuple[str, Position] | None = None  # its `fixture:` key, and where
    case: Case | None = None  # when the file has no error of its own
    tool_names: list[ToolName] = field(default_factory=list)  # under inputs marked as tools


@dataclass(frozen=True)
class CaseReader:
    """Reads one case file against the suite's specs (see `_read_cases`)."""

    specs: Specs
    default: tuple[Spec, ...]
    verdicts: tuple[str, ...] | None
    marked: dict[str, dict[str, Any]]  # the inputs that hold tool names (see `_marked`)

    def __call__(self, path: Path) -> CaseFile:
        problems: list[Problem] = []
        name, doc = _load(path, problems)
        out = CaseFile(name, problems)
        if doc is None:
            return out
        with processing(name):
            checks = doc.data.get("checks")
            plan = plan_of(checks if _names(checks) else None, self.specs.specs, self.default)
            found = case_problems(doc, self.specs.format, plan, self.verdicts)
            out.case_id = _written_id(doc)
            if not plan and not _names(checks) and out.case_id is not None:
                found.append(_no_checks(doc, out.case_id))
            found += plan_problems(doc, plan, self.specs.specs, self.specs.broken)
        out.problems.extend(found)
        out.problems += reference_problems([doc], self.specs.specs, self.specs.broken)
        if self.marked:
            out.tool_names = tool_names(doc, self.marked)
        if out.case_id is not None:
            out.id_at = doc.value_at(("id",))
            pick = doc.data.get("fixture")
            if isinstance(pick, str) and pick:
                out.pick = (pick, doc.value_at(("fixture",)))
        if not has_errors(found):
            out.case = build_case(doc, plan)
        return out

    def many(self, paths: list[Path]) -> list[CaseFile]:
        return [self(path) for path in paths]


# Case files per loading process below which one process reads them all: forking and
# sending the cases back costs about what reading ~50 case files does.
PARALLEL_MIN_FILES = 100


def case_reader(specs: Specs, config: Config | None = None) -> CaseReader:
    """What reads one case file against `specs` (and the config's default checks), in any
    process: plain data, inherited by a forked worker (or pickled where there is no fork)."""
    fields_spec = specs.specs.get(FIELDS_SPEC_ID)
    verdicts = fields_spec.verdicts if fields_spec else None
    default_checks = config.checks if config is not None else None
    default = default_plan(specs.specs, default_checks)
    # The declared tools give a wrong required_tools value its example (before any file is read).
    specs.format.declare_tools(_tools([], specs, config)[1] or ())
    return CaseReader(specs, default, verdicts, _marked(specs))


def _read_cases(reader: CaseReader, paths: list[Path], processes: int = 1) -> list[CaseFile]:
    """Every case file read, validated and built, in `processes` processes (contiguous
    slices, this process taking the first), in file order, so the problems and the suite
    are the same for any count."""
    count = max(1, min(processes, len(paths) // PARALLEL_MIN_FILES))
    size = max(1, -(-len(paths) // count))
    slices = [paths[i : i + size] for i in range(0, len(paths), size)]
    return [read for part in map_in_processes(reader.many, slices) for read in part]


def _cross_file(records: Iterable[CaseFile]) -> _Cases:
    """The cross-file rules over the records of every case file, in file order."""
    out = _Cases()
    for read in records:
        _add_case(out, read)
    out.cases = dict(sorted(out.cases.items()))
    return out


def _add_case(out: _Cases, read: CaseFile) -> None:
    """The cross-file rules for one more file, in file order: the first file using an id
    keeps it."""
    out.problems.extend(read.problems)
    out.tool_names.extend(read.tool_names)
    case_id = read.case_id
    if case_id is not None and read.id_at is not None:
        if case_id in out.ids:
            other, first = out.ids[case_id]
            message = (
                f"case id '{case_id}' is used by both {other} (line {first.line})"
                f" and {read.name}: give each case its own id"
            )
            at = read.id_at
            out.problems.append(
                Problem(read.name, at.line, at.column, ERROR, codes.DUPLICATE_CASE_ID, message)
            )
            return
        out.ids[case_id] = (read.name, read.id_at)
        if read.pick is not None:
            out.picks[case_id] = read.pick
    if read.case is not None:
        out.cases[read.case.id] = read.case


def reference_problems(
    docs: list[YamlDocument], specs: dict[str, Spec], broken: set[str] | None = None
) -> list[Problem]:
    """Every `checks` entry of every case file must name a check spec.

    `broken` holds the ids of spec files that have errors of their own: naming them is not a
    second mistake.
    """
    problems = []
    for doc in docs:
        checks = doc.data.get("checks")
        if not isinstance(checks, list):
            continue
        for i, name in enumerate(checks):
            if not isinstance(name, str) or not name or name in (broken or ()):
                continue
            spec = specs.get(name)
            if spec is not None and spec.is_check:
                continue
            if spec is not None:
                msg = f"'{name}' describes trace fields, it is not a check: remove it from checks"
            else:
                check_ids = [s.id for s in specs.values() if s.is_check]
                hint = did_you_mean(name, check_ids)
                known = "" if hint else f"; known specs: {', '.join(sorted(check_ids))}"
                msg = (
                    f"checks names '{name}', which is no known spec{hint}{known};"
                    " a spec of your own needs its folder listed under `specs:` in validator.yaml"
                    " (or passed with --specs)"
                )
            problems.append(doc.problem(("checks", i), ERROR, codes.UNKNOWN_CHECK, msg))
    return problems


def _names(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def fields_of(specs: dict[str, Spec]) -> TraceFields | None:
    """The trace fields of the trace-fields spec; None when it is missing or incomplete."""
    spec = specs.get(FIELDS_SPEC_ID)
    if spec is None or spec.fields is None:
        return None
    given = spec.fields
    for f in TRACE_FIELDS.values():
        if f.required and f.name not in given and (f.alternative or f.name) not in given:
            return None
    return TraceFields(dict(given))


def load_suite_and_problems(
    cases: list[Path],
    spec_folders: list[Path],
    config: Config | None = None,
    processes: int = 1,
) -> LoadResult:
    """Load case files and spec folders (the standard folders first, then the user's): the
    suite (None when an error was found) and every problem, in a LoadResult. Unlike the
    library's `validator.load_suite`, which raises on errors, it never raises for a mistake
    in a file.

    `config`: the suite config, whose `checks` (the default checks) must name check specs;
    its own problems are the caller's to report (see `loading.config`). `processes`: how
    many processes read the case files (forked; the result is the same for any count)."""
    specs = read_specs(spec_folders)
    records = _read_cases(case_reader(specs, config), cases, processes)
    return suite_from(records, specs, config)


def suite_from(
    records: Iterable[CaseFile], specs: Specs, config: Config | None = None
) -> LoadResult:
    """The suite of case files already read (by `case_reader`, in any process), in file
    order: the cross-file rules (unique ids, tool names, the config's references) applied
    to their records, as `load_suite_and_problems` does."""
    loaded = _cross_file(records)
    default_checks = config.checks if config is not None else None
    problems = specs.problems + loaded.problems + _config_problems(config, specs)
    names, tools, tools_from = _tools(loaded.tool_names, specs, config)
    problems += exact_name_problems(names)
    if tools is not None:
        problems += undeclared_tools(names, tools, tools_from)
    fields = fields_of(specs.specs)
    if fields is None and not has_errors(problems):
        required = ", ".join(f.name for f in TRACE_FIELDS.values() if f.required)
        problems.append(
            Problem(
                "<specs>",
                1,
                1,
                ERROR,
                codes.MISSING_TRACE_FIELDS,
                f"no spec '{FIELDS_SPEC_ID}' with fields {required} (or tool_call_matches) was"
                " found: restore specs/trace-fields.yaml or reinstall",
            )
        )
    problems = sorted(set(problems))
    result = LoadResult(None, problems, specs.format, loaded.ids, loaded.picks, fields)
    result.tool_names, result.tools, result.tools_from = names, tools, tools_from
    if not has_errors(problems) and fields is not None:
        result.suite = Suite(loaded.cases, specs.specs, fields, default_checks)
    return result


def _config_problems(config: Config | None, specs: Specs) -> list[Problem]:
    """What the suite config names that the specs must have: its default checks, and the
    case keys its target's placeholders read."""
    if config is None or config.doc is None:
        return []
    problems = []
    if config.checks:
        problems += reference_problems([config.doc], specs.specs, specs.broken)
    if config.target_templates:
        # A placeholder must name a case key, and the specs say which keys cases have.
        from .target import placeholder_problems

        problems += placeholder_problems(config.doc, config.target_templates, specs.format.keys)
    return problems


def _marked(specs: Specs) -> dict[str, dict[str, Any]]:
    """The case inputs that hold tool names: a key marked by any spec (an override need not
    repeat the mark)."""
    marked = marked_inputs(specs.format.inputs)
    for spec in specs.specs.values():
        for name, schema in marked_inputs(spec.inputs).items():
            marked.setdefault(name, schema)
    return marked


def _tools(
    names: list[ToolName], specs: Specs, config: Config | None
) -> tuple[list[ToolName], tuple[str, ...] | None, str]:
    """The tool names the cases write, the declared tools (the config's, else the
    trace-fields spec's; None: neither declares) and the declaration as messages name it."""
    if config is not None and config.tools is not None:
        return names, config.tools, f"tools: in {config.file}"
    fields_spec = specs.specs.get(FIELDS_SPEC_ID)
    if fields_spec is not None and fields_spec.tools is not None:
        return names, fields_spec.tools, f"tools: in {fields_spec.file}"
    return names, None, ""


def _no_checks(doc: YamlDocument, case_id: str) -> Problem:
    """A case that applies no check would pass every trace: that is an error, not a pass."""
    message = (
        f"case '{case_id}' applies no check: it has no `checks` and no default check is"
        " loaded (packs: [] or no spec with `default: true`); name its checks, or set"
        " `checks` in validator.yaml"
    )
    return doc.problem(("id",), ERROR, codes.NO_CHECKS, message)
