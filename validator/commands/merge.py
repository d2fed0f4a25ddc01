"""`merge`: the shard files of `run --shard I/N` -> the report set and exit code of the run.

Each shard file (`report/shard.py`) is read and checked (a shard file of this version, one
per shard, all of one run: the same count, suite and options), then the report is built by
the same code `run` uses (`build_report`, the baseline comparison, the gate) from the
shards' results records, with the places SARIF and annotations need and the HTML extras the
shards recorded. Gates and formats come from the shards (they were run with the flags), so
CI gates on the merged exit code exactly as on an unsharded run.

Merge trusts no recorded verdict: every run is judged again from its recorded checks and
their severities with the shards' gate (`RunResult.judged`), and a shard file whose statuses
disagree, or that lacks cases of its shard, is refused as damaged (exit 2, naming the case),
whatever --allow-partial says (that flag is about shards not given). Missing shards are found
as runs of numbers between the given ones, never by listing 1..N.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any, NoReturn

from ..dataclass import dataclass
from ..files import read_file
from ..inputs import display_path, run_order
from ..problems import UsageError, counted
from ..report import EXTRAS, needed, write_reports
from ..report.baseline import Baseline
from ..report.document import Report, build_report
from ..report.gate import Gate, exit_decision
from ..report.history import DEFAULT_DEPTH, History
from ..report.shard import (
    SHARD_FILE,
    SHARD_FORMAT,
    SHARD_KIND,
    RecordedSources,
    Shard,
    case_from,
    run_from,
    shard_of,
)
from ..results import ERROR, NOT_RUN, CaseResult, RunResult, Runs
from ..version import __version__
from . import gating, options
from .run import read_history
from .selection import Selection
from .summary import Terminal, print_summary, terminal_of
from .summary import step_summary as append_summary

# A shard of 100,000 cases with a baseline is a few hundred MB; far more is not a shard file.
MAX_SHARD_BYTES = 4 * 1024 * 1024 * 1024


@dataclass
class ShardInput:
    """One shard file, read and checked for its shape."""

    path: str  # as given, for messages
    shard: Shard
    data: dict[str, Any]

    @property
    def name(self) -> str:
        return f"{self.path} (shard {self.shard.text})"


def main(args: argparse.Namespace) -> int:
    return execute_merge(
        [Path(p) for p in args.reports],
        Path(args.out),
        allow_partial=args.allow_partial,
        annotations=args.annotations,
        terminal=terminal_of(args),
        sarif_root=options.sarif_root_of(args.sarif_root),
        sarif_docs_url=args.sarif_docs_url,
        step_summary=args.step_summary,
        history=options.history_of(args),
    )


def execute_merge(
    paths: list[Path],
    out: Path,
    *,
    allow_partial: bool = False,
    annotations: bool | None = None,
    terminal: Terminal | None = None,
    sarif_root: Path | None = None,
    sarif_docs_url: str | None = None,
    step_summary: bool = True,
    history: tuple[Path | None, int] = (None, DEFAULT_DEPTH),
) -> int:
    """`history`: --history DIR (None without it) and --history-depth N."""
    terminal = terminal or Terminal()
    shards = [read_shard(p) for p in paths]
    check_one_run(shards)
    gate = recorded_gate(shards[0])
    missing = missing_shards(shards, allow_partial)
    options = shards[0].data["options"]
    earlier = _history(history, options)
    report = merged_report(shards, gate)
    report.history = earlier.section(report.rows) if earlier is not None else None
    recorded = shards[0].data.get("sarif_root")
    if sarif_root is None and isinstance(recorded, str) and Path(recorded).is_dir():
        sarif_root = Path(recorded)  # where the shards found it (the same for each)
    report.sarif_root, report.sarif_docs_url = sarif_root, sarif_docs_url
    written = write_reports(report, out, list(options["formats"]))
    if step_summary:
        append_summary(report, written)
    code, reasons = exit_decision(report, gate)
    if not terminal.quiet:
        given = len(shards)
        print(f"merged {counted(given, 'shard report')} of {shards[0].shard.count}")
    allowed = "as the shard runs were told" if gate.allow_unmatched else None
    print_summary(report, written, terminal, allowed)
    gating.print_annotations(report, annotations)
    for reason in reasons:
        print(f"exit 1: {reason}")
    if missing:
        code = 1
        print(f"exit 1: {_ranges(missing, shards[0].shard.count)} not merged")
    return code


def _history(history: tuple[Path | None, int], options: dict[str, Any]) -> History | None:
    """--history DIR read, restricted to the shards' --case/--tag selection."""
    folder, depth = history
    if folder is None:
        return None
    try:
        keep = _selection(options)
    except (KeyError, TypeError, AttributeError):
        keep = None  # a damaged shard file: merged_report names it
    return read_history(folder, depth, keep)


