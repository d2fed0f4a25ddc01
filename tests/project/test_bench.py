"""The benchmark's yardstick stays honest: on a generated corpus, the hand-written reference
(bench/reference.py) and the validator give every trace and every case the same status.

bench/run.py makes this check on 2,000-trace corpora before it times anything; this test makes
it in CI on small ones, so a change to the standard specs, the predicates or the reference that
makes them disagree is caught without running the benchmark.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import REPO, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validator.evaluation.evaluator import evaluate_trace
from validator.inputs import standard_spec_folders
from validator.loading.suite import fields_of, load_specs
from validator.model import Case, Suite
from validator.processes import usable_cores

pytestmark = pytest.mark.slow  # the benchmark's corpus and reference, run in full

BENCH = REPO / "bench"


def _module(name: str) -> ModuleType:
    """bench/NAME.py as a module (bench/ is scripts, not a package)."""
    if str(BENCH) not in sys.path:
        # At the end, not the front: bench/ must never shadow a module of the standard
        # library for this process or the processes it starts (bench/run.py imports corpus).
        sys.path.append(str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


corpus = _module("corpus")
reference = _module("reference")
bench_run = _module("run")
bounds = _module("bounds")
SPECS, _ = load_specs(standard_spec_folders())
FIELDS = fields_of(SPECS)


@pytest.mark.parametrize(("shape", "n"), [("cases", 300), ("runs", 200)])
def test_reference_and_validator_agree_on_every_trace(tmp_path: Path, shape: str, n: int) -> None:
    cases, fixtures, traces = corpus.write_corpus(tmp_path, shape, n, seed=11)
    theirs = reference.run(cases, fixtures)
    result = run_cli(
        "run", "--cases", str(cases), "--fixtures", str(fixtures), "--out", str(tmp_path / "out"),
        "--jobs", "1", "-q",
    )  # fmt: skip
    assert result.code == 1, result.err  # the corpus has failing cases by design
    ours = bench_run.statuses_of(json.loads((tmp_path / "out" / "report.json").read_text()))
    assert len(ours["runs"]) == traces
    assert ours == theirs
    assert 0 < sum(s == "fail" for s in ours["runs"].values()) < traces


def test_the_reference_gives_the_same_statuses_with_a_pool(tmp_path: Path) -> None:
    # bench/run.py compares --jobs 2 with the reference's 2-process run: that run must be
    # the same yardstick, in both corpus shapes (the runs shape has fewer cases than chunks).
    for shape, n in (("cases", 150), ("runs", 100)):
        cases, fixtures, _ = corpus.write_corpus(tmp_path / shape, shape, n, seed=5)
        assert reference.run(cases, fixtures, jobs=2) == reference.run(cases, fixtures)


def test_the_benchmark_judges_each_ratio_against_its_own_target() -> None:
    met = {"shape": "cases", "c/b": 0.97, "d/b2": 1.1, "rss_ratio": 1.1, "cores": 1.8}
    assert bench_run.summary([met]) == "targets met"
    # --jobs 1 must be no slower than the reference; --jobs 2 may be up to 1.1x.
    slow = dict(met, **{"c/b": 1.06})
    assert bench_run.summary([slow]) == "targets missed: cases: c/b = 1.06 (target <= 1.0)"
    missed = dict(met, **{"d/b2": 1.25, "cores": 1.75})
    assert bench_run.summary([missed]).startswith("targets missed: cases: d/b2 = 1.25")
    assert "effective cores 1.75" in bench_run.summary([missed])
    assert "scale" in bench_run.summary([{"shape": "scale", "rss_ratio": 1.3}])
    assert bench_run.verdict("d/b2", 1.1) == "met, <= 1.1"
    assert bench_run.verdict("c/b", 1.01) == "not met, > 1.0"


EXPECTED_FAILURES = {
    "ok": [],
    "missing_tool": ["evidence-coverage"],
    "missing_keywords": ["keyword-coverage"],
    "forbidden": ["forbidden-keywords"],
    "bad_verdict": ["verdict-allowed"],
    "no_verdict": ["verdict-present", "verdict-allowed"],
    "leak": ["degraded-output"],
    "no_marker": ["degraded-output"],
}


def test_the_corpus_builds_every_failure_mode_and_each_fails_its_check() -> None:
    # A corpus whose failures were all of one kind, or whose "failing" traces passed, would
    # let the reference and the validator disagree unnoticed on the other checks.
    seen = set()
    for case in corpus.make_cases(400, seed=11):
        trace, mode = corpus.make_trace(case, 0, seed=11)
        seen.add(mode)
        failed = reference.evaluate(_as_loaded(case), trace)
        assert failed == EXPECTED_FAILURES[mode], (case.id, mode)
    assert seen == set(EXPECTED_FAILURES)


def _as_loaded(case: object) -> dict:
    """The case as the reference loads it from its YAML file."""
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=False).load(corpus.case_yaml(case))


# --------------------------------------------------------------------------------------------
# The reference as an oracle: arbitrary well-formed cases and traces, the same failed checks

WORDS = st.sampled_from(
    ["PASS", "REJECT", "REVISE", "FAIL", "slow query", "慢查询", "索引", "Index", "mysql_explain",
     "ｍｙｓｑｌ", "unverified", "未验证", "cannot confirm", "the pool", "连接池", "**bold**"]
)  # fmt: skip
TEXT = st.lists(
    WORDS | st.sampled_from([" ", "\n", "- ", "# ", "`", "，", "。"]) | st.text(max_size=8),
    max_size=12,
).map("".join)
NAMES = st.lists(WORDS | st.text(min_size=1, max_size=6), min_size=1, max_size=3)
ENTRY = WORDS | st.text(min_size=1, max_size=6)


@st.composite
def oracle_case(draw: st.DrawFn) -> dict:
    keywords = draw(
        st.lists(ENTRY | st.lists(ENTRY, min_size=1, max_size=3), min_size=1, max_size=4)
    )
    case = {
        "id": "oracle",
        "question": "q?",
        "root_cause_keywords": keywords,
        "required_tools": draw(st.lists(ENTRY, max_size=3)),
        "allowed_verdicts": draw(st.lists(WORDS, min_size=1, max_size=3)),
    }
    optional = {
        "min_keyword_coverage": st.integers(1, len(keywords)) | st.floats(0.01, 1.0),
        "forbidden_keywords": st.lists(ENTRY, max_size=3),
        "forbidden_verdicts": st.lists(WORDS, max_size=2),
        "degraded_markers": st.lists(ENTRY, min_size=1, max_size=3),
    }
    for key, strategy in optional.items():
        if draw(st.booleans()):
            case[key] = draw(strategy)
    return case


@st.composite
def oracle_trace(draw: st.DrawFn) -> dict:
    evaluation = {}
    if draw(st.booleans()):
        evaluation["verdict"] = draw(WORDS)
    if draw(st.booleans()):
        evaluation["trace_summaries"] = [{"tool": t} for t in draw(NAMES)]
    trace = {
        "caseId": "oracle",
        "toolInvocations": [{"toolName": t} for t in draw(st.lists(ENTRY, max_size=4))],
        "selfEvaluation": {"verifier_evaluation": evaluation},
    }
    for key in ("finalAnswer", "executorAnswer"):
        if draw(st.booleans()):
            trace[key] = draw(TEXT)
    if "finalAnswer" in trace and "executorAnswer" in trace and draw(st.booleans()):
        trace["finalAnswer"] += "\n\n" + trace["executorAnswer"]  # a leaked draft
    return trace


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=oracle_case(), trace=oracle_trace())
def test_the_standard_specs_fail_exactly_what_the_reference_fails(case: dict, trace: dict) -> None:
    # Two independent implementations of the standard rules (specs + interpreter, and
    # bench/reference.py's plain Python) must agree on arbitrary inputs, Chinese, full-width
    # and Markdown text included.
    suite = Suite({"oracle": Case("oracle", "oracle.yaml", case)}, SPECS, FIELDS)
    run = evaluate_trace(suite, copy.deepcopy(trace), "oracle")
    ours = sorted(c.check for c in run.checks if c.status == "fail")
    assert ours == sorted(reference.evaluate(case, trace)), [c.message for c in run.checks]


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_free_checks_line_reads_every_trace_and_checks_none(tmp_path: Path, jobs: int) -> None:
    # bench/bounds.py's bound is the tool with its checks made free: every trace still read
    # and reported, none checked, so every run passes without a check, with --jobs 2 too
    # (its workers inherit the replacement). The real run fails some of the same traces.
    cases, fixtures, traces = corpus.write_corpus(tmp_path, "runs", 100, seed=3)
    command = bounds.free_checks_cmd(cases, fixtures, tmp_path / "out", jobs)
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    runs = bench_run.statuses_of(report)["runs"]
    assert len(runs) == traces and set(runs.values()) == {"pass"}
    assert all(case["checks"] == [] for case in report["cases"])
    real = run_cli(*bounds.tool_cmd(cases, fixtures, tmp_path / "real", jobs)[3:])
    assert real.code == 1, real.err


@pytest.mark.parametrize("verdict", ["PASS", "REJECT"])
def test_free_checks_normalize_the_answers_the_reference_normalizes(
    monkeypatch: pytest.MonkeyPatch, verdict: str
) -> None:
    # What the bound leaves the tool to do is the work the reference does too: the final
    # answer rendered and normalized, and the executor's draft when the verdict is REJECT.
    normalized: list[tuple[str, bool]] = []

    def text(self: Any, value: str, markdown: bool) -> str:
        normalized.append((value, markdown))
        return value

    monkeypatch.setattr(bounds.TraceContext, "text", text)
    suite = Suite({}, SPECS, FIELDS)
    trace = {
        "caseId": "c1",
        "finalAnswer": "**final**",
        "executorAnswer": "draft",
        "selfEvaluation": {"verifier_evaluation": {"verdict": verdict}},
    }
    run = bounds.free_evaluate(bounds.Evaluator(suite), trace, None, "c1.json")
    assert (run.case_id, run.status, run.checks) == ("c1", "pass", [])
    drafts = [("draft", True)] if verdict == "REJECT" else []
    assert normalized == [("**final**", True), *drafts]


def test_the_bound_says_whether_the_checks_alone_can_meet_a_target() -> None:
    def line(seconds: float) -> Any:
        return bench_run.Line("x", [], times=[seconds])

    reference = line(1.0)
    assert bounds._needed("c/b", line(0.98), line(0.9), reference, 0.9) == "c/b met"
    # 0.2 s over the target, the checks cost 0.3 s: two thirds of them must go.
    said = bounds._needed("c/b", line(1.2), line(0.9), reference, 0.9)
    assert "lose 0.200 s of the 0.300 s they cost here (67%)" in said
    # With no check at all the tool is over the target: out of reach of the checks.
    said = bounds._needed("d/b2", line(1.3), line(1.15), reference, 1.15)
    assert "takes 1.15x (pairwise): no change to the checks alone meets d/b2 <= 1.1" in said


def test_the_phase_table_names_functions_that_exist() -> None:
    # bench/phases.py times the validator's own functions by name: a rename would leave a
    # phase unmeasured, so every name it wraps must still be there.
    phases = _module("phases")
    named = [*phases.TOOL_WRAPS, *phases.REFERENCE_WRAPS]
    for module, name, _ in [*named, *phases.PARALLEL_TOOL_WRAPS, *phases.PARALLEL_REFERENCE_WRAPS]:
        where = reference if module == "reference" else importlib.import_module(module)
        assert callable(getattr(where, name)), f"{module}.{name}"


def _both_timed(tmp_path: Path, cases: int, jobs: str, wraps: tuple[Any, Any]) -> list[dict]:
    """bench/phases.py's sums for the validator and the reference on a small corpus."""
    phases = _module("phases")
    case_dir, fixtures, _ = corpus.write_corpus(tmp_path / "corpus", "cases", cases, seed=3)
    suite = ["--cases", str(case_dir), "--fixtures", str(fixtures), "--jobs", jobs]
    tool = ["-m", "validator", "run", *suite, "--out", str(tmp_path / "out"), "-q"]
    reference = [str(BENCH / "reference.py"), *suite, "--out", str(tmp_path / "statuses.json")]
    return [phases.measure(tool, wraps[0], tmp_path), phases.measure(reference, wraps[1], tmp_path)]


