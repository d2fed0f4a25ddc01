"""Flexible trace matching (the config's `traces:` section) through the command line: which
files are traces, how they are read and split, which case each trace belongs to, and that no
file is ever skipped without saying so."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, Result, Workspace, good_trace, run_cli, set_verdict

from validator import fixturekeys
from validator.evaluation import runner
from validator.problems import SHORTLIST

EPOCH = "1767225600"
TAU2 = os.environ.get("TRACE_DATA", "")


def _config(ws: Workspace, text: str) -> None:
    (ws.root / "validator.yaml").write_text(text, "utf-8")


def _run(ws: Workspace, *extra: str) -> Result:
    return run_cli("run", "--out", str(ws.out), "--jobs", "1", *extra, cwd=ws.root)


def _statuses(ws: Workspace) -> dict[str, str]:
    return {c["case_id"]: c["status"] for c in ws.report()["cases"]}


# --------------------------------------------------------------------------------------------
# tau2-bench: one file, many simulations, numeric task ids


def _simulation(task_id: Any, reward: float, answer: str = "Your order was returned.") -> dict:
    return {
        "id": f"sim-{task_id}",
        "task_id": task_id,
        "termination_reason": "user_stop",
        "duration": 31.5,
        "reward_info": {"reward": reward, "db_check": {"db_match": reward == 1.0}},
        "messages": [
            {"role": "user", "content": "I want to return my order."},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "name": "get_order_details", "arguments": {}}],
            },
            {"role": "tool", "id": "c1", "content": "{}", "error": False},
            {"role": "assistant", "content": answer},
        ],
    }


TAU2_SPECS = {
    "trace-fields.yaml": (
        "id: trace-fields\ndescription: tau2-bench simulations\nfields:\n"
        "  case_id: $.task_id\n  verdict: $.termination_reason\n"
        "  tool_call_matches: $.messages[*].tool_calls[*]\n  duration_ms: $.duration\n"
    ),
    "reward.yaml": (
        "id: reward\ndescription: the simulation got full reward\n"
        "query: $.reward_info.reward\npredicate: equals\nparams: {value: 1.0}\n"
    ),
    "looked-up.yaml": (
        "id: looked-up\ndescription: the agent looked the order up\n"
        "query: $.messages[*].tool_calls[*].name\npredicate: contains-all\n"
        "params: {items: [get_order_details]}\n"
    ),
}


def _tau2_suite(ws: Workspace, ids: list[str]) -> None:
    specs = ws.root / "specs"
    specs.mkdir()
    for name, text in TAU2_SPECS.items():
        (specs / name).write_text(text, "utf-8")
    for case_id in ids:  # no diagnosis keys: no spec of this suite reads them
        ws.case({"id": case_id, "question": "q", "checks": ["reward", "looked-up"]})
    _config(
        ws,
        "specs: [specs]\npacks: []\ntraces:\n  split: $.simulations[*]\n  case_id: $.task_id\n",
    )


def test_a_tau2_results_file_split_into_simulations_matched_by_numeric_task_id(
    ws: Workspace,
) -> None:
    _tau2_suite(ws, ["12", "7", "30"])
    results = {
        "timestamp": "2025-08-01T00:00:00",
        "info": {"agent": "gpt-4.1"},
        "tasks": [{"id": 12}, {"id": 7}],
        "simulations": [_simulation(12, 1.0), _simulation(7, 0.0), _simulation(12, 1.0)],
    }
    ws.trace("", results, name="retail.json")
    result = _run(ws)
    assert result.code == 1, result.out + result.err
    assert _statuses(ws) == {"12": "pass", "30": "not_run", "7": "fail"}
    twelve = next(c for c in ws.report()["cases"] if c["case_id"] == "12")
    items = [i["fixture"] for i in twelve["runs"]["items"]]
    assert items == ["fixtures/retail.json#1", "fixtures/retail.json#3"], "runs in file order"
    assert twelve["tool_call_count"] == 1 and twelve["duration_ms"] == 31.5
    thirty = next(c for c in ws.report()["cases"] if c["case_id"] == "30")
    assert "traces.case_id: $.task_id" in thirty["reason"]
    linted = run_cli("lint", "--fixtures", "fixtures", "--format", "json", cwd=ws.root)
    problems = [(p["code"], p["message"]) for p in json.loads(linted.out)["problems"]]
    assert [code for code, _ in problems] == ["no-fixture"], problems
    assert "case '30' has no saved trace" in problems[0][1]


@pytest.mark.skipif(
    not TAU2 or not (Path(TAU2) / "tau2-bench").is_dir(),
    reason="set TRACE_DATA to the shared data folder (with tau2-bench/) to run it on real traces",
)
def test_the_real_tau2_bench_retail_file(ws: Workspace) -> None:
    source = Path(TAU2) / "tau2-bench" / "gpt-4.1_retail_defautl_gpt-4.1_1trials.json"
    shutil.copy(source, ws.fixtures / "retail.json")
    ids = ["27", "36", "40", "45", "55", "65", "68", "86"]  # the task ids SOURCE lists
    _tau2_suite(ws, ids)
    (ws.root / "specs" / "looked-up.yaml").unlink()
    for case_id in ids:
        ws.case({"id": case_id, "question": "q", "checks": ["reward"]})
    result = _run(ws)
    assert "Traceback" not in result.err
    assert result.code == 1, "three simulations have reward 0.0"
    statuses = _statuses(ws)
    assert {c for c, s in statuses.items() if s == "fail"} == {"36", "55", "86"}, statuses
    assert {c for c, s in statuses.items() if s == "pass"} == {"27", "40", "45", "65", "68"}
    assert ws.report()["unmatched_traces"] == [] and ws.report()["unused_files"] == []


def test_a_top_level_list_without_split_is_one_trace(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", [good_trace(), good_trace()])
    assert _run(ws).code == 1
    case = ws.case_result()
    assert case["runs"]["total"] == 1, "the list is one trace: its checks read $ as the list"
    assert case["status"] == "fail" and "split" not in json.dumps(case)
    _config(ws, "traces:\n  split: $[*]\n")
    assert _run(ws).code == 0, "two runs of db-slow, named by the file"
    assert ws.case_result()["runs"]["total"] == 2


def test_a_split_that_matches_nothing_is_that_file_s_error(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="other"))
    ws.trace("db-slow", {"runs": [good_trace()]})
    ws.trace("other", {"simulations": [good_trace("other")]})
    _config(ws, "traces:\n  split: $.simulations[*]\n")
    assert _run(ws).code == 1
    case = ws.case_result()
    assert case["status"] == "error"
    assert case["fixture"] == "fixtures/db-slow.json"
    assert "traces.split $.simulations[*] matches nothing in this file" in case["reason"]
    assert ws.case_result("other")["status"] == "pass"


def test_case_id_paths_that_find_nothing_or_an_object_are_per_trace_errors(
    ws: Workspace,
) -> None:
    ws.case()
    traces = [good_trace(), dict(good_trace(), caseId={"id": "db-slow"}), good_trace()]
    del traces[2]["caseId"]
    ws.trace("", traces, name="all.json")
    _config(ws, "traces:\n  split: $[*]\n  case_id: $.caseId\n")
    result = _run(ws)
    assert result.code == 1
    assert ws.case_result()["runs"]["total"] == 1
    unmatched = {u["fixture"]: u["reason"] for u in ws.report()["unmatched_traces"]}
    assert unmatched == {
        "fixtures/all.json#2": 'traces.case_id: $.caseId finds an object {"id": "db-slow"},'
        " not an id: point it at a text or number field",
        "fixtures/all.json#3": "traces.case_id: $.caseId finds nothing in this trace",
    }
    linted = run_cli("lint", "--fixtures", "fixtures", "--format", "json", cwd=ws.root)
    codes = [(p["code"], p["message"][:19]) for p in json.loads(linted.out)["problems"]]
    assert codes == [
        ("no-case-id", "fixtures/all.json#2"),
        ("no-case-id", "fixtures/all.json#3"),
    ]


def test_a_template_joins_the_file_name_and_trace_values_lower_cased(ws: Workspace) -> None:
    for case_id in ("checkout-1", "checkout-2"):
        ws.case(dict(GOOD_CASE, id=case_id))
    ws.trace("", [good_trace(n=1), good_trace(n=2)], name="CheckOut.json")
    _config(ws, "traces:\n  split: $[*]\n  case_id: '{file_stem}-{$.n}'\n")
    assert _run(ws).code == 0, "the upper-case file stem matches the lower-case case ids"
    assert _statuses(ws) == {"checkout-1": "pass", "checkout-2": "pass"}
    _config(ws, "traces:\n  split: $[*]\n  case_id: '{file_stem}-{$.missing}'\n")
    assert _run(ws).code == 1
    reasons = {u["reason"] for u in ws.report()["unmatched_traces"]}
    assert reasons == {"traces.case_id: {$.missing} finds nothing in this trace"}


# --------------------------------------------------------------------------------------------
# OpenTelemetry OTLP/JSON


def _span(trace_id: str | None, name: str, **attributes: Any) -> dict:
    span: dict[str, Any] = {"spanId": name, "name": name, "kind": 1}
    if trace_id is not None:
        span["traceId"] = trace_id
    span["attributes"] = [
        {"key": k, "value": {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}}
        for k, v in attributes.items()
    ]
    return span


def _request(*spans: dict) -> dict:
    return {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "agent"}}]
                },
                "scopeSpans": [{"scope": {"name": "genai", "version": "1"}, "spans": list(spans)}],
            }
        ]
    }


OTEL_SPECS = {
    "trace-fields.yaml": (
        "id: trace-fields\ndescription: OTLP traces\nfields:\n  case_id: $.traceId\n"
        "  verdict: $.none\n"
        "  tool_call_matches: $.spans[?(@.attributes['gen_ai.operation.name'] == 'execute_tool')]\n"
        "  duration_ms: $.none\n"
    ),
    "tools.yaml": (
        "id: tools\ndescription: the tools the case requires were called\n"
        "inputs: {required_tools: {type: array, items: {type: string}}}\n"
        "query: $.spans[*].attributes['gen_ai.tool.name']\npredicate: contains-all\n"
        "params: {items: {case: required_tools}}\n"
    ),
}


def _otel_suite(ws: Workspace) -> None:
    specs = ws.root / "specs"
    specs.mkdir()
    for name, text in OTEL_SPECS.items():
        (specs / name).write_text(text, "utf-8")
    for case_id, tools in (("aa01", ["search"]), ("bb02", ["search", "write"])):
        ws.case({"id": case_id, "required_tools": tools, "checks": ["tools"]})
    _config(
        ws,
        "specs: [specs]\npacks: []\ntraces:\n  format: otlp-json\n  case_id: $.traceId\n",
    )


def test_an_otlp_export_with_two_trace_ids_is_two_traces(ws: Workspace) -> None:
    _otel_suite(ws)
    lines = [
        _request(
            _span(
                "AA01",
                "s1",
                **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search"},
            )
        ),
        _request(
            _span(
                "bb02",
                "s2",
                **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search"},
            ),
            _span("aa01", "s3", tokens=12, **{"gen_ai.tool.name": "search"}),
        ),
    ]
    # The collector's file exporter: one ExportTraceServiceRequest per line.
    ws.trace("", "\n".join(json.dumps(line) for line in lines) + "\n", name="export.json")
    result = _run(ws)
    assert result.code == 1, result.out + result.err
    assert _statuses(ws) == {"aa01": "pass", "bb02": "fail"}
    bb02 = next(c for c in ws.report()["cases"] if c["case_id"] == "bb02")
    assert "not found: write (found instead: search)" in bb02["failed_checks"][0]["message"]
    assert bb02["fixture"] == "fixtures/export.json#bb02"
    assert bb02["tool_call_count"] == 1
    # AA01 and aa01 are two traceIds (grouped apart) whose ids both lower-case to aa01.
    assert next(c for c in ws.report()["cases"] if c["case_id"] == "aa01")["runs"]["total"] == 2


def test_an_otlp_span_without_a_trace_id_is_an_error(ws: Workspace) -> None:
    _otel_suite(ws)
    ws.trace("", _request(_span("aa01", "s1"), _span(None, "s2")), name="export.json")
    assert _run(ws).code == 1
    (unmatched,) = ws.report()["unmatched_traces"]
    assert unmatched["fixture"] == "fixtures/export.json"
    assert unmatched["reason"] == (
        "resourceSpans[0].scopeSpans[0].spans[1] has no traceId (every span needs one to be"
        " grouped into its trace)"
    )


def test_otlp_attributes_become_plain_mappings() -> None:
    from validator.traces import otlp_traces

    request = _request(_span("t1", "s1", **{"gen_ai.tool.name": "search", "n": 3}))
    request["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["events"] = [
        {
            "name": "e",
            "attributes": [
                {"key": "x", "value": {"arrayValue": {"values": [{"boolValue": True}]}}}
            ],
        }
    ]
    ((trace_id, trace),) = otlp_traces(json.dumps(request).encode())
    span = trace["spans"][0]
    assert trace_id == "t1" and trace["traceId"] == "t1"
    assert span["attributes"] == {"gen_ai.tool.name": "search", "n": 3}
    assert span["events"][0]["attributes"] == {"x": [True]}
    assert span["resource"] == {"service.name": "agent"}
    assert span["scope"] == {"name": "genai", "version": "1"}


# --------------------------------------------------------------------------------------------
# Which files are traces, and the files not used


def test_a_traj_file_selected_by_pattern_and_every_unused_file_listed(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace(), name="db-slow.traj")
    ws.trace("x", "notes", name="README.txt")
    ws.trace("x", good_trace(), name="old/db-slow.json")
    ws.trace("x", "", name=".gitkeep")
    _config(ws, "traces:\n  pattern: '*.traj'\n")
    result = _run(ws)
    assert result.code == 0, result.out + result.err
    assert ws.case_result()["fixture"] == "fixtures/db-slow.traj"
    pattern = "does not match traces.pattern (*.traj)"
    assert ws.report()["unused_files"] == [
        {"file": "fixtures/.gitkeep", "reason": "a hidden file or folder: not searched"},
        {"file": "fixtures/README.txt", "reason": pattern},
        {"file": "fixtures/old/db-slow.json", "reason": pattern},
    ]
    summary = result.out.splitlines()[-2]
    assert summary.startswith("1 case: 1 passed") and "; 3 files not used: " in summary
    assert "UNUSED   fixtures/README.txt: does not match traces.pattern (*.traj)" in result.out
    md = (ws.out / "report.md").read_text("utf-8")
    assert "**Files not used** (3): fixtures/.gitkeep (a hidden file or folder" in md


def test_a_file_not_matching_the_default_pattern_is_listed_not_silently_skipped(
    ws: Workspace,
) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    ws.trace("x", "not a trace", name="notes.txt")
    assert ws.run().code == 0
    assert ws.report()["unused_files"] == [
        {"file": "fixtures/notes.txt", "reason": "does not match traces.pattern (*.json, *.jsonl)"}
    ]


def test_files_traces_ignore_names_are_counted_never_read_nor_listed_on_the_terminal(
    ws: Workspace,
) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="other"))
    ws.trace("db-slow", good_trace())
    ws.trace("x", "# How these traces were captured", name="README.md")
    ws.trace("x", "not json at all", name="notes/other.json")  # would be case other's trace
    ws.trace("x", "", name=".gitkeep")
    ws.trace("x", "not a trace", name="scratch.txt")
    _config(ws, "traces:\n  ignore: [README.md, notes, .gitkeep]\n")
    result = _run(ws)
    assert result.code == 1, result.out + result.err  # case other has no trace now
    assert _statuses(ws) == {"db-slow": "pass", "other": "not_run"}
    ignored = "ignored: traces.ignore names it"
    assert ws.report()["unused_files"] == [
        {"file": "fixtures/.gitkeep", "reason": ignored},
        {"file": "fixtures/README.md", "reason": ignored},
        {"file": "fixtures/notes/", "reason": ignored},
        {
            "file": "fixtures/scratch.txt",
            "reason": "does not match traces.pattern (*.json, *.jsonl)",
        },
    ]
    assert "UNUSED   fixtures/scratch.txt" in result.out
    assert "README.md" not in result.out and ".gitkeep" not in result.out
    summary = next(line for line in result.out.splitlines() if line.startswith("2 cases:"))
    assert "; 1 file not used: fixtures/scratch.txt (" in summary
    assert summary.endswith("; 3 files ignored (traces.ignore)"), summary
    md = (ws.out / "report.md").read_text("utf-8")
    assert "fixtures/README.md (ignored: traces.ignore names it)" in md
    # With -q, the one summary line counts both.
    quiet = _run(ws, "-q")
    assert "1 file not used (see unused_files in report.json); 3 files ignored" in quiet.out


def test_a_case_whose_traces_traces_ignore_names_says_so(ws: Workspace) -> None:
    ws.case()
    ws.trace("x", good_trace(), name="db-slow/run-1.json")
    _config(ws, "traces:\n  ignore: [db-slow]\n")
    result = _run(ws)
    assert result.code == 1, result.out + result.err
    assert ws.case_result()["status"] == "not_run"
    assert ws.case_result()["reason"] == (
        "no trace fixture: traces.ignore names fixtures/db-slow: take it out of traces.ignore"
        " to read its traces"
    )


def test_a_traces_ignore_entry_that_is_no_glob_is_refused_where_it_is_written(
    ws: Workspace,
) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    _config(ws, "traces:\n  ignore: [README.md, 'notes/[z-a].md']\n")
    result = _run(ws)
    assert result.code == 2, result.out + result.err
    assert 'validator.yaml:2:23: error: traces.ignore: "notes/[z-a].md" is not a glob' in result.err
    assert "write e.g. README.md or 'docs/**'" in result.err


def test_files_of_cases_left_out_by_a_selection_are_listed_as_unused(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="other"))
    ws.trace("db-slow", good_trace())
    ws.trace("other", good_trace("other"))
    assert ws.run("--case", "db-slow").code == 0
    assert ws.report()["unused_files"] == [
        {"file": "fixtures/other.json", "reason": "its case 'other' is not selected (--case/--tag)"}
    ]


def test_a_folder_trace_that_matches_no_case_fails_the_run_unless_allowed(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    ws.trace("db-slwo", good_trace("db-slwo"))
    ws.trace("ghost", good_trace("ghost"), name="ghost/run-1.json")
    result = ws.run()
    assert result.code == 1, "README: a trace that matches no case makes the run exit 1"
    unmatched = {u["fixture"]: u["reason"] for u in ws.report()["unmatched_traces"]}
    assert unmatched == {
        "fixtures/db-slwo.json": "no case has the id 'db-slwo' (did you mean 'db-slow'?): name"
        " the file after its case id, or add the case",
        "fixtures/ghost/run-1.json": "its folder ghost/ names no case: name the folder after"
        " its case id, or add the case",
    }
    assert "UNMATCHED fixtures/db-slwo.json" in result.out
    assert "2 traces match no case" in result.out
    allowed = ws.run("--allow-unmatched")
    assert allowed.code == 0
    assert "2 traces match no case (allowed: --allow-unmatched)" in allowed.out
    assert len(ws.report()["unmatched_traces"]) == 2, "still listed"


MANY_CASES = 300


def _many_cases(ws: Workspace, **fields: Any) -> list[str]:
    """MANY_CASES cases (svc-0000 ...), each with `fields` (`{id}` filled in)."""
    ids = [f"svc-{n:04d}" for n in range(MANY_CASES)]
    for case_id in ids:
        own = {key: value.format(id=case_id) for key, value in fields.items()}
        ws.case(dict(GOOD_CASE, id=case_id, **own))
    return ids


def test_many_misnamed_files_each_get_a_suggestion_at_a_bounded_cost(
    ws: Workspace, comparisons: list[str]
) -> None:
    for case_id in _many_cases(ws)[:40]:  # renamed, and their traces name no case either
        ws.trace(case_id, good_trace(f"{case_id}-old"), name=f"{case_id}-old.json")
    assert ws.run().code == 1
    unmatched = {u["fixture"]: u["reason"] for u in ws.report()["unmatched_traces"]}
    assert len(unmatched) == 40
    assert unmatched["fixtures/svc-0007-old.json"].startswith(
        "no case has the id 'svc-0007-old' (did you mean 'svc-0007'?)"
    )
    # Each of the 40 is comparisons with a shortlist, not with the 300 case ids (12,000).
    assert len(comparisons) <= 40 * 2 * SHORTLIST
    comparisons.clear()
    linted = run_cli("lint", "--fixtures", "fixtures", "--format", "json", cwd=ws.root)
    messages = [p["message"] for p in json.loads(linted.out)["problems"]]
    assert sum("(did you mean 'svc-0" in m for m in messages) == 40
    # Asked twice each: for the plan's reason (as in run) and for lint's message.
    assert len(comparisons) <= 2 * 40 * 2 * SHORTLIST


def test_traces_naming_unknown_ids_each_get_a_suggestion_at_a_bounded_cost(
    ws: Workspace, comparisons: list[str]
) -> None:
    ids = _many_cases(ws)
    lines = [good_trace(case_id) for case_id in ids]
    lines += [good_trace(f"{case_id}-old") for case_id in ids[:40]] * 2  # each twice
    ws.trace("", "\n".join(json.dumps(line) for line in lines), name="export.jsonl")
    assert ws.run().code == 1
    reasons = [u["reason"] for u in ws.report()["unmatched_traces"]]
    assert len(reasons) == 80
    assert "no case has the id 'svc-0012-old' (did you mean 'svc-0012'?)" in reasons
    # The 40 ids once each (the second time, the answer is remembered), a shortlist each.
    assert len(comparisons) <= 40 * 2 * SHORTLIST


def test_cases_that_each_pick_one_file_are_matched_by_path_not_one_by_one(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `fixture:` key with no wildcard is a path: a suite of thousands of such cases
    costs a look-up a file, not a match of each file against every key (no regular
    expression is even made for one); a glob key beside them still picks its files."""
    for case_id in _many_cases(ws, fixture="exports/run-{id}.json"):
        ws.trace("", good_trace(case_id), name=f"exports/run-{case_id}.json")
    ws.case(dict(GOOD_CASE, id="all-of-them", fixture="exports/run-svc-000*.json"))
    made: list[str] = []
    original = fixturekeys.glob_regex

    def counted(pattern: str) -> Any:
        made.append(pattern)
        return original(pattern)

    monkeypatch.setattr(fixturekeys, "glob_regex", counted)
    assert ws.run().code == 0
    assert [p for p in made if "svc" in p] == ["exports/run-svc-000*.json"]
    assert _statuses(ws)["svc-0123"] == "pass"
    assert ws.case_result("all-of-them")["runs"]["total"] == 10  # svc-0000 .. svc-0009


