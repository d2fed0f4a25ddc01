"""Traces that match no case and unused files, said as the suite's settings decide:
`traces.allow_unmatched: true` is respected by lint's wording, `-q` prints the one summary
line, and past five the lists are counted, not listed."""

from __future__ import annotations

from conftest import Workspace, good_trace, run_cli


def test_lint_respects_allow_unmatched(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    ws.trace("stray", good_trace("stray"))
    (ws.root / "validator.yaml").write_text(
        "fixtures: fixtures\ntraces:\n  allow_unmatched: true\n", "utf-8"
    )
    result = run_cli("lint", cwd=ws.root)
    assert "traces.allow_unmatched: true, so it does not fail" in result.out
    assert "and fails)" not in result.out


def test_quiet_prints_one_line_and_lists_are_counted_past_five(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    for i in range(7):
        (ws.fixtures / f"notes-{i}.txt").write_text("not a trace", "utf-8")
    quiet = ws.run("-q")
    lines = quiet.out.strip().splitlines()
    assert len(lines) == 1, quiet.out
    assert "7 files not used (see unused_files in report.json)" in lines[0]
    assert "notes-0.txt" not in quiet.out
    loud = ws.run()
    assert sum(line.startswith("UNUSED   fixtures/") for line in loud.out.splitlines()) == 5
    assert "UNUSED   and 2 more (see unused_files in report.json)" in loud.out


def test_run_names_the_setting_that_allowed_unmatched_traces(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    ws.trace("stray", good_trace("stray"))
    (ws.root / "validator.yaml").write_text(
        "fixtures: fixtures\ntraces:\n  allow_unmatched: true\n", "utf-8"
    )
    result = ws.run()
    assert result.code == 0, result.out
    said = "1 trace matches no case (allowed: traces.allow_unmatched: true in validator.yaml)"
    assert said in result.out
    assert "--allow-unmatched" not in result.out  # not a flag the user gave
    quiet = ws.run("-q")
    assert quiet.out.strip().splitlines() == [
        line for line in result.out.splitlines() if line.startswith("1 case:")
    ]
