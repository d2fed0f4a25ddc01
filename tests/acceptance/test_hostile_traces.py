"""Hostile traces the data-driven files in tests/hostile/ cannot hold well: very large values,
lone surrogates where a report shows them, JSON Lines with huge or broken lines.

Each must end as a located reason or a note; never an internal error, a crash of the whole
run, or memory that grows with a line the limit refuses.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from conftest import GOOD_CASE, Workspace, good_trace, run_cli, set_verdict

from validator.inputs import count_lines, iter_jsonl
from validator.traces import TraceError, parse_trace


def _jsonl(ws: Workspace, *lines: str | bytes) -> Path:
    export = ws.root / "export.jsonl"
    with open(export, "wb") as handle:
        for line in lines:
            handle.write((line if isinstance(line, bytes) else line.encode("utf-8")) + b"\n")
    return export


# --------------------------------------------------------------------------- numbers


def test_an_integer_of_100000_digits_is_a_note_not_an_internal_error(ws: Workspace) -> None:
    ws.case()
    text = json.dumps(good_trace()).replace('"durationMs": 1200', '"durationMs": 1' + "0" * 99_999)
    ws.trace("db-slow", text)
    result = ws.run()
    case = ws.case_result()
    assert result.code == 0, result.err
    assert case["status"] == "pass"
    assert case["duration_ms"] is None
    assert (
        "whole number of 100000 digits (over Python's limit of 4300 digits) at $.durationMs"
        " ignored" in case["notes"]
    )


def test_overflowing_numbers_are_dropped_like_infinity() -> None:
    parsed = parse_trace(b'{"a": 1e4000, "b": [2.5, -1E+999, 1e308], "c": 1e-999}')
    assert parsed.document == {"b": [2.5, 1e308], "c": 0.0}  # underflow to 0 is a number
    assert parsed.notes == [
        "number -1E+999 (too large for a 64-bit float, like Infinity) at $.b[1] ignored",
        "number 1e4000 (too large for a 64-bit float, like Infinity) at $.a ignored",
    ]


# --------------------------------------------------------------------------- duplicate keys


def test_duplicate_keys_are_an_error_naming_every_object() -> None:
    text = b'{"a": {"v": 1, "v": 2, "w": 0, "w": 0}, "l": [{"x": 1, "x": 1}], "ok": {"v": 1}}'
    try:
        parse_trace(text)
    except TraceError as exc:
        message = str(exc)
    else:
        raise AssertionError("duplicate keys must not be read silently")
    assert message.startswith("duplicate key: 'v', 'w' in $.a; 'x' in $.l[0]:")
    assert "write each key once" in message


def test_duplicate_verdict_in_a_json_lines_export_is_an_error(ws: Workspace) -> None:
    ws.case()
    line = json.dumps(good_trace()).replace(
        '"verdict": "PASS"', '"verdict": "REJECT", "verdict": "PASS"'
    )
    ws.run("--fixtures", str(_jsonl(ws, line, json.dumps(good_trace()))))
    runs = ws.case_result()["runs"]["items"]
    assert [r["status"] for r in runs] == ["error", "pass"]
    assert "duplicate key: 'verdict' in $.selfEvaluation.verifier_evaluation" in runs[0]["reason"]


# --------------------------------------------------------------------------- lone surrogates


def test_lone_surrogates_in_case_id_verdict_and_tool_name_still_give_a_full_report(
    ws: Workspace,
) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="other"))
    odd = set_verdict(good_trace(), "PASS\ud800")
    odd["toolInvocations"].append({"toolName": "\udc00"})
    unknown = good_trace("db-\udfff")
    text_lines = [json.dumps(t) for t in (odd, unknown, good_trace("other"))]  # \\u escapes
    result = ws.run("--fixtures", str(_jsonl(ws, *text_lines)))
    assert "Traceback" not in result.err
    report = ws.report()  # written whole, and strict JSON
    case = ws.case_result()
    assert case["status"] == "fail"
    assert case["verdict"] == "PASS\ufffd"
    (item,) = report["unmatched_traces"]
    assert item["case_id"] == "db-\ufffd"
    assert ws.case_result("other")["status"] == "pass"
    assert "2 lone surrogates (\\ud800-\\udfff without its pair, which is not text) replaced" in (
        " ".join(case["notes"])
    )
    assert (ws.out / "report.md").read_text("utf-8")


def test_surrogate_pairs_are_text_and_stay() -> None:
    parsed = parse_trace(b'{"a": "\\ud83d\\ude00", "\\ud83d\\ude00": 1}')
    assert parsed.document == {"a": "😀", "😀": 1}
    assert parsed.notes == []


def test_keys_that_become_equal_after_replacement_are_an_error() -> None:
    try:
        parse_trace(b'{"\\ud800": 1, "\\udc00": 2}')
    except TraceError as exc:
        assert "two keys of one object become the same" in str(exc)
    else:
        raise AssertionError("two keys turned into one must not be read silently")


def test_a_json_lines_line_that_is_one_string_with_a_lone_surrogate_is_refused_not_a_crash(
    ws: Workspace,
) -> None:
    # It used to end the run with a TypeError (the repair walked the string as a list).
    ws.case()
    result = ws.run("--fixtures", str(_jsonl(ws, '"\\ud800"', json.dumps(good_trace()))))
    assert "Traceback" not in result.err
    assert ws.case_result()["status"] == "pass"
    (item,) = ws.report()["unmatched_traces"]
    assert "the top level must be a JSON object {...} or a list [...], found" in item["reason"]


def test_a_string_with_a_raw_lone_surrogate_is_repaired_too() -> None:
    parsed = parse_trace('{"a": "x\ud800y"}')  # the library API takes text
    assert parsed.document == {"a": "x\ufffdy"}
    assert parsed.notes and parsed.notes[0].startswith("1 lone surrogate ")


# --------------------------------------------------------------------------- JSON Lines


def test_an_over_long_line_is_an_error_with_its_size_and_the_rest_still_runs(
    ws: Workspace,
) -> None:
    ws.case()
    big = json.dumps(good_trace(finalAnswer="x" * 200_000))
    export = _jsonl(ws, big, json.dumps(good_trace()))
    result = ws.run("--fixtures", str(export), "--max-trace-bytes", "65536")
    assert "Traceback" not in result.err
    runs = ws.case_result()["runs"]["items"]
    assert [r["status"] for r in runs] == ["error", "pass"]
    assert runs[0]["fixture"].endswith("export.jsonl:1"), "the caseId was read from its start"
    size = len(big) + 1
    assert runs[0]["reason"] == (
        f"the line is {size} bytes, over the limit of 65536 bytes; raise --max-trace-bytes"
        " to evaluate it"
    )


def test_an_over_long_line_is_never_read_whole(tmp_path: Path) -> None:
    export = tmp_path / "export.jsonl"
    line = b'{"caseId": "db-slow", "pad": "' + b"x" * (20 * 1024 * 1024) + b'"}\n'
    export.write_bytes(line + b'{"caseId": "next"}\n')
    tracemalloc.start()
    try:
        jobs = list(iter_jsonl(export, "export.jsonl", max_bytes=100_000))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, f"{peak} bytes for a 20 MiB line with a 100 kB limit"
    assert [j.fixture for j in jobs] == ["export.jsonl:1", "export.jsonl:2"]
    assert jobs[0].problem == (
        f"the line is {len(line)} bytes, over the limit of 100000 bytes; raise"
        " --max-trace-bytes to evaluate it"
    )
    assert jobs[1].problem is None and jobs[1].text == '{"caseId": "next"}\n'


def test_a_line_at_the_limit_is_read_and_one_byte_over_is_not(tmp_path: Path) -> None:
    export = tmp_path / "export.jsonl"
    export.write_bytes(b'{"a": 1}\n' + b'{"a": 12}\n')  # 9 and 10 bytes with the newline
    first, second = iter_jsonl(export, "e", max_bytes=9)
    assert first.problem is None and first.text == '{"a": 1}\n'
    assert second.problem and second.problem.startswith("the line is 10 bytes")


def test_counting_lines_for_the_progress_bar_reads_in_blocks(tmp_path: Path) -> None:
    export = tmp_path / "export.jsonl"
    export.write_bytes(b'{"a": 1}\n\n  \n' + b"x" * (3 * 1024 * 1024) + b"\n" + b'{"b": 2}')
    assert count_lines(export) == 3


def test_an_unterminated_string_in_a_json_lines_line_says_so(ws: Workspace) -> None:
    ws.case()
    export = _jsonl(
        ws, '{"caseId": "db-slow", "finalAnswer": "slow query', json.dumps(good_trace())
    )
    ws.run("--fixtures", str(export))
    runs = ws.case_result()["runs"]["items"]
    assert [r["status"] for r in runs] == ["error", "pass"]
    assert runs[0]["reason"].startswith(
        "invalid JSON at line 1 column 49: a string is not closed before the end of the line"
        " (it opens at column 38)"
    )
    assert "Invalid control character" not in runs[0]["reason"]


def test_an_unterminated_string_at_the_end_of_a_file_says_so() -> None:
    try:
        parse_trace(b'{"a": "b')
    except TraceError as exc:
        assert (
            str(exc)
            == "invalid JSON at line 1 column 7: a string is not closed: it has no closing quote"
        )
    else:
        raise AssertionError("must not parse")


def test_a_raw_tab_in_a_string_is_named() -> None:
    try:
        parse_trace(b'{"a": "b\tc"}')
    except TraceError as exc:
        assert "a control character (U+0009) inside a string must be escaped" in str(exc)
    else:
        raise AssertionError("must not parse")


@pytest.mark.parametrize(
    ("text", "column", "closer"),
    [('{"a": 1,}', 8, "an object"), ("[1,\n 2 ,\n]", 4, "a list")],
)
@pytest.mark.parametrize("python", ["3.12", "3.13"])
def test_a_trailing_comma_is_named_at_the_comma_as_any_python_reports_it(
    monkeypatch: pytest.MonkeyPatch, text: str, column: int, closer: str, python: str
) -> None:
    # Up to 3.12 json says "Expecting ..." at the `}` or `]` after the comma; from 3.13
    # "Illegal trailing comma before end of object/array" at the comma itself. Both are the
    # same message, at the comma.
    if python == "3.13":
        comma = text.rindex(",")
        what = "object" if text.rstrip().endswith("}") else "array"
        error = json.JSONDecodeError(f"Illegal trailing comma before end of {what}", text, comma)

        def loads(*args: object, **kwargs: object) -> object:
            raise error

        monkeypatch.setattr("validator.traces.json.loads", loads)
    else:
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            if exc.msg.startswith("Illegal trailing comma"):
                pytest.skip("this Python words it as 3.13 does (the other case tests that)")
    with pytest.raises(TraceError) as caught:
        parse_trace(text)
    line = text[: text.rindex(",")].count("\n") + 1
    assert str(caught.value).startswith(
        f"invalid JSON at line {line} column {column}: a trailing comma: the last item of"
        f" {closer} must not be followed by ','"
    )


# --------------------------------------------------------------------------- long case ids


def test_a_megabyte_case_id_is_echoed_cut_short_by_run_and_lint(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", dict(good_trace(), caseId="x" * 1_000_000))
    ws.trace("", json.dumps(good_trace("y" * 1_000_000)) + "\n", name="export.jsonl")
    for result in (ws.run(), run_cli("lint", "--fixtures", "fixtures", cwd=ws.root)):
        assert result.code == 1
        for line in (result.out + result.err).splitlines():
            assert len(line) < 1_000, line[:300]
        assert "... (1,000,000 characters)" in result.out + result.err
    linted = run_cli("lint", "--fixtures", "fixtures", cwd=ws.root).out
    assert "its $.caseId names 'xxxxxxxx" in linted
    assert "this trace's case id 'yyyyyyyy" in linted


def test_a_megabyte_tool_name_is_listed_cut_short_by_lint(ws: Workspace) -> None:
    ws.case()
    trace = good_trace()
    trace["toolInvocations"][0]["toolName"] = "T" * 1_000_000
    ws.trace("db-slow", trace)
    linted = run_cli("lint", "--fixtures", "fixtures", cwd=ws.root)
    assert "no trace calls a tool 'mysql_slow_log'" in linted.out
    assert "TTTT... (1,000,000 characters)" in linted.out
    assert max(map(len, linted.out.splitlines())) < 1_000


def test_a_megabyte_key_is_listed_cut_short_where_a_path_finds_nothing(ws: Workspace) -> None:
    trace = ws.trace("big", {"caseId": "big", "K" * 1_000_000: 1, "finalAnswer": "x"})
    result = run_cli("query", "$.finalAnswr", str(trace), cwd=ws.root)
    assert "has no field 'finalAnswr' (did you mean 'finalAnswer'?); its fields: caseId, KKK" in (
        result.out
    )
    assert "... (1,000,000 characters), finalAnswer" in result.out
    assert max(map(len, result.out.splitlines())) < 1_000
    every = run_cli("query", "$.*", str(trace), cwd=ws.root)
    assert "  $.KKKK" in every.out and "... (1,000,002 characters) = 1" in every.out
    assert max(map(len, every.out.splitlines())) < 1_100
    whole = run_cli("query", "--json", "$.*", str(trace), cwd=ws.root)
    assert "$." + "K" * 1_000_000 in whole.out, "--json keeps the path whole"


def test_a_megabyte_verdict_is_cut_short_in_every_report(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", set_verdict(good_trace(), "V" * 1_000_000))
    result = ws.run("--format", "json,md,junit,sarif,html")
    assert result.code == 1, "verdict-allowed fails it, reading the trace itself"
    case = ws.case_result()
    assert case["verdict"] == "V" * 200 + "... (1,000,000 characters)"
    assert "verdict-allowed" in {c["check"] for c in case["failed_checks"]}
    for report in ws.out.iterdir():
        assert report.stat().st_size < 100_000, report.name
    explained = run_cli("explain", "db-slow", cwd=ws.root)
    assert max(map(len, explained.out.splitlines())) < 1_000