class _CountedRegex:
    """A compiled glob that counts the paths it is matched against."""

    def __init__(self, regex: Any, matched: list[str]) -> None:
        self.regex, self.matched = regex, matched

    def fullmatch(self, text: str) -> Any:
        self.matched.append(text)
        return self.regex.fullmatch(text)


@pytest.mark.parametrize("key", ["traces/{id}", "traces/{id}/run-*.json"])
def test_cases_that_each_pick_a_folder_or_a_glob_match_only_their_own_files(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    """A folder or glob key is matched only against the files that start with its text
    before the first wildcard (`traces/svc-0007/`): each file against its own case's key,
    not against the 300 keys (a folder key needs no regular expression at all)."""
    for case_id in _many_cases(ws, fixture=key):
        ws.trace("", good_trace(case_id), name=f"traces/{case_id}/run-1.json")
        ws.trace("", good_trace(case_id), name=f"traces/{case_id}/run-2.json")
    matched: list[str] = []
    original = fixturekeys.glob_regex
    monkeypatch.setattr(fixturekeys, "glob_regex", lambda p: _CountedRegex(original(p), matched))
    assert ws.run().code == 0
    assert ws.case_result("svc-0123")["runs"]["total"] == 2
    assert len(matched) <= 2 * MANY_CASES  # 180,000 when each file met every key


def test_a_case_s_fixture_key_picks_its_traces_whatever_their_names(ws: Workspace) -> None:
    ws.case(dict(GOOD_CASE, id="db-slow", fixture="exports/2024-*.json"))
    ws.case(dict(GOOD_CASE, id="shared-a", fixture="shared.json"))
    ws.case(dict(GOOD_CASE, id="shared-b", fixture="shared.json", allowed_verdicts=["REVISE"]))
    ws.case(dict(GOOD_CASE, id="typo", fixture="nowhere/*.json"))
    ws.trace("", good_trace(durationMs=1), name="exports/2024-05.json")
    ws.trace("", good_trace(durationMs=2), name="exports/2024-06.json")
    ws.trace("", good_trace("someone-else"), name="shared.json")  # its caseId is not checked
    result = ws.run()
    assert result.code == 1
    assert _statuses(ws) == {
        "db-slow": "pass",
        "shared-a": "pass",
        "shared-b": "fail",
        "typo": "error",
    }
    assert ws.case_result()["runs"]["total"] == 2
    assert ws.report()["unmatched_traces"] == [] and ws.report()["unused_files"] == []
    assert "fixture: matches no file under fixtures" in ws.case_result("typo")["reason"]
    linted = run_cli("lint", "--fixtures", "fixtures", "--format", "json", cwd=ws.root)
    problems = json.loads(linted.out)["problems"]
    lines = (ws.cases / "typo.yaml").read_text("utf-8").splitlines()
    at = next(i for i, line in enumerate(lines, start=1) if '"fixture"' in line)
    assert [(p["file"], p["line"], p["code"]) for p in problems] == [
        ("cases/typo.yaml", at, "no-fixture")
    ]


def test_json_lines_in_a_folder_name_their_cases_per_entry(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="other"))
    lines = [good_trace(), good_trace("other"), set_verdict(good_trace(), "REVISE")]
    ws.trace("", "\n".join(json.dumps(t) for t in lines), name="export.jsonl")
    assert ws.run().code == 1
    case = ws.case_result()
    assert [i["fixture"] for i in case["runs"]["items"]] == [
        "fixtures/export.jsonl:1",
        "fixtures/export.jsonl:3",
    ]
    assert ws.case_result("other")["status"] == "pass"


