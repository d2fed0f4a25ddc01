"""A case's `fixture:` picks traces in addition to the usual rules, in every mode: a picked
trace is evaluated for the case its name or its own case id gives it, and for each case that
picks it (file per trace, `traces.case_id`, top-level JSON Lines, `traces.group`,
`traces.split`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli

SPEC = 'id: answered\ndescription: the trace has an answer\nquery: "$..answer"\npredicate: exists\n'


def _suite(root: Path, traces: str, cases: dict[str, str | None]) -> Path:
    """A suite whose one check needs an answer; `cases`: id -> its fixture: key (or None)."""
    for folder in ("cases", "specs", "fixtures"):
        (root / folder).mkdir()
    (root / "specs" / "answered.yaml").write_text(SPEC, "utf-8")
    for case_id, pick in cases.items():
        text = f"id: {case_id}\ndescription: d\nquestion: q\n"
        text += f"fixture: '{pick}'\n" if pick else ""
        (root / "cases" / f"{case_id}.yaml").write_text(text, "utf-8")
    config = "cases: cases\nspecs: [specs]\nfixtures: fixtures\npacks: []\nchecks: [answered]\n"
    (root / "validator.yaml").write_text(config + (f"traces:\n{traces}" if traces else ""), "utf-8")
    return root / "fixtures"


def _write(path: Path, *documents: Any, lines: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if lines:
        path.write_text("".join(json.dumps(d) + "\n" for d in documents), "utf-8")
    else:
        assert len(documents) == 1
        path.write_text(json.dumps(documents[0]), "utf-8")


def _run(root: Path, *extra: str) -> dict[str, dict[str, Any]]:
    result = run_cli("run", "--out", "out", "--jobs", "1", *extra, cwd=root)
    assert "Traceback" not in result.out + result.err, result.err
    report = json.loads((root / "out" / "report.json").read_text("utf-8"))
    return {c["case_id"]: c for c in report["cases"]}


def _totals(cases: dict[str, dict[str, Any]]) -> dict[str, tuple[str, int]]:
    return {c: (v["status"], v["runs"]["total"]) for c, v in cases.items()}


def _lint(root: Path) -> list[dict[str, Any]]:
    result = run_cli("lint", "--format", "json", cwd=root)
    assert "Traceback" not in result.out + result.err, result.err
    return [p for p in json.loads(result.out)["problems"] if p["severity"] != "info"]


def test_file_per_trace_a_picked_file_stays_its_named_cases(tmp_path: Path) -> None:
    fixtures = _suite(tmp_path, "", {"basic": None, "again": "basic.json"})
    _write(fixtures / "basic.json", {"caseId": "basic", "answer": "a"})
    assert _totals(_run(tmp_path)) == {"again": ("pass", 1), "basic": ("pass", 1)}
    assert _lint(tmp_path) == []


def test_with_traces_case_id_a_picked_trace_keeps_the_case_its_id_gives(tmp_path: Path) -> None:
    cases = {"t1": None, "t2": None, "first": "a.json", "every": "*.json"}
    fixtures = _suite(tmp_path, "  case_id: $.task\n", cases)
    _write(fixtures / "a.json", {"task": "t1", "answer": "a"})
    _write(fixtures / "b.json", {"task": "t2", "answer": "b"})
    _write(fixtures / "c.json", {"answer": "no task id: only its picks"})
    assert _totals(_run(tmp_path)) == {
        "every": ("pass", 3),
        "first": ("pass", 1),
        "t1": ("pass", 1),
        "t2": ("pass", 1),
    }
    assert _lint(tmp_path) == []


def test_a_picked_trace_naming_an_unknown_case_is_still_unmatched(tmp_path: Path) -> None:
    fixtures = _suite(tmp_path, "  case_id: $.task\n", {"t1": None, "every": "*.json"})
    _write(fixtures / "a.json", {"task": "t1", "answer": "a"})
    _write(fixtures / "b.json", {"task": "zz", "answer": "b"})
    result = run_cli("run", "--out", "out", "--jobs", "1", cwd=tmp_path)
    assert result.code == 1
    report = json.loads((tmp_path / "out" / "report.json").read_text("utf-8"))
    assert [u["case_id"] for u in report["unmatched_traces"]] == ["zz"]
    cases = {c["case_id"]: c for c in report["cases"]}
    assert _totals(cases) == {"every": ("pass", 2), "t1": ("pass", 1)}
    problems = _lint(tmp_path)
    assert [p["code"] for p in problems] == ["orphan-fixture"], problems
    assert "'zz' matches no case" in problems[0]["message"]


def test_top_level_json_lines_lines_go_to_their_case_and_to_the_picks(tmp_path: Path) -> None:
    fixtures = _suite(tmp_path, "", {"c1": None, "c2": None, "all-lines": "results.jsonl"})
    lines = [{"caseId": "c1", "answer": "a"}, {"caseId": "c2", "answer": "b"}]
    _write(fixtures / "results.jsonl", *lines, lines=True)
    assert _totals(_run(tmp_path)) == {
        "all-lines": ("pass", 2),
        "c1": ("pass", 1),
        "c2": ("pass", 1),
    }
    assert _lint(tmp_path) == []


def test_a_json_lines_export_given_as_fixtures_is_picked_line_by_line(tmp_path: Path) -> None:
    fixtures = _suite(tmp_path, "", {"c1": None, "c2": None, "all-lines": "results.jsonl"})
    lines = [{"caseId": "c1", "answer": "a"}, {"caseId": "c2"}]
    _write(fixtures / "results.jsonl", *lines, lines=True)
    cases = _run(tmp_path, "--fixtures", "fixtures/results.jsonl")
    assert _totals(cases) == {
        "all-lines": ("fail", 2),
        "c1": ("pass", 1),
        "c2": ("fail", 1),
    }


def test_grouped_traces_go_to_their_case_and_to_the_picks(tmp_path: Path) -> None:
    traces = "  pattern: '*.jsonl'\n  group: $.session\n  case_id: '{group}'\n"
    fixtures = _suite(tmp_path, traces, {"s1": None, "s2": None, "sessions": "log.jsonl"})
    records = [
        {"session": "s1", "step": 1},
        {"session": "s2", "step": 1, "answer": "b"},
        {"session": "s1", "step": 2, "answer": "a"},
    ]
    _write(fixtures / "log.jsonl", *records, lines=True)
    assert _totals(_run(tmp_path)) == {
        "s1": ("pass", 1),
        "s2": ("pass", 1),
        "sessions": ("pass", 2),
    }
    assert _lint(tmp_path) == []


def test_a_file_group_by_name_is_its_case_and_the_picks(tmp_path: Path) -> None:
    traces = "  pattern: '*.jsonl'\n  group: file\n"
    fixtures = _suite(tmp_path, traces, {"chat": None, "chats": "*.jsonl"})
    _write(fixtures / "chat.jsonl", {"step": 1}, {"answer": "a"}, lines=True)
    assert _totals(_run(tmp_path)) == {"chat": ("pass", 1), "chats": ("pass", 1)}
    assert _lint(tmp_path) == []


def test_split_traces_go_to_their_case_and_to_the_picks(tmp_path: Path) -> None:
    traces = "  split: $.runs[*]\n  case_id: $.task\n"
    fixtures = _suite(tmp_path, traces, {"t1": None, "t2": None, "batch": "batch.json"})
    runs = [{"task": "t1", "answer": "a"}, {"task": "t2", "answer": "b"}]
    _write(fixtures / "batch.json", {"runs": runs})
    assert _totals(_run(tmp_path)) == {
        "batch": ("pass", 2),
        "t1": ("pass", 1),
        "t2": ("pass", 1),
    }
    assert _lint(tmp_path) == []


def test_split_by_name_the_file_is_its_case_and_the_picks(tmp_path: Path) -> None:
    fixtures = _suite(tmp_path, "  split: $.runs[*]\n", {"batch": None, "again": "batch.json"})
    _write(fixtures / "batch.json", {"runs": [{"answer": "a"}, {"answer": "b"}]})
    assert _totals(_run(tmp_path)) == {"again": ("pass", 2), "batch": ("pass", 2)}


def test_a_picked_file_of_another_shard_is_still_read_for_its_own_cases(tmp_path: Path) -> None:
    cases = {"t1": None, "t2": None, "zz-every": "*.json"}
    fixtures = _suite(tmp_path, "  case_id: $.task\n", cases)
    _write(fixtures / "a.json", {"task": "t1", "answer": "a"})
    _write(fixtures / "b.json", {"task": "t2"})
    totals: dict[str, tuple[str, int]] = {}
    for shard in ("1/2", "2/2"):
        cases_run = _run(tmp_path, "--shard", shard)
        totals.update({c: v for c, v in _totals(cases_run).items() if v[1]})
    assert totals == {"t1": ("pass", 1), "t2": ("fail", 1), "zz-every": ("fail", 2)}
