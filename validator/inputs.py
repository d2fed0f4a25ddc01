"""Inputs: which case, spec and trace files a suite is made of, found the same way for `run`,
`lint` and the library.

Nothing here reads a file's content; it only finds files and plans which traces belong to
which case (`plan_fixtures`; what a case's `fixture:` key picks is `fixturekeys`'). Over
600 lines, one concept: the walk, the names, the picks and the folder groups decide
together which job a file is part of.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import field
from pathlib import Path
from typing import BinaryIO, NamedTuple

from .dataclass import dataclass
from .fixturekeys import FixtureKeys
from .globs import Globs, run_order
from .problems import Names, UsageError, did_you_mean
from .traces import DEFAULT_MAX_TRACE_BYTES

CASE_SUFFIXES = (".yaml", ".yml")
JSONL_SUFFIXES = (".jsonl", ".ndjson")


def display_path(path: Path | str) -> str:
    """A path as the user would write it: relative to the working folder when inside it."""
    # abspath, not resolve(): no system call per path part for each of thousands of files,
    # and a path shown as the user reached it (through their links) reads better anyway.
    absolute = os.path.abspath(path)
    cwd = os.getcwd()
    if absolute == cwd:
        return "."
    if absolute.startswith(cwd.rstrip(os.sep) + os.sep):
        return absolute[len(cwd.rstrip(os.sep)) + 1 :]
    return str(path)


# --------------------------------------------------------------------------------------------
# Case and spec files


def standard_specs_dir() -> Path:
    """Where the standard specs are: inside the installed package, or the repository's specs/.

    The folder itself holds the specs every suite shares (`trace-fields.yaml`); each of its
    sub-folders is a pack of checks (`diagnosis/`), loaded when the suite config's `packs`
    names it."""
    here = Path(__file__).resolve().parent
    packaged = here / "specs"
    return packaged if packaged.is_dir() else here.parent / "specs"


DEFAULT_PACKS = ("diagnosis",)


def available_packs() -> list[str]:
    """The names of the standard spec packs (the sub-folders of the standard specs)."""
    base = standard_specs_dir()
    return sorted(
        p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
    )


def standard_spec_folders(packs: Collection[str] = DEFAULT_PACKS) -> list[Path]:
    """The shared standard specs, then each named pack's folder, in the order given.

    Raises UsageError for a pack that does not exist (the config loader reports it first,
    located; this is the library's and the command line's last line of defence)."""
    base = standard_specs_dir()
    folders = [base]
    known = available_packs()
    for pack in packs:
        if pack not in known:
            raise UsageError(
                f"there is no standard spec pack '{pack}'"
                + (did_you_mean(pack, known) or f"; packs: {', '.join(known) or 'none'}")
            )
        folders.append(base / pack)
    return folders


def is_standard(folder: Path) -> bool:
    """Whether a spec folder is one of the standard ones (shipped with the package)."""
    return folder.resolve().is_relative_to(standard_specs_dir().resolve())


def yaml_files(folder: Path) -> list[Path]:
    """The YAML files of a folder and its sub-folders, sorted by path.

    Hidden files and folders (`.git/`, editor swap and lock files such as `.#case.yaml`) are
    left out. Symbolic links to files are taken, those to folders not followed (as
    `Path.rglob`). Walked with os.scandir, whose entries know their type without a stat:
    a fifth of the time of rglob and a stat per file for 2,000 case files. Sorted as Paths
    sort, by the names under `folder` (os.path.normcase'd), compared as tuples of strings:
    a third of the time of sorting the Paths."""
    found: list[tuple[tuple[str, ...], Path, str]] = []
    pending: list[tuple[tuple[str, ...], Path]] = [((), folder)]
    normcase = os.path.normcase
    while pending:
        parts, here = pending.pop()
        try:
            with os.scandir(here) as entries:
                for entry in entries:
                    name = entry.name
                    if name.startswith("."):
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(((*parts, normcase(name)), here / name))
                    elif name.endswith(CASE_SUFFIXES) and entry.is_file():
                        found.append(((*parts, normcase(name)), here, name))
        except OSError:  # unreadable folder: skipped, as rglob does
            continue
    found.sort(key=lambda item: item[0])
    return [here / name for _, here, name in found]


def spec_files(folder: Path) -> list[Path]:
    """The YAML files of a spec folder, sorted, not descending into sub-folders."""
    return sorted(p for p in folder.iterdir() if p.suffix in CASE_SUFFIXES and p.is_file())


def spec_folders(given: list[Path] | None, packs: Collection[str] = DEFAULT_PACKS) -> list[Path]:
    """The standard specs first (shared, then the packs), then the user's folders (later
    ones override by id).

    `given` None: the working folder's specs/ when there is one (the command line's
    default). Raises UsageError for a folder that does not exist."""
    folders = standard_spec_folders(packs)
    if given is None:
        local = Path("specs")
        candidates = [local] if local.is_dir() else []
    else:
        candidates = list(given)
        for folder in candidates:
            if not folder.is_dir():
                raise UsageError(f"spec folder {folder} does not exist (or is not a folder)")
    # A user folder that is a standard one (the repository's own specs/) is not read twice.
    seen = {standard_specs_dir().resolve()} | {f.resolve() for f in folders}
    for folder in candidates:
        if folder.resolve() not in seen:
            seen.add(folder.resolve())
            folders.append(folder)
    return folders


def find_case_files(path: Path) -> list[Path]:
    """A case file, or the case files of a folder. Raises UsageError when there are none."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        if path.exists():
            raise UsageError(
                f"{path} is not a regular file or folder (a device, pipe or socket)",
                "pass --cases with the folder of your case files",
            )
        raise UsageError(
            f"cases folder {path} does not exist", "pass --cases with the folder of your case files"
        )
    files = yaml_files(path)
    if not files:
        raise UsageError(f"no case files (*.yaml, *.yml) in {path}: nothing to evaluate")
    return files


