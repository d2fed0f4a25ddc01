"""Tried as a new user would: `init --from` on every folder of the real trace data
(TRACE_DATA), then `run` and `lint` on the suite it wrote, without editing anything: the run
passes and lint reports nothing. A shape init leaves out is named with the command that makes
a suite for it, and that command works too."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from conftest import run_cli

DATA = Path(os.environ["TRACE_DATA"]) if os.environ.get("TRACE_DATA") else None
# Folders of TRACE_DATA that hold no agent traces (the JSONPath compliance suite).
NOT_TRACES = {"jsonpath-cts"}


def _folders() -> list[str]:
    if DATA is None or not DATA.is_dir():
        return []
    return sorted(p.name for p in DATA.iterdir() if p.is_dir() and p.name not in NOT_TRACES)


def _green(source: Path, suite: Path) -> str:
    """init --from SOURCE SUITE, then run and lint in SUITE: both clean. init's output."""
    made = run_cli("init", "--from", str(source), str(suite))
    assert made.code == 0, made.out + made.err
    ran = run_cli("run", "--out", "out", "--jobs", "1", cwd=suite)
    assert ran.code == 0, ran.out + ran.err
    summary = json.loads((suite / "out" / "report.json").read_text("utf-8"))["summary"]
    assert summary["failed"] == summary["errored"] == summary["not_run"] == 0, summary
    assert summary["passed"] >= 1, summary
    linted = run_cli("lint", cwd=suite)
    assert linted.code == 0, linted.out + linted.err
    assert linted.out.rstrip().splitlines()[-1].startswith("0 errors, 0 warnings"), linted.out
    return made.out


@pytest.mark.slow
@pytest.mark.skipif(DATA is None, reason="TRACE_DATA is not set (the real trace files)")
@pytest.mark.parametrize("folder", _folders() or ["(none)"])
def test_init_from_each_data_folder_gives_a_green_suite(tmp_path: Path, folder: str) -> None:
    assert DATA is not None
    if folder == "(none)":
        pytest.skip(f"no data folder in {DATA}")
    out = _green(DATA / folder, tmp_path / "suite")
    # Every shape left out is named with the command that makes a suite for it.
    for target in re.findall(r"init --from (\S+) ANOTHER_DIR", out):
        _green(Path(target), tmp_path / f"other-{Path(target).name}")


@pytest.mark.skipif(DATA is None, reason="TRACE_DATA is not set (the real trace files)")
def test_the_openhands_event_store_left_out_is_named_with_how_to_include_it(
    tmp_path: Path,
) -> None:
    assert DATA is not None
    if not (DATA / "openhands").is_dir():
        pytest.skip("openhands is not in TRACE_DATA")
    made = run_cli("init", "--from", str(DATA / "openhands"), str(tmp_path / "suite"))
    assert made.code == 0, made.err
    session = next((DATA / "openhands").glob("session-*"))
    assert "left out (another shape, read by the openhands adapter" in made.out, made.out
    assert f"init --from {session} ANOTHER_DIR" in made.out, made.out