def _adds_up(sums: dict, rows: list[tuple[str, Any]]) -> None:
    parts = [value(sums) for _, value in rows]
    assert all(part >= 0 for part in parts), parts
    assert sum(parts) <= sums["wall"]


def test_the_phase_table_adds_up_to_the_whole_process(tmp_path: Path) -> None:
    phases = _module("phases")
    ours, theirs = _both_timed(tmp_path, 12, "1", (phases.TOOL_WRAPS, phases.REFERENCE_WRAPS))
    for sums in (ours, theirs):
        _adds_up(sums, phases.ROWS)
    assert ours["markdown"] > 0 and theirs["markdown"] > 0  # both normalized answers


@pytest.mark.skipif(usable_cores() < 2, reason="--jobs 2 forks only with two usable cores")
def test_the_two_process_timeline_adds_up_to_the_whole_process(tmp_path: Path) -> None:
    # With --jobs 2 the table is the first process's timeline: what it does alone, and the
    # parallel phase between its first fork and the join. Enough case files for the tool's
    # one parallel phase to fork (a batch of 8 for each process).
    phases = _module("phases")
    wraps = (phases.PARALLEL_TOOL_WRAPS, phases.PARALLEL_REFERENCE_WRAPS)
    ours, theirs = _both_timed(tmp_path, 24, "2", wraps)
    for sums in (ours, theirs):
        assert "first fork" in sums  # both went parallel
        _adds_up(sums, phases.PARALLEL_ROWS)
        assert phases._parallel(sums) > 0
    assert ours["specs"] > 0 and ours["cross-file"] > 0  # the tool's fused phase ran


