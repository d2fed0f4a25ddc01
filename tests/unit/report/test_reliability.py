"""pass^k and pass@k for any k, Wilson intervals, percentiles, per-case thresholds
(min_passes, min_pass_rate, --min-run-pass-rate), quarantine and --fail-on flaky."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, Workspace, good_trace, set_verdict
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from validator.loading.schema import load_schema
from validator.report.reliability import estimates, pass_at, pass_hat, percentile, wilson_interval


def _failing(case_id: str = "db-slow") -> dict:
    return set_verdict(good_trace(case_id), "REVISE")


def _runs(ws: Workspace, case_id: str, *traces: object) -> None:
    for n, trace in enumerate(traces, start=1):
        ws.trace(case_id, trace, name=f"{case_id}/run-{n}.json")


def _pattern(ws: Workspace, case_id: str, pattern: str) -> None:
    """Runs from a string: p pass, f fail, e a broken trace (error)."""
    make = {"p": lambda: good_trace(case_id), "f": lambda: _failing(case_id), "e": lambda: "{x"}
    _runs(ws, case_id, *(make[c]() for c in pattern))


def _schema_errors(report: dict) -> list[str]:
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema("report"))
    return [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(report)]


# --------------------------------------------------------------------------------------------
# The estimates, against brute force


def _brute(outcomes: list[bool], k: int) -> tuple[Fraction, Fraction]:
    """Over every k-subset of the runs: the share where all pass, and where any passes."""
    subsets = list(itertools.combinations(outcomes, k))
    every = Fraction(sum(all(s) for s in subsets), len(subsets))
    some = Fraction(sum(any(s) for s in subsets), len(subsets))
    return every, some


case_runs = st.lists(st.booleans(), min_size=0, max_size=7)


@settings(max_examples=300, deadline=None)
@given(cases=st.lists(case_runs, min_size=1, max_size=6), extra=st.sets(st.integers(1, 9)))
def test_estimates_equal_the_mean_over_every_k_subset(
    cases: list[list[bool]], extra: set[int]
) -> None:
    counts = [(len(runs), sum(runs)) for runs in cases]
    for ks in (None, sorted(extra)):
        got = estimates(counts, ks)
        with_runs = [len(r) for r in cases if r]
        expected_ks = list(range(1, min(with_runs) + 1)) if ks is None and with_runs else ks or []
        assert list(got["pass_hat"]) == [str(k) for k in expected_ks]
        for k in expected_ks:
            eligible = [runs for runs in cases if len(runs) >= k]
            assert got["cases_with_fewer_runs"][str(k)] == len(cases) - len(eligible)
            if not eligible:
                assert got["pass_hat"][str(k)] is None and got["pass_at"][str(k)] is None
                continue
            brute = [_brute(runs, k) for runs in eligible]
            every = sum((b[0] for b in brute), Fraction(0)) / len(brute)
            some = sum((b[1] for b in brute), Fraction(0)) / len(brute)
            assert got["pass_hat"][str(k)] == float(round(every, 4))
            assert got["pass_at"][str(k)] == float(round(some, 4))


@given(st.integers(1, 12).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_per_case_estimates_are_exact_fractions(nc: tuple[int, int]) -> None:
    n, c = nc
    outcomes = [True] * c + [False] * (n - c)
    for k in range(1, n + 1):
        assert (pass_hat(n, c, k), pass_at(n, c, k)) == _brute(outcomes, k)


def test_wilson_interval_known_values_and_edges() -> None:
    assert wilson_interval(8, 10) == [0.4901, 0.9434]  # (0.49016, 0.94332), rounded outward
    assert wilson_interval(0, 0) is None
    assert wilson_interval(10, 10)[1] == 1.0 and wilson_interval(0, 10)[0] == 0.0
    low, high = wilson_interval(1, 3)
    assert low < 1 / 3 < high


def test_percentile_is_nearest_rank() -> None:
    values = [15, 20, 35, 40, 50]
    assert percentile(values, 50) == 35 and percentile(values, 95) == 50
    assert percentile(values, 30) == 20  # ceil(0.3 * 5) = 2nd value
    assert percentile(list(range(1, 101)), 95) == 95
    assert percentile([], 95) is None


# --------------------------------------------------------------------------------------------
# Through the command line


def test_summary_estimates_for_each_k_up_to_the_fewest_runs(ws: Workspace) -> None:
    for case_id, pattern in (("a", "ppff"), ("b", "pppp"), ("c", "pfe")):
        ws.case(dict(GOOD_CASE, id=case_id))
        _pattern(ws, case_id, pattern)
    ws.case(dict(GOOD_CASE, id="no-trace"))
    assert ws.run().code == 1
    summary = ws.report()["summary"]
    # c: 3 runs, the one in error counted as a run that did not pass; no-trace: left out.
    assert list(summary["pass_hat"]) == ["1", "2", "3"]
    assert summary["pass_hat"]["1"] == round((2 / 4 + 1 + 1 / 3) / 3, 4)
    assert summary["pass_hat"]["2"] == round((1 / 6 + 1 + 0) / 3, 4)
    assert summary["pass_at"]["2"] == round((5 / 6 + 1 + 2 / 3) / 3, 4)
    assert summary["pass_hat"]["3"] == 0.3333  # (0 + 1 + 0) / 3, exactly, then rounded
    assert summary["cases_with_fewer_runs"] == {"1": 1, "2": 1, "3": 1}
    assert summary["pass_hat_k"] == 0.25 and summary["pass_at_k"] == 0.75  # unchanged meaning
    assert not _schema_errors(ws.report())


def test_k_flag_picks_the_ks_and_counts_cases_left_out(ws: Workspace) -> None:
    ws.case(dict(GOOD_CASE, id="a"))
    ws.case(dict(GOOD_CASE, id="b"))
    _pattern(ws, "a", "pfpfp")
    _pattern(ws, "b", "pp")
    assert ws.run("--k", "5,1,3,3").code == 1
    summary = ws.report()["summary"]
    assert list(summary["pass_hat"]) == ["1", "3", "5"]
    assert summary["cases_with_fewer_runs"] == {"1": 0, "3": 1, "5": 1}
    assert summary["pass_hat"]["5"] == 0.0 and summary["pass_at"]["5"] == 1.0
    assert summary["pass_hat"]["3"] == 0.1  # C(3,3)/C(5,3), from case a only
    assert ws.run("--k", "9").code == 1
    assert ws.report()["summary"]["pass_hat"] == {"9": None}
    bad = ws.run("--k", "0,2")
    assert bad.code == 2 and "each k is a whole number of runs, at least 1" in bad.err


def test_case_rows_have_a_wilson_interval_and_percentiles_in_the_summary(ws: Workspace) -> None:
    ws.case()
    traces = [good_trace(durationMs=d) for d in (100, 200, 300, 400, 500, 600, 700, 800)]
    traces += [_failing(), _failing()]
    _runs(ws, "db-slow", *traces)
    assert ws.run().code == 1
    case = ws.case_result()
    assert case["run_pass_rate"] == 0.8
    assert case["run_pass_interval"] == [0.4901, 0.9434]
    summary = ws.report()["summary"]
    # The failing traces keep good_trace's 1200 ms: 100..800, 1200, 1200.
    assert summary["p50_duration_ms"] == 500 and summary["p95_duration_ms"] == 1200
    assert summary["p95_tool_calls"] == 2
    md = (ws.out / "report.md").read_text("utf-8")
    assert "| 95th percentile duration (ms) | 1,200 |" in md
    assert "## Reliability over repeated runs" in md


# --------------------------------------------------------------------------------------------
# Thresholds


def test_min_passes_lets_a_case_pass_on_enough_runs(ws: Workspace) -> None:
    ws.case(dict(GOOD_CASE, min_passes=3))
    _pattern(ws, "db-slow", "pfpp")
    result = ws.run()
    assert result.code == 0, result.out + result.err
    case = ws.case_result()
    assert case["status"] == "pass"
    assert case["runs"] == {"total": 4, "passed": 3, "required": 3, "items": case["runs"]["items"]}
    assert case["reason"] == "3 of 4 runs passed (3 required)"
    assert case["flaky"] is True
    summary = ws.report()["summary"]
    assert (summary["pass_rate"], summary["pass_hat_k"]) == (1.0, 0.0), "all runs: not this one"
    _pattern(ws, "db-slow", "pffp")
    assert ws.run().code == 1
    case = ws.case_result()
    assert case["status"] == "fail"
    assert case["reason"].startswith("2 of 4 runs passed (3 required); ")
    assert "run-2.json" in case["reason"]
    md = (ws.out / "report.md").read_text("utf-8")
    assert "| 2/4, 3 required (flaky) |" in md


def test_min_pass_rate_rounds_up_exactly_and_errors_count_as_not_passing(ws: Workspace) -> None:
    ws.case(dict(GOOD_CASE, min_pass_rate=0.7))
    _pattern(ws, "db-slow", "ppppppp" + "fef")  # 7 of 10 pass; 0.7 * 10 is 7, not 7.000...1
    assert ws.run().code == 0
    case = ws.case_result()
    assert case["runs"]["required"] == 7 and case["status"] == "pass"
    _pattern(ws, "db-slow", "pppppp" + "fefp")
    (ws.fixtures / "db-slow" / "run-10.json").write_text("{x", "utf-8")  # 6 pass, 1 error more
    assert ws.run().code == 1
    case = ws.case_result()
    assert case["status"] == "error", "too few passed, and a run in error must be looked at"
    assert case["reason"].startswith("6 of 10 runs passed (7 required); ")


def test_min_run_pass_rate_applies_to_cases_without_their_own(ws: Workspace) -> None:
    ws.case(dict(GOOD_CASE, id="own", min_passes=4))
    ws.case(dict(GOOD_CASE, id="default"))
    _pattern(ws, "own", "pppf")
    _pattern(ws, "default", "pppf")
    assert ws.run("--min-run-pass-rate", "75%").code == 1
    own, default = ws.case_result("own"), ws.case_result("default")
    assert (own["status"], own["runs"]["required"]) == ("fail", 4)
    assert (default["status"], default["runs"]["required"]) == ("pass", 3)
    assert ws.run().code == 1
    assert "required" not in ws.case_result("default")["runs"], "pass^k without the flag"
    bad = ws.run("--min-run-pass-rate", "1.5")
    assert bad.code == 2 and "--min-run-pass-rate" in bad.err


def test_min_passes_above_the_runs_found_warns_at_run_time(ws: Workspace) -> None:
    path = ws.case(dict(GOOD_CASE, min_passes=5))
    _pattern(ws, "db-slow", "ppp")
    result = ws.run()
    assert result.code == 1
    line = next(
        n for n, text in enumerate(path.read_text().splitlines(), 1) if "min_passes" in text
    )
    assert f"db-slow.yaml:{line}:3: warning: min_passes is 5 but the case has 3 runs" in result.err
    assert "[too-few-runs]" in result.err
    case = ws.case_result()
    assert case["status"] == "fail" and case["notes"][0].startswith("min_passes is 5")
    assert not _schema_errors(ws.report())


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("min_passes", 0, "out-of-range"),
        ("min_passes", 2.5, "wrong-type"),
        ("min_pass_rate", 1.5, "out-of-range"),
        # "80%" is a share, as run --min-run-pass-rate takes it; a percentage above 100% is not
        ("min_pass_rate", "150%", "out-of-range"),
        ("min_pass_rate", "most", "wrong-type"),
    ],
)
def test_impossible_thresholds_are_lint_errors(
    ws: Workspace, key: str, value: object, expected: str
) -> None:
    from conftest import run_cli

    path = ws.case(dict(GOOD_CASE, **{key: value}))
    result = run_cli("lint", str(path), cwd=ws.root)
    assert result.code == 1 and f"[{expected}]" in result.out and key in result.out
    assert ws.run().code == 2, "run refuses what lint reports as an error"


# --------------------------------------------------------------------------------------------
# Flaky and quarantine


def test_fail_on_flaky_fails_a_case_that_passed_on_its_threshold(ws: Workspace) -> None:
    ws.case(dict(GOOD_CASE, min_passes=2))
    ws.case(dict(GOOD_CASE, id="steady"))
    _pattern(ws, "db-slow", "pfp")
    _pattern(ws, "steady", "pp")
    assert ws.run().code == 0
    result = ws.run("--fail-on", "flaky")
    assert result.code == 1
    assert "exit 1: 1 flaky case (some runs pass, some fail): db-slow" in result.out
    _pattern(ws, "db-slow", "ppp")
    assert ws.run("--fail-on", "flaky").code == 0


def _quarantine(ws: Workspace, text: str) -> Path:
    path = ws.root / "quarantine.yaml"
    path.write_text(text, "utf-8")
    return path


def test_quarantined_cases_are_reported_but_never_fail_the_run(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="shaky"))
    ws.trace("db-slow", good_trace())
    _pattern(ws, "shaky", "pf")
    q = _quarantine(ws, "# known problems\n- id: shaky\n  reason: verifier upgrade, OPS-12\n")
    result = ws.run(
        "--quarantine",
        str(q),
        "--fail-on",
        "flaky",
        "--min-pass-rate",
        "1",
        "--format",
        "json,md,junit",
    )
    assert result.code == 0, result.out + result.err
    report = ws.report()
    assert report["summary"]["quarantined"] == [
        {"case_id": "shaky", "reason": "verifier upgrade, OPS-12", "status": "fail"}
    ]
    assert report["summary"]["failed"] == 1, "the summary still tells the truth"
    assert report["inputs"]["quarantine"] == "quarantine.yaml"
    shaky = ws.case_result("shaky")
    assert shaky["status"] == "fail" and shaky["quarantined"] == "verifier upgrade, OPS-12"
    assert "quarantined" not in ws.case_result("db-slow")
    assert "[quarantined: verifier upgrade, OPS-12]" in result.out
    md = (ws.out / "report.md").read_text("utf-8")
    assert "| shaky | ❌ fail | verifier upgrade, OPS-12 |" in md
    junit = etree.parse(str(ws.out / "report.junit.xml"))
    skipped = [tc for tc in junit.iter("testcase") if tc.find("skipped") is not None]
    assert [tc.get("name") for tc in skipped] == ["shaky [run-2.json]"]
    assert "quarantined (verifier upgrade, OPS-12)" in skipped[0].find("skipped").get("message")
    assert junit.getroot().find("testsuite").get("skipped") == "1"
    assert not _schema_errors(report)


def test_quarantine_never_fails_a_regression_gate(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="shaky"))
    ws.trace("db-slow", good_trace())
    ws.trace("shaky", good_trace("shaky"))
    assert ws.run().code == 0
    base = ws.root / "base.json"
    base.write_text((ws.out / "report.json").read_text("utf-8"), "utf-8")
    ws.trace("shaky", _failing("shaky"))
    q = _quarantine(ws, "- id: shaky\n  reason: flaky\n")
    args = ("--baseline", str(base), "--fail-on", "regression")
    assert ws.run(*args).code == 1
    assert ws.run(*args, "--quarantine", str(q)).code == 0
    assert ws.report()["comparison"]["regressions"][0]["case_id"] == "shaky", "still listed"


def test_an_unknown_quarantined_id_is_a_warning_with_did_you_mean(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    q = _quarantine(ws, "- id: db-slwo\n  reason: typo\n")
    result = ws.run("--quarantine", str(q))
    assert result.code == 0
    assert "quarantine.yaml:1:3: warning: quarantined case 'db-slwo' is not a case" in result.err
    assert "(did you mean 'db-slow'?)" in result.err and "[unknown-case]" in result.err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "id: a\nreason: b\n",
            "quarantine.yaml:1:1: error: the file holds a mapping; it must be a list",
        ),
        ("- id: db-slow\n", "quarantine.yaml:1:3: error: this entry has no 'reason'"),
        (
            "- id: db-slow\n  reasn: x\n",
            "quarantine.yaml:2:3: error: unknown key 'reasn' (did you mean 'reason'?)",
        ),
        ("- id: db-slow\n  reason: ''\n", "quarantine.yaml:2:11: error: 'reason' is empty"),
        (
            "- db-slow\n",
            "quarantine.yaml:1:3: error: each entry is a mapping with 'id' and 'reason'",
        ),
        ("- id: [db-slow\n", "quarantine.yaml:"),
    ],
)
def test_quarantine_file_errors_are_located_and_stop_the_run(
    ws: Workspace, text: str, expected: str
) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    result = ws.run("--quarantine", str(_quarantine(ws, text)))
    assert result.code == 2, result.out
    assert expected in result.err
    assert not ws.out.exists(), "nothing is evaluated or written"


def test_an_empty_or_missing_quarantine_file(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    assert ws.run("--quarantine", str(_quarantine(ws, "# nothing yet\n"))).code == 0
    assert ws.report()["summary"]["quarantined"] == []
    missing = ws.run("--quarantine", str(ws.root / "nope.yaml"))
    assert missing.code == 2 and "cannot read the quarantine file" in missing.err


def test_a_duplicate_quarantine_entry_warns_and_keeps_the_first(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", _failing())
    q = _quarantine(ws, "- id: db-slow\n  reason: one\n- id: db-slow\n  reason: two\n")
    result = ws.run("--quarantine", str(q))
    assert result.code == 0
    assert "quarantine.yaml:3:7: warning: case 'db-slow' is already quarantined" in result.err
    assert ws.case_result()["quarantined"] == "one"
    assert (
        json.loads((ws.out / "report.json").read_text())["summary"]["quarantined"][0]["reason"]
        == "one"
    )


def test_many_runs_stay_exact_and_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    import math

    from validator.report import reliability

    # The work is counted: a case of thousands of runs must not stall a run. Each k moves
    # every group of cases with the same number of runs one step, carrying its binomials;
    # no binomial is computed afresh and no fraction is built (both cost ~n per k).
    work = {"steps": 0, "binomials": 0, "fractions": 0}
    step, comb = reliability._Group.step, math.comb

    def counted(name: str, function: Any) -> Any:
        def call(*args: Any) -> Any:
            work[name] += 1
            return function(*args)

        return call

    monkeypatch.setattr(reliability._Group, "step", counted("steps", step))
    monkeypatch.setattr(reliability.math, "comb", counted("binomials", comb))
    monkeypatch.setattr(reliability, "Fraction", counted("fractions", Fraction))
    counts = [(2000, 1500), (2000, 1990), (1500, 700), (1500, 1500)]
    got = estimates(counts)
    assert work == {"steps": 2 * 1500, "binomials": 0, "fractions": 0}
    monkeypatch.undo()
    assert len(got["pass_hat"]) == 1500
    for k in (1, 2, 10, 500, 1500):
        every = sum((pass_hat(n, c, k) for n, c in counts), Fraction(0)) / len(counts)
        some = sum((pass_at(n, c, k) for n, c in counts), Fraction(0)) / len(counts)
        assert got["pass_hat"][str(k)] == float(round(every, 4)), k
        assert got["pass_at"][str(k)] == float(round(some, 4)), k


def test_rounding_is_half_to_even_on_exact_ties() -> None:
    # Exact values halfway between two 4-place figures go to the even one, as round() does
    # on a Fraction; a float would have decided them by its binary representation error.
    assert estimates([(8, 1)], [1])["pass_hat"]["1"] == 0.125
    assert estimates([(20000, 1)], [1])["pass_hat"]["1"] == 0.0  # 0.00005: a tie, to even
    assert estimates([(20000, 3)], [1])["pass_hat"]["1"] == 0.0002  # 0.00015: to even, up


def test_wilson_interval_gives_each_caller_its_own_list() -> None:
    first = wilson_interval(8, 10)
    assert first is not None
    first.append(0.5)
    assert wilson_interval(8, 10) == [0.4901, 0.9434]