def test_the_document_a_trace_was_split_from_is_its_parent(ws: Workspace) -> None:
    # $.view.parent is the document a split trace came from: here, its batch number.
    specs = ws.root / "specs"
    specs.mkdir()
    (specs / "batch.yaml").write_text(
        "id: batch\ndescription: the trace came from batch 7\nquery: $.view.parent.batch\n"
        "predicate: equals\nparams: {value: 7}\n",
        "utf-8",
    )
    ws.case(dict(GOOD_CASE, checks=["batch", "verdict-present"]))
    document = {"batch": 7, "items": [good_trace(n=1), good_trace(n=2)]}
    ws.trace("db-slow", document)
    _config(ws, "specs: [specs]\ntraces:\n  split: $.items[*]\n")
    assert _run(ws).code == 0, ws.report()["cases"]
    assert ws.case_result()["runs"]["total"] == 2
    document["batch"] = 8
    ws.trace("db-slow", document)
    assert _run(ws).code == 1


# --------------------------------------------------------------------------------------------
# init, and the same report whatever --jobs


def test_init_then_lint_then_run_pass(tmp_path: Path) -> None:
    result = run_cli("init", "suite", cwd=tmp_path)
    assert result.code == 0, result.err
    suite = tmp_path / "suite"
    assert sorted(p.relative_to(suite).as_posix() for p in suite.rglob("*") if p.is_file()) == [
        "cases/example.yaml",
        "fixtures/example.json",
        "validator.yaml",
    ]
    text = (suite / "validator.yaml").read_text("utf-8")
    for key in ("cases:", "fixtures:", "specs:", "packs:", "traces:", "pattern:"):
        line = next(i for i, ln in enumerate(text.splitlines()) if ln.strip().startswith(key))
        assert text.splitlines()[line - 1].strip().startswith("#"), f"{key} has a comment"
    linted = run_cli("lint", "--strict", cwd=suite)
    assert linted.code == 0, linted.out
    ran = run_cli("run", "--jobs", "1", cwd=suite)
    assert ran.code == 0, ran.out + ran.err
    again = run_cli("init", "suite", cwd=tmp_path)
    assert again.code == 2 and "not overwriting" in again.err and "nothing was written" in again.err