# --------------------------------------------------------------------------------------------
# Traces: which file (or line) belongs to which case


DEFAULT_PATTERNS = ("*.json", "*.jsonl")


def format_of(name: str, setting: str | None = None) -> str:
    """The format a trace file is read in: the `traces.format` setting, else by its suffix
    (.jsonl and .ndjson: JSON Lines; anything else: one JSON document)."""
    if setting is not None:
        return setting
    return "jsonl" if name.endswith(JSONL_SUFFIXES) else "json"


@dataclass(frozen=True, fast_init=True)
class Job:
    """One unit of reading: a trace file, or one line of a JSON Lines file (carried as text).

    A file may hold several traces (`traces.split`, OpenTelemetry exports), for one case or
    for several: the worker that reads it evaluates them all, in file order."""

    case_id: str | None  # the case the plan gave it; None: each trace names its case
    fixture: str  # how the report names it
    path: str | None = None
    text: str | None = None
    format: str | None = None  # how `path` is read; None: by its suffix
    problem: str | None = None  # why it cannot be evaluated, known before reading (a line too long)
    more_cases: tuple[str, ...] = ()  # further cases whose fixture: key picks this file
    picked: bool = False  # chosen by a case's fixture: key (its own case id is not checked)
    # Picked, and each of its traces goes to the case it names too (traces.case_id, or a
    # top-level JSON Lines file's case id): the usual rule and the picks, together.
    names_cases: bool = False
    unmatched: str | None = None  # a file no case claims, known from its name: why (not read)
    source: str | None = None  # the file it comes from, as shown (None: `fixture`)
    # A `traces.group: folder` job: (path, label) of each file of the folder, in name order
    # (`path` is then the folder).
    members: tuple[tuple[str, str], ...] = ()
    group: str | None = None  # `file`/`folder` groups: the path under the fixtures folder


AMBIGUOUS = "ambiguous"  # both <id>.json and <id>/ exist
OUTSIDE = "outside"  # <id>/ is a link to a folder outside the fixtures folder
NO_TRACE = "none"  # neither exists
EMPTY_FOLDER = "empty-folder"  # <id>/ holds no trace file
BAD_PICK = "bad-pick"  # the case's fixture: key picks nothing, or points outside the folder
# Why a file or folder `traces.ignore` names is not used: listed with this reason, never read.
IGNORED = "ignored: traces.ignore names it"
# Kinds that decide the case whatever runs it gets elsewhere (the others: only with none).
HARD_KINDS = (AMBIGUOUS, OUTSIDE, BAD_PICK)

NAMED = "named"  # its name (or its folder's) is its case id
PICKED = "picked"  # a case's fixture: key picks it
PICKED_CONTENT = "picked-content"  # picked, and each of its traces names its case too
CONTENT = "content"  # each trace names its case (traces.case_id, or JSON Lines' case id)
ORPHAN = "orphan"  # its name names no case: reported, not read


