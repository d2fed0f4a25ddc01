"""Hostile and broken input: every trace ends in a clear status, and nothing else is lost.

`tests/hostile/` holds broken trace files with their expected outcome in EXPECTED.yaml; files
that git cannot hold well (pipes, links, huge or very deep files) are made by the tests below.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import GOOD_CASE, TESTS, Workspace, good_trace
from ruamel.yaml import YAML

HOSTILE = TESTS / "hostile"
EXPECTED = YAML(typ="safe").load((HOSTILE / "EXPECTED.yaml").read_text("utf-8"))
FILES = sorted(p.name for p in HOSTILE.glob("*.json"))


def test_every_hostile_file_has_an_expectation() -> None:
    assert sorted(EXPECTED) == FILES


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, str]:
    """All hostile files in one run, plus one good case: one bad trace never stops the others."""
    ws = Workspace(tmp_path_factory.mktemp("hostile"))
    for name in FILES:
        case_id = name[: -len(".json")]
        ws.case(dict(GOOD_CASE, id=case_id))
        shutil.copy(HOSTILE / name, ws.fixtures / name)
    ws.case(dict(GOOD_CASE, id="the-good-one"))
    ws.trace("the-good-one", good_trace("the-good-one"))
    result = ws.run()
    assert result.code == 1
    assert "Traceback" not in result.err + result.out
    return ws.report(), (ws.out / "report.md").read_text("utf-8")


@pytest.mark.parametrize("name", FILES)
def test_hostile_trace(hostile_run: tuple[dict, str], name: str) -> None:
    report, _ = hostile_run
    expected = EXPECTED[name]
    case = next(c for c in report["cases"] if c["case_id"] == name[: -len(".json")])
    assert case["status"] == expected["status"], case
    if "reason" in expected:
        assert expected["reason"] in (case["reason"] or ""), case["reason"]
    if "message" in expected:
        messages = " ".join(f["message"] for f in case["failed_checks"])
        assert expected["message"] in messages, messages
    if "note" in expected:
        assert expected["note"] in case["notes"]


def test_hostile_run_keeps_the_good_case_and_writes_strict_json(
    hostile_run: tuple[dict, str],
) -> None:
    report, markdown = hostile_run
    good = next(c for c in report["cases"] if c["case_id"] == "the-good-one")
    assert good["status"] == "pass"
    json.dumps(report, allow_nan=False)  # raises if a NaN value got into the report
    assert "### not-utf8" in markdown


def test_nan_duration_is_treated_as_absent(hostile_run: tuple[dict, str]) -> None:
    report, _ = hostile_run
    case = next(c for c in report["cases"] if c["case_id"] == "nan-values")
    assert case["duration_ms"] is None
    assert case["tool_call_count"] == 2, "the -Infinity list item is dropped, not counted"


def test_tool_invocations_object_counts_as_no_list(hostile_run: tuple[dict, str]) -> None:
    report, _ = hostile_run
    case = next(c for c in report["cases"] if c["case_id"] == "tools-object")
    assert case["tool_call_count"] is None
    assert any("not a list" in n for n in case["notes"])


# Files git cannot hold well: made here.


def _single(ws: Workspace) -> dict:
    result = ws.run()
    assert "Traceback" not in result.err + result.out
    return ws.case_result()


def test_deep_nesting_is_an_error_not_a_crash(ws: Workspace) -> None:
    ws.case()
    depth = 200_000
    ws.trace("db-slow", '{"caseId": "db-slow", "x": ' + "[" * depth + "]" * depth + "}")
    case = _single(ws)
    assert case["status"] == "error"
    assert "nests too deeply" in case["reason"]


def test_moderate_nesting_is_evaluated(ws: Workspace) -> None:
    ws.case()
    trace = good_trace()
    nested: list = []
    for _ in range(900):
        nested = [nested]
    trace["deep"] = nested
    ws.trace("db-slow", trace)
    assert _single(ws)["status"] == "pass"


def test_file_over_size_limit_is_refused_before_reading(ws: Workspace) -> None:
    ws.case()
    path = ws.trace("db-slow", good_trace(finalAnswer="slow query, missing index " + "x" * 5000))
    size = path.stat().st_size
    result = ws.run("--max-trace-bytes", "4096")
    case = ws.case_result()
    assert result.code == 1
    assert case["status"] == "error"
    assert f"the file is {size} bytes, over the limit of 4096 bytes" in case["reason"]
    assert "--max-trace-bytes" in case["reason"]


def test_directory_where_a_trace_should_be(ws: Workspace) -> None:
    ws.case()
    (ws.fixtures / "db-slow.json").mkdir()
    case = _single(ws)
    assert case["status"] == "error" and "a directory" in case["reason"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")
def test_special_file_is_refused(ws: Workspace) -> None:
    ws.case()
    os.mkfifo(ws.fixtures / "db-slow.json")
    case = _single(ws)  # must not hang reading the pipe
    assert case["status"] == "error" and "not a regular file" in case["reason"]


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets need a POSIX system")
def test_a_socket_file_is_refused_as_what_it_is(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Looked at before it is opened: opening a socket fails with another error (and opening
    # a device could act on it), so the refusal names what the file is.
    ws.case()
    monkeypatch.chdir(ws.fixtures)  # a socket's path has a short limit: bound by its name
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind("db-slow.json")
        case = _single(ws)
    assert case["status"] == "error" and "not a regular file" in case["reason"]


def test_symlink_outside_fixtures_is_refused(
    ws: Workspace, tmp_path_factory: pytest.TempPathFactory
) -> None:
    ws.case()
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.json"
    outside.write_text(json.dumps(good_trace()), "utf-8")
    (ws.fixtures / "db-slow.json").symlink_to(outside)
    case = _single(ws)
    assert case["status"] == "error"
    assert "outside the fixtures folder: refused" in case["reason"]


def test_symlink_inside_fixtures_is_followed(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace(), name="real/db-slow-trace.json")
    (ws.fixtures / "db-slow.json").symlink_to(ws.fixtures / "real" / "db-slow-trace.json")
    assert _single(ws)["status"] == "pass"


# Case and spec files


def test_python_tag_in_case_is_refused_and_never_executed(ws: Workspace, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    ws.case(
        "id: db-slow\n"
        f"question: !!python/object/apply:os.system ['touch {marker}']\n"
        "root_cause_keywords: [a]\nrequired_tools: []\nallowed_verdicts: [PASS]\n",
        name="db-slow",
    )
    result = ws.run()
    assert result.code == 2
    assert (
        "cases/db-slow.yaml:2:11: error: YAML tag '!!python/object/apply:os.system' is not allowed"
        in result.err
    )
    assert not marker.exists()


def test_alias_bomb_is_rejected_quickly(ws: Workspace) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    ws.case("id: db-slow\n" + "\n".join(lines) + "\n", name="db-slow")
    result = ws.run()
    assert result.code == 2
    assert "[yaml-too-large]" in result.err
    assert "anchors and aliases" in result.err


def test_duplicate_keys_are_errors(ws: Workspace) -> None:
    ws.case(
        "id: db-slow\nquestion: q\nroot_cause_keywords: [a]\nrequired_tools: []\n"
        "allowed_verdicts: [PASS]\nquestion: again\n",
        name="db-slow",
    )
    result = ws.run()
    assert result.code == 2
    assert (
        "cases/db-slow.yaml:6:1: error: duplicate key 'question' (first written at line 2)"
        in result.err
    )


@pytest.mark.parametrize("keyword", ["c++ (gcc)", ".*", "[a-z]+", "|", "a|b", "**bold**", "\\d"])
def test_special_characters_in_keywords_match_literally(ws: Workspace, keyword: str) -> None:
    ws.case(root_cause_keywords=[keyword])
    ws.trace("db-slow", good_trace(finalAnswer="nothing relevant here"))
    ws.run()
    assert ws.case_result()["status"] == "fail", f"{keyword!r} must not match as a pattern"
    literal = (
        keyword.replace("\\", "\\\\").replace("*", "\\*").replace("[", "\\[").replace("|", "\\|")
    )
    ws.trace("db-slow", good_trace(finalAnswer=f"see `{keyword}` and {literal}"))
    ws.run()
    assert ws.case_result()["status"] == "pass", keyword


# Reports


def test_reports_are_byte_identical_with_source_date_epoch(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    ws.case()
    ws.trace("db-slow", good_trace())
    ws.run()
    first = [(ws.out / n).read_bytes() for n in ("report.json", "report.md")]
    ws.run()
    second = [(ws.out / n).read_bytes() for n in ("report.json", "report.md")]
    assert first == second
    assert ws.report()["generated_at"] == "2023-11-14T22:13:20Z"


def test_unwritable_output_folder_is_a_usage_error(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    blocker = ws.root / "blocker"
    blocker.write_text("a file, not a folder", "utf-8")
    result = ws.run("--out", str(blocker / "reports"))
    assert result.code == 2
    assert "cannot create the output folder" in result.err
    assert "Traceback" not in result.err


def test_failed_write_keeps_the_previous_report(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    assert ws.run().code == 0
    before = (ws.out / "report.json").read_bytes()

    from validator.report import markdown

    def broken(report: dict) -> Iterator[str]:
        yield "# half a report\n"  # the disk fills up half-way through the second file
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(markdown, "chunks", broken)
    ws.trace("db-slow", good_trace(finalAnswer="no keywords"))
    result = ws.run()
    assert result.code == 2
    assert (ws.out / "report.json").read_bytes() == before, "report.json must not be replaced alone"
    assert not [p for p in ws.out.iterdir() if p.name.startswith(".")], "no temporary file is left"


def test_internal_error_names_the_file_and_exits_2(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    import validator.loading.suite as suite_loader

    def broken(*args: object) -> list:
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(suite_loader, "case_problems", broken)
    ws.case()
    ws.trace("db-slow", good_trace())
    result = ws.run()
    assert result.code == 2
    assert "internal error (a bug in trace-validator" in result.err
    assert "while processing cases/db-slow.yaml: ZeroDivisionError: simulated bug" in result.err
    assert "Traceback" not in result.err


def test_internal_error_in_one_trace_marks_only_that_case(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from validator.evaluation import evaluator

    real = evaluator.compiled_check

    def sometimes_broken(spec):  # type: ignore[no-untyped-def]
        program = real(spec)

        def run(fields, ctx):  # type: ignore[no-untyped-def]
            if ctx.trace.get("caseId") == "db-slow":
                raise RuntimeError("simulated bug")
            return program(fields, ctx)

        return run

    monkeypatch.setattr(evaluator, "compiled_check", sometimes_broken)
    ws.case()
    ws.case(dict(GOOD_CASE, id="other"))
    ws.trace("db-slow", good_trace())
    ws.trace("other", good_trace("other"))
    assert ws.run().code == 1
    assert ws.case_result()["status"] == "error"
    assert "internal error while evaluating this trace" in ws.case_result()["reason"]
    assert ws.case_result("other")["status"] == "pass"
