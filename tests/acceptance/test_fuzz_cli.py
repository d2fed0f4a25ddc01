"""A fuzzer over whole runs: hostile trace files and case files through the command line.

Whatever the bytes, a run ends with exit 0, 1 or 2, never an internal error or a traceback;
when it evaluated anything, report.json and report.md are complete (strict JSON, every case
once, counts that add up) and every status is one of the four. Traces are written as raw
JSON text, so they can hold what json.dumps never writes: duplicate keys, lone surrogate
escapes, NaN, numbers beyond any float, very deep nesting.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import GOOD_CASE, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.slow  # fuzz

STATUSES = {"pass", "fail", "not_run", "error"}

ODD_TEXT = st.text(
    alphabet=st.sampled_from(
        ["a", "中", " ", "\x00", "\x1b", "\n", "\u2028", "\u202e", "@", ":", "\\"]
    ),
    max_size=12,
)
ODD_STRINGS = st.one_of(
    ODD_TEXT.map(json.dumps),
    st.sampled_from(['"\\ud800"', '"a\\udfffb"', '"\\u0000"', '"rest\\u0000art mysql"']),
)
ODD_NUMBERS = st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "1" * 5000, "-0", "1e308"])
SCALARS = st.one_of(ODD_STRINGS, ODD_NUMBERS, st.sampled_from(["true", "null", "0", "[]", "{}"]))


def _obj(pairs: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in pairs) + "}"


@st.composite
def trace_text(draw: st.DrawFn, case_id: str) -> str:
    """A trace as JSON text: a good trace's keys with hostile values, sometimes twice."""
    keys = ["caseId", "finalAnswer", "executorAnswer", "durationMs", "toolInvocations"]
    pairs: list[tuple[str, str]] = [("caseId", json.dumps(case_id))]
    for key in draw(st.lists(st.sampled_from(keys), max_size=6)):
        pairs.append((key, draw(SCALARS)))  # a key written again: a duplicate
    verdict = draw(st.one_of(st.sampled_from(['"PASS"', '"REJECT"']), SCALARS))
    pairs.append(("selfEvaluation", _obj([("verifier_evaluation", _obj([("verdict", verdict)]))])))
    calls = draw(st.lists(ODD_STRINGS, max_size=3))
    pairs.append(("toolInvocations", "[" + ", ".join(_obj([("toolName", c)]) for c in calls) + "]"))
    depth = draw(st.sampled_from([0, 0, 50, 3000]))
    pairs.append(("deep", "[" * depth + "1" + "]" * depth))
    return _obj(pairs)


def _case_text(draw: st.DrawFn, case_id: str) -> str:
    fields = dict(GOOD_CASE, id=case_id)
    text = json.dumps(fields, ensure_ascii=False)
    odd = draw(
        st.sampled_from(["", ', "question": "\\u0000"', ', "tags": ["\\ud800"]', ', "x\\u001b": 1'])
    )
    return text[:-1] + odd + "}"


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_run_completes_with_whole_reports(tmp_path_factory, data: st.DataObject) -> None:  # type: ignore[no-untyped-def]
    root: Path = tmp_path_factory.mktemp("fuzz")
    cases, fixtures, out = root / "cases", root / "fixtures", root / "reports"
    cases.mkdir()
    fixtures.mkdir()
    ids = ["c1", "c2", "c3"]
    for case_id in ids:
        (cases / f"{case_id}.yaml").write_text(_case_text(data.draw, case_id), "utf-8")
        text = data.draw(trace_text(case_id))
        (fixtures / f"{case_id}.json").write_bytes(text.encode("utf-8", "surrogatepass"))
    result = run_cli(
        "run",
        "--cases",
        "cases",
        "--fixtures",
        "fixtures",
        "--out",
        "reports",
        "--jobs",
        "1",
        cwd=root,
    )
    printed = result.out + result.err
    assert result.code in (0, 1, 2), printed
    assert "internal error" not in printed and "Traceback" not in printed, printed
    if result.code == 2:
        assert not out.exists() or not any(out.iterdir()), "a usage error writes no report"
        shutil.rmtree(root)
        return
    report = json.loads((out / "report.json").read_text("utf-8"), parse_constant=_no_constants)
    rows = report["cases"]
    assert sorted(r["case_id"] for r in rows) == ids
    assert all(r["status"] in STATUSES for r in rows)
    summary = report["summary"]
    assert summary["total"] == len(rows)
    counted = summary["passed"] + summary["failed"] + summary["not_run"] + summary["errored"]
    assert counted == len(rows)
    assert (out / "report.md").read_text("utf-8").startswith("# Trace validation report")
    shutil.rmtree(root)


def _no_constants(name: str) -> None:
    raise AssertionError(f"report.json holds {name}: it must be strict JSON")
