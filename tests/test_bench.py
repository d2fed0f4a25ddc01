"""The benchmark's yardstick stays honest: on a generated corpus, the hand-written reference
(bench/reference.py) and the validator give every trace and every case the same status.

bench/run.py makes this check on 2,000-trace corpora before it times anything; this test makes
it in CI on small ones, so a change to the standard specs, the predicates or the reference that
makes them disagree is caught without running the benchmark.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import REPO, run_cli

BENCH = REPO / "bench"


def _module(name: str) -> ModuleType:
    """bench/NAME.py as a module (bench/ is scripts, not a package)."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))  # bench/run.py imports its sibling corpus.py
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


corpus = _module("corpus")
reference = _module("reference")
bench_run = _module("run")


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
