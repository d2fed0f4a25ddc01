"""The command line on hostile input: a gate that cannot be fooled or knocked over.

Each test is one hostile situation (links outside the project, control characters in trace
text, numbers that overflow, unusable baselines, misplaced positions, memory running out):
the run completes, says why, and exits 1 (or 2 with a message for a usage error); it never
crashes, loses a report, passes silently, reads outside the project or prints trace text raw.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import GOOD_CASE, Workspace, good_trace, set_verdict


def _no_traceback(result: object) -> None:
    text = result.out + result.err  # type: ignore[attr-defined]
    assert "Traceback" not in text and "internal error" not in text, text


# --------------------------------------------------------------------------------------------
# Files outside the project are neither read nor echoed


def _secret_folder(tmp_path: Path) -> Path:
    secret = tmp_path / "elsewhere"
    secret.mkdir()
    (secret / "run-1.json").write_text(json.dumps(good_trace("AKIA-SECRET-KEY")), "utf-8")
    return secret


def test_a_case_folder_linking_outside_the_fixtures_is_refused(
    ws: Workspace, tmp_path: Path
) -> None:
    ws.case()
    (ws.fixtures / "db-slow").symlink_to(_secret_folder(tmp_path), target_is_directory=True)
    result = ws.run()
    _no_traceback(result)
    assert result.code == 1
    case = ws.case_result()
    assert case["status"] == "error" and "outside" in case["reason"], case
    everything = result.out + result.err + (ws.out / "report.json").read_text("utf-8")
    everything += (ws.out / "report.md").read_text("utf-8")
    assert "AKIA" not in everything, "nothing of the linked folder is read or echoed"


def test_follow_symlinks_reads_a_linked_case_folder(ws: Workspace, tmp_path: Path) -> None:
    ws.case()
    secret = tmp_path / "elsewhere"
    secret.mkdir()
    (secret / "run-1.json").write_text(json.dumps(good_trace()), "utf-8")
    (ws.fixtures / "db-slow").symlink_to(secret, target_is_directory=True)
    result = ws.run("--follow-symlinks")
    assert result.code == 0, result.out + result.err
    assert ws.case_result()["status"] == "pass"


def test_lint_warns_about_a_case_folder_linking_outside(ws: Workspace, tmp_path: Path) -> None:
    from conftest import run_cli

    ws.case()
    (ws.fixtures / "db-slow").symlink_to(_secret_folder(tmp_path), target_is_directory=True)
    result = run_cli("lint", "cases", "--fixtures", "fixtures", cwd=ws.root)
    assert "[fixture-outside]" in result.out, result.out


# --------------------------------------------------------------------------------------------
# Trace text never reaches a terminal, a CI log or Markdown raw

HOSTILE_ID = "db-slow\x1b[2J\n::error file=x.py,line=1::forged\x07"


def test_control_characters_from_traces_are_escaped_on_the_terminal(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace(HOSTILE_ID))  # a caseId that is not this case's
    result = ws.run()
    _no_traceback(result)
    printed = result.out + result.err
    assert "\x1b" not in printed and "\x07" not in printed
    assert not any(line.startswith("::") for line in printed.splitlines()), printed
    assert "\\x1b[2J\\n::error" in printed  # shown, escaped


def test_markdown_report_keeps_links_and_mentions_inert(ws: Workspace) -> None:
    ws.case()
    answer = "see https://evil.example/x and www.evil.example, cc @oncall-team \x1b[31m"
    ws.trace("db-slow", set_verdict(good_trace(finalAnswer=answer), "REVISE"))
    ws.run()
    markdown = (ws.out / "report.md").read_text("utf-8")
    assert "\x1b" not in markdown
    for live in ("https://", "www.evil", "@oncall"):
        assert live not in markdown, live


# --------------------------------------------------------------------------------------------
# Numbers that overflow, and durations that are not durations


def test_two_huge_durations_still_give_a_complete_strict_report(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="other"))
    ws.trace("db-slow", good_trace(durationMs=1e308))
    ws.trace("other", good_trace("other", durationMs=1e308))
    result = ws.run()
    _no_traceback(result)
    report = ws.report()
    assert report["summary"]["avg_duration_ms"] is None
    assert any("too large" in n for n in report["cases"][0]["notes"])


@pytest.mark.parametrize("value", [-86400000, 10**400])
def test_a_duration_that_is_not_one_is_left_out_with_a_note(ws: Workspace, value: int) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="other"))
    ws.trace("db-slow", good_trace(durationMs=value))
    ws.trace("other", good_trace("other", durationMs=100))
    result = ws.run()
    _no_traceback(result)
    report = ws.report()
    assert report["summary"]["avg_duration_ms"] == 100
    case = ws.case_result()
    assert case["duration_ms"] is None and case["notes"], case


def test_a_pinned_time_no_calendar_can_show_still_writes_reports(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "99999999999999999999")
    ws.case()
    ws.trace("db-slow", good_trace())
    result = ws.run()
    _no_traceback(result)
    assert result.code == 0 and ws.report()["generated_at"]


# --------------------------------------------------------------------------------------------
# Baselines


def _baseline(ws: Workspace, text: str) -> Path:
    path = ws.root / "base.json"
    path.write_text(text, "utf-8")
    return path


@pytest.mark.parametrize("number", ["NaN", "Infinity", "1e400", "-Infinity"])
def test_a_baseline_with_non_finite_metrics_is_compared_without_crashing(
    ws: Workspace, number: str
) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    row = (
        '{"case_id": "db-slow", "status": "pass", "duration_ms": NUMBER,'
        ' "tool_call_count": NUMBER, "runs": {"total": 1, "passed": 1}}'
    ).replace("NUMBER", number)
    text = '{"schema_version": 1, "tool": {"name": "trace-validator"}, "cases": [ROW]}'
    text = text.replace("ROW", row)
    result = ws.run("--baseline", str(_baseline(ws, text)))
    _no_traceback(result)
    assert result.code == 0
    comparison = ws.report()["comparison"]
    assert comparison["baseline_summary"]["avg_duration_ms"] is None


def test_a_baseline_whose_version_is_true_is_refused(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    text = '{"schema_version": true, "tool": {}, "cases": []}'
    result = ws.run("--baseline", str(_baseline(ws, text)))
    assert result.code == 2 and "schema version True" in result.err, result.err


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_a_baseline_that_is_not_a_file_is_refused_at_once(ws: Workspace, special: str) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    path = special
    if special == "fifo":
        path = str(ws.root / "base.fifo")
        os.mkfifo(path)
    result = ws.run("--baseline", path)
    assert result.code == 2 and "not a regular file" in result.err, result.err


# --------------------------------------------------------------------------------------------
# Messages that named the wrong thing


def test_a_pipe_given_as_cases_or_to_lint_is_named_as_such(ws: Workspace) -> None:
    from conftest import run_cli

    fifo = ws.root / "cases.fifo"
    os.mkfifo(fifo)
    for args in (("run", "--cases", str(fifo)), ("lint", str(fifo))):
        result = run_cli(*args, cwd=ws.root)
        assert result.code == 2 and "not a regular file or folder" in result.err, result.err


def test_a_nul_in_a_case_file_is_placed_where_it_is(ws: Workspace) -> None:
    from conftest import run_cli

    (ws.cases / "nul.yaml").write_bytes(b"id: nul\nquestion: why\x00 now\n")
    result = run_cli("lint", "cases/nul.yaml", cwd=ws.root)
    assert "cases/nul.yaml:2:14: error: file holds a NUL character" in result.out, result.out


def test_a_line_separator_in_a_quoted_value_does_not_shift_later_positions(ws: Workspace) -> None:
    from conftest import run_cli

    text = 'id: sep\nquestion: "a\u2028b"\nroot_cause_keywords: [x]\nrequired_tool: []\n'
    (ws.cases / "sep.yaml").write_text(text, "utf-8")
    result = run_cli("lint", "cases/sep.yaml", cwd=ws.root)
    assert "cases/sep.yaml:4:1: error: unknown key 'required_tool'" in result.out, result.out


def test_a_broken_json_lines_entry_with_an_escaped_case_id_errs_its_case(ws: Workspace) -> None:
    ws.case(dict(GOOD_CASE, id="c2"))
    lines = '{"caseId": "c\\u0032", "finalAnswer": "unterminated\n'
    (ws.root / "t.jsonl").write_text(lines, "utf-8")
    result = ws.run("--fixtures", str(ws.root / "t.jsonl"))
    _no_traceback(result)
    assert ws.case_result("c2")["status"] == "error"


def test_running_out_of_memory_on_one_trace_is_that_trace_s_error(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from validator.evaluation import worker as runner

    real = runner.read_trace_file

    def hungry(path, root, max_bytes):  # type: ignore[no-untyped-def]
        if "db-slow" in str(path):
            raise MemoryError()
        return real(path, root, max_bytes)

    monkeypatch.setattr(runner, "read_trace_file", hungry)
    ws.case()
    ws.case(dict(GOOD_CASE, id="other"))
    ws.trace("db-slow", good_trace())
    ws.trace("other", good_trace("other"))
    result = ws.run()
    _no_traceback(result)
    assert "not enough memory" in ws.case_result()["reason"]
    assert ws.case_result("other")["status"] == "pass"