def _selection(options: dict[str, Any]) -> Selection:
    selection = options["inputs"].get("selection") or {}
    return Selection(tuple(selection.get("cases", ())), tuple(selection.get("tags", ())))


def recorded_gate(shard: ShardInput) -> Gate:
    """The gate the shards were run with (they agree: `check_one_run`)."""
    try:
        return Gate.from_json(shard.data["options"]["gate"])
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(
            f"{shard.name} is damaged: its gate options cannot be read ({exc})",
            "run that shard again",
        ) from None


# --------------------------------------------------------------------------------------------
# Reading


def _locate(path: Path) -> Path:
    """A shard's folder or report.json -> its shard file beside it."""
    if path.is_dir():
        return path / SHARD_FILE
    if path.name != SHARD_FILE and not _is_shard_file(path):
        return path.with_name(SHARD_FILE)
    return path


def _is_shard_file(path: Path) -> bool:
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False  # a pipe or a device: `_load` refuses it (opening a FIFO would wait)
        with open(path, "rb") as handle:
            return SHARD_KIND.encode() in handle.read(200)
    except OSError:
        return False


def read_shard(given: Path) -> ShardInput:
    """A shard file, given as itself, its report.json or its folder. Raises UsageError."""
    shown = display_path(given)
    path = _locate(given)
    if not path.exists():
        if not given.exists():
            raise UsageError(f"{shown} does not exist", "pass the folders `run --shard` wrote")
        raise UsageError(
            f"{shown} is not a shard report: there is no {SHARD_FILE} beside it",
            "run each shard with `validator run --shard I/N`; it writes that file with the reports",
        )
    data = _load(path, display_path(path))
    shard = _shard_of(data, display_path(path))
    _not_overwritten(path.with_name("report.json"), shard)
    return ShardInput(display_path(path), shard, data)


def _not_overwritten(report: Path, shard: Shard) -> None:
    """The report.json beside a shard file must be that shard's: a later run into the same
    folder without --shard replaces the reports and leaves the shard file, which would then
    be merged silently in place of what the folder now holds."""
    if not report.is_file():
        return
    try:
        inputs = json.loads(report.read_bytes()).get("inputs") or {}
        ran = inputs.get("shard") if isinstance(inputs, dict) else None
    except (OSError, ValueError, RecursionError, AttributeError):
        ran = None
    if ran != shard.text:
        raise UsageError(
            f"{display_path(report)} is not the report of shard {shard.text} beside it:"
            f" {'it covers shard ' + str(ran) if ran else 'it was written without --shard'},"
            f" after the {SHARD_FILE} there",
            "run the shard again into its own folder",
        )


def _load(path: Path, shown: str) -> dict[str, Any]:
    try:
        text = read_file(path, MAX_SHARD_BYTES, "the shard file", shown).decode("utf-8")
        data = json.loads(text)
    except OSError as exc:
        raise UsageError(f"cannot read {shown}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{shown} is not UTF-8 text, so not a shard report") from None
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{shown} is not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg}),"
            " so not a shard report (was it cut short?)"
        ) from None
    except (RecursionError, ValueError):
        raise UsageError(f"{shown} is not a shard report (it nests too deeply)") from None
    if not isinstance(data, dict) or data.get("kind") != SHARD_KIND:
        raise UsageError(
            f"{shown} is not a shard report of trace-validator",
            f"pass what `validator run --shard I/N` wrote ({SHARD_FILE} beside report.json)",
        )
    return data


def _shard_of(data: dict[str, Any], shown: str) -> Shard:
    tool = data.get("tool")
    version = tool.get("version") if isinstance(tool, dict) else None
    if version != __version__ or data.get("format") != SHARD_FORMAT:
        raise UsageError(
            f"{shown} was written by trace-validator {version} (shard format"
            f" {data.get('format')}); this is {__version__} (shard format {SHARD_FORMAT})",
            "merge with the version that ran the shards, or run the shards again",
        )
    shard = data.get("shard")
    try:
        return Shard.parse(f"{shard['index']}/{shard['count']}")  # type: ignore[index]
    except (TypeError, KeyError, ValueError):
        raise UsageError(f"{shown} is damaged: its shard number is missing or wrong") from None


