"""Where a trace's evaluation goes, in instructions: trace-validator against the reference.

    python bench/instructions.py                  # both shapes, 200 traces each
    python bench/instructions.py --shape runs --n 100 --no-whole

Seconds on a shared machine vary by 20 % from one run to the next; the instructions
callgrind (valgrind) counts do not: the same program, inputs and hash seed give the same
count whatever else the machine is doing, so a change worth 1 % shows as 1 %. This script
prints two tables, each from fresh processes run under `valgrind --tool=callgrind`:

- the evaluation alone, per trace: the reference's `evaluate` and the tool's `Evaluator`
  on the same parsed traces, each of the tool's runs compacted as a run compacts it (runs
  the compaction reduces are evaluated briefly), with the Markdown and text normalization
  (the same functions in both) memoized, so what is left is each program's own work. One
  process warms both up (programs compiled, texts normalized), then evaluates every trace
  `--loops` times per row, calling `os.getppid()` between rows: callgrind writes what it
  counted at each such call (`--dump-before`), so each row is its own count, divided by the
  traces evaluated.
  The tool's rows: with no check (reading the case id, the report's figures, the run's
  record), then each standard check alone, as its cost on top of that row; those add up to
  more than all checks together, which share what a trace's context caches (the verdict's
  query, the answer's normalized text).
- the whole process (`run -q --jobs 1` and `bench/reference.py`), phase by phase: a
  small bootstrap marks where each phase's function is entered and left (os.getppid
  again), so the table says how many instructions each program spends before its first
  phase (the interpreter, the imports, the command line), reading the case files, planning
  which trace files are whose, reading, evaluating and grouping the traces, making the
  report's rows and writing its files, and in the rest. The reference lists each case's
  trace files inside its evaluation.

It needs valgrind (Debian's package `valgrind`); both shapes take about three minutes,
most of it the whole-process table (`--no-whole` leaves it out). Figures go to
bench/RESULTS.md with the commit they were counted on.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from validator.evaluation.evaluator import Planned
    from validator.model import Case

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PY = sys.executable

NO_CHECK = "(no check)"
_COLLECTED = re.compile(r"Collected : (\d+)")


# --------------------------------------------------------------------------------------------
# In the measured process: load, parse, memoize the normalization, warm up, then each section
# between two calls of os.getppid, where callgrind writes what it counted so far
# (`--dump-before`): one process gives every row, in SECTIONS' order.

MARK = "os_getppid"  # the C function whose every call ends a section


def standard_checks() -> list[str]:
    """The checks the corpus's cases apply: the standard specs' default checks that need no
    input a case may leave out (`when_input`), by id."""
    from validator.inputs import standard_spec_folders
    from validator.loading.suite import load_specs

    specs, _ = load_specs(standard_spec_folders())
    return sorted(s.id for s in specs.values() if s.default and s.when_input is None)


def sections() -> list[tuple[str, str | None]]:
    """(who, the one check kept) of each counted section, in order; None: every check."""
    checks = standard_checks()
    return [("reference", None), ("tool", NO_CHECK), *(("tool", c) for c in checks), ("tool", None)]


def measure(root: Path, loops: int) -> dict[tuple[str, str | None], list[str]]:
    """Evaluate the corpus's traces with the reference and with the tool (all checks), once
    to warm up, then `loops` times for each section, calling os.getppid() before each
    section and after the last. Returns each section's statuses (tests compare them)."""
    from validator.api import load_suite
    from validator.evaluation import compaction, evaluator

    sys.path.insert(0, str(HERE))
    import reference
    from corpus import read_traces

    memoize_normalization(reference)

    only: list[str | None] = [None]
    planned = evaluator.Evaluator._planned  # AttributeError: renamed, and this says which

    def kept(self: evaluator.Evaluator, case: Case) -> list[Planned]:
        plan = planned(self, case)
        return plan if only[0] is None else [e for e in plan if _check_id(e) == only[0]]

    evaluator.Evaluator._planned = kept  # type: ignore[method-assign]
    suite = load_suite(root / "cases")
    cases = reference.load_cases(root / "cases")
    traces = read_traces(root)

    def tool() -> list[str]:
        # As a run evaluates: each run compacted as it is made, the compaction telling the
        # evaluator what it will keep of the next (runs it will reduce are evaluated briefly).
        run, compact = evaluator.Evaluator(suite), compaction.Compactor()
        brevity = compact.brevity
        return [
            compact(run.evaluate(trace, case_id, name, brevity=brevity)).status
            for case_id, name, trace in traces
        ]

    def theirs() -> list[str]:
        return ["fail" if reference.evaluate(cases[c], t) else "pass" for c, _, t in traces]

    tool()
    theirs()
    statuses = {}
    for who, check in sections():
        only[0] = check
        os.getppid()
        for _ in range(loops):
            statuses[who, check] = theirs() if who == "reference" else tool()
    os.getppid()
    return statuses


