"""Trace shapes as agent frameworks write them, through the command line on the real files in
TRACE_DATA: a document is one trace whatever its top level, `traces.group` (file, folder, a
JSONPath) with `{group}` and `{index}` in case ids, a case's `fixture:` in addition to its
name, `trace-fields` overridden field by field, and `pick: first | last`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import Result, run_cli

DATA = os.environ.get("TRACE_DATA", "")
needs_data = pytest.mark.skipif(not DATA, reason="TRACE_DATA is not set (the real trace files)")

SESSION = "session-63b4315947a049e2b7a51249b3d4fcc3"

# The last agent action of an OpenHands trajectory is `finish`.
FINISHED = """id: finished
description: the agent's last action is finish
query: "$[?(@.source == 'agent')].action"
pick: last
predicate: in
params: {values: [finish]}
"""


class Suite:
    """A suite on disk whose fixtures folder is a real data folder (read in place)."""

    def __init__(self, root: Path, data: str, traces: str, checks: list[str]) -> None:
        self.root = root
        for folder in ("cases", "specs"):
            (root / folder).mkdir(exist_ok=True)
        fixtures = Path(DATA) / data if data else root / "fixtures"
        fixtures.mkdir(exist_ok=True) if not data else None
        self.config(fixtures, traces, checks)

    def config(self, fixtures: Path, traces: str, checks: list[str]) -> None:
        text = (
            f"cases: cases\nspecs: [specs]\nfixtures: {fixtures}\npacks: []\n"
            f"checks: [{', '.join(checks)}]\ntraces:\n{traces}"
        )
        (self.root / "validator.yaml").write_text(text, "utf-8")

    def spec(self, name: str, text: str) -> None:
        (self.root / "specs" / f"{name}.yaml").write_text(text, "utf-8")

    def case(self, case_id: str, **extra: Any) -> None:
        lines = [f"id: {json.dumps(case_id)}", "description: a real trace", "question: q"]
        lines += [f"{k}: {json.dumps(v)}" for k, v in extra.items()]
        (self.root / "cases" / f"{case_id}.yaml").write_text("\n".join(lines) + "\n", "utf-8")

    def run(self, *extra: str) -> Result:
        result = run_cli("run", "--out", "out", "--jobs", "1", *extra, cwd=self.root)
        assert "Traceback" not in result.err + result.out, result.err
        return result

    def report(self) -> dict[str, Any]:
        return json.loads((self.root / "out" / "report.json").read_text("utf-8"))

    def cases(self) -> dict[str, dict[str, Any]]:
        return {c["case_id"]: c for c in self.report()["cases"]}

    def lint(self, *extra: str) -> tuple[int, list[dict[str, Any]]]:
        result = run_cli("lint", "--format", "json", *extra, cwd=self.root)
        assert "Traceback" not in result.err + result.out, result.err
        return result.code, json.loads(result.out)["problems"]


def _failed(case: dict[str, Any]) -> str:
    return " ".join(f["message"] for f in case["failed_checks"])


# --------------------------------------------------------------------------------------------
# A document is one trace, whatever its top level


@needs_data
def test_a_trajectory_saved_as_a_top_level_list_is_one_trace(tmp_path: Path) -> None:
    suite = Suite(tmp_path, "", "  pattern: '*.json'\n", ["finished", "steps"])
    lines = (Path(DATA) / "openhands" / "multi_swe_bench_output.jsonl").read_text("utf-8")
    for number, line in enumerate(lines.splitlines(), start=1):
        history = json.loads(line)["history"]  # what OpenHands saves as a trajectory file
        (tmp_path / "fixtures" / f"run-{number}.json").write_text(json.dumps(history), "utf-8")
        suite.case(f"run-{number}")
    suite.spec("finished", FINISHED)
    suite.spec(
        "steps", 'id: steps\ndescription: d\nquery: "$[*]"\npredicate: count\nparams: {max: 100}\n'
    )
    assert suite.run().code == 1
    cases = suite.cases()
    assert {k: c["status"] for k, c in cases.items()} == {
        "run-1": "pass",
        "run-2": "pass",
        "run-3": "fail",
    }
    assert all(c["runs"]["total"] == 1 for c in cases.values()), "each file is one trace"
    failed = _failed(cases["run-3"])
    assert 'the value is "run"' in failed and "its last match" in failed
    assert "103 matches" in failed or "103" in failed  # $[*] are the trajectory's events
    assert "split" not in json.dumps(suite.report())


@needs_data
def test_a_split_match_that_is_a_list_is_one_trace(tmp_path: Path) -> None:
    traces = (
        "  pattern: multi_swe_bench_output.jsonl\n  split: $.history\n"
        "  case_id: '{file_stem}-{index}'\n"
    )
    suite = Suite(tmp_path, "openhands", traces, ["finished"])
    suite.spec("finished", FINISHED)
    for n in (1, 2, 3):
        suite.case(f"multi_swe_bench_output-{n}")
    assert suite.run().code == 1
    statuses = {k: c["status"] for k, c in suite.cases().items()}
    assert statuses == {
        "multi_swe_bench_output-1": "pass",
        "multi_swe_bench_output-2": "pass",
        "multi_swe_bench_output-3": "fail",
    }
    assert suite.report()["unmatched_traces"] == []


def test_a_top_level_text_is_still_refused_naming_both_shapes(tmp_path: Path) -> None:
    suite = Suite(tmp_path, "", "  pattern: '*.json'\n", ["steps"])
    suite.spec("steps", 'id: steps\ndescription: d\nquery: "$[*]"\npredicate: count\n')
    (tmp_path / "fixtures" / "x.json").write_text('"just text"', "utf-8")
    suite.case("x")
    assert suite.run().code == 1
    reason = suite.cases()["x"]["reason"]
    assert "must be a JSON object {...} or a list [...], found text" in reason


# --------------------------------------------------------------------------------------------
# traces.group


CLAUDE_TOOLS = """id: trace-fields
description: Claude Code sessions (the other fields keep the standard paths)
fields:
  tool_call_matches: "$[*].message.content[?(@.type == 'tool_use')]"