# --------------------------------------------------------------------------------------------
# Checking that the shards are of one run


def _ranges(gaps: list[tuple[int, int]], count: int) -> str:
    """`shard 2/9`, `shards 2/9, 4/9-7/9`: the runs of missing numbers, never one by one."""
    named = ", ".join(f"{a}/{count}" if a == b else f"{a}/{count}-{b}/{count}" for a, b in gaps)
    return f"{'shard' if sum(b - a + 1 for a, b in gaps) == 1 else 'shards'} {named}"


def check_one_run(shards: list[ShardInput]) -> None:
    """Raises UsageError naming the first difference: another count, a shard given twice,
    another suite, other options, a case in two shards or in the wrong one."""
    first = shards[0]
    seen: dict[int, ShardInput] = {}
    for other in shards:
        if other.shard.count != first.shard.count:
            raise UsageError(
                f"{first.name} and {other.name} are shards of different counts",
                "merge the shards of one run (the same N in --shard I/N)",
            )
        if other.shard.index in seen:
            raise UsageError(
                f"shard {other.shard.text} is given twice: {seen[other.shard.index].path} and"
                f" {other.path}",
                "pass each shard's report once",
            )
        seen[other.shard.index] = other
        _same_suite(first, other)
        _same_options(first, other)
    _cases_in_place(shards)


def _same_suite(first: ShardInput, other: ShardInput) -> None:
    a, b = first.data["suite"], other.data["suite"]
    ids_a = [c["id"] for c in a["cases"]]
    ids_b = [c["id"] for c in b["cases"]]
    if ids_a != ids_b:
        only_a = sorted(set(ids_a) - set(ids_b))
        only_b = sorted(set(ids_b) - set(ids_a))
        parts = [f"only {first.name} has {_few(only_a)}" if only_a else ""]
        parts.append(f"only {other.name} has {_few(only_b)}" if only_b else "")
        raise UsageError(
            "the shards were run on different cases: " + "; ".join(p for p in parts if p),
            "run every shard on the same cases (one checkout, the same --case/--tag)",
        )
    if a["digest"] != b["digest"]:
        raise UsageError(
            f"{first.name} and {other.name} were run on different case or spec files (same case"
            " ids, other contents)",
            "run every shard on one checkout",
        )


def _few(ids: list[str], limit: int = 5) -> str:
    shown = ", ".join(f"'{i}'" for i in ids[:limit])
    more = f" and {len(ids) - limit} more" if len(ids) > limit else ""
    return f"{'case' if len(ids) == 1 else 'cases'} {shown}{more}"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _same_options(first: ShardInput, other: ShardInput) -> None:
    a, b = first.data["options"], other.data["options"]
    for key in sorted(set(a) | set(b)):
        if a.get(key) == b.get(key):
            continue
        what, left, right = key, a.get(key), b.get(key)
        if key in ("inputs", "gate") and isinstance(left, dict) and isinstance(right, dict):
            inner = sorted(k for k in set(left) | set(right) if left.get(k) != right.get(k))
            if inner:  # a gate option by its own name, an input as inputs.NAME
                what = inner[0] if key == "gate" else f"inputs.{inner[0]}"
                left, right = left.get(inner[0]), right.get(inner[0])
        raise UsageError(
            f"{first.name} and {other.name} were run with different {what}: {_short(left)}"
            f" and {_short(right)}",
            "run every shard with the same flags and config",
        )


def _cases_in_place(shards: list[ShardInput]) -> None:
    owner: dict[str, ShardInput] = {}
    suite = {c["id"] for c in shards[0].data["suite"]["cases"]}
    for item in shards:
        for case in item.data["cases"]:
            case_id = case.get("case_id") if isinstance(case, dict) else None
            if case_id in owner:
                raise UsageError(
                    f"case '{case_id}' is in two shards: {owner[case_id].name} and {item.name}",
                    "merge the reports of one run's shards",
                )
            if case_id not in suite or shard_of(str(case_id), item.shard.count) != item.shard.index:
                raise UsageError(
                    f"{item.name} holds case '{case_id}', which is not one of its cases: the file"
                    " was changed or is damaged",
                    "run that shard again",
                )
            owner[str(case_id)] = item
    _none_left_out(shards, owner)


