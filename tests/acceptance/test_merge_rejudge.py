"""`merge` judges every run again from its recorded checks, and refuses damaged shard files.

Through the command line: real shard files written by `run --shard`, then edited as a
person (or a script) might, then merged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, Workspace, good_trace, run_cli, set_verdict

from validator.report.shard import SHARD_FILE, shard_of

COUNT = 2


@pytest.fixture(autouse=True)
def _no_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def _args(*more: str) -> list[str]:
    return ["--cases", "cases", "--fixtures", "fixtures", "--jobs", "1", *more]


def _suite(ws: Workspace, failing: tuple[int, ...] = (0, 3)) -> None:
    for c in range(6):
        case_id = f"case-{c}"
        ws.case(GOOD_CASE, id=case_id, name=case_id)
        trace = good_trace(case_id)
        if c in failing:
            trace = set_verdict(trace, "REJECT")
        ws.trace(case_id, trace)


def _shards(ws: Workspace, *more: str, count: int = COUNT) -> list[Path]:
    folders = []
    for i in range(1, count + 1):
        folder = ws.root / f"s{i}"
        result = run_cli(
            "run", *_args(*more), "--out", str(folder), "--shard", f"{i}/{count}", cwd=ws.root
        )
        assert result.code in (0, 1), result.err
        folders.append(folder)
    return folders


def _edit(folder: Path, change: Any) -> None:
    path = folder / SHARD_FILE
    data = json.loads(path.read_text("utf-8"))
    change(data)
    path.write_text(json.dumps(data), "utf-8")


def _merge(ws: Workspace, *args: Path | str) -> Any:
    result = run_cli("merge", *map(str, args), "--out", str(ws.root / "merged"), cwd=ws.root)
    assert "Traceback" not in result.err, result.err
    return result


def _every_run_passes(data: dict[str, Any]) -> None:
    for case in data["cases"]:
        for run in case["runs"]:
            run["status"] = "pass"


def test_an_untouched_merge_judges_as_the_run(ws: Workspace) -> None:
    _suite(ws)
    result = _merge(ws, *_shards(ws))
    assert result.code == 1, result.err
    assert "2 failed" in result.out


def test_a_shard_whose_runs_were_all_set_to_pass_is_refused_naming_the_case(
    ws: Workspace,
) -> None:
    _suite(ws)
    folders = _shards(ws)
    owner = shard_of("case-0", COUNT)
    _edit(folders[owner - 1], _every_run_passes)
    result = _merge(ws, *folders)
    assert result.code == 2, result.out
    assert "is damaged" in result.err and "case 'case-0'" in result.err, result.err
    assert "recorded as 'pass'" in result.err and "give 'fail'" in result.err
    assert not (ws.root / "merged" / "report.json").exists()
    # --allow-partial is about shards not given, never about a damaged one
    assert _merge(ws, *folders, "--allow-partial").code == 2


def test_a_failed_check_turned_into_a_warning_is_refused(ws: Workspace) -> None:
    """The severity decides with the recorded --fail-severity: a failed error check whose
    blocking flag was cleared (and its run set to pass) does not pass a merge."""
    _suite(ws)
    folders = _shards(ws)
    owner = shard_of("case-0", COUNT)

    def unblock(data: dict[str, Any]) -> None:
        for case in data["cases"]:
            for run in case["runs"]:
                run["status"] = "pass"
                for check in run["checks"]:
                    check["blocking"] = False

    _edit(folders[owner - 1], unblock)
    result = _merge(ws, *folders)
    assert result.code == 2 and "case 'case-0'" in result.err, result.err


def test_the_fail_severity_of_the_shards_judges_the_runs(ws: Workspace) -> None:
    """Runs judged under --fail-severity warning keep their status; the gate recorded in
    the shard file is the one merge applies."""
    for c in range(4):
        case_id = f"case-{c}"
        extra = {"severity_overrides": {"keyword-coverage": "warning"}}
        ws.case(GOOD_CASE, id=case_id, name=case_id, **extra)
        trace = good_trace(case_id)
        if c == 1:
            trace["finalAnswer"] = "Only a guess."
        ws.trace(case_id, trace)
    for severity, code in (("warning", 1), ("error", 0)):
        flag = ("--fail-severity", severity)
        whole = run_cli("run", *_args(*flag), "--out", "whole", cwd=ws.root)
        result = _merge(ws, *_shards(ws, *flag))
        assert result.code == whole.code == code, (whole.out, result.out, result.err)
        data = json.loads((ws.root / "s1" / SHARD_FILE).read_text("utf-8"))
        assert data["options"]["gate"]["fail_severity"] == severity
    # The shards' gate edited to another severity: the recorded runs no longer agree.
    folders = [ws.root / "s1", ws.root / "s2"]
    for folder in folders:
        _edit(folder, lambda data: data["options"]["gate"].update(fail_severity="warning"))
    result = _merge(ws, *folders)
    assert result.code == 2 and "case 'case-1'" in result.err, result.err


def test_a_case_status_set_over_its_runs_is_refused(ws: Workspace) -> None:
    _suite(ws)
    folders = _shards(ws)
    owner = shard_of("case-0", COUNT)

    def override(data: dict[str, Any]) -> None:
        for case in data["cases"]:
            if case["case_id"] == "case-0":
                case["status_override"] = "pass"
                case["reason_override"] = "fine"

    _edit(folders[owner - 1], override)
    result = _merge(ws, *folders)
    assert result.code == 2 and "case 'case-0'" in result.err, result.err


def test_a_shard_file_lacking_its_cases_is_refused_naming_them(ws: Workspace) -> None:
    _suite(ws)
    folders = _shards(ws)
    owner = shard_of("case-0", COUNT)
    _edit(
        folders[owner - 1],
        lambda data: data.update(cases=[c for c in data["cases"] if c["case_id"] != "case-0"]),
    )
    result = _merge(ws, *folders)
    assert result.code == 2
    assert "lacks case 'case-0'" in result.err and f"shard {owner}/{COUNT}" in result.err
    result = _merge(ws, *folders, "--allow-partial")
    assert result.code == 2 and "'case-0'" in result.err


def test_a_shard_count_above_ten_thousand_is_a_usage_error(ws: Workspace) -> None:
    _suite(ws)
    result = run_cli("run", *_args(), "--shard", "1/10001", "--out", "x", cwd=ws.root)
    assert result.code == 2
    assert "--shard" in result.err and "at most 10,000 shards" in result.err
    assert not (ws.root / "x").exists()


def test_more_shards_than_cases_are_empty_and_merge_names_the_missing_as_ranges(
    ws: Workspace,
) -> None:
    _suite(ws, failing=())
    count = 10_000
    given = sorted({shard_of(f"case-{c}", count) for c in range(6)})
    folders = []
    for index in given:
        folder = ws.root / f"s{index}"
        result = run_cli(
            "run", *_args(), "--out", str(folder), "--shard", f"{index}/{count}", cwd=ws.root
        )
        assert result.code == 0, result.err
        folders.append(folder)
    result = _merge(ws, *folders, "--allow-partial")
    assert result.code == 1  # shards missing
    report = json.loads((ws.root / "merged" / "report.json").read_text("utf-8"))
    assert [c["status"] for c in report["cases"]] == ["pass"] * 6
    warnings = [line for line in result.err.splitlines() if line.startswith("warning: shard")]
    assert len(warnings) <= len(given) + 1  # one line per run of missing shards
    assert f"{given[-1] + 1}/{count} to {count}/{count} are missing" in result.err
    refused = _merge(ws, *folders)
    assert refused.code == 2 and "missing" in refused.err
    assert len(refused.err) < 2000  # ranges, not 9,994 numbers


def test_report_inputs_and_the_shard_file_record_the_gate(ws: Workspace) -> None:
    _suite(ws)
    gate = ["--fail-on", "flaky,vacuous", "--fail-severity", "warning", "--min-pass-rate", "50%"]
    result = run_cli("run", *_args(*gate), "--out", "out", cwd=ws.root)
    assert result.code == 1, result.err
    inputs = json.loads((ws.root / "out" / "report.json").read_text("utf-8"))["inputs"]
    assert inputs["gate"] == {
        "fail_on": "flaky",
        "fail_vacuous": True,
        "fail_severity": "warning",
        "min_pass_rate": "1/2",
    }
    plain = run_cli("run", *_args(), "--out", "plain", cwd=ws.root)
    assert plain.code == 1
    assert "gate" not in json.loads((ws.root / "plain" / "report.json").read_text())["inputs"]
    folders = _shards(ws, *gate)
    data = json.loads((folders[0] / SHARD_FILE).read_text("utf-8"))
    assert data["options"]["gate"]["fail_on"] == "flaky"
    assert data["options"]["gate"]["min_pass_rate"] == "1/2"
    assert data["options"]["inputs"]["gate"] == inputs["gate"]


def test_a_shard_file_with_unreadable_gate_options_is_refused(ws: Workspace) -> None:
    _suite(ws)
    folders = _shards(ws)
    for folder in folders:
        _edit(folder, lambda data: data["options"]["gate"].update(fail_on="sometimes"))
    result = _merge(ws, *folders)
    assert result.code == 2
    assert "is damaged: its gate options cannot be read" in result.err, result.err


def test_merge_refuses_a_pipe_at_once_with_the_shared_message(tmp_path: Path) -> None:
    # A FIFO given as a shard file (or named like one) is refused, never opened and waited on.
    import os
    import subprocess
    import sys

    folder = tmp_path / "shard-1"
    folder.mkdir()
    os.mkfifo(folder / "report.shard.json")
    os.mkfifo(tmp_path / "pipe.json")
    for given in (folder, tmp_path / "pipe.json"):
        done = subprocess.run(
            [sys.executable, "-m", "validator", "merge", str(given), "--out", str(tmp_path / "o")],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr
    assert "not a regular file" in done.stderr or "not a shard report" in done.stderr
