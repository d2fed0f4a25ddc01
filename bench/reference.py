"""The reference: a careful hand-written script for the standard check set, with dict access.

This is what a team would write instead of using trace-validator: load each case with
ruamel's C safe loader, read each trace, and check the six standard rules directly. It uses
the validator's own text normalization (`validator.text`), so the two can be compared trace
by trace: `bench/run.py` times it as the target to match and requires identical statuses.

It assumes well-formed inputs (valid case files, traces that are JSON objects with the
reference fields); it is a yardstick, not a tool.

With `--jobs N` (N > 1) it does what a careful script would: a process pool
(`multiprocessing`, forked) over the case files in chunks of 64, each worker loading its
chunk's case files and evaluating their traces; fewer cases than 4 chunks per process make
smaller chunks, so a suite of 50 cases with many runs each still spreads over the pool.
The statuses are the same as with one process.

    python bench/reference.py --cases DIR --fixtures DIR [--out statuses.json] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from validator.evaluation.text import normalize_markdown, normalize_plain, shared_run

# specs/diagnosis/degraded-output.yaml's default markers.
DEFAULT_MARKERS = [
    "unverified",
    "could not be verified",
    "not verified",
    "cannot confirm",
    "未经验证",
    "未验证",
    "无法确认",
    "无法验证",
]
LEAK_RUN = 30

keyword = cache(normalize_plain)  # a keyword is normalized once per process


def occurs(word: str, text: str) -> bool:
    """A keyword occurs in normalized text; one that is empty once normalized occurs nowhere."""
    wanted = keyword(word)
    return bool(wanted) and wanted in text


def case_files(folder: Path) -> list[Path]:
    return [p for p in sorted(folder.rglob("*")) if p.suffix in (".yaml", ".yml") and p.is_file()]


def load_cases(folder: Path, paths: list[Path] | None = None) -> dict[str, dict[str, Any]]:
    yaml = YAML(typ="safe", pure=False)
    cases = {}
    for path in case_files(folder) if paths is None else paths:
        data = yaml.load(path.read_bytes())
        cases[data["id"]] = data
    return cases


def required_count(minimum: int | float | None, entries: int) -> int:
    if minimum is None:
        return entries
    if isinstance(minimum, float):
        return math.ceil(Fraction(repr(minimum)) * entries)
    return minimum


def evaluate(case: dict[str, Any], trace: dict[str, Any]) -> list[str]:
    """The ids of the standard checks this trace fails."""
    failed = []
    evaluation = (trace.get("selfEvaluation") or {}).get("verifier_evaluation") or {}
    verdict = evaluation.get("verdict")
    final = trace.get("finalAnswer")
    answer = normalize_markdown(final) if isinstance(final, str) else None

    # evidence-coverage
    seen = {t.get("toolName") for t in trace.get("toolInvocations") or []}
    seen.update(s.get("tool") for s in evaluation.get("trace_summaries") or [])
    if any(tool not in seen for tool in case["required_tools"]):
        failed.append("evidence-coverage")
    # verdict-present, verdict-allowed
    if verdict is None:
        failed.append("verdict-present")
    if (
        verdict is None
        or verdict not in case["allowed_verdicts"]
        or verdict in case.get("forbidden_verdicts", ())
    ):
        failed.append("verdict-allowed")
    # keyword-coverage, unless the verdict is REJECT
    if verdict != "REJECT":
        groups = case["root_cause_keywords"]
        need = required_count(case.get("min_keyword_coverage"), len(groups))
        if answer is None:
            failed.append("keyword-coverage")
        else:
            hits = sum(
                any(occurs(k, answer) for k in ([g] if isinstance(g, str) else g)) for g in groups
            )
            if hits < need:
                failed.append("keyword-coverage")
    # forbidden-keywords
    if answer is not None and any(occurs(k, answer) for k in case.get("forbidden_keywords", ())):
        failed.append("forbidden-keywords")
    # degraded-output, when the verdict is REJECT
    if verdict == "REJECT":
        markers = case.get("degraded_markers") or DEFAULT_MARKERS
        draft = trace.get("executorAnswer")
        if (
            answer is None
            or not any(occurs(m, answer) for m in markers)
            or (
                isinstance(draft, str)
                and shared_run(answer, normalize_markdown(draft), LEAK_RUN) is not None
            )
        ):
            failed.append("degraded-output")
    return failed


def fixtures_of(case_id: str, fixtures: Path) -> list[Path]:
    single = fixtures / f"{case_id}.json"
    if single.exists():
        return [single]
    folder = fixtures / case_id
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


CHUNK = 64  # case files per task of the pool


def _evaluate_cases(cases: dict[str, dict[str, Any]], fixtures: Path) -> dict[str, Any]:
    runs: dict[str, str] = {}
    statuses: dict[str, str] = {}
    for case_id in sorted(cases):
        worst = "not_run"
        for i, path in enumerate(fixtures_of(case_id, fixtures)):
            trace = json.loads(path.read_bytes())
            status = "fail" if evaluate(cases[case_id], trace) else "pass"
            runs[f"{case_id}/{path.name}"] = status
            worst = status if i == 0 or status == "fail" else worst
        statuses[case_id] = worst
    return {"runs": runs, "cases": statuses}


def _chunk_task(task: tuple[list[Path], Path]) -> dict[str, Any]:
    """In a worker: load a chunk of case files and evaluate their traces."""
    paths, fixtures = task
    return _evaluate_cases(load_cases(paths[0].parent, paths), fixtures)


def run(cases_dir: Path, fixtures: Path, jobs: int = 1) -> dict[str, Any]:
    """Per-trace and per-case statuses, keyed as `<case id>/<file name>` and `<case id>`."""
    if jobs <= 1:
        return _evaluate_cases(load_cases(cases_dir), fixtures)
    import multiprocessing

    paths = case_files(cases_dir)
    size = max(1, min(CHUNK, math.ceil(len(paths) / (4 * jobs))))
    tasks = [(paths[i : i + size], fixtures) for i in range(0, len(paths), size)]
    runs: dict[str, str] = {}
    statuses: dict[str, str] = {}
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for part in pool.imap(_chunk_task, tasks):
            runs.update(part["runs"])
            statuses.update(part["cases"])
    return {"runs": dict(sorted(runs.items())), "cases": dict(sorted(statuses.items()))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=Path("cases"))
    parser.add_argument("--fixtures", type=Path, default=Path("fixtures"))
    parser.add_argument("--out", type=Path, help="write the statuses here as JSON")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    args = parser.parse_args(argv)
    result = run(args.cases, args.fixtures, args.jobs)
    if args.out:
        args.out.write_text(json.dumps(result, indent=0, sort_keys=True), "utf-8")
    cases = result["cases"]
    passed = sum(s == "pass" for s in cases.values())
    print(f"{len(cases)} cases, {len(result['runs'])} traces: {passed} cases passed")
    return 0 if passed == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