class Source(NamedTuple):
    """One trace file of a plan (names only: Jobs are made one at a time, so a folder of
    100,000 traces does not hold 100,000 jobs in memory)."""

    rel: str  # the path under the fixtures folder, with '/' (its name: fixtures is the file)
    cases: tuple[str, ...]  # the cases it is for; (): each trace names its case
    how: str  # NAMED, PICKED, PICKED_CONTENT, CONTENT or ORPHAN
    reason: str | None = None  # an orphan's


@dataclass
class Plan:
    """Which trace files under the fixtures folder belong to which case, and every file
    that is not used, with why. Made by `plan_fixtures`; `run` and `lint` read the same
    plan."""

    fixtures: Path | None = None
    shown: str = ""
    sources: list[Source] = field(default_factory=list)  # in file order (natural sort)
    missing: dict[str, str] = field(default_factory=dict)  # case id -> AMBIGUOUS, NO_TRACE...
    details: dict[str, str] = field(default_factory=dict)  # case id -> what `missing` found
    # Name mode: (top-level entry, the case id its name gives) of files that match no case.
    orphans: list[tuple[str, str]] = field(default_factory=list)
    unused: list[tuple[str, str]] = field(default_factory=list)  # (file as shown, why)
    patterns: tuple[str, ...] = DEFAULT_PATTERNS
    format: str | None = None
    single: bool = False  # the fixtures path is one file
    max_bytes: int = DEFAULT_MAX_TRACE_BYTES  # longer JSON Lines lines are refused unread
    group: str | None = None  # traces.group
    whole_files: bool = False  # a JSON Lines export is one job, not one a line
    # Case id -> stray files (as shown) whose case id field names it but whose name does
    # not; filled by whoever reads the strays (commands.strays), said in missing_reason.
    misnamed: dict[str, list[str]] = field(default_factory=dict)

    def label(self, rel: str) -> str:
        return self.shown if self.single else f"{self.shown}/{rel}"

    def path(self, rel: str) -> Path:
        assert self.fixtures is not None
        return self.fixtures if self.single else self.fixtures / rel

    def path_text(self, rel: str) -> str:
        """`str(self.path(rel))`, without a Path for each file (a run makes its jobs twice,
        before the workers start and after). `rel` comes from the walk: names joined by '/',
        none of them empty, `.` or `..`."""
        assert self.fixtures is not None
        base = str(self.fixtures)
        if self.single or os.sep != "/" or base == "." or base.endswith("/"):
            return str(self.path(rel))
        return f"{base}/{rel}"

    @property
    def job_count(self) -> int:
        """How many jobs `jobs()` makes (reads a JSON Lines export to count its lines)."""
        if self.group == "folder":
            return sum(1 for _ in self.jobs())
        if self._per_line():
            return count_lines(self.path(self.sources[0].rel)) or 0
        return len(self.sources)

    def _per_line(self) -> bool:
        return (
            self.single
            and bool(self.sources)
            and not self.whole_files
            and format_of(self.shown, self.format) == "jsonl"
        )

    def jobs(self, kinds: Collection[str] | None = None) -> Iterator[Job]:
        """The jobs of the plan's files (of those `kinds` only, when given), in file order;
        with `traces.group: folder`, one job for the files of each folder."""
        if self.group == "folder":
            yield from self._folder_jobs(kinds)
            return
        for src in self.sources:
            if kinds is None or src.how in kinds:
                yield from self._jobs_of(src)

    def _folder_jobs(self, kinds: Collection[str] | None) -> Iterator[Job]:
        """One job for the files of each folder (a top-level file is a group of its own), in
        the order of each folder's first file."""
        folders: dict[tuple[str, tuple[str, ...], str], list[Source]] = {}
        order: list[Source | tuple[str, tuple[str, ...], str]] = []
        for src in self.sources:
            if kinds is not None and src.how not in kinds:
                continue
            folder = src.rel.rsplit("/", 1)[0] if "/" in src.rel else ""
            if not folder or src.how == ORPHAN:
                order.append(src)
                continue
            key = (folder, src.cases, src.how)
            if key not in folders:
                folders[key] = []
                order.append(key)
            folders[key].append(src)
        for item in order:
            if isinstance(item, Source):
                yield from self._jobs_of(item)
                continue
            folder, cases, how = item
            members = tuple((str(self.path(s.rel)), self.label(s.rel)) for s in folders[item])
            yield Job(cases[0] if cases else None, self.label(folder) + "/",
                      str(self.path(folder)), more_cases=cases[1:],
                      picked=how in (PICKED, PICKED_CONTENT), members=members, group=folder,
                      names_cases=how == PICKED_CONTENT)  # fmt: skip

    def _jobs_of(self, src: Source) -> Iterator[Job]:
        path, label = self.path_text(src.rel), self.label(src.rel)
        case = src.cases[0] if src.cases else None
        if src.how == ORPHAN:
            yield Job(case, label, path, unmatched=src.reason)
            return
        fmt = format_of(src.rel or self.shown, self.format)
        more, picked = src.cases[1:], src.how in (PICKED, PICKED_CONTENT)
        own = src.how == PICKED_CONTENT
        if fmt == "jsonl" and self._per_line():
            # An export given as --fixtures: one job per line, so its lines spread over
            # the workers (and a progress bar counts them).
            def line_job(fixture: str, text: str, problem: str | None) -> Job:
                return Job(case, fixture, text=text, more_cases=more, picked=picked,
                           source=label, problem=problem, names_cases=own)  # fmt: skip

            yield from iter_jsonl(self.path(src.rel), label, self.max_bytes, line_job)
        else:
            group = src.rel or self.shown if self.group in ("file", "folder") else None
            yield Job(case, label, path, format=fmt, more_cases=more, picked=picked,
                      group=group, names_cases=own)  # fmt: skip

    def missing_reason(self, case_id: str) -> str:
        """Why a case gets no run, as the report says it (and a misnamed file of it)."""
        reason = self._missing_reason(case_id)
        files = self.misnamed.get(case_id)
        if files:
            reason += (
                f"; {', '.join(files)} {'names' if len(files) == 1 else 'name'} this case in"
                " its case id field but not in its file name: rename it after the case, or"
                " pick it with the case's fixture: key"
            )
        return reason

    def _missing_reason(self, case_id: str) -> str:
        shown, kind = self.shown, self.missing[case_id]
        if kind == AMBIGUOUS:
            return f"ambiguous fixtures: both {self.details[case_id]} exist; keep one"
        if kind == EMPTY_FOLDER:
            return f"no trace fixture: {shown}/{case_id}/ holds no {self.pattern_words()}"
        if kind == OUTSIDE:
            return (
                f"{shown}/{case_id}/ is a symbolic link to a folder outside {shown}: refused;"
                " copy the traces in, or pass --follow-symlinks to read them"
            )
        if kind == BAD_PICK:
            return self.details[case_id]
        if case_id in self.details:  # NO_TRACE, its file or folder ignored
            return (
                f"no trace fixture: traces.ignore names {self.label(self.details[case_id])}:"
                " take it out of traces.ignore to read its traces"
            )
        if self.patterns == DEFAULT_PATTERNS:
            return (
                f"no trace fixture: looked for {shown}/{case_id}.json and {shown}/{case_id}/*.json"
            )
        return (
            f"no trace fixture: no file under {shown} matching traces.pattern"
            f" ({', '.join(self.patterns)}) is named {case_id}.* or is in {shown}/{case_id}/"
        )

    def pattern_words(self) -> str:
        """`*.json file (nor *.jsonl)`: the patterns as a sentence says them."""
        first, *rest = self.patterns
        return f"{first} file" + (f" (nor {', '.join(rest)})" if rest else "")