def memoize_normalization(reference: ModuleType) -> None:
    """The same normalization functions in both programs (the tool's and `reference`, the
    module bench/reference.py), each text normalized once per process, so what is measured
    is each program's own work."""
    from validator.evaluation import context

    context.normalize_markdown_ex = lru_cache(None)(context.normalize_markdown_ex)
    context.normalize_plain = lru_cache(None)(context.normalize_plain)
    reference.normalize_markdown = lru_cache(None)(reference.normalize_markdown)
    reference.keyword = lru_cache(None)(reference.normalize_plain)


def _check_id(entry: Planned) -> str:
    program, check = entry[0], entry[1]
    return str(check) if program is not None else str(check.check)


# --------------------------------------------------------------------------------------------
# The parent: corpora, callgrind, tables


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": f"{REPO}"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # counted as installed: .pyc written and used
    return env


def counted(
    command: list[str], cwd: Path, dumps: Path | None = None, env: dict[str, str] | None = None
) -> int:
    """Instructions callgrind counts for one process of `command` (children not followed);
    with `dumps`, a file per section there as well (`--dump-before`)."""
    out = ["--callgrind-out-file=/dev/null"]
    if dumps is not None:
        out = [f"--callgrind-out-file={dumps}/cg", f"--dump-before={MARK}"]
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", *out, *command],
        cwd=cwd,
        env=env or _env(),
        capture_output=True,
        text=True,
        check=False,
    )
    found = _COLLECTED.search(done.stderr)
    if done.returncode not in (0, 1) or found is None:
        sys.exit(f"{' '.join(command)} ended with {done.returncode}:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def evaluation_table(root: Path, traces: int, loops: int) -> None:
    dumps = root / "dumps"
    dumps.mkdir()
    counted([PY, str(Path(__file__).resolve()), "--child", str(root), str(loops)], root, dumps)
    # cg.1 is everything before the first section; cg.2 .. are the sections; cg, the rest.
    totals = []
    for number in range(2, len(sections()) + 2):
        text = (dumps / f"cg.{number}").read_text()
        totals.append(int(re.search(r"^totals: (\d+)", text, re.M).group(1)))  # type: ignore[union-attr]
    cost = {key: total / (traces * loops) for key, total in zip(sections(), totals, strict=True)}
    reference_cost = cost["reference", None]
    base = cost["tool", NO_CHECK]
    print(f"{'evaluation, per trace':40} {'instructions':>13} {'vs reference':>13}")
    for (who, check), value in cost.items():
        if who == "reference":
            label = "reference: evaluate()"
        elif check == NO_CHECK:
            label = f"tool: {NO_CHECK}"
        elif check is None:
            label = "tool: all checks"
        else:
            label, value = f"tool: + {check}", value - base
        print(f"{label:40} {value:13,.0f} {value / reference_cost:12.2f}x")


# The whole process, phase by phase: the functions each phase is (none inside another), by
# (module, function, phase). The reference lists a case's trace files inside its evaluation.
_RUN = "validator.commands.run"
TOOL_PHASES = [
    (_RUN, "load_checked", "case files: read, checked, built"),
    (_RUN, "find_traces", "plan of the fixtures"),
    (_RUN, "group_results", "traces: read, evaluated, grouped"),
    (_RUN, "build_report", "report: rows built"),
    (_RUN, "write_reports", "report: files written"),
]
REFERENCE_PHASES = [
    ("reference", "load_cases", "case files: read, checked, built"),
    ("reference", "_evaluate_cases", "traces: read, evaluated, grouped"),
]
START_UP, REST = "start-up: until the first phase", "the rest (between, exit)"

# Run in the measured process before the command: each phase's function calls os.getppid
# when it is entered and when it returns (callgrind writes a section at each call), and
# the phases entered and left, in order, go to the file named by PHASES_OUT at the end
# (bench/phases.py's RUN_WRAPPED runs the command).
PHASE_MARKS = """
import importlib, json, os, sys
EVENTS = []
def wrap(module, name, phase):
    mod = importlib.import_module(module)
    original = getattr(mod, name)  # AttributeError: the function was renamed
    def marked(*args, **kwargs):
        os.getppid(); EVENTS.append(phase)
        try:
            return original(*args, **kwargs)
        finally:
            os.getppid(); EVENTS.append(None)
    setattr(mod, name, marked)
def dump():
    with open(os.environ["PHASES_OUT"], "w") as out:
        json.dump(EVENTS, out)
"""


def phase_command(wraps: list[tuple[str, str, str]], command: list[str]) -> list[str]:
    """`command` (`-m module ...` or `script.py ...`) run with its phases marked."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    from phases import RUN_WRAPPED

    return [PY, "-c", PHASE_MARKS + RUN_WRAPPED, json.dumps(wraps), *command]


def by_phase(events: list[str | None], sections: list[int]) -> dict[str, int]:
    """Instructions by phase, from the phases entered (a name) and left (None), in order,
    and the sections callgrind wrote: one ending at each mark, then the rest."""
    totals = {START_UP: 0}
    phase = START_UP
    for event, count in zip([*events, None], sections, strict=True):
        totals[phase] = totals.get(phase, 0) + count
        phase = event if event is not None else REST
    return totals


def _phases_counted(
    root: Path, wraps: list[tuple[str, str, str]], command: list[str]
) -> dict[str, int]:
    dumps, events = Path(tempfile.mkdtemp(dir=root)), root / "phases.json"
    env = {**_env(), "PHASES_OUT": str(events), "PYTHONPATH": f"{REPO}:{HERE}"}
    counted(phase_command(wraps, command), root, dumps, env)
    marks = json.loads(events.read_text())
    # cg.1 .. cg.N: up to each mark; cg: what follows the last.
    names = [f"cg.{number}" for number in range(1, len(marks) + 1)] + ["cg"]
    sections = [
        int(re.search(r"^totals: (\d+)", (dumps / n).read_text(), re.M).group(1))  # type: ignore[union-attr]
        for n in names
    ]
    return by_phase(marks, sections)


def whole_table(root: Path, traces: int) -> None:
    out = root / "out"
    tool = _phases_counted(
        root, TOOL_PHASES, ["-m", "validator", "run", "-q", "--jobs", "1", "--out", str(out)]
    )
    theirs = _phases_counted(
        root,
        REFERENCE_PHASES,
        [str(HERE / "reference.py"), "--cases", "cases", "--fixtures", "fixtures"],
    )
    print(f"{'whole process (--jobs 1)':40} {'tool':>15} {'reference':>15} {'difference':>15}")
    labels = [START_UP, *(phase for _, _, phase in TOOL_PHASES), REST]
    for label in labels:
        ours, other = tool.get(label, 0), theirs.get(label, 0)
        print(f"{label:40} {ours:15,} {other:15,} {ours - other:+15,}")
    ours, other = sum(tool.values()), sum(theirs.values())
    print(f"{'whole process':40} {ours:15,} {other:15,} {ours - other:+15,}")
    print(
        f"tool/reference {ours / other:.3f}; per trace: tool {ours / traces:,.0f},"
        f" reference {other / traces:,.0f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="traces per shape (default 200)")
    parser.add_argument("--loops", type=int, default=2, help="passes counted (default 2)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--shape", choices=("cases", "runs"), action="append")
    parser.add_argument("--no-whole", action="store_true", help="no whole-process table")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:  # in the measured process: the corpus, the loops
        statuses = measure(Path(args.child[0]), int(args.child[1]))
        # After the last section, so not counted: what each section gave, for the tests.
        print(json.dumps([[who, check, found] for (who, check), found in statuses.items()]))
        return 0
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed: apt-get install valgrind")
    sys.path.insert(0, str(HERE))
    from corpus import write_corpus

    print(
        f"callgrind instructions, N={args.n}, seed={args.seed}, hash seed 0, Python {sys.version.split()[0]}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shape or ["cases", "runs"]:
            root = Path(tmp) / shape
            _, _, traces = write_corpus(root, shape, args.n, args.seed)
            print(f"\n== shape '{shape}': {traces} traces")
            evaluation_table(root, traces, args.loops)
            if not args.no_whole:
                whole_table(root, traces)
    return 0


if __name__ == "__main__":
    sys.exit(main())
