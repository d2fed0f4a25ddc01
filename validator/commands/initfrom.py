"""`python -m validator init --from PATH [DIR]`: a passing agent-pack suite made from saved traces.

It looks at PATH (a trace file, or a folder of them), guesses how the traces are written
(one per file, one per JSON Lines line, a JSON Lines file as one session, a list inside a
file), which view adapter reads them and where each trace names its case, then writes
`validator.yaml` and one case per trace (the first MAX_CASES) whose agent-pack keys hold
what the trace's view shows, with a margin: so `run` passes at once and the user tightens
from there. Every guess is printed with its reason. Nothing is overwritten.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from dataclasses import field
from pathlib import Path
from typing import Any

from ..dataclass import dataclass
from ..evaluation.context import TraceContext
from ..evaluation.tracefile import CaseIdRule, TraceReader
from ..evaluation.view import detect, read_by_checks, unread_text
from ..inputs import Job, display_path, format_of, run_order
from ..model import TraceSettings
from ..problems import UsageError, counted
from ..traces import TraceError, parse_document, read_trace_file
from . import EXIT_OK
from .options import program

MAX_CASES = 20  # cases written at most; further traces are allowed unmatched
SUFFIXES = (".json", ".jsonl", ".ndjson")
# Adapters whose JSON Lines file is one session (one event a line), read with `group: file`.
SESSION_ADAPTERS = frozenset({"claude-code"})
# Keys a record may name its task by, tried in this order for `case_id`.
ID_KEYS = ("instance_id", "task_id", "caseId", "case_id", "question_id", "id")
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
HEAD_LINES = 50  # JSON Lines records read to guess a file's shape
MARGIN = 1.5  # budgets are what the trace used times this, rounded up


@dataclass
class Shape:
    """How one file holds its traces: `kind` is doc, split, lines or session."""

    kind: str
    adapter: str
    split: str | None = None
    records: list[Any] = field(default_factory=list)  # the records ids are guessed from
    why: str = ""
    members: list[Path] = field(default_factory=list)  # a folder's files (kind folder)


def _records_of(path: Path) -> tuple[str, Any]:
    """("jsonl", first records) or ("json", the document); raises TraceError or OSError."""
    if format_of(path.name) == "jsonl":
        records = []
        with open(path, "rb") as handle:
            for line in handle:
                if line.strip():
                    records.append(parse_document(line).value)
                if len(records) >= HEAD_LINES:
                    break
        return "jsonl", records
    return "json", read_trace_file(str(path), None).document


def _lines_shape(records: list[Any]) -> Shape | None:
    """The shape of a JSON Lines file from its first records: one session, or one run a line."""
    if not records:
        return None
    whole, first = detect(records), detect(records[0])
    if whole is not None and (first is None or whole in SESSION_ADAPTERS):
        why = "each line is one event of a session the adapter reads as a whole"
        return Shape("session", whole, why=why)
    if first is not None:
        return Shape("lines", first, records=records, why="each line is a whole run")
    return None


def _split_shape(document: Any) -> Shape | None:
    """The shape of a JSON file whose top-level key holds a list of runs (`traces.split`)."""
    if not isinstance(document, dict):
        return None
    for key, items in document.items():
        if isinstance(items, list) and items and all(isinstance(i, dict) for i in items):
            inner = detect(items[0])
            if inner is not None and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
                why = f"the file's {key!r} list holds one run per entry"
                return Shape("split", inner, f"$.{key}[*]", items, why)
    return None


def shape_of(path: Path) -> Shape | None:
    """The shape of one file's traces, or None when no adapter reads them."""
    try:
        fmt, value = _records_of(path)
    except (TraceError, OSError, ValueError, AttributeError):
        return None
    if fmt == "jsonl":
        return _lines_shape(value)
    adapter = detect(value)
    if adapter is not None:
        return Shape("doc", adapter, why="the file is one run")
    return _split_shape(value)


# The most files and folders that are not traces init names in `traces.ignore`: a folder
# with more (a folder of logs beside the traces) is better served by a glob the user writes.
MAX_IGNORED = 20