def plan_fixtures(
    case_ids: Collection[str],
    fixtures: Path,
    shown: str,
    known: Collection[str] | None = None,
    follow_links: bool = False,
    *,
    patterns: tuple[str, ...] = DEFAULT_PATTERNS,
    by_name: bool = True,
    picks: Mapping[str, str] | None = None,
    format: str | None = None,
    elsewhere: Collection[str] = (),
    group: str | None = None,
    whole_files: bool = False,
    ignore: tuple[str, ...] = (),
) -> Plan:
    """Which files under `fixtures` (a folder, or one file) are traces of which case.

    `case_ids`: the cases to evaluate; `known`: every case id of the suite (before a
    --case/--tag selection; files of cases left out on purpose are unused, not orphans).
    `patterns`: globs a trace file's path under the folder, or its name, must match.
    `by_name` (no `traces.case_id`): a file's name without its extension, or its top-level
    folder `<id>/`, names its case; ungrouped JSON Lines files at the top name it per entry.
    Otherwise every trace names its case. `picks`: a case's `fixture:` key (a path or glob
    under the folder) gives it the files it names, in addition to the case their name
    gives. `group`, `whole_files`: see `Plan`. A case folder that is a link to a folder outside
    the fixtures folder is refused unless `follow_links` (single trace files are checked
    when they are read, see `traces.read_trace_file`). `elsewhere`: cases another shard
    evaluates (`run --shard`): their files are neither read nor listed as unused here.
    `ignore`: globs of files and folders that are no traces (`traces.ignore`): listed as
    unused (IGNORED), never read nor searched, whatever else would take them."""
    plan = Plan(fixtures, shown, patterns=patterns, format=format, single=fixtures.is_file())
    plan.group, plan.whole_files = group, whole_files or group is not None
    matcher = Globs(patterns)
    walk = _Walk.of(fixtures, follow_links, matcher, Globs(ignore))
    plan.unused.extend(walk.unused)
    selected = set(case_ids)
    known_ids = set(case_ids if known is None else known)
    suggested = Names(known_ids)  # a misnamed file's did-you-mean, of the same set each time
    others = set(elsewhere)
    picking = FixtureKeys(fixtures, picks or {}, matcher)
    named: dict[str, list[int]] = {}  # case id -> indexes of its NAMED sources
    for rel in walk.files:
        pickers = picking.pickers(rel)
        matches = plan.single or matcher.matches(rel)
        content = not by_name or _names_its_cases(rel, format, group)
        if pickers:
            named_too = matches and not content  # its name gives a case too
            own = matches and content  # its traces name their cases too
            _add_picked(plan, rel, pickers, selected, others, named if named_too else None, own)
        elif not matches:
            plan.unused.append((rel, f"does not match traces.pattern ({', '.join(patterns)})"))
        elif content:
            plan.sources.append(Source(rel, (), CONTENT))
        else:
            _add_named(plan, rel, selected, known_ids, named, others, suggested)
    _check_named(plan, named, walk, follow_links)
    if by_name:
        _cases_without_traces(plan, case_ids, named, walk, picking)
    _bad_picks(plan, picking, selected)
    plan.unused = sorted(
        ((plan.label(rel), why) for rel, why in plan.unused), key=lambda u: run_order(u[0])
    )
    return plan


