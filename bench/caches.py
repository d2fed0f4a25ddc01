"""The evaluation with the CPU's caches warm and after other work: the tool against the reference.

    python bench/caches.py                    # both shapes, 2,000 traces, 5 passes
    python bench/caches.py --shape runs --n 500 --repeat 7

bench/instructions.py counts instructions, which say nothing of the CPU's caches. In a run,
each trace's checks come right after other work (the trace parsed, an answer rendered by
markdown-it, the previous trace's checks), which leaves the caches holding that work's code
and data rather than the checks'; a program that touches more code and objects to check a
trace then waits on memory more. This script measures that: in one process, both programs
evaluate the same parsed traces (the tool's `Evaluator`, each run compacted as a run
compacts it; the reference's `evaluate`), with the Markdown and text normalization memoized
as bench/instructions.py memoizes it, so only each program's own work is timed, and before
each trace, untimed, one of:

- nothing: the caches stay warm from the previous trace (what instruction counts model);
- another answer rendered by markdown-it (the next trace's, not memoized): what a run does
  between two traces' checks;
- a copy of 1 MiB: data only, which leaves the core's L2 cache (512 KiB on the benchmark
  machine) holding other bytes and runs no Python code.

Each pass evaluates every trace once per program and per kind, in an order that rotates
from pass to pass; each figure is the median over passes, in microseconds a trace. The
difference between a column and the first is what the other work costs each program
afterwards. Figures go to bench/RESULTS.md with the commit they were measured on.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

# The work done before each trace, untimed: (column label, key).
KINDS = (
    ("warm", "nothing"),
    ("after rendering", "render"),
    ("after 1 MiB copy", "copy"),
)
_COPIED = bytearray(1 << 20)

Before = Callable[[int], None]


def _rendering(traces: list[tuple[str, str, Any]]) -> Before:
    """Before trace i: the next trace's answer rendered, by the normalization as the text
    package has it (`memoize_normalization` memoizes what the checks and the reference
    call, not this)."""
    from validator.evaluation.text import normalize_markdown_ex

    answers = [str(trace.get("finalAnswer") or "") for _, _, trace in traces]

    def render(i: int) -> None:
        normalize_markdown_ex(answers[(i + 1) % len(answers)])

    return render


def _copying(i: int) -> None:
    bytes(_COPIED)


def _nothing(i: int) -> None:
    return None


Program = Callable[[Before], float]


def programs(root: Path) -> tuple[dict[str, Program], dict[str, Before], int]:
    """Each program as a function of the work to do before each trace giving the seconds
    its evaluation of every trace took (that work left out), each kind of work by key, and
    how many traces there are."""
    from validator.api import load_suite
    from validator.evaluation import compaction, evaluator

    sys.path.insert(0, str(HERE))
    import reference
    from corpus import read_traces
    from instructions import memoize_normalization

    kinds: dict[str, Before] = {"nothing": _nothing, "copy": _copying}
    traces = read_traces(root)
    kinds["render"] = _rendering(traces)
    memoize_normalization(reference)
    suite = load_suite(root / "cases")
    cases = reference.load_cases(root / "cases")

    def tool(before: Before) -> float:
        run, compact = evaluator.Evaluator(suite), compaction.Compactor()
        brevity, taken = compact.brevity, 0.0
        for i, (case_id, name, trace) in enumerate(traces):
            before(i)
            start = time.perf_counter()
            compact(run.evaluate(trace, case_id, name, brevity=brevity))
            taken += time.perf_counter() - start
        return taken

    def theirs(before: Before) -> float:
        taken = 0.0
        for i, (case_id, _, trace) in enumerate(traces):
            before(i)
            start = time.perf_counter()
            reference.evaluate(cases[case_id], trace)
            taken += time.perf_counter() - start
        return taken

    return {"reference": theirs, "tool": tool}, kinds, len(traces)


def measure(root: Path, repeat: int) -> dict[tuple[str, str], float]:
    """Microseconds a trace, by (program, kind of work before each trace): medians."""
    run, kinds, traces = programs(root)
    for program in run.values():  # warm up: programs compiled, texts normalized
        program(_nothing)
    order = [(who, kind) for who in run for _, kind in KINDS]
    taken: dict[tuple[str, str], list[float]] = {key: [] for key in order}
    for turn in range(repeat):
        for who, kind in order[turn % len(order) :] + order[: turn % len(order)]:
            taken[who, kind].append(run[who](kinds[kind]) / traces * 1e6)
    return {key: statistics.median(values) for key, values in taken.items()}


def table(figures: dict[tuple[str, str], float]) -> list[str]:
    head = f"{'microseconds a trace':24}" + "".join(f"{label:>18}" for label, _ in KINDS)
    lines = [head]
    for who, label in (("reference", "reference"), ("tool", "tool")):
        lines.append(f"{label:24}" + "".join(f"{figures[who, k]:18.1f}" for _, k in KINDS))
    ratios = [figures["tool", k] / figures["reference", k] for _, k in KINDS]
    lines.append(f"{'tool/reference':24}" + "".join(f"{r:17.2f}x" for r in ratios))
    for who in ("reference", "tool"):
        added = [
            f"{figures[who, k] - figures[who, 'nothing']:+.1f} us ({label})"
            for label, k in KINDS[1:]
        ]
        lines.append(f"the other work costs the {who} afterwards: {', '.join(added)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="traces per shape (default 2000)")
    parser.add_argument("--repeat", type=int, default=5, help="passes (default 5)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--shape", choices=("cases", "runs"), action="append")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE))
    from corpus import write_corpus

    print(
        f"N={args.n}, seed={args.seed}, medians of {args.repeat} passes, Python {sys.version.split()[0]}"
    )
    for shape in args.shape or ["cases", "runs"]:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / shape
            _, _, traces = write_corpus(root, shape, args.n, args.seed)
            print(f"\n== shape '{shape}': {traces} traces")
            print("\n".join(table(measure(root, args.repeat))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
