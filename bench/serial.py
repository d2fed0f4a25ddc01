"""The parallel shape of `run --jobs N`, in CPU seconds, so that a busy machine does not blur it.

    python bench/serial.py                    # both corpus shapes, N=2000, 3 alternating runs
    python bench/serial.py --shape cases --repeat 5 --jobs 2
    python bench/serial.py --against ../main   # also another checkout, alternating with this

Each measurement is a fresh process running the command line in-process, with `os.fork` and
`os.waitpid` watched: while no child process is alive, this process's CPU time is the
*serial part* (imports, the spec files, the cross-file rules, grouping, the report); while
children are alive it is a *section* (loading, evaluation, writing), whose length on idle
cores is the longest of this process's CPU time and the children's. So

    estimated wall on idle cores = serial + sum over sections of max(own, children)

which, unlike the wall clock, other processes on the machine hardly change; and how long
this process was blocked in sections (wall time neither on a CPU nor waiting for one, from
/proc/self/schedstat: waiting for a child that was busy, or itself waiting for a CPU on a
busy machine, so an upper bound of the idle time an even balance would save). It also prints
the overhead of going parallel (CPU seconds of --jobs N less those of --jobs 1) and the real
wall times with `uptime`, for what they are worth on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import write_corpus  # noqa: E402

# Runs in the measured process: the command line with fork/waitpid watched.
PROBE = r"""
import json, os, resource, sys, time
wall0 = time.perf_counter()
alive, sections, state = set(), [], {"own": 0.0, "kids": 0.0, "idle": 0.0}

def idle():
    # Wall time not spent on a CPU nor waiting for one: blocked (on a pipe, a child).
    try:
        on_cpu, queued = map(int, open("/proc/self/schedstat").read().split()[:2])
    except OSError:
        return 0.0
    return time.perf_counter() - (on_cpu + queued) / 1e9

def kids():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

real_fork, real_waitpid = os.fork, os.waitpid
def fork():
    if not alive:
        state["own"], state["kids"], state["idle"] = time.process_time(), kids(), idle()
    pid = real_fork()
    if pid:
        alive.add(pid)
    else:
        alive.clear()
    return pid
def waitpid(pid, options):
    got = real_waitpid(pid, options)
    if got[0] and got[0] in alive:
        alive.discard(got[0])
        if not alive:
            own, children = time.process_time() - state["own"], kids() - state["kids"]
            sections.append((own, children, idle() - state["idle"]))
    return got
os.fork, os.waitpid = fork, waitpid

from validator.cli import main
code = 0
try:
    code = main(sys.argv[2:])
except SystemExit as exc:
    code = exc.code
own = time.process_time()
print(json.dumps({"wall": time.perf_counter() - wall0, "own": own, "kids": kids(),
                  "sections": sections, "code": code}), file=open(sys.argv[1], "w"))
"""


def measure(cases: Path, fixtures: Path, out: Path, jobs: int, path: str | None) -> dict:
    with tempfile.NamedTemporaryFile("r", suffix=".json") as result:
        command = [sys.executable, "-c", PROBE, result.name, "run", "--cases", str(cases)]
        command += ["--fixtures", str(fixtures), "--out", str(out), "--jobs", str(jobs), "-q"]
        env = dict(os.environ, SOURCE_DATE_EPOCH="1767225600")
        if path is not None:
            env["PYTHONPATH"] = path
        # cwd: the validator measured is the one installed (or on PYTHONPATH), not ./validator
        subprocess.run(command, check=False, capture_output=True, env=env, cwd=out.parent)
        figures = json.loads(Path(result.name).read_text())
    parallel_own = sum(own for own, _, _ in figures["sections"])
    figures["cpu"] = figures["own"] + figures["kids"]
    figures["serial"] = figures["own"] - parallel_own
    figures["estimate"] = figures["serial"] + sum(max(o, k) for o, k, _ in figures["sections"])
    figures["blocked"] = sum(b for _, _, b in figures["sections"])
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--shape", choices=("cases", "runs"), action="append")
    parser.add_argument(
        "--against", action="append", default=[], help="a checkout to measure as well"
    )
    args = parser.parse_args()
    checkouts: list[str | None] = [None, *(str(Path(p).resolve()) for p in args.against)]
    with tempfile.TemporaryDirectory(prefix="serial-bench-") as tmp:
        work = Path(tmp)
        for shape in args.shape or ["cases", "runs"]:
            cases, fixtures, traces = write_corpus(work / shape, shape, args.n, 7)
            runs = {(c, j): [] for c in checkouts for j in (1, args.jobs)}
            for _ in range(args.repeat + 1):  # the first to warm the page cache and .pyc files
                for (path, jobs), got in runs.items():
                    out = work / shape / f"out{jobs}"
                    got.append(measure(cases, fixtures, out, jobs, path))
            print(f"== {shape}: {traces} traces; {os.popen('uptime').read().strip()}")
            for path in checkouts:
                print(f"-- {path or 'this checkout'}")
                _print({j: runs[(path, j)][1:] for j in (1, args.jobs)}, args.jobs)
    return 0


def _print(runs: dict[int, list[dict]], jobs: int) -> None:
    def med(n: int, key: str) -> float:
        return statistics.median(r[key] for r in runs[n])

    for n in runs:
        sections = runs[n][len(runs[n]) // 2]["sections"]
        shown = ", ".join(f"{o:.2f}/{k:.2f}/{b:.2f}" for o, k, b in sections) or "none"
        print(
            f"--jobs {n}: CPU {med(n, 'cpu'):.3f} s, serial {med(n, 'serial'):.3f} s,"
            f" estimated wall on idle cores {med(n, 'estimate'):.3f} s (measured"
            f" {med(n, 'wall'):.3f} s); this process blocked in sections {med(n, 'blocked'):.3f} s;"
            f" sections own CPU/children CPU/blocked: {shown}"
        )
    overhead = med(jobs, "cpu") - med(1, "cpu")
    speedup = med(1, "estimate") / med(jobs, "estimate")
    print(f"overhead of --jobs {jobs}: {overhead:+.3f} CPU s; estimated speed-up {speedup:.2f}x")


if __name__ == "__main__":
    sys.exit(main())