def _bad_picks(plan: Plan, picking: FixtureKeys, selected: set[str]) -> None:
    """A selected case whose `fixture:` key is wrong or picks nothing: its error."""
    for case_id, reason in picking.problems(selected, plan.shown):
        plan.missing[case_id] = BAD_PICK
        plan.details[case_id] = reason


def _names_its_cases(rel: str, format: str | None, group: str | None) -> bool:
    """An ungrouped JSON Lines file at the top: its entries name their case."""
    return group is None and "/" not in rel and format_of(rel, format) == "jsonl"


def _add_picked(
    plan: Plan,
    rel: str,
    pickers: list[str],
    selected: set[str],
    elsewhere: set[str],
    named: dict[str, list[int]] | None = None,
    own: bool = False,
) -> None:
    """A file a case's `fixture:` picks: for those cases, and in addition for the case its
    name gives (`named` given: the file is matched by name), or for the case each of its
    traces names (`own`: traces.case_id, or a top-level JSON Lines file)."""
    key = _key_of(rel) if named is not None else None
    if named is not None and key in selected and key not in pickers:
        pickers = [*pickers, key]
        named.setdefault(key, [])
    chosen = tuple(c for c in pickers if c in selected)
    if own:  # read whatever is picked here: its traces may name cases of this run
        plan.sources.append(Source(rel, chosen, PICKED_CONTENT if chosen else CONTENT))
    elif chosen:
        plan.sources.append(Source(rel, chosen, PICKED))
    elif not elsewhere.isdisjoint(pickers):
        return  # another shard's: it is read there
    else:
        names = ", ".join(f"'{c}'" for c in pickers)
        plan.unused.append((rel, f"picked by the fixture: key of case {names}, not selected"))


def _key_of(rel: str) -> str:
    """The case id a file's place gives: its top-level folder, or its name without the
    extension."""
    if "/" in rel:
        return rel.split("/", 1)[0]
    return rel.rsplit(".", 1)[0] if "." in rel.lstrip(".") else rel