def _walk(root: Path) -> tuple[list[Path], list[str]]:
    """The trace-like files under `root` (a file: itself), in run order; and, as
    `traces.ignore` entries, the others a run would list as not used: the files no trace
    file by their name, and the hidden folders (`.git`), which a run does not search."""
    if root.is_file():
        return [root], []
    found: list[Path] = []
    others: list[str] = []
    for folder, dirs, names in os.walk(root):
        at = Path(folder).relative_to(root)
        others += [(at / d).as_posix() for d in dirs if d.startswith(".")]
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            if name.endswith(SUFFIXES):
                found.append(Path(folder) / name)
            else:
                others.append((at / name).as_posix())
    found.sort(key=lambda p: run_order(p.relative_to(root).as_posix()))
    return found, others


def _literal_glob(rel: str) -> str:
    """A path as a glob that matches it alone: `*`, `?` and `[` each in a set of its own."""
    return _GLOB_CHARACTER.sub(r"[\1]", rel)


_GLOB_CHARACTER = re.compile(r"([*?\[])")


def _event_folders(source: Path, files: list[Path]) -> dict[Path, Shape]:
    """Folders under `source` holding one event a file (`0.json`, `1.json`...) that an
    adapter reads only as a whole: each is one trace (`group: folder`)."""
    by_folder: dict[Path, list[Path]] = {}
    for path in files:
        if path.suffix == ".json" and path.stem.isdigit() and path.parent != source:
            by_folder.setdefault(path.parent, []).append(path)
    out: dict[Path, Shape] = {}
    for folder, members in by_folder.items():
        if len(members) < 2:
            continue
        try:
            events = [read_trace_file(str(p), None).document for p in members[:HEAD_LINES]]
        except (TraceError, OSError):
            continue
        adapter = detect(events)
        if adapter is not None and detect(events[0]) in (None, adapter):
            why = "a folder of numbered files, one event each, is one run"
            out[folder] = Shape("folder", adapter, why=why, members=members)
    return out


def _case_id(shape: Shape, shapes: list[Shape]) -> tuple[str, str]:
    """The `traces.case_id` setting and why."""
    if shape.kind == "folder":
        return "", "each folder is one case, named after its top folder"
    if shape.kind in ("doc", "session"):
        return "{file_stem}", "each file is one case, named after the file"
    for key in ID_KEYS:
        values = [r.get(key) for s in shapes for r in s.records if isinstance(r, dict)]
        if not values or any(v is None or isinstance(v, (dict, list, bool)) for v in values):
            continue
        texts = [str(v).lower() for v in values]
        if len(set(texts)) == len(texts) and all(_ID.match(t) for t in texts):
            return f"$.{key}", f"every record has a distinct {key!r}"
    return "{file_stem}-{index}", "the records name no distinct id: file name and position"


