"""Repeated runs (pass^k), case selection (--case/--tag) and the progress bar, through the CLI."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GOOD_CASE, Workspace, good_trace, markdown_table, set_verdict


def _failing(case_id: str = "db-slow") -> dict:
    return set_verdict(good_trace(case_id), "REVISE")


def _runs(ws: Workspace, case_id: str, *traces: object) -> None:
    """FIXTURES/<case_id>/run-<n>.json, one per trace, in the given order."""
    for n, trace in enumerate(traces, start=1):
        ws.trace(case_id, trace, name=f"{case_id}/run-{n}.json")


# --------------------------------------------------------------------------------------------
# Repeated runs


def test_runs_in_a_folder_are_sorted_and_the_case_passes_only_if_all_pass(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace(durationMs=100), name="db-slow/c.json")
    ws.trace("db-slow", _failing(), name="db-slow/b.json")
    ws.trace("db-slow", good_trace(durationMs=300), name="db-slow/a.json")
    result = ws.run()
    assert result.code == 1
    case = ws.case_result()
    assert case["status"] == "fail", "pass^k: one failing run fails the case"
    assert case["runs"]["total"] == 3 and case["runs"]["passed"] == 2
    assert case["run_pass_rate"] == pytest.approx(0.6667)
    assert case["flaky"] is True
    items = case["runs"]["items"]
    assert [Path(i["fixture"]).name for i in items] == ["a.json", "b.json", "c.json"]
    assert [i["status"] for i in items] == ["pass", "fail", "pass"]
    assert items[1]["verdict"] == "REVISE"
    assert [f["check"] for f in items[1]["failed_checks"]] == ["verdict-allowed"]
    assert items[0]["tool_call_count"] == 2 and items[0]["duration_ms"] == 300
    # Case-level fields describe the first run that did not pass.
    assert case["fixture"].endswith("db-slow/b.json")
    assert case["verdict"] == "REVISE"
    assert [f["check"] for f in case["failed_checks"]] == ["verdict-allowed"]
    assert "b.json" in case["reason"]


def test_numbers_in_run_file_names_sort_as_numbers(ws: Workspace) -> None:
    ws.case()
    for name in ("run10.json", "run2.json", "run1.json", "run01.json", "summary.json"):
        ws.trace("db-slow", good_trace(), name=f"db-slow/{name}")
    ws.trace("db-slow", _failing(), name="db-slow/run9.json")
    assert ws.run().code == 1
    case = ws.case_result()
    names = [Path(i["fixture"]).name for i in case["runs"]["items"]]
    assert names == [
        "run01.json",
        "run1.json",
        "run2.json",
        "run9.json",
        "run10.json",
        "summary.json",
    ]
    assert case["fixture"].endswith("db-slow/run9.json")  # the first run that did not pass


def test_all_runs_passing_describes_the_first_run(ws: Workspace) -> None:
    ws.case()
    _runs(ws, "db-slow", good_trace(durationMs=10), good_trace(durationMs=20))
    assert ws.run().code == 0
    case = ws.case_result()
    assert case["status"] == "pass"
    assert case["fixture"].endswith("db-slow/run-1.json")
    assert case["duration_ms"] == 10
    assert case["runs"]["total"] == 2 and case["runs"]["passed"] == 2
    assert case["run_pass_rate"] == 1.0 and case["flaky"] is False


def test_a_single_trace_file_is_one_run_without_items(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    assert ws.run().code == 0
    case = ws.case_result()
    assert case["runs"] == {"total": 1, "passed": 1}
    assert case["run_pass_rate"] == 1.0 and case["flaky"] is False


def test_a_run_in_error_makes_the_case_error_and_flaky_ignores_it(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="mixed"))
    _runs(ws, "db-slow", good_trace(), "{not json")
    # A top-level list is a trace now (a trajectory): `null` is the document that is none.
    _runs(ws, "mixed", good_trace("mixed"), _failing("mixed"), "null")
    assert ws.run().code == 1
    only_error = ws.case_result("db-slow")
    assert only_error["status"] == "error"
    assert only_error["flaky"] is False, "pass + error is not flaky: only pass and fail count"
    assert "invalid JSON" in only_error["reason"] and "run-2.json" in only_error["reason"]
    mixed = ws.case_result("mixed")
    assert mixed["status"] == "error"
    assert mixed["flaky"] is True
    assert mixed["fixture"].endswith("mixed/run-2.json"), "first run that did not pass"


def test_both_a_file_and_a_folder_for_one_case_is_an_error(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    ws.trace("db-slow", good_trace(), name="db-slow/run-1.json")
    assert ws.run().code == 1
    case = ws.case_result()
    assert case["status"] == "error"
    assert "ambiguous" in case["reason"]
    assert "db-slow.json" in case["reason"] and "db-slow/" in case["reason"]


def test_an_empty_run_folder_is_not_run(ws: Workspace) -> None:
    ws.case()
    (ws.fixtures / "db-slow").mkdir()
    assert ws.run().code == 1
    case = ws.case_result()
    assert case["status"] == "not_run"
    assert "db-slow/" in case["reason"]


def test_json_lines_group_runs_by_case_id_in_line_order(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="other"))
    lines = [
        good_trace(durationMs=1),
        good_trace("other"),
        _failing(),
        good_trace(durationMs=3),
    ]
    export = ws.root / "export.jsonl"
    export.write_text("\n".join(json.dumps(t) for t in lines) + "\n\n", "utf-8")
    result = ws.run("--fixtures", str(export))
    assert result.code == 1
    case = ws.case_result()
    assert [i["fixture"].rsplit(":", 1)[1] for i in case["runs"]["items"]] == ["1", "3", "4"]
    assert [i["status"] for i in case["runs"]["items"]] == ["pass", "fail", "pass"]
    assert case["flaky"] is True
    other = ws.case_result("other")
    assert other["status"] == "pass" and other["runs"]["total"] == 1


def test_interleaved_cases_each_use_their_own_case_fields(ws: Workspace) -> None:
    # Arguments bound to case fields are reused across a case's consecutive runs; traces of
    # two cases alternating (as a JSON Lines export may) must still each get their own.
    ws.case(dict(GOOD_CASE, id="strict", allowed_verdicts=["PASS"]))
    ws.case(dict(GOOD_CASE, id="lenient", allowed_verdicts=["REVISE"]))
    lines = [
        set_verdict(good_trace("strict"), "PASS"),
        set_verdict(good_trace("lenient"), "REVISE"),
        set_verdict(good_trace("strict"), "REVISE"),
        set_verdict(good_trace("lenient"), "PASS"),
        set_verdict(good_trace("strict"), "PASS"),
    ]
    export = ws.root / "export.jsonl"
    export.write_text("".join(json.dumps(t) + "\n" for t in lines), "utf-8")
    assert ws.run("--fixtures", str(export)).code == 1
    for case_id, expected in (("strict", ["pass", "fail", "pass"]), ("lenient", ["pass", "fail"])):
        items = ws.case_result(case_id)["runs"]["items"]
        assert [i["status"] for i in items] == expected, case_id
        failed = [f["check"] for i in items for f in i["failed_checks"]]
        assert failed == ["verdict-allowed"], case_id


def test_summary_pass_hat_k_pass_at_k_and_aggregates_over_all_runs(ws: Workspace) -> None:
    for case_id in ("always", "flaky", "never", "missing"):
        ws.case(dict(GOOD_CASE, id=case_id))
    always = [good_trace("always", durationMs=100), good_trace("always", durationMs=200)]
    _runs(ws, "always", *always)
    _runs(ws, "flaky", good_trace("flaky", durationMs=300), _failing("flaky"))
    never = _failing("never")
    never["toolInvocations"] = [*never["toolInvocations"], {"toolName": "x"}, {"toolName": "y"}]
    del never["durationMs"]
    _runs(ws, "never", never)
    assert ws.run().code == 1
    summary = ws.report()["summary"]
    assert summary["total"] == 4
    assert summary["pass_rate"] == 0.25
    assert summary["pass_hat_k"] == 0.25, "only 'always' passed every run; 4 cases in all"
    assert summary["pass_at_k"] == 0.5, "'always' and 'flaky' passed at least once"
    assert summary["flaky_cases"] == 1
    # Aggregates count every evaluated run: 5 traces.
    assert summary["runs"] == {"total": 5, "evaluated": 5, "passed": 3}
    assert summary["verdict_distribution"] == {"PASS": 3, "REVISE": 2}
    assert summary["avg_tool_calls"] == pytest.approx((2 * 4 + 4) / 5)
    assert summary["avg_duration_ms"] == pytest.approx((100 + 200 + 300 + 1200) / 4)


def test_markdown_has_a_runs_column_and_lists_flaky_cases(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="steady"))
    _runs(ws, "db-slow", good_trace(), _failing(), good_trace())
    ws.trace("steady", good_trace("steady"))
    assert ws.run().code == 1
    md = (ws.out / "report.md").read_text("utf-8")
    rows = markdown_table(md, "Case")
    assert rows[0][:3] == ["Case", "Status", "Runs"]
    cells = {r[0]: r for r in rows[1:]}
    assert cells["db-slow"][2] == "2/3 (flaky)"
    assert cells["steady"][2] == "1/1"
    assert "Flaky cases (some runs pass, some fail): db-slow" in md
    metrics = dict((r[0], r[1]) for r in markdown_table(md, "Metric")[1:])
    assert metrics["pass^k (every run passed)"] == "50.0%"
    assert metrics["pass@k (some run passed)"] == "100.0%"
    assert metrics["Flaky cases"] == "1"
    assert "run-2.json" in md.split("## Cases that did not pass")[1]


def test_markdown_has_no_runs_column_when_every_case_has_one_run(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    assert ws.run().code == 0
    md = (ws.out / "report.md").read_text("utf-8")
    assert "Runs" not in markdown_table(md, "Case")[0]


# --------------------------------------------------------------------------------------------
# Selecting cases


def _three_cases(ws: Workspace) -> None:
    for case_id, tags in (
        ("mysql-slow", ["smoke", "mysql"]),
        ("mysql-lock", ["mysql"]),
        ("redis-evict", ["smoke"]),
    ):
        ws.case(dict(GOOD_CASE, id=case_id, tags=tags))
        ws.trace(case_id, good_trace(case_id))


def _ids(ws: Workspace) -> list[str]:
    return [c["case_id"] for c in ws.report()["cases"]]


def test_case_selects_by_id_and_by_glob_repeatably(ws: Workspace) -> None:
    _three_cases(ws)
    ws.trace("redis-evict", _failing("redis-evict"))  # would fail if it were evaluated
    result = ws.run("--case", "mysql-*")
    assert result.code == 0, result.out + result.err
    assert _ids(ws) == ["mysql-lock", "mysql-slow"]
    assert "matches no case id" not in result.err, "a left-out case's fixture is no stray file"
    assert ws.report()["inputs"]["selection"] == {"cases": ["mysql-*"], "tags": []}
    assert ws.run("--case", "redis-evict", "--case", "mysql-lock").code == 1
    assert _ids(ws) == ["mysql-lock", "redis-evict"]


def test_tag_selects_and_combines_with_case(ws: Workspace) -> None:
    _three_cases(ws)
    assert ws.run("--tag", "smoke").code == 0
    assert _ids(ws) == ["mysql-slow", "redis-evict"]
    assert ws.run("--tag", "smoke", "--tag", "mysql").code == 0
    assert _ids(ws) == ["mysql-lock", "mysql-slow", "redis-evict"]
    assert ws.run("--tag", "smoke", "--case", "mysql-*").code == 0
    assert _ids(ws) == ["mysql-slow"]


def test_a_case_pattern_matching_nothing_is_a_usage_error(ws: Workspace) -> None:
    _three_cases(ws)
    result = ws.run("--case", "mysql-slwo")
    assert result.code == 2
    assert "--case 'mysql-slwo' matches no case" in result.err
    assert "did you mean 'mysql-slow'" in result.err
    assert not ws.out.exists(), "nothing is evaluated or written"
    far = ws.run("--case", "zzz*")
    assert far.code == 2 and "case ids: mysql-lock, mysql-slow, redis-evict" in far.err


def test_a_tag_matching_nothing_is_a_usage_error(ws: Workspace) -> None:
    _three_cases(ws)
    result = ws.run("--tag", "smok")
    assert result.code == 2
    assert "--tag 'smok' matches no case" in result.err and "did you mean 'smoke'" in result.err
    assert not ws.out.exists()


def test_a_selection_whose_parts_never_meet_is_a_usage_error(ws: Workspace) -> None:
    _three_cases(ws)
    result = ws.run("--case", "redis-*", "--tag", "mysql")
    assert result.code == 2
    assert "no case matches --case 'redis-*' and --tag 'mysql'" in result.err


def test_selection_with_json_lines_ignores_lines_of_left_out_cases(ws: Workspace) -> None:
    _three_cases(ws)
    export = ws.root / "export.jsonl"
    lines = [good_trace("mysql-slow"), _failing("redis-evict"), good_trace("nobody")]
    export.write_text("\n".join(json.dumps(t) for t in lines), "utf-8")
    result = ws.run("--fixtures", str(export), "--case", "mysql-slow")
    assert result.code == 1, "the line naming no case at all is still reported"
    report = ws.report()
    assert _ids(ws) == ["mysql-slow"]
    assert [u["case_id"] for u in report["unmatched_traces"]] == ["nobody"]


# --------------------------------------------------------------------------------------------
# Progress bar


def _many_traces(ws: Workspace, count: int) -> None:
    ws.case()
    for n in range(count):
        ws.trace("db-slow", good_trace(), name=f"db-slow/run-{n:04d}.json")


def _run_with_tty_stderr(ws: Workspace, *extra: str) -> tuple[int, str]:
    """Run the CLI in a subprocess whose stderr is a pseudo-terminal; return code, stderr."""
    import pty

    master, slave = pty.openpty()
    args = [sys.executable, "-m", "validator", "run", "--cases", str(ws.cases)]
    args += ["--fixtures", str(ws.fixtures), "--out", str(ws.out), "--jobs", "1", *extra]
    proc = subprocess.Popen(
        args, cwd=ws.root, stdout=subprocess.DEVNULL, stderr=slave, stdin=subprocess.DEVNULL
    )
    os.close(slave)
    chunks: list[bytes] = []
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 60)
            if not ready:
                break
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        code = proc.wait(timeout=60)
    return code, b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_progress_bar_on_a_terminal_for_over_200_traces(ws: Workspace) -> None:
    _many_traces(ws, 230)
    code, err = _run_with_tty_stderr(ws)
    assert code == 0, err
    assert "evaluating [" in err
    assert "230/230 traces 100%" in err
    assert err.endswith(" \r"), "the bar is erased at the end, so the summary starts clean"


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_progress_bar_counts_the_lines_of_a_json_lines_input(ws: Workspace) -> None:
    ws.case()
    export = ws.root / "export.jsonl"
    export.write_text("\n".join(json.dumps(good_trace()) for _ in range(240)) + "\n", "utf-8")
    code, err = _run_with_tty_stderr(ws, "--fixtures", str(export))
    assert code == 0, err
    assert "240/240 traces 100%" in err


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_no_progress_bar_for_small_runs_or_quiet(ws: Workspace) -> None:
    _many_traces(ws, 150)
    code, err = _run_with_tty_stderr(ws)
    assert code == 0 and "evaluating" not in err
    for n in range(150, 230):
        ws.trace("db-slow", good_trace(), name=f"db-slow/run-{n:04d}.json")
    code, err = _run_with_tty_stderr(ws, "--quiet")
    assert code == 0 and "evaluating" not in err


def test_no_progress_bar_when_stderr_is_not_a_terminal(ws: Workspace) -> None:
    _many_traces(ws, 230)
    result = ws.run()  # stderr captured in memory: not a terminal
    assert result.code == 0
    # No bar (no carriage returns redrawing a line), but a plain line every tenth of the
    # traces for CI logs (see test_ci_outputs.py).
    assert "\r" not in result.err and "[#" not in result.err
    assert all(line.startswith("progress: ") for line in result.err.splitlines())
    assert ws.report()["summary"]["runs"]["total"] == 230
