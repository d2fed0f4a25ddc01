"""Where a one-process run's time goes, phase by phase: trace-validator against the reference.

    python bench/phases.py                    # shape 'cases', N=2000, 5 alternating repeats
    python bench/phases.py --shape runs --repeat 7

`bench/run.py` says how far apart the two are; this says where. Each repeat runs
`python -m validator run --jobs 1` and `bench/reference.py` as fresh processes on the same
generated corpus (bench/corpus.py), with a small bootstrap that times the functions each
phase is made of (wall clock, summed over calls) and prints the sums when the process
ends. A phase is one function's time, or a difference ("checks and results": the
evaluation less the Markdown and the trace reading inside it); "start-up" is everything
before the command's function is entered (the interpreter, the imports, the command line),
and "the rest" what no phase names, so each column adds up to its process's time.
The timers cost each process about 1 %; compare the two columns of one run.

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

# Run in the measured process before the command: wrap each (module, function, key), run
# the command, and print the sums (JSON) to the file named by PHASES_OUT when it ends,
# `os._exit` included (the validator leaves through it).
BOOTSTRAP = """
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
_exit = os._exit
def leave(code):
    dump()
    _exit(code)
os._exit = leave
for module, name, key in json.loads(sys.argv.pop(1)):
    wrap(module, name, key)
command = sys.argv.pop(1)
if command == "-m":
    import runpy
    sys.argv[0] = "validator"
    try:
        runpy.run_module(sys.argv.pop(1), run_name="__main__", alter_sys=True)
    finally:
        dump()
else:  # a script of bench/: its module, the one wrapped, runs its main()
    sys.argv[0] = command
    try:
        importlib.import_module(os.path.basename(command)[:-3]).main(sys.argv[1:])
    finally:
        dump()
"""

# (module, function, key) timed in each process; with `from x import f`, the name is
# wrapped where the caller looks it up.
TOOL_WRAPS = [
    ("validator.commands.run", "execute_run", "command"),
    ("validator.commands.run", "load_checked", "cases"),
    ("validator.commands.run", "find_traces", "plan"),
    ("validator.commands.run", "group_results", "evaluation"),
    ("validator.commands.run", "build_report", "report: build"),
    ("validator.commands.run", "write_reports", "report: write"),
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
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="trace-validator-phases-"))
    cases, fixtures, traces = write_corpus(work / "corpus", args.shape, args.n, args.seed)
    suite = ["--cases", str(cases), "--fixtures", str(fixtures)]
    tool = ["-m", "validator", "run", *suite, "--out", str(work / "out"), "--jobs", "1", "-q"]
    reference = [str(HERE / "reference.py"), *suite, "--out", str(work / "statuses.json")]
    samples: dict[str, list[dict]] = {"tool": [], "reference": []}
    for _ in range(args.repeat):
        samples["tool"].append(measure(tool, TOOL_WRAPS, work))
        samples["reference"].append(measure(reference, REFERENCE_WRAPS, work))
    print(
        f"shape '{args.shape}': {traces} traces; medians of {args.repeat} alternating runs,"
        f" milliseconds; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print(f"{'phase':34} {'validator':>10} {'reference':>10} {'difference':>11}")

    def rest(sums: dict) -> float:
        return float(sums["wall"] - sum(value(sums) for _, value in ROWS))

    rows = [*ROWS, ("the rest (selection, exit...)", rest), ("whole process", lambda s: s["wall"])]
    for label, value in rows:
        ours = statistics.median(value(s) for s in samples["tool"]) * 1e3
        theirs = statistics.median(value(s) for s in samples["reference"]) * 1e3
        print(f"{label:34} {ours:10.0f} {theirs:10.0f} {ours - theirs:+11.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