def _add_named(
    plan: Plan,
    rel: str,
    selected: set[str],
    known: set[str],
    named: dict[str, list[int]],
    elsewhere: set[str],
    suggested: Names,
) -> None:
    key = _key_of(rel)
    if key in selected:
        named.setdefault(key, []).append(len(plan.sources))
        plan.sources.append(Source(rel, (key,), NAMED))
    elif key in elsewhere:
        return  # another shard's: it is read there
    elif key in known:
        plan.unused.append((rel, f"its case '{key}' is not selected (--case/--tag)"))
    else:
        hint = did_you_mean(key, suggested)
        if "/" in rel:
            reason = (
                f"its folder {key}/ names no case{hint}: name the folder after its case id,"
                " or add the case"
            )
        else:
            reason = (
                f"no case has the id '{key}'{hint}: name the file after its case id, or add"
                " the case"
            )
        plan.sources.append(Source(rel, (key,), ORPHAN, reason))
        top = rel.split("/", 1)[0]
        if not plan.orphans or plan.orphans[-1][0] != top:
            plan.orphans.append((top, key))


def _check_named(plan: Plan, named: dict[str, list[int]], walk: _Walk, follow_links: bool) -> None:
    """A case given both a top-level file and a folder (or two top-level files) is
    ambiguous: none of them is read."""
    dropped: set[int] = set()
    for case_id, indexes in named.items():
        tops = [plan.sources[i].rel for i in indexes if "/" not in plan.sources[i].rel]
        has_folder = case_id in walk.top_folders
        if not (tops and has_folder) and len(tops) < 2:
            continue
        both = [f"{plan.shown}/{t}" for t in tops] + ([f"{plan.shown}/{case_id}/"] * has_folder)
        plan.missing[case_id] = AMBIGUOUS
        plan.details[case_id] = " and ".join(both)
        for i in indexes:
            dropped.add(i)
            plan.unused.append((plan.sources[i].rel, f"case '{case_id}' is ambiguous: keep one"))
    if dropped:
        plan.sources = [s for i, s in enumerate(plan.sources) if i not in dropped]


def _cases_without_traces(
    plan: Plan,
    case_ids: Collection[str],
    named: dict[str, list[int]],
    walk: _Walk,
    picks: FixtureKeys,
) -> None:
    if plan.single:
        return  # one file is not looked in for <id>.json: the run says no trace named the case
    for case_id in case_ids:
        if case_id in named or case_id in plan.missing or picks.found(case_id):
            continue
        if case_id in walk.outside:
            plan.missing[case_id] = OUTSIDE
        elif case_id in walk.top_folders:
            plan.missing[case_id] = EMPTY_FOLDER
        elif case_id not in picks.cases:
            plan.missing[case_id] = NO_TRACE
            if case_id in walk.ignored_top:  # its traces are there, but not to be read
                plan.details[case_id] = walk.ignored_top[case_id]


