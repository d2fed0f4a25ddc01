"""The example suites under examples/: each runs on a shared public data set, in place.

Each example's README states the expected status of every case in a table (`| case |
expected status |`); this test runs `lint` and `run` in the example's folder and compares.
The data sets are kept outside this repository: TRACE_DATA names their folder (CI sets it),
and each example's `validator.yaml` points at `../../../shared/data/<set>`, which is that
folder when the repository sits beside `shared/` (as in CI). Elsewhere the example is run
from a temporary copy of its YAML files placed so that the same relative path leads to
TRACE_DATA: the traces themselves are still read in place.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import REPO, markdown_table, run_cli

DATA = os.environ.get("TRACE_DATA", "")
EXAMPLES = sorted(p.name for p in (REPO / "examples").iterdir() if (p / "validator.yaml").is_file())
PREFIX = "../../../shared/data/"


def _expected(example: Path) -> dict[str, str]:
    rows = markdown_table((example / "README.md").read_text("utf-8"), "case")
    assert rows[0] == ["case", "expected status"], rows[0]
    return {case.strip("`"): status for case, status in rows[1:]}


def _folder(example: Path, data_set: str, tmp_path: Path) -> Path:
    """The folder to run the example in: itself when its fixtures path leads to TRACE_DATA."""
    in_place = example / PREFIX / data_set
    if in_place.is_dir() and in_place.resolve() == (Path(DATA) / data_set).resolve():
        return example
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(Path(DATA).resolve(), target_is_directory=True)
    copy = tmp_path / "repo" / "examples" / example.name
    shutil.copytree(example, copy)
    return copy


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_example_gives_the_statuses_its_readme_states(name: str, tmp_path: Path) -> None:
    example = REPO / "examples" / name
    config = yaml.safe_load((example / "validator.yaml").read_text("utf-8"))
    assert config["fixtures"].startswith(PREFIX), config["fixtures"]
    data_set = config["fixtures"].removeprefix(PREFIX)
    if not DATA:
        pytest.skip("set TRACE_DATA to the shared trace data folder to run the examples")
    if not (Path(DATA) / data_set).is_dir():
        pytest.skip(f"{data_set} is not in TRACE_DATA ({DATA})")
    expected = _expected(example)
    folder = _folder(example, data_set, tmp_path)

    lint = run_cli("lint", cwd=folder)
    assert lint.code == 0, lint.out + lint.err
    out = tmp_path / "out"
    result = run_cli("run", "--out", str(out), "--jobs", "1", cwd=folder)
    assert "Traceback" not in result.err, result.err
    report = json.loads((out / "report.json").read_text("utf-8"))
    statuses = {case["case_id"]: case["status"] for case in report["cases"]}
    assert statuses == expected, [
        (c["case_id"], c["status"], c.get("failed_checks")) for c in report["cases"]
    ]
    assert report.get("unmatched_traces", []) == []
    assert result.code == (0 if set(expected.values()) == {"pass"} else 1), result.out