def test_init_refuses_to_overwrite_any_file(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "example.yaml").write_text("mine", "utf-8")
    result = run_cli("init", cwd=tmp_path)
    assert result.code == 2 and "cases/example.yaml" in result.err
    assert not (tmp_path / "validator.yaml").exists(), "nothing written"
    assert (tmp_path / "cases" / "example.yaml").read_text("utf-8") == "mine"


def _split_suite(ws: Workspace) -> None:
    for c in range(6):
        ws.case(dict(GOOD_CASE, id=f"case-{c}"))
    for f in range(5):
        traces = []
        for t in range(7):
            trace = good_trace(f"case-{(f + t) % 7}")  # case-6 names no case
            if (f * t) % 5 == 3:
                set_verdict(trace, "REVISE")
            traces.append(trace)
        content: Any = {"runs": traces}
        if f == 3:
            content = "{broken"
        ws.trace("", content, name=f"batch-{f}.json")
    _config(ws, "traces:\n  split: $.runs[*]\n  case_id: $.caseId\n")


def test_split_files_give_byte_identical_reports_for_any_jobs(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.setattr(runner, "DEFAULT_CHUNK", 1)  # every file its own chunk
    _split_suite(ws)
    reports = {}
    for jobs in ("1", "2", "3"):
        out = ws.root / f"out-{jobs}"
        result = run_cli("run", "--out", str(out), "--jobs", jobs, cwd=ws.root)
        assert result.code == 1, result.err
        reports[jobs] = (out / "report.json").read_bytes() + (out / "report.md").read_bytes()
    assert reports["1"] == reports["2"] == reports["3"]
    report = json.loads((ws.root / "out-1" / "report.json").read_text("utf-8"))
    assert report["summary"]["runs"]["total"] == 4 * 7 - 4, "the case-6 traces are unmatched"
    assert {u["fixture"] for u in report["unmatched_traces"]} >= {"fixtures/batch-3.json"}


def test_json_lines_in_a_case_folder_are_that_case_s_runs_and_broken_lines_err_it(
    ws: Workspace,
) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="other"))
    lines = [json.dumps(good_trace()), "", json.dumps(good_trace(durationMs=5))]
    ws.trace("db-slow", "\n".join(lines) + "\n", name="db-slow/runs.jsonl")
    broken = '{"caseId": "other", "finalAnswer": "unterminated\n'
    ws.trace("", broken, name="export.jsonl")
    assert ws.run().code == 1
    case = ws.case_result()
    assert case["status"] == "pass"
    assert [i["fixture"] for i in case["runs"]["items"]] == [
        "fixtures/db-slow/runs.jsonl:1",
        "fixtures/db-slow/runs.jsonl:3",
    ]
    other = ws.case_result("other")
    assert other["status"] == "error", "the broken line seems to name 'other': it errs it"
    assert other["fixture"] == "fixtures/export.jsonl:1"


