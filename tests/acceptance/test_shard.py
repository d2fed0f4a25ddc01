"""`run --shard I/N` and `validator merge`: the merged report set is the unsharded run's.

Every test goes through the command line: N shard runs, one merge, and the merged files
compared byte for byte with one run without --shard (SOURCE_DATE_EPOCH pins generated_at, the
one field allowed to differ), in every format, with the same exit code.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import GOOD_CASE, REPO, Result, Workspace, good_trace, run_cli, set_verdict
from hypothesis import given, settings
from hypothesis import strategies as st

from validator.loading.schema import load_schema
from validator.report import REPORTERS
from validator.report.shard import SHARD_FILE, Shard, shard_of

EPOCH = "1767225600"
ALL = ",".join(REPORTERS)
DATA = os.environ.get("TRACE_DATA", "")


@pytest.fixture(autouse=True)
def _pinned_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def _files(folder: Path) -> dict[str, bytes]:
    return {r.filename: (folder / r.filename).read_bytes() for r in REPORTERS.values()}


def _round_trip(
    root: Path, args: list[str], shards: int, cwd: Path | None = None
) -> tuple[Result, Result, dict[str, bytes], dict[str, bytes]]:
    """(the unsharded run, the merge, their report files). Shard runs must not exit 2."""
    cwd = cwd or root
    whole = run_cli("run", *args, "--out", str(root / "whole"), "--format", ALL, cwd=cwd)
    assert whole.code in (0, 1), whole.err
    folders = []
    for i in range(1, shards + 1):
        folder = root / f"shard-{i}"
        part = run_cli(
            "run", *args, "--out", str(folder), "--format", ALL, "--shard", f"{i}/{shards}",
            cwd=cwd,
        )  # fmt: skip
        assert part.code in (0, 1), part.err
        assert (folder / SHARD_FILE).is_file() and (folder / "report.json").is_file()
        folders.append(str(folder))
    merged = run_cli("merge", *folders, "--out", str(root / "merged"), cwd=cwd)
    assert "Traceback" not in merged.err, merged.err
    return whole, merged, _files(root / "whole"), _files(root / "merged")


def _assert_same(whole: Result, merged: Result, a: dict[str, bytes], b: dict[str, bytes]) -> None:
    for name in a:
        assert a[name] == b[name], f"{name} differs after the merge"
    assert merged.code == whole.code, (whole.out, merged.out, merged.err)


# --------------------------------------------------------------------------------------------
# Round trips


@pytest.mark.parametrize("shards", [1, 2, 3, 9])  # 9: more shards than the 6 shipped cases
def test_shipped_cases_merge_to_the_unsharded_reports(tmp_path: Path, shards: int) -> None:
    args = ["--cases", str(REPO / "cases"), "--fixtures", str(REPO / "fixtures"), "--jobs", "1"]
    whole, merged, a, b = _round_trip(tmp_path, args, shards, cwd=REPO)
    _assert_same(whole, merged, a, b)
    assert whole.code == 0
    assert merged.out.splitlines()[-1].startswith("reports: ")
    assert "6 cases: 6 passed" in merged.out


def _suite(ws: Workspace) -> None:
    """Cases with one run, with repeated runs (some failing, some broken), with none, a
    quarantined one, a threshold, traces naming no case, files not used, a left-out case."""
    for c in range(10):
        case_id = f"case-{c}"
        extra: dict[str, Any] = {"tags": ["smoke"] if c % 2 else ["nightly"]}
        if c == 4:
            extra["min_passes"] = 2
        ws.case(GOOD_CASE, id=case_id, name=case_id, **extra)
        if c == 9:
            continue  # not_run
        if c % 3 == 0:
            ws.trace(case_id, good_trace(case_id))
            continue
        for r in range(4):
            trace = good_trace(case_id)
            if (c + r) % 4 == 1:
                trace["finalAnswer"] = "Only a guess."
            if (c + r) % 5 == 2:
                set_verdict(trace, "REJECT")
            if (c + r) % 7 == 3:
                trace = "{broken"  # type: ignore[assignment]
            ws.trace(case_id, trace, name=f"{case_id}/run-{r}.json")
    ws.trace("nobody", good_trace("nobody"))  # a trace naming no case
    ws.trace("x", "notes", name="notes.txt")  # not a trace
    ws.trace("x", good_trace("case-1"), name=".hidden.json")
    (ws.root / "quarantine.yaml").write_text("- id: case-2\n  reason: OPS-1\n", "utf-8")


def _args(ws: Workspace, *more: str) -> list[str]:
    return ["--cases", "cases", "--fixtures", "fixtures", "--jobs", "1", *more]


@pytest.mark.parametrize("shards", [1, 2, 3, 25])
def test_repeated_runs_baseline_and_gates_merge_byte_for_byte(ws: Workspace, shards: int) -> None:
    _suite(ws)
    baseline = run_cli("run", *_args(ws), "--out", "base", cwd=ws.root)
    assert baseline.code == 1, baseline.err
    # The baseline then changes: one case fixed, one broken, so the comparison has content.
    ws.trace("case-0", set_verdict(good_trace("case-0"), "REJECT"))
    ws.trace("case-3", good_trace("case-3"))
    args = _args(
        ws, "--baseline", "base", "--quarantine", "quarantine.yaml", "--k", "1,2,3",
        "--max-regression", "pass_rate:-0.01", "--min-pass-rate", "50%",
    )  # fmt: skip
    whole, merged, a, b = _round_trip(ws.root, args, shards)
    _assert_same(whole, merged, a, b)
    report = json.loads(a["report.json"])
    statuses = {c["status"] for c in report["cases"]}
    assert statuses == {"pass", "fail", "error", "not_run"}
    assert report["comparison"]["regressions"] and report["comparison"]["gates"]
    assert report["unmatched_traces"] and report["unused_files"]
    assert report["summary"]["quarantined"]
    assert any(c["runs"]["total"] > 1 for c in report["cases"])
    assert whole.code == 1
    # The merge prints what the run prints, and gates the same way.
    assert merged.out.splitlines()[1:] == whole.out.replace("whole/", "merged/").splitlines()


def test_selection_and_json_lines_merge_byte_for_byte(ws: Workspace) -> None:
    for c in range(7):
        ws.case(GOOD_CASE, id=f"case-{c}", name=f"case-{c}", tags=["a"] if c < 5 else ["b"])
    lines = []
    for i in range(60):
        if i % 13 == 4:
            lines.append('{"caseId": "case-1", broken')
        elif i % 11 == 3:
            lines.append(json.dumps(good_trace(f"stray-{i}")))
        else:
            trace = good_trace(f"case-{i % 7}")
            if i % 3 == 0:
                trace["finalAnswer"] = "Nothing useful."
            lines.append(json.dumps(trace))
    (ws.root / "traces.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    args = ["--cases", "cases", "--fixtures", "traces.jsonl", "--jobs", "1", "--tag", "a"]
    whole, merged, a, b = _round_trip(ws.root, args, 3)
    _assert_same(whole, merged, a, b)
    report = json.loads(a["report.json"])
    assert len(report["cases"]) == 5 and len(report["unmatched_traces"]) == 6


def test_a_shard_without_cases_writes_an_empty_report_that_merges(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    owner = shard_of("db-slow", 4)
    empty = 1 if owner != 1 else 2
    result = ws.run("--shard", f"{empty}/4", "--format", ALL)
    assert result.code == 0, result.err
    report = ws.report()
    assert report["cases"] == [] and report["summary"]["total"] == 0
    assert report["inputs"]["shard"] == f"{empty}/4"
    jsonschema.Draft202012Validator(load_schema("report")).validate(report)
    assert report["unused_files"] == []  # db-slow.json is the other shard's, not unused
    whole, merged, a, b = _round_trip(ws.root, _args(ws), 4)
    _assert_same(whole, merged, a, b)


@pytest.mark.skipif(not DATA, reason="set TRACE_DATA to the shared trace data folder")
@pytest.mark.parametrize(("example", "shards"), [("otel-genai", 3), ("tau2-bench", 2)])
def test_real_trace_sets_merge_byte_for_byte(tmp_path: Path, example: str, shards: int) -> None:
    source = REPO / "examples" / example
    config = (source / "validator.yaml").read_text("utf-8")
    data_set = config.split("../../../shared/data/", 1)[1].split()[0]
    if not (Path(DATA) / data_set).is_dir():
        pytest.skip(f"{data_set} is not in TRACE_DATA ({DATA})")
    suite = tmp_path / "suite"
    shutil.copytree(source / "cases", suite / "cases")
    shutil.copytree(source / "specs", suite / "specs")
    fixtures = (Path(DATA) / data_set).resolve()
    (suite / "validator.yaml").write_text(
        config.replace(f"../../../shared/data/{data_set}", json.dumps(str(fixtures))), "utf-8"
    )
    whole, merged, a, b = _round_trip(tmp_path, ["--jobs", "1"], shards, cwd=suite)
    _assert_same(whole, merged, a, b)
    report = json.loads(a["report.json"])
    assert len(report["cases"]) >= 7 and report["summary"]["runs"]["total"] >= 7
    assert report["unused_files"], "files of the data set that are no trace: listed once"


def test_the_readme_dask_recipe_runs_shards_as_tasks_and_merges(ws: Workspace) -> None:
    dask = pytest.importorskip("dask")
    from validator.cli import main

    _suite(ws)
    shared = ["--cases", str(ws.cases), "--fixtures", str(ws.fixtures), "--jobs", "1", "-q"]
    count = 3
    tasks = [
        dask.delayed(main)(
            ["run", *shared, "--shard", f"{i}/{count}", "--out", str(ws.root / f"shards/{i}"),
             "--format", ALL]
        )
        for i in range(1, count + 1)
    ]  # fmt: skip
    codes = dask.compute(*tasks, scheduler="processes")
    assert set(codes) <= {0, 1}
    folders = [str(ws.root / f"shards/{i}") for i in range(1, count + 1)]
    merged = run_cli("merge", *folders, "--out", str(ws.root / "merged"), cwd=ws.root)
    whole = run_cli("run", *shared, "--out", str(ws.root / "whole"), "--format", ALL)
    _assert_same(whole, merged, _files(ws.root / "whole"), _files(ws.root / "merged"))


def test_shard_assignment_survives_an_added_case(ws: Workspace) -> None:
    for c in range(8):
        ws.case(GOOD_CASE, id=f"case-{c}", name=f"case-{c}")
        ws.trace(f"case-{c}", good_trace(f"case-{c}"))

    def ids(i: int) -> set[str]:
        result = ws.run("--shard", f"{i}/3")
        assert result.code == 0, result.err
        return {c["case_id"] for c in ws.report()["cases"]}

    before = [ids(i) for i in (1, 2, 3)]
    ws.case(GOOD_CASE, id="added", name="added")
    ws.trace("added", good_trace("added"))
    after = [ids(i) for i in (1, 2, 3)]
    assert [a - {"added"} for a in after] == before
    assert sum("added" in a for a in after) == 1


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.from_regex(r"[a-z0-9][a-z0-9._-]{0,20}", fullmatch=True), unique=True),
    st.from_regex(r"[a-z0-9][a-z0-9._-]{0,20}", fullmatch=True),
    st.integers(1, 12),
)
def test_each_case_has_one_shard_and_keeps_it_when_cases_are_added(
    ids: list[str], added: str, count: int
) -> None:
    before = {i: shard_of(i, count) for i in ids}
    after = {i: shard_of(i, count) for i in [*ids, added]}
    assert all(after[i] == before[i] for i in ids)
    for i in [*ids, added]:
        owners = [k for k in range(1, count + 1) if Shard(k, count).owns(i)]
        assert owners == [after[i]]


def test_the_hash_is_fixed_across_processes_and_versions() -> None:
    # sha256 of the UTF-8 id, not Python's salted hash(): a CI matrix split on one machine
    # and merged on another agrees, today and after an upgrade.
    ids = ("mysql-slow-query", "a", "慢查询")
    assert [shard_of(i, 4) for i in ids] == [4, 3, 2]
    assert [shard_of(i, 1000) for i in ids] == [440, 251, 742]


# --------------------------------------------------------------------------------------------
# Mistakes


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("0/4", "numbered 1 to 4"),
        ("5/4", "numbered 1 to 4"),
        ("2/0", "at least 1"),
        ("a/b", "is not I/N"),
        ("3", "is not I/N"),
        ("", "is not I/N"),
    ],
)
def test_a_bad_shard_is_a_usage_error(ws: Workspace, value: str, words: str) -> None:
    ws.case()
    result = ws.run("--shard", value)
    assert result.code == 2
    assert "--shard" in result.err and words in result.err, result.err
    assert not ws.out.exists()


def _shards(ws: Workspace, count: int, *more: str) -> list[Path]:
    for c in range(6):
        ws.case(GOOD_CASE, id=f"case-{c}", name=f"case-{c}")
        ws.trace(f"case-{c}", good_trace(f"case-{c}"))
    folders = []
    for i in range(1, count + 1):
        folder = ws.root / f"s{i}"
        result = run_cli(
            "run", *_args(ws), "--out", str(folder), "--shard", f"{i}/{count}", *more, cwd=ws.root
        )
        assert result.code == 0, result.err
        folders.append(folder)
    return folders


def _merge(ws: Workspace, *paths: Path | str) -> Result:
    out = ws.root / "merged"
    out.mkdir(exist_ok=True)
    (out / "report.json").write_text("old", "utf-8")
    result = run_cli("merge", *map(str, paths), "--out", str(out), cwd=ws.root)
    assert "Traceback" not in result.err, result.err
    if result.code == 2:  # nothing half-written: the old report is untouched
        assert (out / "report.json").read_text("utf-8") == "old"
        assert sorted(p.name for p in out.iterdir()) == ["report.json"]
    return result


def test_a_missing_shard_is_named(ws: Workspace) -> None:
    s1, s2, _ = _shards(ws, 3)
    result = _merge(ws, s1, s2)
    assert result.code == 2
    assert "shard 3/3 missing" in result.err and "--allow-partial" in result.err


def test_allow_partial_reports_the_missing_cases_not_run(ws: Workspace) -> None:
    s1, s2, _ = _shards(ws, 3)
    result = _merge(ws, s1, s2, "--allow-partial")
    assert result.code == 1, result.err
    assert "shard 3/3 is missing" in result.err
    report = json.loads((ws.root / "merged" / "report.json").read_text("utf-8"))
    assert len(report["cases"]) == 6
    left = [c for c in report["cases"] if shard_of(c["case_id"], 3) == 3]
    assert left and all(c["status"] == "not_run" for c in left)
    assert all("3/3 was not merged" in c["reason"] for c in left)
    assert "exit 1: shard 3/3 not merged" in result.out


def test_without_shard_1_the_traces_naming_no_case_are_said_to_be_left_out(ws: Workspace) -> None:
    _, s2, s3 = _shards(ws, 3)
    result = _merge(ws, s2, s3, "--allow-partial")
    assert result.code == 1
    assert "shard 1/3 is missing" in result.err and "traces that match no case" in result.err


def test_merge_prints_the_annotations_the_run_prints(ws: Workspace) -> None:
    _suite(ws)
    whole = run_cli("run", *_args(ws), "--out", "whole", "--annotations", cwd=ws.root)
    folders = []
    for i in (1, 2):
        run_cli("run", *_args(ws), "--out", f"s{i}", "--shard", f"{i}/2", cwd=ws.root)
        folders.append(f"s{i}")
    merged = run_cli("merge", *folders, "--out", "merged", "--annotations", cwd=ws.root)
    lines = [line for line in whole.out.splitlines() if line.startswith("::")]
    assert lines and any("line=" in line for line in lines)
    assert [line for line in merged.out.splitlines() if line.startswith("::")] == lines


def test_a_shard_given_twice_is_named(ws: Workspace) -> None:
    s1, s2 = _shards(ws, 2)
    result = _merge(ws, s1, s2, s1 / "report.json")
    assert result.code == 2
    assert "shard 1/2 is given twice" in result.err


def test_shards_of_other_counts_suites_or_options_are_refused(ws: Workspace) -> None:
    s1, _ = _shards(ws, 2)
    other = ws.root / "other"
    run_cli("run", *_args(ws), "--out", str(other), "--shard", "2/3", cwd=ws.root)
    result = _merge(ws, s1, other)
    assert result.code == 2 and "different counts" in result.err, result.err

    never = ws.root / "never"
    run_cli(
        "run", *_args(ws), "--out", str(never), "--shard", "2/2", "--fail-on", "never", cwd=ws.root
    )
    result = _merge(ws, s1, never)
    assert result.code == 2
    assert 'different fail_on: "any" and "never"' in result.err, result.err

    ws.case(GOOD_CASE, id="case-new", name="case-new")
    grown = ws.root / "grown"
    run_cli("run", *_args(ws), "--out", str(grown), "--shard", "2/2", cwd=ws.root)
    result = _merge(ws, s1, grown)
    assert result.code == 2 and "different cases" in result.err and "'case-new'" in result.err

    (ws.root / "cases" / "case-new.yaml").unlink()
    ws.case(GOOD_CASE, id="case-0", name="case-0", forbidden_keywords=["restart"])
    edited = ws.root / "edited"
    run_cli("run", *_args(ws), "--out", str(edited), "--shard", "2/2", cwd=ws.root)
    result = _merge(ws, s1, edited)
    assert result.code == 2 and "different case or spec files" in result.err, result.err


def test_overlapping_cases_are_refused(ws: Workspace) -> None:
    s1, s2 = _shards(ws, 2)
    a = json.loads((s1 / SHARD_FILE).read_text("utf-8"))
    b = json.loads((s2 / SHARD_FILE).read_text("utf-8"))
    b["cases"].append(a["cases"][0])
    (s2 / SHARD_FILE).write_text(json.dumps(b), "utf-8")
    result = _merge(ws, s1, s2)
    assert result.code == 2
    assert f"case '{a['cases'][0]['case_id']}' is in two shards" in result.err


def test_files_that_are_no_shard_report_are_refused(ws: Workspace) -> None:
    s1, s2 = _shards(ws, 2)
    plain = ws.root / "plain"
    run_cli("run", *_args(ws), "--out", str(plain), cwd=ws.root)
    result = _merge(ws, s1, plain / "report.json")
    assert result.code == 2 and f"no {SHARD_FILE} beside it" in result.err, result.err

    result = _merge(ws, s1, ws.root / "nowhere")
    assert result.code == 2 and "does not exist" in result.err

    (ws.root / SHARD_FILE).write_text('{"schema_version": 1}', "utf-8")
    result = _merge(ws, s1, ws.root / SHARD_FILE)
    assert result.code == 2 and "is not a shard report of trace-validator" in result.err

    cut = s2 / SHARD_FILE
    cut.write_bytes(cut.read_bytes()[:100])
    result = _merge(ws, s1, s2)
    assert result.code == 2 and "not valid JSON" in result.err and "cut short" in result.err


def test_a_shard_folder_written_again_without_shard_is_refused(ws: Workspace) -> None:
    s1, s2 = _shards(ws, 2)
    run_cli("run", *_args(ws), "--out", str(s2), cwd=ws.root)  # the folder is reused
    result = _merge(ws, s1, s2)
    assert result.code == 2
    assert "is not the report of shard 2/2" in result.err and "without --shard" in result.err


def test_a_shard_of_another_version_is_refused(ws: Workspace) -> None:
    s1, s2 = _shards(ws, 2)
    data = json.loads((s2 / SHARD_FILE).read_text("utf-8"))
    data["tool"]["version"] = "0.0.1"
    (s2 / SHARD_FILE).write_text(json.dumps(data), "utf-8")
    result = _merge(ws, s1, s2)
    assert result.code == 2
    assert "written by trace-validator 0.0.1" in result.err
    assert "merge with the version that ran the shards" in result.err


def test_a_damaged_shard_file_is_refused(ws: Workspace) -> None:
    s1, s2 = _shards(ws, 2)
    data = json.loads((s2 / SHARD_FILE).read_text("utf-8"))
    del data["unused"]
    (s2 / SHARD_FILE).write_text(json.dumps(data), "utf-8")
    result = _merge(ws, s1, s2)
    assert result.code == 2 and "is damaged" in result.err, result.err


def test_merge_gates_like_the_run(ws: Workspace) -> None:
    folders = _shards(ws, 2, "--min-pass-rate", "100%")
    ws.trace("case-0", set_verdict(good_trace("case-0"), "REJECT"))
    owner = shard_of("case-0", 2)
    run_cli(
        "run", *_args(ws), "--out", str(folders[owner - 1]), "--shard", f"{owner}/2",
        "--min-pass-rate", "100%", cwd=ws.root,
    )  # fmt: skip
    result = _merge(ws, *folders)
    assert result.code == 1
    assert "exit 1: pass rate 83.3% is below --min-pass-rate 100.0%" in result.out


@pytest.mark.parametrize("severity", ["error", "warning"])
def test_severities_and_the_vacuity_guard_survive_a_merge(ws: Workspace, severity: str) -> None:
    """Failed warnings, applied/skipped counts and --fail-on ...,vacuous are the run's."""
    for c in range(6):
        case_id = f"case-{c}"
        extra: dict[str, Any] = {}
        if c % 2:
            extra["severity_overrides"] = {"keyword-coverage": "warning"}
        if c == 5:
            extra["max_tool_calls"] = 1  # one more check applied, and failing
        ws.case(GOOD_CASE, id=case_id, name=case_id, **extra)
        trace = good_trace(case_id)
        if c >= 2:
            trace["finalAnswer"] = "Only a guess."
        ws.trace(case_id, trace)
    args = _args(ws, "--fail-severity", severity, "--fail-on", "any,vacuous")
    whole, merged, a, b = _round_trip(ws.root, args, 3)
    _assert_same(whole, merged, a, b)
    report = json.loads(a["report.json"])
    assert report["summary"]["checks_applied"] > 0 and report["summary"]["checks_skipped"] > 0
    warned = [c["case_id"] for c in report["cases"] if c.get("failed_warnings")]
    assert warned == (["case-3", "case-5"] if severity == "error" else [])
    assert merged.code == whole.code == 1