def _none_left_out(shards: list[ShardInput], present: dict[str, ShardInput]) -> None:
    """Every case of the suite that hashes to a given shard is in that shard's file: a case
    cut out of a file would otherwise be reported as if its shard had not been merged."""
    given = {s.shard.index: s for s in shards}
    count = shards[0].shard.count
    lacking: dict[int, list[str]] = {}
    for case in shards[0].data["suite"]["cases"]:
        index = shard_of(str(case["id"]), count)
        if index in given and case["id"] not in present:
            lacking.setdefault(index, []).append(str(case["id"]))
    for index, ids in sorted(lacking.items()):
        raise UsageError(
            f"{given[index].name} is damaged: it lacks {_few(ids)} of its shard",
            "run that shard again (--allow-partial is for shards not given, not damaged ones)",
        )


def missing_shards(shards: list[ShardInput], allow_partial: bool) -> list[tuple[int, int]]:
    """The shards not given, as runs of numbers (first, last): found from the given ones,
    so a merge of 2 shards of 10,000 never lists 9,998 numbers."""
    count = shards[0].shard.count
    given = sorted({s.shard.index for s in shards})
    gaps: list[tuple[int, int]] = []
    after = 0
    for index in [*given, count + 1]:
        if index > after + 1:
            gaps.append((after + 1, index - 1))
        after = index
    if gaps and not allow_partial:
        raise UsageError(
            f"{_ranges(gaps, count)} missing: {len(given)} of {count} given",
            "pass every shard's report (or --allow-partial: their cases are then not_run)",
        )
    for first, last in gaps:
        which = (
            f"shard {first}/{count} is missing: its cases are"
            if first == last
            else f"shards {first}/{count} to {last}/{count} are missing: their cases are"
        )
        left_out = ", and traces that match no case (shard 1 lists them) are left out"
        print(f"warning: {which} reported not_run{left_out * (first == 1)}", file=sys.stderr)
    return gaps


# --------------------------------------------------------------------------------------------
# The report


def merged_report(shards: list[ShardInput], gate: Gate) -> Report:
    try:
        return _merged(shards, gate)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UsageError(
            f"a shard report is damaged ({type(exc).__name__}: {exc}): it does not hold what"
            f" merge needs ({', '.join(s.path for s in shards)})",
            "run the shards again with this version",
        ) from None


def _merged(shards: list[ShardInput], gate: Gate) -> Report:
    shards = sorted(shards, key=lambda s: s.shard.index)
    first = shards[0].data
    options = first["options"]
    cases = _cases(shards, gate)
    unmatched: list[RunResult] = []
    if shards[0].shard.index == 1:
        unmatched = [run_from(r) for r in shards[0].data["unmatched"]]
        for run in unmatched:
            _rejudge(shards[0], run.case_id, run, gate)
    unused = _unused(shards)
    inputs = options["inputs"]
    baseline = _baseline(first, options, gate)
    quarantine = options["quarantine"]
    ks = options["ks"]
    report = build_report(
        cases,
        unmatched,
        inputs,
        baseline.comparison if baseline else None,
        unused,
        ks=tuple(ks) if ks is not None else None,
        quarantine=quarantine,
    )
    report.sources = RecordedSources(s.data["sources"] for s in shards if s.data["sources"])
    if needed(options["formats"], EXTRAS):
        report.extras = _extras(shards, cases)
    return report


def _cases(shards: list[ShardInput], gate: Gate) -> list[CaseResult]:
    """Every case of the run, in report order, each run judged again with the gate; a
    missing shard's cases not_run."""
    count = shards[0].shard.count
    results: dict[str, CaseResult] = {}
    for item in shards:
        for case in item.data["cases"]:
            result = results[case["case_id"]] = case_from(case)
            _case_rejudged(item, result, gate)
    return [
        results.get(c["id"]) or _not_merged(c, shard_of(c["id"], count), count)
        for c in shards[0].data["suite"]["cases"]
    ]


def _case_rejudged(item: ShardInput, case: CaseResult, gate: Gate) -> None:
    """Raises UsageError when the case's record does not support its status: a run whose
    status its checks and their severities do not give under the gate's --fail-severity, a
    case status set over its runs other than not_run or error (the only ones a run sets)."""
    if case.status_override not in (None, NOT_RUN, ERROR) or (
        case.status_override is not None and case.reason_override is None
    ):
        _damaged(item, case.case_id, f"its status {case.status_override!r} has no run behind it")
    if case.required_passes is not None and (
        type(case.required_passes) is not int or case.required_passes < 1
    ):
        _damaged(item, case.case_id, f"it requires {case.required_passes!r} passing runs")
    for run in case.runs:
        if run.case_id != case.case_id:
            _damaged(item, case.case_id, f"it holds a run of case {run.case_id!r}")
        _rejudge(item, case.case_id, run, gate)


