"""Where a run's time goes, phase by phase: trace-validator against the reference.

    python bench/phases.py                    # shape 'cases', N=2000, 5 alternating repeats
    python bench/phases.py --shape runs --repeat 7
    python bench/phases.py --jobs 2           # what the first process does alone, and when

`bench/run.py` says how far apart the two are; this says where. Each repeat runs
`python -m validator run --jobs 1` and `bench/reference.py` as fresh processes on the same
generated corpus (bench/corpus.py), with a small bootstrap that times the functions each
phase is made of (wall clock, summed over calls) and prints the sums when the process
ends. A phase is one function's time, or a difference ("checks and results": the
evaluation less the Markdown and the trace reading inside it); "start-up" is everything
before the command's function is entered (the interpreter, the imports, the command line),
and "the rest" what no phase names, so each column adds up to its process's time.
The timers cost each process about 1 %; compare the two columns of one run.

With `--jobs 2` both programs run with two processes and the table is the first process's
timeline, which is what the wall clock is: what it does alone before its first fork, the
parallel phase (from that fork to the join: the tool's last case file back, the
reference's pool done), and what it does alone after the join. The serial part, all but
the parallel phase, is what keeps two processes from halving a run.

It names the validator's internal functions (`load_checked`, `group_results`, ...): a
rename there fails this script with the name it no longer finds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from corpus import write_corpus  # noqa: E402

PY = sys.executable

# The end of a bootstrap, once it has defined `wrap(module, name, key)` and `dump()`: wrap
# each (module, function, key) the command line gives as JSON, run the command (`-m module
# ...`, or a script of bench/ whose module runs its main()), and dump when it ends,
# `os._exit` included (the validator leaves through it). bench/instructions.py's ends so too.
RUN_WRAPPED = """
_exit = os._exit
def leave(code):
    dump()
    _exit(code)
os._exit = leave
for module, name, key in json.loads(sys.argv.pop(1)):
    wrap(module, name, key)
command = sys.argv.pop(1)
sys.argv[0] = "validator" if command == "-m" else command
try:
    if command == "-m":
        import runpy
        runpy.run_module(sys.argv.pop(1), run_name="__main__", alter_sys=True)
    else:
        importlib.import_module(os.path.basename(command)[:-3]).main(sys.argv[1:])
finally:
    dump()
"""

# Run in the measured process before the command: time each (module, function, key), and
# print the sums (JSON) to the file named by PHASES_OUT when the command ends.
BOOTSTRAP = (
    """
import importlib, json, os, sys, time
T0 = time.perf_counter()
SUMS = {}
def wrap(module, name, key):
    mod = importlib.import_module(module)
    original = getattr(mod, name)  # AttributeError: the function was renamed
    def timed(*args, **kwargs):
        start = time.perf_counter()
        SUMS.setdefault(key + " entered", start - T0)
        try:
            return original(*args, **kwargs)
        finally:
            SUMS[key] = SUMS.get(key, 0.0) + time.perf_counter() - start
    setattr(mod, name, timed)
def dump():
    if os.getpid() == PID:
        SUMS["seen"] = time.perf_counter() - T0
        with open(os.environ["PHASES_OUT"], "w") as out:
            json.dump(SUMS, out)
PID = os.getpid()
_fork = os.fork
def fork():
    pid = _fork()
    if pid and os.getpid() == PID:
        SUMS.setdefault("first fork", time.perf_counter() - T0)
    return pid