# --------------------------------------------------------------------------------------------
# What a shard costs: its share of the traces


def _counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Counts the suggestions made for traces naming no case, and the traces parsed."""
    import validator.evaluation.evaluator as evaluator
    import validator.evaluation.tracefile as tracefile

    seen: dict[str, list[str]] = {"suggested": [], "parsed": []}
    suggest, parse = evaluator.did_you_mean, tracefile.parse_document

    def counted_suggest(word: str, known: Any) -> str:
        seen["suggested"].append(word)
        return suggest(word, known)

    def counted_parse(data: bytes, *more: Any, **named: Any) -> Any:
        seen["parsed"].append(data.decode("utf-8", errors="replace"))
        return parse(data, *more, **named)

    monkeypatch.setattr(evaluator, "did_you_mean", counted_suggest)
    monkeypatch.setattr(tracefile, "parse_document", counted_parse)
    return seen


def test_a_json_lines_shard_evaluates_and_parses_only_its_share(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases, runs = 12, 10  # N = 120 traces for M = 12 cases, plus 3 naming no case
    for c in range(cases):
        ws.case(GOOD_CASE, id=f"case-{c}", name=f"case-{c}")
    lines = [json.dumps(good_trace(f"case-{i % cases}")) for i in range(cases * runs)]
    lines += [json.dumps(good_trace(f"stray-{i}")) for i in range(3)]
    (ws.root / "traces.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    seen = _counting(monkeypatch)
    for index in (1, 2):
        seen["suggested"].clear(), seen["parsed"].clear()
        out = ws.root / f"shard-{index}"
        args = ["--fixtures", "traces.jsonl", "--jobs", "1", "--shard", f"{index}/2"]
        done = run_cli("run", "--cases", "cases", *args, "--out", str(out), cwd=ws.root)
        assert done.code in (0, 1), done.err
        own = [c for c in (f"case-{c}" for c in range(cases)) if shard_of(c, 2) == index]
        assert 0 < len(own) < cases
        # Suggestions only for the traces naming no case of the suite at all.
        assert sorted(seen["suggested"]) == ["stray-0", "stray-1", "stray-2"]
        # The other shard's traces are set aside unparsed: parsed are this shard's and strays.
        parsed = [json.loads(text)["caseId"] for text in seen["parsed"]]
        assert len(parsed) == len(own) * runs + 3
        assert set(parsed) == set(own) | {"stray-0", "stray-1", "stray-2"}


def test_json_lines_whose_case_id_is_not_plain_merge_byte_for_byte(ws: Workspace) -> None:
    """Lines whose caseId cannot be read without parsing (nested, escaped, written twice,
    not first, broken, not an object) go the parsed way and end where one run puts them."""
    for c in range(6):
        ws.case(GOOD_CASE, id=f"case-{c}", name=f"case-{c}")
    lines = []
    for i in range(36):
        case_id = f"case-{i % 6}"
        trace = good_trace(case_id)
        kind = i % 9
        if kind == 0:
            lines.append(json.dumps({"meta": {"caseId": case_id}, **{"x": 1}}))  # nested only
        elif kind == 1:
            lines.append(json.dumps(trace).replace(case_id, case_id.replace("-", "\\u002d")))
        elif kind == 2:
            lines.append(f'{{"caseId": "{case_id}", "caseId": "case-0"}}')  # twice
        elif kind == 3:
            lines.append(json.dumps({"note": '{"caseId": "x"', **trace}))  # braces in a string
        elif kind == 4:
            lines.append(f'{{"caseId": "{case_id}", broken')
        elif kind == 5:
            lines.append(json.dumps([trace]))
        elif kind == 6:
            lines.append(json.dumps({"caseId": case_id, "inner": {"caseId": "case-9"}}))
        else:
            lines.append(json.dumps(trace))
    (ws.root / "traces.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    args = ["--cases", "cases", "--fixtures", "traces.jsonl", "--jobs", "1"]
    whole, merged, a, b = _round_trip(ws.root, args, 2)
    _assert_same(whole, merged, a, b)
    assert json.loads(a["report.json"])["unmatched_traces"]


def test_traces_of_cases_left_out_by_case_are_set_aside_too(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    for c in range(5):
        ws.case(GOOD_CASE, id=f"case-{c}", name=f"case-{c}")
    lines = [json.dumps(good_trace(f"case-{i % 5}")) for i in range(20)]
    lines.append(json.dumps(good_trace("stray")))
    (ws.root / "traces.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    seen = _counting(monkeypatch)
    args = ["--cases", "cases", "--fixtures", "traces.jsonl", "--jobs", "1", "--case", "case-1"]
    done = run_cli("run", *args, "--out", "out", cwd=ws.root)
    assert done.code == 1, done.err  # the stray trace matches no case
    assert seen["suggested"] == ["stray"]
    assert len(seen["parsed"]) == 4 + 1  # case-1's four traces and the stray
    report = json.loads((ws.root / "out" / "report.json").read_text("utf-8"))
    assert [c["case_id"] for c in report["cases"]] == ["case-1"]
    assert [t["case_id"] for t in report["unmatched_traces"]] == ["stray"]