def _rejudge(item: ShardInput, case_id: str, run: RunResult, gate: Gate) -> None:
    try:
        status = run.judged(gate.fail_severity)
    except ValueError as exc:
        _damaged(item, case_id, str(exc))
    if status != run.status:
        where = f"run {run.fixture}" if run.fixture else "a run"
        _damaged(
            item,
            case_id,
            f"{where} is recorded as {run.status!r}, but its checks give {status!r} with"
            f" --fail-severity {gate.fail_severity}",
        )


def _damaged(item: ShardInput, case_id: str, why: str) -> NoReturn:
    raise UsageError(
        f"{item.name} is damaged: case '{case_id}': {why}",
        "run that shard again (merge judges every run from its recorded checks)",
    )


def _extras(shards: list[ShardInput], cases: list[CaseResult]) -> dict[str, Any]:
    extras: dict[str, Any] = {}
    for item in shards:
        extras.update(item.data["extras"] or {})
    return {c.case_id: extras[c.case_id] for c in cases if c.case_id in extras}


def _not_merged(case: dict[str, Any], index: int, count: int) -> CaseResult:
    return CaseResult(
        case["id"],
        Runs(),
        case["file"],
        list(case["tags"]),
        NOT_RUN,
        f"not evaluated here: its shard {index}/{count} was not merged (--allow-partial)",
    )


def _unused(shards: list[ShardInput]) -> list[tuple[str, str]]:
    """The files no shard used: each shard lists the files not used by any case (a file of
    another shard's case is not listed), so the union is what one run lists."""
    seen: dict[tuple[str, str], None] = {}
    for item in shards:
        for file, why in item.data["unused"]:
            seen.setdefault((file, why), None)
    return sorted(seen, key=lambda u: run_order(u[0]))


def _baseline(first: dict[str, Any], options: dict[str, Any], gate: Gate) -> Baseline | None:
    recorded = first["baseline"]
    if recorded is None:
        return None
    keep = _selection(options)
    quarantine = options["quarantine"] or {}
    return Baseline(
        recorded["document"],
        recorded["source"],
        keep.keeps if keep else None,
        gate.max_regression,
        frozenset(quarantine),
    )


# --------------------------------------------------------------------------------------------
# The command line

MERGE_EPILOG = """\
examples:
  %(prog)s shard-1 shard-2 shard-3 --out reports
  %(prog)s shards/*/report.json --out reports

each REPORT is a folder written by `run --shard I/N`, its report.json, or its
report.shard.json. The shards must be of one run: the same N, the same cases and specs, the
same flags (formats, gates, --baseline, --quarantine, --k); every shard 1..N must be given
once, unless --allow-partial (the missing shards' cases are then not_run). Every run is
judged again from its recorded checks with the shards' gate: a shard file whose statuses
its checks do not give, or that lacks cases of its shard, is refused as damaged. The reports
are those `run` without --shard writes (the same bytes, apart from generated_at), in the
formats the shards were asked for, and the exit code applies the shards' gates.

exit codes: 0 every case passed (or the --fail-on gate holds); 1 as for run (a case failed,
            a gate did not hold, a shard missing with --allow-partial); 2 a REPORT that is
            not a shard report, of another version, damaged, a shard missing, given twice
            or of another run (nothing written)
"""


def build_parser(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Combine shard reports (run --shard I/N) into the report set and exit code an"
        " unsharded run of the same inputs gives."
    )
    parser.epilog = MERGE_EPILOG
    parser.add_argument(
        "reports",
        nargs="+",
        metavar="REPORT",
        help="a shard's output folder, report.json or report.shard.json; one per shard",
    )
    parser.add_argument(
        "--out",
        default="reports",
        metavar="DIR",
        help="where the merged reports are written (default: reports/)",
    )
    parser.add_argument(
        "--allow-partial",
        action="store_true",
        help="merge even when shards are missing: their cases are reported not_run",
    )
    options.annotations_option(parser)
    options.report_output_options(parser)
    options.history_options(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the summary line")
    options.verbose_option(parser)
    options.color_option(parser, "the statuses")
