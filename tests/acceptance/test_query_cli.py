"""`python -m validator query JSONPATH TRACE...`, through the command line: paths and values,
located errors, one block per trace, bounded and inert output, --json, exit codes, and the
suite config's trace settings ($.view, split) on the shipped fixtures and the real data."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import REPO, good_trace, run_cli

SHIPPED = str(REPO / "fixtures" / "mysql-slow-query.json")
DATA = os.environ.get("TRACE_DATA", "")


def test_each_match_is_printed_with_its_concrete_path_and_value() -> None:
    result = run_cli("query", "$.toolInvocations[*].toolName", SHIPPED, cwd=REPO)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "== fixtures/mysql-slow-query.json: 4 matches"
    assert '  $.toolInvocations[1].toolName = "mysql_slow_log"' in lines
    assert '  $.toolInvocations[2].toolName = "mysql_explain"' in lines
    assert lines[-1] == "1 of 1 trace matched"


def test_a_filter_match_gets_the_index_of_the_item_it_matched(tmp_path: Path) -> None:
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps({"calls": [{"s": "ok"}, {"s": "error", "n": "b"}]}), "utf-8")
    result = run_cli("query", "$.calls[?(@.s == 'error')].n", str(trace), cwd=tmp_path)
    assert result.code == 0, result.err
    assert '  $.calls[1].n = "b"' in result.out.splitlines()


def test_view_matches_name_the_view_field_and_the_adapter() -> None:
    result = run_cli("query", "$.view.tool_calls[*].name", SHIPPED, cwd=REPO)
    assert result.code == 0, result.err
    assert "($.view made by the reference adapter, detected)" in result.out
    assert '  $.view.tool_calls[0].name = "metrics_query"  [view field tool_calls[*].name]' in (
        result.out.splitlines()
    )


def test_nothing_matched_exits_1_and_says_which_step_is_missing() -> None:
    result = run_cli("query", "$.toolInvocation[*].toolName", SHIPPED, cwd=REPO)
    assert result.code == 1
    assert "0 matches" in result.out
    assert "no field 'toolInvocation' (did you mean 'toolInvocations'?)" in result.out
    assert "0 of 1 trace matched" in result.out


def test_a_field_no_item_has_is_named_with_the_fields_the_items_have() -> None:
    result = run_cli("query", "$.toolInvocations[*].name", SHIPPED, cwd=REPO)
    assert result.code == 1
    assert (
        "no item of $.toolInvocations[*] has a field 'name' (did you mean 'toolName'?);"
        " their fields: toolName, arguments" in result.out
    ), result.out
    found = run_cli("query", "$.toolInvocations[*].toolName", SHIPPED, cwd=REPO)
    assert found.code == 0 and "no match" not in found.out


def test_a_bad_jsonpath_is_located_with_a_caret_and_exits_2() -> None:
    result = run_cli("query", "$.toolInvocations[*.toolName", SHIPPED, cwd=REPO)
    assert result.code == 2
    assert result.out == ""
    lines = result.err.splitlines()
    assert "at character 20" in lines[0]
    assert lines[1] == "  $.toolInvocations[*.toolName"
    assert lines[2].index("^") == lines[1].index("*") + 1


def test_a_misspelt_view_field_is_located_with_did_you_mean() -> None:
    result = run_cli("query", "$.view.tool_call[*].name", SHIPPED, cwd=REPO)
    assert result.code == 2
    lines = result.err.splitlines()
    assert "at character 8" in lines[0]
    assert "(did you mean 'tool_calls'?)" in lines[0]
    assert lines[2].index("^") == lines[1].index("tool_call")


def test_unreadable_traces_are_reported_and_the_others_still_print(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text('{"finalAnswer": "x",', "utf-8")
    missing = str(tmp_path / "missing.json")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(good_trace()), "utf-8")
    result = run_cli("query", "$.finalAnswer", missing, "broken.json", "good.json", cwd=tmp_path)
    assert result.code == 0
    assert "missing.json: no such file" in result.err
    assert "broken.json: invalid JSON at line 1" in result.err
    assert "== good.json: 1 match" in result.out
    assert "1 of 1 trace matched; 2 could not be read or queried (see above)" in result.out


def test_no_readable_trace_exits_2(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text("not json", "utf-8")
    result = run_cli("query", "$.a", "broken.json", "nothing.json", "..", cwd=tmp_path)
    assert result.code == 2
    assert "broken.json: invalid JSON" in result.err
    assert "nothing.json: no such file" in result.err
    assert ".. is a folder" in result.err or "..: is a folder" in result.err
    assert "no trace could be read and queried" in result.err


def test_json_lines_give_one_block_per_line_and_a_bad_line_does_not_stop_them(
    tmp_path: Path,
) -> None:
    lines = [json.dumps(good_trace("a")), "{oops", json.dumps(good_trace("b"))]
    (tmp_path / "export.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    result = run_cli("query", "$.caseId", "export.jsonl", cwd=tmp_path)
    assert result.code == 0
    assert '== export.jsonl:1: 1 match\n  $.caseId = "a"' in result.out
    assert '== export.jsonl:3: 1 match\n  $.caseId = "b"' in result.out
    assert "export.jsonl:2: invalid JSON" in result.err


def test_the_configs_split_gives_one_block_per_trace(tmp_path: Path) -> None:
    (tmp_path / "validator.yaml").write_text("traces:\n  split: $.runs[*]\n", "utf-8")
    (tmp_path / "many.json").write_text(
        json.dumps({"model": "m1", "runs": [good_trace("a"), good_trace("b")]}), "utf-8"
    )
    result = run_cli("query", "$.caseId", "many.json", cwd=tmp_path)
    assert result.code == 0, result.err
    assert '== many.json#1: 1 match\n  $.caseId = "a"' in result.out
    assert '== many.json#2: 1 match\n  $.caseId = "b"' in result.out
    # The document a trace was split from is the view's parent, as in run.
    parent = run_cli("query", "$.view.parent.model", "many.json", cwd=tmp_path)
    assert '$.view.parent.model = "m1"  [view field parent]' in parent.out


def test_json_output_has_one_record_per_match(tmp_path: Path) -> None:
    result = run_cli("query", "--json", "$.view.tool_calls[*].name", SHIPPED, cwd=REPO)
    assert result.code == 0, result.err
    document = json.loads(result.out)
    assert document["query"] == "$.view.tool_calls[*].name"
    assert document["matches"][1] == {
        "trace": "fixtures/mysql-slow-query.json",
        "path": "$.view.tool_calls[1].name",
        "value": "mysql_slow_log",
        "view_field": "tool_calls[*].name",
    }
    assert document["errors"] == []
    nothing = run_cli("query", "--json", "$.nope", SHIPPED, "missing.json", cwd=REPO)
    assert nothing.code == 1
    document = json.loads(nothing.out)
    assert document["matches"] == []
    assert document["errors"] == [{"trace": "missing.json", "error": "no such file"}]


def test_values_are_bounded_and_trace_text_cannot_reach_the_terminal(tmp_path: Path) -> None:
    hostile = "\x1b[2J\x1b]0;pwned\x07 \u202e" + "long " * 2000
    trace = {"answer": hostile, "keys": {"evil\x1b[31m\nkey": 1}, "ok": [0, "", False, None]}
    (tmp_path / "t.json").write_text(json.dumps(trace), "utf-8")
    result = run_cli("query", "$.answer", "t.json", cwd=tmp_path)
    assert result.code == 0
    assert "\x1b" not in result.out and "\u202e" not in result.out
    assert max(len(line) for line in result.out.splitlines()) < 300
    keys = run_cli("query", "$.keys.*", "t.json", cwd=tmp_path)
    assert "\x1b" not in keys.out
    assert "  $.keys['evil\\x1b[31m\\nkey'] = 1" in keys.out.splitlines()
    # Falsy values are matches like any other.
    falsy = run_cli("query", "$.ok[*]", "t.json", cwd=tmp_path)
    assert falsy.code == 0
    assert [line.split(" = ")[1] for line in falsy.out.splitlines()[1:5]] == [
        "0",
        '""',
        "false",
        "null",
    ]


def _data(name: str) -> Path:
    if not DATA:
        pytest.skip("set TRACE_DATA to the shared trace data folder to query the real traces")
    folder = Path(DATA) / name
    if not folder.is_dir():
        pytest.skip(f"{name} is not in TRACE_DATA ({DATA})")
    return folder


def test_the_otel_example_config_gives_the_otel_view_of_the_real_traces() -> None:
    folder = _data("otel-agent-traces")
    config = str(REPO / "examples" / "otel-genai")
    traces = sorted(str(p) for p in folder.glob("*.json"))
    result = run_cli("query", "--config", config, "--json", "$.view.tool_calls[*].name", *traces)
    assert result.code == 0, result.err
    document = json.loads(result.out)
    names = {(Path(m["trace"]).name, m["value"]) for m in document["matches"]}
    assert ("agno.json", "get_current_time") in names
    assert ("agno.json", "write_file") in names
    assert {m["view_field"] for m in document["matches"]} == {"tool_calls[*].name"}
    assert document["errors"] == []


def test_the_tau2_example_config_splits_the_real_simulations() -> None:
    folder = _data("tau2-bench")
    config = str(REPO / "examples" / "tau2-bench")
    (file,) = folder.glob("*_retail_*.json")
    result = run_cli("query", "--config", config, "$.task_id", str(file))
    assert result.code == 0, result.err
    blocks = [line for line in result.out.splitlines() if line.startswith("== ")]
    assert len(blocks) > 1
    assert blocks[0].startswith(f"== {file}#1: 1 match")


def test_a_query_that_cannot_be_evaluated_is_never_nothing_matched(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text(json.dumps({"n": 5, "s": "abc"}), "utf-8")
    result = run_cli("query", "$.n.`sub(/a/, b)`", "t.json", cwd=tmp_path)
    assert result.code == 2
    assert "t.json: the query cannot be evaluated on this trace: `sub()` applies to text" in (
        result.err
    )
    # A computed value has no place in the trace: it is shown without a path, not at `$`.
    computed = run_cli("query", "$.s.`sub(/a/, b)`", "t.json", cwd=tmp_path)
    assert computed.code == 0
    assert '  (no concrete path: a computed value) = "bbc"' in computed.out.splitlines()


def test_every_path_shown_leads_back_to_its_value(tmp_path: Path) -> None:
    from validator.evaluation.query import compile_query

    shipped = json.loads((REPO / "fixtures" / "mysql-slow-query.json").read_text("utf-8"))
    trace = {
        "toolInvocations": shipped["toolInvocations"][:2],
        "odd keys": {"a.b": 1, "it's": [2, {"\\": 3}], "中文": "值", "": 0},
    }
    (tmp_path / "t.json").write_text(json.dumps(trace, ensure_ascii=False), "utf-8")
    result = run_cli("query", "--json", "$..*", "t.json", cwd=tmp_path)
    assert result.code == 0, result.err
    matches = json.loads(result.out)["matches"]
    assert len(matches) > 15
    for match in matches:
        assert match["path"] is not None, match
        assert compile_query(match["path"]).find(trace) == [match["value"]], match["path"]