def test_the_instruction_count_sections_evaluate_what_their_rows_say(tmp_path: Path) -> None:
    # bench/instructions.py counts each row between two marks in one process, keeping one
    # check of each case's plan at a time: the reference and the tool with every check must
    # agree, no check passes every run, and a run that fails one check alone fails them all.
    # Run as its measured process is (a child of its own), without valgrind.
    instructions = _module("instructions")
    root = tmp_path / "corpus"
    corpus.write_corpus(root, "cases", 60, seed=5)
    child = [sys.executable, str(BENCH / "instructions.py"), "--child", str(root), "1"]
    done = subprocess.run(
        child,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    found = {(who, check): statuses for who, check, statuses in json.loads(done.stdout)}
    assert list(found) == instructions.sections()
    every = found["tool", None]
    assert every == found["reference", None] and "fail" in every
    assert set(found["tool", instructions.NO_CHECK]) == {"pass"}
    checks = instructions.standard_checks()
    assert len(checks) == 6  # the six rules the reference checks
    for check in checks:
        alone = found["tool", check]
        assert all(every[i] == "fail" for i, s in enumerate(alone) if s == "fail"), check
    assert sum(found["tool", c].count("fail") for c in checks) >= every.count("fail")


def test_the_whole_process_table_marks_each_phase_once_in_order(tmp_path: Path) -> None:
    # bench/instructions.py's whole-process table counts what callgrind writes between two
    # marks; run with its marks but without valgrind: each phase is entered and left once,
    # in order, none inside another, in both programs.
    instructions = _module("instructions")
    cases, fixtures, _ = corpus.write_corpus(tmp_path, "cases", 12, seed=5)
    env = {**os.environ, "PYTHONPATH": f"{REPO}:{BENCH}"}
    suite = ["--cases", str(cases), "--fixtures", str(fixtures)]
    programs = [
        (
            instructions.TOOL_PHASES,
            ["-m", "validator", "run", *suite, "--out", "out", "-q", "--jobs", "1"],
        ),
        (instructions.REFERENCE_PHASES, [str(BENCH / "reference.py"), *suite]),
    ]
    for wraps, command in programs:
        out = tmp_path / "phases.json"
        done = subprocess.run(
            instructions.phase_command(wraps, command),
            cwd=tmp_path,
            env={**env, "PHASES_OUT": str(out)},
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode in (0, 1), done.stderr[-2000:]
        events = json.loads(out.read_text())
        entered = [phase for _, _, phase in wraps]
        assert events == [event for phase in entered for event in (phase, None)]


def test_each_counted_section_goes_to_the_phase_it_was_counted_in() -> None:
    instructions = _module("instructions")
    # Sections end at each mark: before the first phase, in it, between, in the next, after.
    totals = instructions.by_phase(["a", None, "b", None], [5, 7, 1, 11, 2])
    assert totals == {instructions.START_UP: 5, "a": 7, instructions.REST: 3, "b": 11}


def test_the_cache_table_times_both_programs_after_each_kind_of_work(tmp_path: Path) -> None:
    # bench/caches.py, on a small corpus, as a user runs it: a figure for each program and
    # each kind of work done before each trace, and what that work costs each afterwards.
    caches = _module("caches")
    done = subprocess.run(
        [sys.executable, str(BENCH / "caches.py"), "--n", "30", "--repeat", "1", "--shape", "runs"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    rows = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines() if line}
    for program in ("reference", "tool"):
        figures = [float(figure) for figure in rows[program]]
        assert len(figures) == len(caches.KINDS) and all(f > 0 for f in figures), rows
    assert done.stdout.count("costs the") == 2