"""


@needs_data
def test_group_file_makes_a_claude_code_session_one_trace(tmp_path: Path) -> None:
    suite = Suite(tmp_path, "claude-code", "  pattern: '*.jsonl'\n  group: file\n", ["bash"])
    suite.spec(
        "bash",
        "id: bash\ndescription: d\n"
        "query: \"$[*].message.content[?(@.type == 'tool_use')].name\"\n"
        "predicate: contains-all\nparams: {items: [Bash]}\n",
    )
    suite.spec("trace-fields", CLAUDE_TOOLS)
    for name in ("short", "tool_heavy", "subagent"):
        suite.case(name)
    assert suite.lint()[0] == 0, "a trace-fields override with one field is clean"
    result = suite.run("--allow-unmatched")
    cases = suite.cases()
    assert {k: c["runs"]["total"] for k, c in cases.items()} == {
        "short": 1,
        "subagent": 1,
        "tool_heavy": 1,
    }, "one trace a session file, not one a line"
    assert all(c["status"] == "pass" for c in cases.values()), result.out
    # trace-fields gave only tool_call_matches: the count is the session's tool_use blocks
    assert cases["short"]["tool_call_count"] == 2
    assert cases["tool_heavy"]["tool_call_count"] > 2
    # The sub-agent transcripts in subagents/ are the folder's: no case named subagents.
    unmatched = {u["fixture"].rsplit("/", 1)[-1] for u in suite.report()["unmatched_traces"]}
    assert unmatched == {"agent-aac57f5.jsonl", "agent-acompact-946d2b.jsonl"}


@needs_data
def test_group_by_a_jsonpath_notes_a_record_without_it(tmp_path: Path) -> None:
    traces = "  pattern: short.jsonl\n  group: $.sessionId\n"
    suite = Suite(tmp_path, "claude-code", traces, ["rejected"])
    suite.spec(
        "rejected",
        "id: rejected\ndescription: d\n"
        "query: \"$[*].message.content[?(@.type == 'tool_result')].is_error\"\n"
        "predicate: in\nparams: {values: [false]}\n",
    )
    suite.case("short")
    assert suite.run().code == 1
    case = suite.cases()["short"]
    # The session's 14 lines are one trace; the file-history snapshot has no sessionId.
    assert case["runs"]["total"] == 2
    assert any(
        "traces.group $.sessionId finds nothing in this record: it is read as a trace of its own"
        in note
        for note in json.dumps(suite.report()).split('"')
    )


@needs_data
def test_group_folder_reads_an_openhands_event_store_in_natural_name_order(
    tmp_path: Path,
) -> None:
    traces = "  pattern: '**/events/*.json'\n  group: folder\n"
    suite = Suite(tmp_path, "openhands", traces, ["finished", "last-event", "first-event"])
    suite.spec("finished", FINISHED)
    suite.spec(
        "last-event",
        'id: last-event\ndescription: d\nquery: "$[*].id"\npick: last\n'
        "predicate: equals\nparams: {value: 13}\n",
    )
    suite.spec(
        "first-event",
        "id: first-event\ndescription: d\nclauses:\n"
        '  - query: "$[*].id"\n    pick: first\n    predicate: equals\n    params: {value: 0}\n',
    )
    suite.case(SESSION)
    assert suite.run().code == 0, suite.cases()
    case = suite.cases()[SESSION]
    assert case["runs"]["total"] == 1
    assert case["fixture"].endswith(f"openhands/{SESSION}/events/")


@needs_data
def test_index_makes_lines_without_ids_cases(tmp_path: Path) -> None:
    traces = "  pattern: '*gaia*.jsonl'\n  case_id: 'gaia-{index}'\n  allow_unmatched: true\n"
    suite = Suite(tmp_path, "smolagents", traces, ["answered"])
    suite.spec(
        "answered",
        "id: answered\ndescription: d\nquery: $.answer\npredicate: contains-none\n"
        "params: {keywords: ['Error in generating model output']}\n",
    )
    for n in (1, 32):
        suite.case(f"gaia-{n}")
    assert suite.run().code == 1, "every question of that run failed before its first call"
    cases = suite.cases()
    assert cases["gaia-32"]["fixture"].endswith("gpt-4o__code__gaia__2025-09-08.jsonl:32")
    assert {c["status"] for c in cases.values()} == {"fail"}
    assert len(suite.report()["unmatched_traces"]) == 30


@needs_data
def test_group_and_index_in_a_template_on_one_export_file(tmp_path: Path) -> None:
    export = Path(DATA) / "smolagents" / "gpt-4o__code__gaia__2025-09-08.jsonl"
    traces = "  group: file\n  case_id: 'run-{index}-{file_stem}'\n"
    suite = Suite(tmp_path, "", traces, ["answered"])
    suite.spec(
        "answered",
        'id: answered\ndescription: d\nquery: "$[*].answer"\npredicate: count\n'
        "params: {min: 32, max: 32}\n",
    )
    suite.case("run-1-gpt-4o__code__gaia__2025-09-08")
    assert suite.run("--fixtures", str(export)).code == 0, suite.report()


# --------------------------------------------------------------------------------------------
# fixture: in addition to the usual rules


@needs_data
def test_a_fixture_key_picks_a_file_without_taking_it_from_its_own_case(tmp_path: Path) -> None:
    suite = Suite(tmp_path, "claude-code", "  pattern: '*.jsonl'\n  group: file\n", ["bash"])
    suite.spec(
        "bash",
        "id: bash\ndescription: d\n"
        "query: \"$[*].message.content[?(@.type == 'tool_use')].name\"\n"
        "predicate: contains-all\nparams: {items: [Bash]}\n",
    )
    suite.case("short")
    suite.case("rejected-tools", fixture="short.jsonl")
    suite.case("any-session", fixture="*.jsonl")
    suite.run("--allow-unmatched")
    cases = suite.cases()
    assert cases["short"]["status"] == "pass", cases["short"]
    assert cases["rejected-tools"]["runs"]["total"] == 1
    assert cases["any-session"]["runs"]["total"] == 3
    assert all(c["status"] == "pass" for c in cases.values())
    _code, problems = suite.lint("--fixtures", str(Path(DATA) / "claude-code"))
    assert not [p for p in problems if p["code"] == "no-fixture"], problems


# --------------------------------------------------------------------------------------------
# Mistakes: located errors


def test_a_bad_group_and_a_group_placeholder_without_group_are_located(tmp_path: Path) -> None:
    suite = Suite(tmp_path, "", "  group: files\n", ["steps"])
    suite.spec("steps", 'id: steps\ndescription: d\nquery: "$[*]"\npredicate: count\n')
    suite.case("x")
    code, problems = suite.lint()
    assert code == 1
    bad = [p for p in problems if p["file"] == "validator.yaml"]
    assert [(p["line"], p["code"]) for p in bad] == [(7, "bad-value")]
    assert "did you mean 'file'?" in bad[0]["message"]
    suite.config(tmp_path / "fixtures", "  case_id: '{file_stem}-{group}'\n", ["steps"])
    code, problems = suite.lint()
    bad = [p for p in problems if p["file"] == "validator.yaml"]
    assert [(p["line"], p["column"], p["code"]) for p in bad] == [(7, 12, "bad-template")]
    assert "{group} is the value of traces.group, which is not set" in bad[0]["message"]
    suite.config(tmp_path / "fixtures", "  format: otlp-json\n  group: file\n", ["steps"])
    _, problems = suite.lint()
    assert any("traces.group does not apply to format otlp-json" in p["message"] for p in problems)
    suite.config(tmp_path / "fixtures", "  group: $.session[\n", ["steps"])
    _, problems = suite.lint()
    assert [p["code"] for p in problems if p["file"] == "validator.yaml"] == ["bad-jsonpath"]


def test_a_bad_pick_is_located_on_a_spec_and_on_a_clause(tmp_path: Path) -> None:
    suite = Suite(tmp_path, "", "  pattern: '*.json'\n", ["one", "two"])
    suite.spec("one", 'id: one\ndescription: d\nquery: "$[*]"\npick: lats\npredicate: exists\n')
    suite.spec(
        "two",
        "id: two\ndescription: d\nclauses:\n"
        '  - query: "$[*]"\n    pick: 1\n    predicate: exists\n',
    )
    suite.case("x")
    code, problems = suite.lint()
    assert code == 1
    found = {(p["file"].rsplit("/", 1)[-1], p["line"], p["code"]) for p in problems}
    assert ("one.yaml", 4, "bad-value") in found
    assert ("two.yaml", 5, "bad-value") in found or ("two.yaml", 5, "bad-type") in found
    one = next(p for p in problems if p["file"].endswith("one.yaml"))
    assert "did you mean 'last'?" in one["message"]


def test_a_group_with_a_line_that_cannot_be_read_is_an_error_at_that_line(
    tmp_path: Path,
) -> None:
    suite = Suite(tmp_path, "", "  group: file\n", ["three"])
    suite.spec(
        "three", 'id: three\ndescription: d\nquery: "$[*].a"\npredicate: count\nparams: {min: 3}\n'
    )
    (tmp_path / "fixtures" / "s.jsonl").write_text('{"a":1}\n{"a":2,}\n{"a":3}\n', "utf-8")
    suite.case("s")
    assert suite.run().code == 1
    case = suite.cases()["s"]
    assert case["status"] == "error", "never evaluated without one of its records"
    assert case["reason"].startswith("invalid JSON at line 2 column 7: a trailing comma")
    code, problems = suite.lint("--fixtures", "fixtures")
    assert code == 1
    assert [(p["line"], p["column"], p["code"]) for p in problems] == [(2, 7, "trace-json")]


def test_the_spec_schema_offers_the_picks_the_interpreter_knows() -> None:
    from validator.loading.schema import load_schema
    from validator.model import PICKS

    assert load_schema("spec")["$defs"]["pick"]["enum"] == list(PICKS)


@needs_data
def test_a_tau2_trace_fields_override_of_one_field_keeps_the_others(tmp_path: Path) -> None:
    traces = (
        "  pattern: '*_retail_*.json'\n  split: $.simulations[*]\n  case_id: $.task_id\n"
        "  view: openai-messages\n"
    )
    suite = Suite(tmp_path, "tau2-bench", traces, ["reward"])
    suite.spec(
        "reward",
        "id: reward\ndescription: d\nquery: $.reward_info.reward\npredicate: equals\n"
        "params: {value: 1.0}\n",
    )
    suite.spec(
        "trace-fields",
        "id: trace-fields\ndescription: tau2 simulations\nfields:\n"
        "  tool_call_matches: $.messages[*].tool_calls[*]\n",
    )
    ids = ["27", "36", "40", "45", "55", "65", "68", "86"]
    for case_id in ids:
        suite.case(case_id)
    assert suite.lint()[0] == 0
    assert suite.run().code == 1, "three simulations have reward 0.0"
    cases = suite.cases()
    assert sorted(cases) == sorted(ids)
    assert all(c["tool_call_count"] > 0 for c in cases.values()), "the field given is read"
    assert {c["case_id"] for c in cases.values() if c["status"] == "fail"} == {"36", "55", "86"}