class _Walk:
    """Every file under a fixtures folder (path relative to it, '/'-separated, natural
    order), its top-level folders, and the entries not searched, with why."""

    def __init__(self) -> None:
        self.files: list[str] = []
        self.top_folders: set[str] = set()
        self.outside: set[str] = set()  # top-level links to folders outside the folder
        self.unused: list[tuple[str, str]] = []
        self.traces = self.ignored = Globs(())
        self.ignored_top: dict[str, str] = {}  # case id its name gives -> an ignored top entry

    @classmethod
    def of(cls, fixtures: Path, follow_links: bool, traces: Globs, ignored: Globs) -> _Walk:
        walk = cls()
        walk.traces, walk.ignored = traces, ignored
        if fixtures.is_file():
            walk.files.append(fixtures.name)
            return walk
        root = fixtures.resolve()
        seen = {root}
        # (prefix, folder, the folder's real path): a folder that is no link is at its
        # parent's real path, so only links are resolved (each, several lstat calls).
        stack = [("", fixtures, root)]
        while stack:
            prefix, folder, real = stack.pop()
            try:
                with os.scandir(folder) as listing:
                    entries = sorted(listing, key=lambda e: e.name)
            except OSError as exc:
                if not prefix:
                    raise UsageError(f"cannot read {fixtures}: {exc.strerror or exc}") from None
                walk.unused.append((prefix, f"cannot be read: {exc.strerror or exc}"))
                continue
            for entry in entries:
                walk._entry(prefix, entry, (root, real), follow_links, seen, stack)
        walk.files.sort(key=run_order)
        return walk

    def _entry(
        self,
        prefix: str,
        entry: os.DirEntry[str],
        roots: tuple[Path, Path],  # the fixtures folder's real path; the listed folder's
        follow_links: bool,
        seen: set[Path],
        stack: list[tuple[str, Path, Path]],
    ) -> None:
        rel = prefix + entry.name
        if self.ignored.matches(rel):  # before all else: not even a hidden file's note
            self.unused.append((rel + ("/" if _is_dir(entry) else ""), IGNORED))
            if not prefix:
                self.ignored_top.setdefault(_key_of(rel), rel)
            return
        if entry.name.startswith("."):
            tail = "/" if _is_dir(entry) else ""
            self.unused.append((rel + tail, "a hidden file or folder: not searched"))
            return
        if not _is_dir(entry) or self.traces.matches(rel):
            # Pipes, links and a folder named like a trace (x.json/) too: reading them
            # says what they are, as the case's error.
            self.files.append(rel)
            return
        root, real = roots
        link = entry.is_symlink()
        if link and not follow_links and not Path(entry.path).resolve().is_relative_to(root):
            if not prefix:
                self.outside.add(entry.name)
                self.top_folders.add(entry.name)
            self.unused.append(
                (
                    rel + "/",
                    "a link to a folder outside the fixtures folder: refused"
                    " (--follow-symlinks reads it)",
                )
            )
            return
        target = Path(entry.path).resolve() if link else real / entry.name
        if target in seen:
            self.unused.append((rel + "/", "a link to a folder already searched"))
            return
        seen.add(target)
        if not prefix:
            self.top_folders.add(entry.name)
        stack.append((rel + "/", Path(entry.path), target))


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def not_a_file(path: Path) -> str:
    """Why a path that is neither a regular file nor a folder cannot be read."""
    if path.exists():
        return f"{path}: not a regular file or folder (a device, pipe or socket)"
    return f"{path}: no such file or folder"


def _line_job(fixture: str, text: str, problem: str | None) -> Job:
    return Job(None, fixture, text=text, problem=problem)


def iter_jsonl(
    path: Path,
    shown: str,
    max_bytes: int = DEFAULT_MAX_TRACE_BYTES,
    job: Callable[[str, str, str | None], Job] = _line_job,
) -> Iterator[Job]:
    """One job per non-blank line, read lazily; the line's caseId picks its case. `job`
    makes each from the line's fixture, text and problem (by default a job of no case:
    the line names it).

    A line longer than `max_bytes` is read no further than the limit plus one byte; the rest
    is skipped in small reads while its size is counted, and the line becomes a job that
    reports it. So a 1 GiB line costs the limit in memory, not 2 GiB."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed by the generator
    except OSError as exc:
        raise UsageError(f"cannot read {shown}: {exc.strerror or exc}") from None
    with handle:
        number = 0
        while raw := handle.readline(max_bytes + 1):
            number += 1
            if len(raw) > max_bytes:
                yield job(f"{shown}:{number}", *_long_line(handle, raw, max_bytes))
            elif raw.strip():
                yield job(f"{shown}:{number}", raw.decode("utf-8", errors="surrogateescape"), None)


_SKIP_CHUNK = 1024 * 1024


def _long_line(handle: BinaryIO, head: bytes, limit: int) -> tuple[str, str]:
    """The text and problem of a line over the limit: the rest of it is read and dropped,
    counting."""
    size = len(head)
    chunk = head
    while not chunk.endswith(b"\n"):
        chunk = handle.readline(_SKIP_CHUNK)
        if not chunk:
            break
        size += len(chunk)
    problem = (
        f"the line is {size} bytes, over the limit of {limit} bytes; raise --max-trace-bytes"
        " to evaluate it"
    )
    # The start of the line is kept only to find the caseId it names.
    return head[:4096].decode("utf-8", errors="surrogateescape"), problem


def count_lines(path: Path) -> int | None:
    """Non-blank lines of a JSON Lines file (for a progress bar's total); None if unreadable."""
    count = 0
    blank = True  # the line being read has only whitespace so far
    try:
        with open(path, "rb") as handle:  # in blocks, so one huge line is never held whole
            while block := handle.read(_SKIP_CHUNK):
                *ended, rest = block.split(b"\n")
                for piece in ended:
                    count += not (blank and not piece.strip())
                    blank = True
                blank = blank and not rest.strip()
    except OSError:
        return None
    return count + (not blank)
