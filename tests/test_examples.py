"""The OpenTelemetry example: another trace shape handled by specs alone, on real traces.

The traces are public recordings (mozilla-ai/any-agent, Apache-2.0) kept outside this
repository; OTEL_AGENT_TRACES names their folder (.ci/run sets it).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import REPO, run_cli

EXAMPLE = REPO / "examples" / "otel-genai"
SOURCE = os.environ.get("OTEL_AGENT_TRACES", "")

pytestmark = pytest.mark.skipif(
    not SOURCE or not Path(SOURCE).is_dir(),
    reason="set OTEL_AGENT_TRACES to the folder of the any-agent OpenTelemetry traces to run the example",
)


@pytest.fixture
def fixtures(tmp_path: Path) -> Path:
    folder = tmp_path / "fixtures"
    folder.mkdir()
    for trace in sorted(Path(SOURCE).glob("*.json")):
        shutil.copy(trace, folder / (trace.stem.replace("_", "-") + ".json"))
    return folder


def _run(fixtures: Path, out: Path) -> tuple[int, dict]:
    result = run_cli(
        "run",
        "--cases",
        str(EXAMPLE / "cases"),
        "--specs",
        str(EXAMPLE / "specs"),
        "--fixtures",
        str(fixtures),
        "--out",
        str(out),
        "--jobs",
        "1",
    )
    assert "Traceback" not in result.err
    return result.code, json.loads((out / "report.json").read_text("utf-8"))


def test_every_framework_trace_passes_with_specs_only(fixtures: Path, tmp_path: Path) -> None:
    code, report = _run(fixtures, tmp_path / "out")
    assert code == 0
    assert report["summary"]["total"] == 7
    for case in report["cases"]:
        assert case["status"] == "pass", case
        assert case["evidence_coverage"]["found"] == ["get_current_time", "write_file"]
        assert case["tool_call_count"] >= 2  # counted from execute_tool spans
    assert report["summary"]["verdict_distribution"] == {"MISSING": 7}


def test_a_missing_tool_span_and_a_failed_span_fail_the_case(
    fixtures: Path, tmp_path: Path
) -> None:
    path = fixtures / "openai.json"
    trace = json.loads(path.read_text("utf-8"))
    trace["spans"] = [
        s for s in trace["spans"] if s["attributes"].get("gen_ai.tool.name") != "write_file"
    ]
    trace["spans"][0]["status"]["status_code"] = "error"
    path.write_text(json.dumps(trace), "utf-8")
    code, report = _run(fixtures, tmp_path / "out")
    assert code == 1
    case = next(c for c in report["cases"] if c["case_id"] == "openai")
    failed = {f["check"]: f["message"] for f in case["failed_checks"]}
    assert set(failed) == {"evidence-coverage", "no-failed-spans"}
    assert "missing write_file" in failed["evidence-coverage"]
    assert case["tool_call_count"] == 1