def _common_calls(views: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The most calls any run made, those of a tool every run called kept as they are, the
    others as `{}` (they count toward the budget, name no required tool)."""
    calls = [[c for c in v.get("tool_calls") or [] if isinstance(c, dict)] for v in views]
    common = set.intersection(*({str(c.get("name")) for c in run} for run in calls))
    most = max(calls, key=len)
    return [c for c in most if str(c.get("name")) in common] + [
        {} for c in most if str(c.get("name")) not in common
    ]


def _longest(views: list[dict[str, Any]]) -> float | None:
    """The longest duration of the runs, None when a run has none."""
    durations = [
        d for d in (v.get("duration_ms") for v in views)
        if isinstance(d, (int, float)) and not isinstance(d, bool)
    ]  # fmt: skip
    return max(durations) if len(durations) == len(views) else None


def _joined(views: list[dict[str, Any]]) -> dict[str, Any]:
    """One view whose case holds for every run of a case: the tools every run called, the
    most calls, the longest duration (none when a run has none), the first run's answer."""
    if len(views) == 1:
        return views[0]
    return {
        "tool_calls": _common_calls(views),
        "llm_calls": max((v.get("llm_calls") or [] for v in views), key=len),
        "duration_ms": _longest(views),
        "final_answer": views[0].get("final_answer"),
    }


def _globbed(rels: list[str], paths: list[Path], root: Path) -> list[str]:
    """`rels` as `*.SUFFIX` globs where every file of that suffix is one of them (a folder of
    a thousand traces gets one line), else as they are."""
    wanted = set(rels)
    out: list[str] = []
    for rel in rels:
        suffix = Path(rel).suffix
        same = [p.relative_to(root).as_posix() for p in paths if p.suffix == suffix]
        if suffix and "*" not in rel and all(r in wanted for r in same):
            if f"*{suffix}" not in out:
                out.append(f"*{suffix}")
        else:
            out.append(rel)
    return out


def _left_out(skipped: list[tuple[Path, Shape | None]], root: Path) -> list[str]:
    """What init leaves out, and how to make a suite of each other shape (one suite reads
    one shape: `traces.group`, `split` and `case_id` hold for every file)."""
    lines = []
    none = [f.relative_to(root).as_posix() for f, s in skipped if s is None]
    if none:
        lines.append(f"left out (not a trace an adapter reads): {', '.join(none[:8])}")
    for path, shape in skipped:
        if shape is None:
            continue
        rel = path.relative_to(root).as_posix() + ("/" if shape.kind == "folder" else "")
        # An event folder is found inside the folder given: give its parent.
        target = path.parent if shape.kind == "folder" and path.parent != root else path
        lines.append(
            f"left out (another shape, read by the {shape.adapter} adapter: {shape.why}):"
            f" {rel}; a suite reads one shape: make one for it with"
            f" {program()} init --from {display_path(target)} ANOTHER_DIR"
        )
    return lines


def _unread(view: dict[str, Any]) -> str:
    """What a view could not read of a kind checks read, in words ("" when nothing)."""
    entries = [e for e in view.get("unread") or [] if read_by_checks(e)]
    return unread_text(entries)


def _budget(value: float) -> int:
    return max(1, math.ceil(value * MARGIN))


def _case_text(case_id: str, view: dict[str, Any], source: str) -> str:
    calls = [c for c in view.get("tool_calls") or [] if isinstance(c, dict)]
    names = list(dict.fromkeys(str(c["name"]) for c in calls if c.get("name")))
    llm = view.get("llm_calls") or []
    duration = view.get("duration_ms")
    lines = [f"id: {json.dumps(case_id)}", f"description: made by init --from {json.dumps(source)}"]
    if isinstance(view.get("final_answer"), str) and view["final_answer"].strip():
        words = " ".join(view["final_answer"].split()[:12])
        lines.insert(0, f"# final answer begins: {words[:100]}")
    lines.append(f"required_tools: {json.dumps(names, ensure_ascii=False)}")
    if calls:
        lines.append(f"max_tool_calls: {_budget(len(calls))}  # it made {len(calls)}")
    if llm:
        lines.append(f"max_llm_calls: {_budget(len(llm))}  # it made {len(llm)}")
    if isinstance(duration, (int, float)) and not isinstance(duration, bool) and duration >= 0:
        lines.append(f"max_duration_ms: {_budget(duration)}  # it took {duration:g} ms")
    return "\n".join(lines) + "\n"


def _yaml_text(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


@dataclass
class Choice:
    """The one shape init makes a suite for (the most common one) and what it decided."""

    root: Path  # the folder patterns and fixtures are relative to
    paths: list[Path]  # every trace-like file under the source
    shaped: list[tuple[Path, Shape | None]]  # each file or event folder and its shape
    chosen: list[tuple[Path, Shape]]  # those of the chosen shape, in run order
    rels: list[str]  # their `traces.pattern` entries
    case_id: str  # the `traces.case_id` setting ("" for none)
    id_why: str
    # Files (and hidden folders) of the folder that are not traces: `traces.ignore`.
    others: list[str] = field(default_factory=list)

    @property
    def shape(self) -> Shape:
        return self.chosen[0][1]


def _shaped(source: Path, paths: list[Path]) -> list[tuple[Path, Shape | None]]:
    """Each file's shape, an event folder (`group: folder`) standing for its files."""
    folders = _event_folders(source, paths) if source.is_dir() else {}
    inside = {m for shape in folders.values() for m in shape.members}
    return [(f, shape_of(f)) for f in paths if f not in inside] + list(folders.items())


def choose_shape(source: Path) -> Choice:
    """The files under `source` of the shape most of them have, and their case id setting."""
    root = source if source.is_dir() else source.parent
    paths, others = _walk(source)
    shaped = _shaped(source, paths)
    kept = [(f, s) for f, s in shaped if s is not None]
    if not kept:
        raise UsageError(
            f"no file under {display_path(source)} holds traces a view adapter reads",
            "give a .json or .jsonl trace file, or a folder of them",
        )
    kinds = Counter((s.kind, s.adapter, s.split) for _, s in kept)
    top, _ = kinds.most_common(1)[0]
    chosen = [(f, s) for f, s in kept if (s.kind, s.adapter, s.split) == top]
    case_id, id_why = _case_id(chosen[0][1], [s for _, s in chosen])
    rels = [f.relative_to(root).as_posix() for f, _ in chosen]
    if top[0] == "folder":
        rels = [f"{rel}/*.json" for rel in rels]
    # With the folder's other files, those no adapter reads are no traces either.
    others += [f.relative_to(root).as_posix() for f, s in shaped if s is None and f.is_file()]
    others.sort(key=run_order)
    return Choice(root, paths, shaped, chosen, rels, case_id, id_why, others)


def _shape_guesses(choice: Choice) -> list[str]:
    """The guesses about the chosen shape, and what is left out, one line each."""
    shape = choice.shape
    guesses = [
        f"traces: {len(choice.chosen)} of {len(choice.shaped)} files, read by the"
        f" {shape.adapter} adapter: {shape.why}",
        f"case_id: {choice.case_id or 'none, by name'} ({choice.id_why})",
    ]
    guesses += _left_out(
        [(f, s) for f, s in choice.shaped if (f, s) not in choice.chosen], choice.root
    )
    guesses += [f"{key}: {value}" for key, value, _ in _grouping(shape)]
    others = choice.others
    if 0 < len(others) <= MAX_IGNORED:
        guesses.append(
            f"ignore: {', '.join(others)} (not traces: a run counts them, never reads them)"
        )
    elif others:
        guesses.append(
            f"{len(others)} files are not traces ({', '.join(others[:3])}, ...): a run lists"
            " each as not used; name them with globs in traces.ignore"
        )
    return guesses


def _grouping(shape: Shape) -> list[tuple[str, str, str]]:
    """The `traces` settings that say how the shape's files make runs: (key, value, why)."""
    settings = []
    if shape.split:
        settings.append(("split", shape.split, shape.why))
    if shape.kind == "session":
        settings.append(("group", "file", "every line of a file is one event of one run"))
    if shape.kind == "folder":
        settings.append(("group", "folder", "the numbered files of a folder are one run"))
    return settings


def config_text(choice: Choice, dest: Path, pattern: list[str], more: bool) -> str:
    """`validator.yaml` for the chosen shape; `more`: traces beyond the cases written."""
    shape = choice.shape
    fixtures = os.path.relpath(choice.root.resolve(), dest.resolve())
    config = [
        "# Made by `init --from`: edit the cases under cases/ to say what a run must do.",
        "cases: cases",
        f"fixtures: {_yaml_text(Path(fixtures).as_posix())}",
        "packs: [agent]",
        "traces:",
        f"  pattern: {json.dumps(pattern)}",
    ]
    if 0 < len(choice.others) <= MAX_IGNORED:
        config.append("  # Files of the folder that are not traces: counted, never read.")
        ignore = [_literal_glob(rel) for rel in choice.others]
        config.append(f"  ignore: {json.dumps(ignore, ensure_ascii=False)}")
    for key, value, why in _grouping(shape):  # a split is a JSONPath: quoted
        config.append(f"  {key}: {_yaml_text(value) if key == 'split' else value}  # {why}")
    if choice.case_id:
        config.append(f"  case_id: {_yaml_text(choice.case_id)}")
    config.append(f"  view: {shape.adapter}")
    config.append(
        f"  allow_unmatched: {'true' if more else 'false'}"
        + ("  # only the first cases were written" if more else "")
    )
    return "\n".join(config) + "\n"


@dataclass
class Walk:
    """What reading the chosen traces found: the runs of each case id (the first MAX_CASES
    ids), the traces read, the runs sharing an earlier id, the files left out as unread."""

    runs: dict[str, tuple[str, list[dict[str, Any]]]] = field(default_factory=dict)
    total: int = 0
    shared: int = 0
    unread: dict[str, str] = field(default_factory=dict)  # file -> what its view could not read


def _job(shape: Shape, path: Path, rel: str, root: Path) -> Job:
    """The job that reads one chosen file (or event folder) as `run` would."""
    if shape.kind == "folder":
        members = tuple((str(m), m.relative_to(root).as_posix()) for m in shape.members)
        return Job(None, rel, str(path), members=members, group=rel.rsplit("/", 1)[0])
    return Job(None, rel, str(path), group=rel if shape.kind == "session" else None)


def _take(walk: Walk, shape: Shape, trace: Any, rel: str, rule: CaseIdRule) -> None:
    """Count one trace of file `rel` into `walk`."""
    if trace.error is not None:
        return
    walk.total += 1
    if len(walk.runs) >= MAX_CASES:
        return
    found, _ = rule.case_id(trace.document, rel, trace.place)
    if shape.kind == "folder":
        found = rel.split("/", 1)[0].lower()
    if found is None:
        return
    view = TraceContext(trace.document, shape.adapter, None, trace.parent).view_document()
    if shape.kind != "lines" and shape.kind != "split" and _unread(view["view"]):
        walk.unread[rel] = _unread(view["view"])  # its file holds one trace: left out
        return
    if found in walk.runs:
        walk.shared += 1  # the same id as an earlier trace: another run of that case
        walk.runs[found][1].append(view["view"])
        return
    walk.runs[found] = (trace.label, [view["view"]])


def cases_from_traces(choice: Choice) -> Walk:
    """Read the chosen files' traces as `run` will (their settings) and gather their views."""
    shape = choice.shape
    settings = TraceSettings(
        pattern=tuple(choice.rels),
        split=shape.split,
        group={"session": "file", "folder": "folder"}.get(shape.kind),
        case_id=choice.case_id or None,
        view=shape.adapter,
        allow_unmatched=True,
    )
    reader = TraceReader(settings, lambda p: read_trace_file(p, None))
    rule = CaseIdRule(choice.case_id or "{file_stem}")
    walk = Walk()
    for (path, one), rel in zip(choice.chosen, choice.rels, strict=True):
        try:
            traces = list(reader.traces(_job(one, path, rel, choice.root)))
        except TraceError:
            continue
        for trace in traces:
            _take(walk, one, trace, rel, rule)
    return walk


def build(source: Path, dest: Path) -> tuple[dict[str, str], list[str]]:
    """The files to write (name -> text) and the guesses, one line each."""
    choice = choose_shape(source)
    guesses = _shape_guesses(choice)
    walk = cases_from_traces(choice)
    cases = {
        f"cases/{found}.yaml": _case_text(found, _joined(views), label)
        for found, (label, views) in walk.runs.items()
    }
    for rel, what in walk.unread.items():
        guesses.append(
            f"left out (its view could not read {what}: a check on it could pass without"
            f" seeing that, and lint warns view-unread): {rel}; add it to traces.pattern to"
            " check it anyway"
        )
    rels = [r for r in choice.rels if r not in walk.unread]
    if not rels:
        raise UsageError(
            f"no trace under {display_path(source)} is one its view reads whole",
            f"see what each leaves unread: {program()} query --view {choice.shape.adapter}"
            f" '$.view.unread' {display_path(source)}",
        )
    pattern = _globbed(rels, choice.paths, choice.root) if source.is_dir() else rels
    count, total = len(walk.runs), walk.total - len(walk.unread)
    more = total > count + walk.shared
    guesses.append(f"cases: {count} of {total} traces" + (" (the rest: unmatched)" if more else ""))
    if walk.shared:
        guesses.append(
            f"{counted(walk.shared, 'trace')} {'has' if walk.shared == 1 else 'have'} the case"
            " id of an earlier one: runs of that case, whose tools and budgets hold for every run"
        )
    return {"validator.yaml": config_text(choice, dest, pattern, more), **cases}, guesses


def write(source_text: str, dest: Path) -> int:
    """`init --from SOURCE DIR`: write the suite, print the guesses; the exit code."""
    source = Path(source_text)
    if not source.exists():
        raise UsageError(
            f"{source_text}: no such file or folder", "init --from TRACE_FILE_OR_FOLDER"
        )
    if dest.exists() and not dest.is_dir():
        raise UsageError(f"{display_path(dest)} exists and is not a folder")
    taken = [n for n in ("validator.yaml", "cases") if (dest / n).exists()]
    if taken:
        shown = ", ".join(display_path(dest / n) for n in taken)
        raise UsageError(
            f"not overwriting {shown}: nothing was written",
            f"run init in an empty folder ({program()} init --from {source_text} DIR), or remove them",
        )
    files, guesses = build(source, dest)
    for line in guesses:
        print(f"guessed {line}")
    for name, text in files.items():
        path = dest / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
    print(f"wrote {display_path(dest / 'validator.yaml')} and {counted(len(files) - 1, 'case')}")
    go = "" if display_path(dest) == "." else f"cd {display_path(dest)} && "
    print(f"next: {go}{program()} lint && {program()} run")
    return EXIT_OK
