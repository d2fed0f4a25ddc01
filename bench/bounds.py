"""How far a change to the checks can take a run: the tool with its checks made free.

    python bench/bounds.py                          # both shapes, --jobs 1 and 2, 7 repeats
    python bench/bounds.py --shape runs --jobs 1 --repeat 9
    python bench/bounds.py --with /tmp/compiled     # and a copy of the tool built otherwise

bench/run.py says how far each figure is from its target; this says which part of the run
stands between them. For each shape and --jobs it times, as fresh processes in rotated
order (medians, and the pairwise ratios bench/run.py prints), three lines on the same
generated corpus (bench/corpus.py):

- the tool: `python -m validator run`;
- the tool with free checks: the same command with `Evaluator.evaluate` replaced, in that
  process and so in the workers it forks, by what the reference cannot avoid either: the
  trace's answers normalized for matching by the tool's own path (`TraceContext.text`,
  Markdown rendered: `finalAnswer`, and `executorAnswer` when the verdict is REJECT, as the
  reference normalizes them), and a passing run of the case. No check is applied and no
  result, message or detail made; everything else is the tool's as it is (start-up, case
  files, the plan, reading and parsing every trace, compaction, grouping, the report, which
  then holds passing runs only, so a little less to write);
- the reference (bench/reference.py) with the same --jobs.

A free-checks ratio above a target proves that no change to the evaluation alone meets it:
what the tool does besides checking costs that much already. Below it, the script says how
much of what the checks cost (the tool's line less that one) would have to go. `--with DIR`
adds a fourth line, `python -m validator run` with DIR first on PYTHONPATH: a copy of the
tool built another way (bench/RESULTS.md records one whose evaluation modules were compiled
with mypyc, and how it was built).
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from typing import Any

from validator.evaluation.context import TraceContext
from validator.evaluation.evaluator import Evaluator
from validator.results import PASS, RunResult

FREE = "--free-checks"  # the first argument of a free-checks line's process


def free_evaluate(
    self: Evaluator,
    trace: Any,
    case_id: str | None = None,
    fixture: str | None = None,
    parent: Any = None,
    *,
    own_id: bool = True,
    brevity: Any = None,
) -> RunResult:
    """`Evaluator.evaluate` with its checks made free: the answers normalized as the checks
    would normalize them (see the module's docstring), and a passing run of the case."""
    if isinstance(trace, dict):
        ctx = TraceContext(trace)
        answer, draft = trace.get("finalAnswer"), trace.get("executorAnswer")
        if isinstance(answer, str):
            ctx.text(answer, True)
        verifier = (trace.get("selfEvaluation") or {}).get("verifier_evaluation") or {}
        if verifier.get("verdict") == "REJECT" and isinstance(draft, str):
            ctx.text(draft, True)
        case_id = case_id or self.case_id_of(trace)[0]
    return RunResult(case_id or "?", PASS, None, fixture)


def _free_checks_run(argv: list[str]) -> None:
    """`python -m validator ARGV` in this process, its evaluation free (`free_evaluate`);
    forked workers inherit the replacement. Does not return: the command ends the process."""
    Evaluator.evaluate = free_evaluate  # type: ignore[method-assign]
    sys.argv = ["validator", *argv]
    runpy.run_module("validator", run_name="__main__", alter_sys=True)


# A free-checks line's process goes no further: what follows (the benchmark's helpers, the
# corpus) would add its imports to the start-up the line times.
if __name__ == "__main__" and sys.argv[1:2] == [FREE]:
    _free_checks_run(sys.argv[2:])

import argparse  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import write_corpus  # noqa: E402
from run import (  # noqa: E402
    PY,
    TARGETS,
    Line,
    _load,
    _pairwise,
    pairwise_ratio,
    reference_cmd,
    timed,
    validator_cmd,
)

_MODULE = [PY, "-m", "validator"]  # what validator_cmd's command starts with


def tool_cmd(
    cases: Path, fixtures: Path, out: Path, jobs: int, path: Path | None = None
) -> list[str]:
    """bench/run.py's `python -m validator run`, with `path` first on PYTHONPATH when given."""
    command = validator_cmd(cases, fixtures, out, jobs)
    return command if path is None else ["env", f"PYTHONPATH={path}", *command]


def free_checks_cmd(cases: Path, fixtures: Path, out: Path, jobs: int) -> list[str]:
    """The same run with its checks made free (`free_evaluate`): this script, given the
    validator's arguments."""
    command = validator_cmd(cases, fixtures, out, jobs)
    assert command[:3] == _MODULE, command  # validator_cmd changed: take its arguments anew
    return [PY, str(Path(__file__).resolve()), FREE, *command[3:]]


def bounds(root: Path, shape: str, jobs: int, repeat: int, other: Path | None) -> None:
    """Time the lines on the corpus at `root` and print them, with what the free-checks
    line says of the target."""
    cases, fixtures = root / "cases", root / "fixtures"
    lines = [
        Line("tool", tool_cmd(cases, fixtures, root / "tool", jobs)),
        Line("tool, checks free", free_checks_cmd(cases, fixtures, root / "free", jobs)),
        Line("reference", reference_cmd(cases, fixtures, root / "reference.json", jobs)),
    ]
    if other is not None:
        lines.insert(
            2, Line(f"tool from {other}", tool_cmd(cases, fixtures, root / "other", jobs, other))
        )
    for line in lines:  # warm the page cache and the .pyc files; not counted
        timed(line.command, root)
    for turn in range(repeat):
        start = turn % len(lines)
        for line in lines[start:] + lines[:start]:
            t = timed(line.command, root)
            line.times.append(t.seconds)
            line.cpu.append(t.cpu)
    reference = lines[-1]
    key = "c/b" if jobs == 1 else "d/b2"
    print(f"\n-- shape '{shape}', --jobs {jobs} ({key}, target <= {TARGETS[key]:.1f})")
    print(f"{'':28} {'median s':>9} {'CPU s':>7} {'vs reference':>13}   pairwise")
    for line in lines:
        print(
            f"{line.label:28} {line.median:9.3f} {statistics.median(line.cpu):7.3f}"
            f" {line.median / reference.median:12.2f}x   {_pairwise(line, reference)}"
        )
    free = pairwise_ratio(lines[1].times, reference.times)
    print(_needed(key, lines[0], lines[1], reference, free))


def _needed(key: str, tool: Line, free: Line, reference: Line, free_pairwise: float) -> str:
    """What the line of free checks says of the target `key`: met already, out of reach of
    any change to the checks, or how much of what the checks cost would have to go."""
    need = tool.median - TARGETS[key] * reference.median  # seconds the tool must lose
    cost = tool.median - free.median  # what the checks cost in this run
    if need <= 0:
        return f"{key} met"
    if free_pairwise > TARGETS[key] or need >= cost:
        return (
            f"with no check at all the tool takes {free_pairwise:.2f}x (pairwise): no change to"
            f" the checks alone meets {key} <= {TARGETS[key]:.1f}"
        )
    return (
        f"for {key} <= {TARGETS[key]:.1f} the checks would have to lose {need:.3f} s of the"
        f" {cost:.3f} s they cost here ({need / cost:.0%})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="traces per shape (default 2000)")
    parser.add_argument("--repeat", type=int, default=7, help="rotated repeats (default 7)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--shape", choices=("cases", "runs"), action="append")
    parser.add_argument("--jobs", type=int, choices=(1, 2), action="append")
    parser.add_argument("--with", dest="other", type=Path, metavar="DIR",
                        help="a copy of the tool to time as a fourth line")  # fmt: skip
    args = parser.parse_args(argv)
    print(
        f"bounds: N={args.n}, seed={args.seed}, medians of {args.repeat}; " + _load("at the start")
    )
    work = Path(tempfile.mkdtemp(prefix="trace-validator-bounds-"))
    try:
        for shape in args.shape or ["cases", "runs"]:
            root = work / shape
            write_corpus(root, shape, args.n, args.seed)
            for jobs in args.jobs or [1, 2]:
                bounds(root, shape, jobs, args.repeat, args.other)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("\n" + _load("at the end"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
