"""Inputs: which case, spec and trace files a suite is made of, found the same way for `run`,
`lint` and the library.

Nothing here reads a file's content; it only finds files and plans which traces belong to
which case (`plan_fixtures`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .problems import UsageError, did_you_mean

CASE_SUFFIXES = (".yaml", ".yml")
JSONL_SUFFIXES = (".jsonl", ".ndjson")
TRACE_SUFFIX = ".json"


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
    left out."""
    return sorted(
        p
        for p in folder.rglob("*")
        if p.suffix in CASE_SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
        and p.is_file()
    )


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


@dataclass(frozen=True)
class Job:
    """One trace to evaluate: a file, or one line of a JSON Lines file (carried as text)."""

    case_id: str | None  # None: the trace's own caseId decides (JSON Lines)
    fixture: str  # how the report names it
    path: str | None = None
    text: str | None = None


AMBIGUOUS = "ambiguous"  # both <id>.json and <id>/ exist
OUTSIDE = "outside"  # <id>/ is a link to a folder outside the fixtures folder
NO_TRACE = "none"  # neither exists
EMPTY_FOLDER = "empty-folder"  # <id>/ holds no *.json


@dataclass
class Plan:
    """What a fixtures folder holds for each case, and what it holds that no case claims."""

    fixtures: Path | None = None
    shown: str = ""
    # Per case with traces: its id and its run files (None: the single file <id>.json).
    # Names only: Job objects are made one at a time, so a folder of 100,000 traces does not
    # hold 100,000 jobs in memory.
    sources: list[tuple[str, list[str] | None]] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)  # case id -> AMBIGUOUS, NO_TRACE...
    orphans: list[tuple[str, str]] = field(default_factory=list)  # (entry name, its stem)

    @property
    def job_count(self) -> int:
        return sum(1 if runs is None else len(runs) for _, runs in self.sources)

    def jobs(self) -> Iterator[Job]:
        assert self.fixtures is not None
        for case_id, runs in self.sources:
            if runs is None:
                path = self.fixtures / f"{case_id}{TRACE_SUFFIX}"
                yield Job(case_id, f"{self.shown}/{case_id}{TRACE_SUFFIX}", str(path))
                continue
            for name in runs:
                path = self.fixtures / case_id / name
                yield Job(case_id, f"{self.shown}/{case_id}/{name}", str(path))

    def missing_reason(self, case_id: str) -> str:
        """Why a case gets no run, as the report says it."""
        shown, kind = self.shown, self.missing[case_id]
        if kind == AMBIGUOUS:
            return (
                f"ambiguous fixtures: both {shown}/{case_id}.json and {shown}/{case_id}/ exist;"
                " keep one"
            )
        if kind == EMPTY_FOLDER:
            return f"no trace fixture: {shown}/{case_id}/ holds no *.json file"
        if kind == OUTSIDE:
            return (
                f"{shown}/{case_id}/ is a symbolic link to a folder outside {shown}: refused;"
                " copy the traces in, or pass --follow-symlinks to read them"
            )
        return f"no trace fixture: looked for {shown}/{case_id}.json and {shown}/{case_id}/*.json"


def plan_fixtures(
    case_ids: Collection[str],
    fixtures: Path,
    shown: str,
    known: Collection[str] | None = None,
    follow_links: bool = False,
) -> Plan:
    """`FIXTURES/<id>.json` (one run) or `FIXTURES/<id>/*.json` (several runs) per case.

    `known` is every case id of the suite before a --case/--tag selection: fixtures of cases
    left out on purpose are not orphans. A case folder that is a link to a folder outside
    the fixtures folder is refused unless `follow_links` (single trace files are checked
    when they are read, see `traces.read_trace_file`)."""
    plan = Plan(fixtures, shown)
    root = fixtures.resolve()
    for case_id in case_ids:
        has_single = os.path.lexists(fixtures / f"{case_id}{TRACE_SUFFIX}")
        folder = fixtures / case_id
        has_folder = folder.is_dir()
        if has_single and has_folder:
            plan.missing[case_id] = AMBIGUOUS
        elif has_folder and not follow_links and not _inside(folder, root):
            plan.missing[case_id] = OUTSIDE
        elif has_single:
            plan.sources.append((case_id, None))
        elif not has_folder:
            plan.missing[case_id] = NO_TRACE
        else:
            runs = sorted(
                (n for n in os.listdir(folder) if n.endswith(TRACE_SUFFIX)), key=run_order
            )
            if runs:
                plan.sources.append((case_id, runs))
            else:
                plan.missing[case_id] = EMPTY_FOLDER
    claimed = set(case_ids if known is None else known)
    for entry in sorted(fixtures.iterdir()):
        is_trace = entry.name.endswith(TRACE_SUFFIX)
        stem = entry.name[: -len(TRACE_SUFFIX)] if is_trace else entry.name
        if (is_trace or entry.is_dir()) and stem not in claimed:
            plan.orphans.append((entry.name, stem))
    return plan


def _inside(folder: Path, root: Path) -> bool:
    return not folder.is_symlink() or folder.resolve().is_relative_to(root)


_DIGITS = re.compile(r"(\d+)")


def run_order(name: str) -> tuple[tuple[int | str, ...], str]:
    """Sort key for a case's run files: numbers in names compare as numbers, so `run2.json`
    comes before `run10.json`; names equal as numbers (`run01`, `run1`) keep plain order.

    Splitting on digit runs puts text at even positions and numbers at odd ones, so two keys
    never compare a number with text."""
    parts = tuple(int(piece) if i % 2 else piece for i, piece in enumerate(_DIGITS.split(name)))
    return parts, name


def is_jsonl(path: Path) -> bool:
    return path.suffix in JSONL_SUFFIXES and path.is_file()


def not_a_file(path: Path) -> str:
    """Why a path that is neither a regular file nor a folder cannot be read."""
    if path.exists():
        return f"{path}: not a regular file or folder (a device, pipe or socket)"
    return f"{path}: no such file or folder"


def iter_jsonl(path: Path, shown: str) -> Iterator[Job]:
    """One job per non-blank line, read lazily; the line's caseId picks its case."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed by the generator
    except OSError as exc:
        raise UsageError(f"cannot read {shown}: {exc.strerror or exc}") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            text = raw.decode("utf-8", errors="surrogateescape")
            yield Job(None, f"{shown}:{number}", text=text)


def count_lines(path: Path) -> int | None:
    """Non-blank lines of a JSON Lines file (for a progress bar's total); None if unreadable."""
    count = 0
    try:
        with open(path, "rb") as handle:
            for raw in handle:
                if raw.strip():
                    count += 1
    except OSError:
        return None
    return count