os.fork = fork
"""
    + RUN_WRAPPED
)

# (module, function, key) timed in each process; with `from x import f`, the name is
# wrapped where the caller looks it up.
_RUN, _FUSED = "validator.commands.run", "validator.commands.fused"
# What the run command does around the evaluation, timed the same way with any --jobs.
_RUN_STEPS = [
    (_RUN, "execute_run", "command"),
    (_RUN, "find_traces", "plan"),
    (_RUN, "build_report", "report: build"),
    (_RUN, "write_reports", "report: write"),
]
TOOL_WRAPS = [
    *_RUN_STEPS,
    (_RUN, "load_checked", "cases"),
    (_RUN, "group_results", "evaluation"),
    ("validator.evaluation.context", "normalize_markdown_ex", "markdown"),
    ("validator.traces", "parse_document", "reading"),
]
REFERENCE_WRAPS = [
    ("reference", "run", "command"),
    ("reference", "load_cases", "cases"),
    ("reference", "_evaluate_cases", "evaluation"),
    ("reference", "normalize_markdown", "markdown"),
    ("json", "loads", "reading"),
]

# The rows of the table: (label, how it is computed from the sums).
ROWS = [
    ("start-up: until the command begins", lambda s: s["wall"] - s["seen"] + s["command entered"]),
    ("case files: read, checked, built", lambda s: s["cases"]),
    ("traces: parsed", lambda s: s["reading"]),
    ("Markdown and text normalization", lambda s: s["markdown"]),
    ("checks and results", lambda s: s["evaluation"] - s["markdown"] - s["reading"]),
    ("plan of the fixtures", lambda s: s.get("plan", 0.0)),
    ("report: rows built", lambda s: s.get("report: build", 0.0)),
    ("report: files written", lambda s: s.get("report: write", 0.0)),
]

# With --jobs 2: the first process's timeline. The join is where the tool's fused phase
# hands its case files to the cross-file rules (`_suite`), and where the reference's `run`
# returns (its pool has sent every result).
PARALLEL_TOOL_WRAPS = [
    *_RUN_STEPS,
    (_FUSED, "pre_plan", "pre-plan"),
    (_FUSED, "read_specs", "specs"),
    (_FUSED, "_suite", "cross-file"),
    (_RUN, "group_results", "grouping"),
]
PARALLEL_REFERENCE_WRAPS = [("reference", "run", "command")]


def _join(s: dict) -> float:
    if "cross-file entered" in s:
        return float(s["cross-file entered"])
    return float(s["command entered"] + s["command"])


def _after_join(s: dict) -> float:
    named = ("cross-file", "plan", "grouping", "report: build", "report: write")
    return float(s["seen"] - _join(s) - sum(s.get(key, 0.0) for key in named))


PARALLEL_ROWS = [
    ("start-up: until the command begins", ROWS[0][1]),
    ("alone: pre-plan of the fixtures", lambda s: s.get("pre-plan", 0.0)),
    ("alone: spec files", lambda s: s.get("specs", 0.0)),
    (
        "alone: the rest until the fork",
        lambda s: s["first fork"] - s["command entered"] - s.get("pre-plan", 0) - s.get("specs", 0),
    ),
    ("parallel phase: fork to join", lambda s: _join(s) - s["first fork"]),
    ("alone: cross-file rules", lambda s: s.get("cross-file", 0.0)),
    ("alone: plan of the fixtures", lambda s: s.get("plan", 0.0)),
    ("alone: grouping", lambda s: s.get("grouping", 0.0)),
    ("alone: report rows built", lambda s: s.get("report: build", 0.0)),
    ("report files (two processes)", lambda s: s.get("report: write", 0.0)),
    ("alone: the rest after the join", _after_join),
]


def measure(command: list[str], wraps: list[tuple[str, str, str]], cwd: Path) -> dict:
    """One fresh process of `command` (`-m module ...` or `script.py ...`), timed."""
    out = cwd / "phases.json"
    env = {**os.environ, "PHASES_OUT": str(out), "PYTHONPATH": f"{REPO}:{HERE}"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # timed as installed: .pyc written and used
    start = time.perf_counter()
    done = subprocess.run(
        [PY, "-c", BOOTSTRAP, json.dumps(wraps), *command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1) or not out.exists():
        sys.exit(f"{' '.join(command)} ended with {done.returncode}:\n{done.stderr[-2000:]}")
    sums = json.loads(out.read_text())
    sums["wall"] = wall
    return sums


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=("cases", "runs"), default="cases")
    parser.add_argument("--n", type=int, default=2000, help="traces (default 2000)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, choices=(1, 2), default=1, help="processes of both")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="trace-validator-phases-"))
    cases, fixtures, traces = write_corpus(work / "corpus", args.shape, args.n, args.seed)
    suite = ["--cases", str(cases), "--fixtures", str(fixtures)]
    jobs = ["--jobs", str(args.jobs)]
    tool = ["-m", "validator", "run", *suite, "--out", str(work / "out"), *jobs, "-q"]
    reference = [str(HERE / "reference.py"), *suite, "--out", str(work / "statuses.json")]
    reference += jobs
    table, wraps = (ROWS, (TOOL_WRAPS, REFERENCE_WRAPS)) if args.jobs == 1 else PARALLEL
    samples: dict[str, list[dict]] = {"tool": [], "reference": []}
    for _ in range(args.repeat):
        samples["tool"].append(measure(tool, wraps[0], work))
        samples["reference"].append(measure(reference, wraps[1], work))
    print(
        f"shape '{args.shape}': {traces} traces, --jobs {args.jobs}; medians of {args.repeat}"
        " alternating runs, milliseconds; load average"
        f" {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print(f"{'phase':34} {'validator':>10} {'reference':>10} {'difference':>11}")

    def rest(sums: dict) -> float:
        return float(sums["wall"] - sum(value(sums) for _, value in table))

    rows = [*table, ("the rest (selection, exit...)", rest), ("whole process", lambda s: s["wall"])]
    if args.jobs > 1:
        rows.append(("of which alone (all but parallel)", lambda s: s["wall"] - _parallel(s)))
    for label, value in rows:
        ours = statistics.median(value(s) for s in samples["tool"]) * 1e3
        theirs = statistics.median(value(s) for s in samples["reference"]) * 1e3
        print(f"{label:34} {ours:10.0f} {theirs:10.0f} {ours - theirs:+11.0f}")
    return 0


PARALLEL = (PARALLEL_ROWS, (PARALLEL_TOOL_WRAPS, PARALLEL_REFERENCE_WRAPS))


def _parallel(s: dict) -> float:
    return float(_join(s) - s["first fork"])


if __name__ == "__main__":
    sys.exit(main())