def test_a_json_lines_file_linked_from_outside_the_folder_is_refused(
    ws: Workspace, tmp_path_factory: pytest.TempPathFactory
) -> None:
    ws.case()
    outside = tmp_path_factory.mktemp("outside") / "secret.jsonl"
    outside.write_text(json.dumps(good_trace()) + "\n", "utf-8")
    (ws.fixtures / "export.jsonl").symlink_to(outside)
    assert ws.run().code == 1
    (unmatched,) = ws.report()["unmatched_traces"]
    assert "outside the fixtures folder: refused" in unmatched["reason"]
    assert ws.run("--follow-symlinks").code == 0


@pytest.mark.parametrize("whole_words", [False, True])
def test_a_case_asks_for_whole_words_in_the_standard_keyword_checks(
    ws: Workspace, whole_words: bool
) -> None:
    """`whole_words: true` in a case: FLAT is not found in IVF_FLAT (so the root cause is
    not named, and a forbidden `drop` is not found in `dropdown`), a Chinese keyword still is."""
    trace = good_trace()
    trace["finalAnswer"] = "索引类型是 IVF_FLAT；在 dropdown 菜单里选 MySQL连接池 的配置。"
    ws.trace("db-slow", trace)
    case: dict[str, Any] = dict(
        GOOD_CASE, root_cause_keywords=["FLAT", "MySQL", "索引"], forbidden_keywords=["drop"]
    )
    if whole_words:
        case["whole_words"] = True
    ws.case(case)
    result = ws.run()
    row = ws.case_result()
    checks = {c["check"]: c for c in row["checks"]}
    if whole_words:
        assert result.code == 1, result.out
        assert checks["keyword-coverage"]["status"] == "fail"
        assert checks["keyword-coverage"]["details"]["missing"] == ["FLAT"]
        assert checks["forbidden-keywords"]["status"] == "pass"
    else:
        assert checks["keyword-coverage"]["status"] == "pass"
        assert checks["forbidden-keywords"]["status"] == "fail"
