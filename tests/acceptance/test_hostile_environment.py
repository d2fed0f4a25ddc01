"""What the environment can do to a run: a SOURCE_DATE_EPOCH that is no plain number, a full
standard output, an --out that is a dangling link or lies inside the fixtures folder; and two
spec mistakes: arithmetic on values of the wrong types, a `between` whose min is above its max."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GOOD_CASE, REPO, Workspace, good_trace, run_cli


@pytest.fixture
def suite(ws: Workspace) -> Workspace:
    ws.case(GOOD_CASE)
    ws.trace("db-slow", good_trace())
    return ws


def test_a_source_date_epoch_that_is_no_plain_integer_falls_back_with_a_note(
    suite: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "²")
    result = suite.run()
    assert result.code == 0, result.err
    assert "internal error" not in result.err
    assert "note: SOURCE_DATE_EPOCH='²' is not a whole number" in result.err
    assert suite.report()["generated_at"].endswith("Z")


def test_a_plain_source_date_epoch_pins_the_time(
    suite: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert suite.run().code == 0
    assert suite.report()["generated_at"] == "2023-11-14T22:13:20Z"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", ["run", "lint"])
def test_a_full_standard_output_is_a_clear_error(suite: Workspace, command: str) -> None:
    args = ["--cases", "cases", "--fixtures", "fixtures", "--out", "reports"]
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "validator", command, *(args if command == "run" else [])],
            cwd=suite.root,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            timeout=120,
        )
    assert done.returncode == 2
    assert "internal error" not in done.stderr
    assert "error: cannot write to standard output (No space left on device)" in done.stderr
    if command == "run":  # the reports are written all the same
        assert json.loads((suite.out / "report.json").read_text("utf-8"))["cases"]


def test_an_out_that_is_a_dangling_link_says_so(suite: Workspace) -> None:
    (suite.root / "reports").symlink_to(suite.root / "gone" / "away")
    result = suite.run()
    assert result.code == 2
    assert "--out" in result.err and "is a link to" in result.err
    assert "which does not exist" in result.err


@pytest.mark.parametrize("inside", ["fixtures", "fixtures/reports"])
def test_an_out_inside_the_fixtures_folder_is_refused(suite: Workspace, inside: str) -> None:
    result = run_cli(
        "run", "--cases", "cases", "--fixtures", "fixtures", "--out", inside, "--jobs", "1",
        cwd=suite.root,
    )  # fmt: skip
    assert result.code == 2
    assert "is inside the fixtures folder" in result.err
    assert not (suite.root / inside / "report.json").exists()


def test_arithmetic_on_values_that_do_not_add_says_so(suite: Workspace) -> None:
    result = run_cli(
        "query", "$.durationMs + $.finalAnswer", "fixtures/db-slow.json", cwd=suite.root
    )
    assert result.code == 2
    assert "the types do not add: a whole number 1200 + text" in result.err
    assert "0 matches" not in result.out


def test_arithmetic_on_numbers_still_adds(suite: Workspace) -> None:
    result = run_cli(
        "query", "$.durationMs + $.durationMs", "fixtures/db-slow.json", cwd=suite.root
    )
    assert result.code == 0
    assert "= 2400" in result.out


def test_a_check_on_arithmetic_of_the_wrong_types_fails_with_the_reason(suite: Workspace) -> None:
    spec = suite.root / "specs"
    spec.mkdir()
    (spec / "sum.yaml").write_text(
        "id: sum-absent\ndescription: d\nquery: $.durationMs + $.finalAnswer\npredicate: absent\n",
        "utf-8",
    )
    suite.case(dict(GOOD_CASE, checks=["sum-absent"]))
    result = suite.run("--specs", "specs")
    assert result.code == 1, result.err
    messages = " ".join(f["message"] for f in suite.case_result()["failed_checks"])
    assert "the types do not add" in messages


def test_compare_between_with_min_above_max_is_a_lint_error(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "d.yaml").write_text(
        "id: d\ndescription: d\nquery: $.durationMs\npredicate: compare\n"
        "params:\n  op: between\n  min: 30s\n  max: 500\n",
        "utf-8",
    )
    result = run_cli("lint", "specs", cwd=tmp_path)
    assert result.code == 1
    assert "specs/d.yaml:7:8: error: parameter 'min' (\"30s\") is more than 'max' (500)" in (
        result.out
    ), result.out


@pytest.mark.parametrize("template", [None, "{$.caseId}-x"])
def test_a_long_case_id_from_a_trace_is_cut_with_a_marker_everywhere(
    suite: Workspace, template: str | None
) -> None:
    long_id = "a" * 3000
    suite.trace("long", good_trace(long_id), name="long.json")
    if template is not None:
        (suite.root / "validator.yaml").write_text(f'traces:\n  case_id: "{template}"\n', "utf-8")
    result = suite.run("--format", "json,md,html,junit,sarif")
    assert "a" * 300 not in result.out + result.err
    if template is not None:  # the id is the template's: shown cut, with its length
        assert "(3,0" in result.out
    for report in suite.out.iterdir():
        assert "a" * 300 not in report.read_text("utf-8"), report.name


# Run the command line in a Python where importing re2 fails as it does when google-re2 is
# not installed (None in sys.modules: ModuleNotFoundError naming the module).
_WITHOUT_RE2 = (
    "import runpy, sys; sys.modules['re2'] = None; sys.argv[0] = 'validator';"
    " runpy.run_module('validator', run_name='__main__', alter_sys=True)"
)


def test_a_library_missing_from_the_python_is_said_as_what_to_install(suite: Workspace) -> None:
    args = ["run", "--cases", "cases", "--fixtures", "fixtures", "--out", "reports"]
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_RE2, *args],
        cwd=suite.root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "internal error" not in done.stderr
    assert "Traceback" not in done.stderr
    assert "error: trace-validator needs google-re2 (the module re2), which is not installed" in (
        done.stderr
    )
    assert f"install it with {sys.executable} -m pip install 'google-re2>=1.1,<2'" in done.stderr
    assert not (suite.out / "report.json").exists()
