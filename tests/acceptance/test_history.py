"""`run --history DIR` and `merge --history DIR`: each case's statuses across earlier
report.json files (built here by real runs of a small suite in which cases flip), the cases
that changed since the previous report, the flaky ones, the pass-rate trend; the mistakes a
user can make with the folder and its files. Everything through the command line."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import GOOD_CASE, Workspace, good_trace, markdown_table, run_cli, set_verdict

from validator.loading.schema import load_schema
from validator.report import history as history_module

EPOCH = 1700000000


@pytest.fixture(autouse=True)
def _quiet_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def _suite(ws: Workspace, failing: str = "", broken: str = "") -> None:
    """Cases a, b, c: those in `failing` fail (a verdict not allowed), those in `broken`
    have a trace that is not JSON (error), the others pass."""
    for case_id in "abc":
        ws.case(dict(GOOD_CASE, id=case_id, tags=["smoke"] if case_id != "c" else []))
        trace = good_trace(case_id)
        if case_id in failing:
            set_verdict(trace, "REVISE")
        ws.trace(case_id, "{not json" if case_id in broken else trace)


def _earlier(
    ws: Workspace,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    at: int,
    failing: str = "",
    broken: str = "",
) -> Path:
    """A real run at time EPOCH + at, its report.json kept as history/NAME/report.json."""
    _suite(ws, failing, broken)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH + at))
    result = ws.run()
    assert result.code in (0, 1), result.err
    folder = ws.root / "history" / name
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(ws.out / "report.json", folder / "report.json")
    return folder / "report.json"


def _now(ws: Workspace, monkeypatch: pytest.MonkeyPatch, *extra: str, failing: str = "a"):
    _suite(ws, failing)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH + 1000))
    return ws.run("--history", "history", *extra)


def _schema_errors(report: dict) -> list[str]:
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema("report"))
    return [e.message for e in validator.iter_errors(report)]


def _three_earlier(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    _earlier(ws, monkeypatch, "run-1", 1)  # all pass
    _earlier(ws, monkeypatch, "run-2", 2, failing="b")
    _earlier(ws, monkeypatch, "run-3", 3)  # all pass again


def test_history_lists_statuses_changes_flaky_cases_and_the_trend(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    _three_earlier(ws, monkeypatch)
    result = _now(ws, monkeypatch)  # a flips to fail now
    assert result.code == 1, result.err  # history never changes the exit code
    assert "warning" not in result.err
    assert (
        "history (3 earlier reports and this run): 1 changed since the last (a), 2 flaky"
        in result.out
    )
    report = ws.report()
    history = report["history"]
    assert history["reports"] == [
        {"name": "run-1", "pass_rate": 1.0},
        {"name": "run-2", "pass_rate": 0.6667},
        {"name": "run-3", "pass_rate": 1.0},
        {"name": "this run", "pass_rate": 0.6667},
    ]
    assert history["cases"] == {
        "a": ["pass", "pass", "pass", "fail"],
        "b": ["pass", "fail", "pass", "pass"],
        "c": ["pass", "pass", "pass", "pass"],
    }
    assert history["changed"] == ["a"]  # b changed before the previous report, not since
    assert history["flaky"] == ["a", "b"]
    assert history["skipped"] == []
    assert not _schema_errors(report), _schema_errors(report)
    # report.json keeps its key order: the history after the head, before the cases.
    keys = list(report)
    assert keys.index("unused_files") < keys.index("history") < keys.index("cases")

    markdown = (ws.out / "report.md").read_text("utf-8")
    assert "## History" in markdown
    trend = markdown_table(markdown, "Report")
    assert trend[1:] == [
        ["run-1", "100.0%", "—"],
        ["run-2", "66.7%", "-33.3 points"],
        ["run-3", "100.0%", "+33.3 points"],
        ["this run", "66.7%", "-33.3 points"],
    ]
    assert "**Changed since run-3: 1** — a (pass → fail)" in markdown
    assert "failed or errored in another): 2** — a, b" in markdown
    marks = markdown_table(markdown, "Case")
    assert ["a", "✅ ✅ ✅ ❌", "❌ fail"] in marks and ["b", "✅ ❌ ✅ ✅", "✅ pass"] in marks
    assert "1 case kept one status in every report." in markdown


def test_without_the_flag_the_report_has_no_history(ws: Workspace) -> None:
    _suite(ws)
    assert ws.run().code == 0
    assert "history" not in ws.report()
    assert "## History" not in (ws.out / "report.md").read_text("utf-8")


def test_reports_are_ordered_by_their_recorded_time_then_by_natural_name(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Names in the wrong order on purpose: the time recorded in each report decides.
    _earlier(ws, monkeypatch, "zz-oldest", 1, failing="a")
    _earlier(ws, monkeypatch, "aa-newest", 3, failing="c")
    # Equal times (a pinned SOURCE_DATE_EPOCH): by name, numbers as numbers.
    _earlier(ws, monkeypatch, "run-10", 2, failing="b")
    _earlier(ws, monkeypatch, "run-9", 2)
    _now(ws, monkeypatch, failing="")
    names = [r["name"] for r in ws.report()["history"]["reports"]]
    assert names == ["zz-oldest", "run-9", "run-10", "aa-newest", "this run"]
    assert ws.report()["history"]["changed"] == ["c"]


def test_a_report_without_a_usable_time_orders_every_report_by_name(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    late = _earlier(ws, monkeypatch, "run-1", 5, failing="a")
    _earlier(ws, monkeypatch, "run-2", 1)
    document = json.loads(late.read_text("utf-8"))
    del document["generated_at"]
    late.write_text(json.dumps(document), "utf-8")
    result = _now(ws, monkeypatch, failing="")
    assert "'run-1' in history has no recorded time (generated_at)" in result.err
    assert "ordered by name" in result.err
    names = [r["name"] for r in ws.report()["history"]["reports"]]
    assert names == ["run-1", "run-2", "this run"]


def test_depth_keeps_the_newest_reports(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    _three_earlier(ws, monkeypatch)
    _now(ws, monkeypatch, "--history-depth", "1")
    history = ws.report()["history"]
    assert [r["name"] for r in history["reports"]] == ["run-3", "this run"]
    assert history["cases"]["b"] == ["pass", "pass"]
    assert history["flaky"] == ["a"]  # b's failure in run-2 is outside the window


def test_reports_side_by_side_and_one_folder_down_are_read_other_files_are_not(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _earlier(ws, monkeypatch, "run-1", 1, failing="c")
    shutil.move(first, ws.root / "history" / "nightly-1.json")
    second = _earlier(ws, monkeypatch, "run-2", 2)
    # What else a CI artifact holds beside its report.json is not read.
    (second.parent / "report.md").write_text("# not json", "utf-8")
    (second.parent / "report.shard.json").write_text("{", "utf-8")
    (ws.root / "history" / "README.md").write_text("kept reports", "utf-8")
    (ws.root / "history" / ".hidden.json").write_text("{", "utf-8")
    result = _now(ws, monkeypatch)
    assert "warning" not in result.err, result.err
    names = [r["name"] for r in ws.report()["history"]["reports"]]
    assert names == ["nightly-1.json", "run-2", "this run"]


def test_errors_and_cases_not_run_have_their_own_marks(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    _earlier(ws, monkeypatch, "run-1", 1, broken="b")
    _now(ws, monkeypatch, failing="")
    history = ws.report()["history"]
    assert history["cases"]["b"] == ["error", "pass"]
    assert history["changed"] == ["b"] and history["flaky"] == ["b"]  # error counts as not passing
    marks = markdown_table((ws.out / "report.md").read_text("utf-8"), "Case")
    assert ["b", "⚠️ ✅", "✅ pass"] in marks


def test_a_new_case_is_absent_from_earlier_reports_and_not_changed(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    _earlier(ws, monkeypatch, "run-1", 1)
    _suite(ws)
    ws.case(dict(GOOD_CASE, id="d"))
    ws.trace("d", set_verdict(good_trace("d"), "REVISE"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH + 1000))
    assert ws.run("--history", "history").code == 1
    history = ws.report()["history"]
    assert history["cases"]["d"] == [None, "fail"]
    assert history["changed"] == [] and history["flaky"] == []
    assert not _schema_errors(ws.report())


def test_the_selection_restricts_earlier_reports_as_it_does_this_run(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    _earlier(ws, monkeypatch, "run-1", 1, failing="c")  # 2 of 3 pass, all smoke cases pass
    _now(ws, monkeypatch, "--tag", "smoke", failing="")
    history = ws.report()["history"]
    assert list(history["cases"]) == ["a", "b"]
    assert history["reports"][0]["pass_rate"] == 1.0


def test_same_inputs_give_the_same_bytes(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    _three_earlier(ws, monkeypatch)
    _now(ws, monkeypatch)
    first = {n: (ws.out / n).read_bytes() for n in ("report.json", "report.md")}
    _now(ws, monkeypatch)
    assert first == {n: (ws.out / n).read_bytes() for n in ("report.json", "report.md")}


# --------------------------------------------------------------------------------------------
# Mistakes


def test_a_missing_folder_is_a_usage_error_before_anything_is_evaluated(ws: Workspace) -> None:
    _suite(ws)
    result = ws.run("--history", "nowhere")
    assert result.code == 2
    assert "--history nowhere does not exist" in result.err
    assert "--history history" in result.err  # the fix, as a line to paste
    assert not (ws.out / "report.json").exists()
    (ws.root / "file.json").write_text("{}", "utf-8")
    result = ws.run("--history", "file.json")
    assert result.code == 2 and "--history file.json is not a folder" in result.err


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--history-depth", "3"], "--history-depth needs --history DIR"),
        (["--history", "history", "--history-depth", "0"], "must be at least 1"),
        (["--history", "history", "--shard", "1/2"], "give --history DIR to `merge`"),
    ],
)
def test_flag_mistakes_are_usage_errors(ws: Workspace, args: list[str], words: str) -> None:
    _suite(ws)
    (ws.root / "history").mkdir()
    result = ws.run(*args)
    assert result.code == 2, result.out
    assert words in result.err
    assert "Traceback" not in result.err


def test_an_empty_folder_is_a_note_and_the_history_has_this_run_only(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws.root / "history").mkdir()
    result = _now(ws, monkeypatch)
    assert result.code == 1
    assert "note: the history folder history holds no earlier report" in result.err
    history = ws.report()["history"]
    assert history["reports"] == [{"name": "this run", "pass_rate": 0.6667}]
    assert history["cases"]["a"] == ["fail"] and history["changed"] == []
    assert "No earlier report was read" in (ws.out / "report.md").read_text("utf-8")


def test_each_bad_file_is_skipped_with_a_warning_naming_it_and_the_others_are_read(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = _earlier(ws, monkeypatch, "run-1", 1)
    folder = ws.root / "history"
    (folder / "cut.json").write_text('{"schema_version": 1,\n  "tool": ', "utf-8")
    (folder / "package.json").write_text('{"name": "x"}', "utf-8")
    (folder / "latin1.json").write_bytes(b'{"caf\xe9": 1}')
    document = json.loads(good.read_text("utf-8"))
    (folder / "old").mkdir()
    (folder / "old" / "report.json").write_text(json.dumps({**document, "schema_version": 0}))
    twice = {**document, "cases": [document["cases"][0]] * 2}
    (folder / "twice.json").write_text(json.dumps(twice), "utf-8")
    shard = {**document, "inputs": {**document["inputs"], "shard": "2/4"}}
    (folder / "shard-2.json").write_text(json.dumps(shard), "utf-8")
    os.mkfifo(folder / "pipe.json")  # refused at once, never waited on
    result = _now(ws, monkeypatch)
    assert result.code == 1, result.err  # no bad file changes the exit code
    err = result.err
    assert "warning: history/cut.json:2:11: skipped: not valid JSON" in err
    assert "was it cut short?" in err
    assert "warning: history/package.json: skipped: it is not a trace-validator report" in err
    assert "warning: history/latin1.json: skipped: it is not UTF-8 text" in err
    assert "warning: history/old/report.json: skipped: it uses report schema version 0" in err
    assert "warning: history/twice.json: skipped: case 'a' appears twice" in err
    assert "warning: history/shard-2.json: skipped: it is the report of shard 2/4 only" in err
    assert "warning: history/pipe.json: skipped: cannot read it: it is a" in err
    assert "Traceback" not in err
    history = ws.report()["history"]
    assert [r["name"] for r in history["reports"]] == ["run-1", "this run"]
    skipped = {s["file"] for s in history["skipped"]}
    assert skipped == {
        f"history/{name}"
        for name in (
            "cut.json",
            "package.json",
            "latin1.json",
            "old/report.json",
            "twice.json",
            "shard-2.json",
            "pipe.json",
        )
    }
    assert not _schema_errors(ws.report())
    markdown = (ws.out / "report.md").read_text("utf-8")
    assert "Not used from the history folder: history/cut.json: not valid JSON" in markdown


def test_only_bad_files_leave_this_run_alone_with_a_note(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws.root / "history").mkdir()
    (ws.root / "history" / "cut.json").write_text("{", "utf-8")
    result = _now(ws, monkeypatch)
    assert "warning: history/cut.json:1:2: skipped" in result.err
    assert "holds no report that could be used" in result.err
    assert len(ws.report()["history"]["reports"]) == 1


def test_the_markdown_lists_at_most_twenty_cases_and_counts_the_rest(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = [f"case-{i:02d}" for i in range(25)]
    for case_id in ids:
        ws.case(dict(GOOD_CASE, id=case_id))
        ws.trace(case_id, good_trace(case_id))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH))
    assert ws.run().code == 0
    (ws.root / "history" / "run-1").mkdir(parents=True)
    shutil.copy(ws.out / "report.json", ws.root / "history" / "run-1" / "report.json")
    for case_id in ids:
        ws.trace(case_id, set_verdict(good_trace(case_id), "REVISE"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH + 1))
    assert ws.run("--history", "history").code == 1
    assert len(ws.report()["history"]["changed"]) == 25  # report.json has every case
    markdown = (ws.out / "report.md").read_text("utf-8")
    assert "case-19 (pass → fail) and 5 more" in markdown
    assert "case-20 (pass" not in markdown
    assert len(markdown_table(markdown, "Case")) == 1 + 20
    assert "5 more cases whose status varied (report.json has them)." in markdown


# --------------------------------------------------------------------------------------------
# merge


def test_merge_adds_the_history_the_unsharded_run_has(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    _three_earlier(ws, monkeypatch)
    whole = _now(ws, monkeypatch)
    assert whole.code == 1
    folders = []
    for index in (1, 2):
        folder = ws.root / f"shard-{index}"
        args = ["--out", str(folder), "--shard", f"{index}/2"]
        part = run_cli("run", "--cases", "cases", "--fixtures", "fixtures", *args, cwd=ws.root)
        assert part.code in (0, 1), part.err
        folders.append(str(folder))
    merged = run_cli("merge", *folders, "--out", "merged", "--history", "history", cwd=ws.root)
    assert merged.code == whole.code, merged.err
    report = json.loads((ws.root / "merged" / "report.json").read_text("utf-8"))
    assert report["history"] == ws.report()["history"]
    markdown = (ws.root / "merged" / "report.md").read_text("utf-8")
    section = markdown[markdown.index("## History") : markdown.index("## Cases")]
    whole_md = (ws.out / "report.md").read_text("utf-8")
    assert section == whole_md[whole_md.index("## History") : whole_md.index("## Cases")]
    missing = run_cli("merge", *folders, "--out", "m2", "--history", "gone", cwd=ws.root)
    assert missing.code == 2 and "--history gone does not exist" in missing.err


def test_a_report_json_read_back_writes_the_same_history(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The library's write_reports from report.json (json.load) gives the same files."""
    from validator.api import write_reports

    _three_earlier(ws, monkeypatch)
    _now(ws, monkeypatch)
    document = json.loads((ws.out / "report.json").read_text("utf-8"))
    write_reports(document, ws.root / "again", ["json", "md"])
    for name in ("report.json", "report.md"):
        assert (ws.root / "again" / name).read_bytes() == (ws.out / name).read_bytes(), name


def _counting_whole_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The history files read whole (parsed), by name as shown."""
    read: list[str] = []
    original = history_module._document

    def counted(path: Path, where: str) -> object:
        read.append(where)
        return original(path, where)

    monkeypatch.setattr(history_module, "_document", counted)
    return read


def test_a_long_history_reads_only_the_newest_reports_whole(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder CI keeps adding to: each run reads the same few reports, however many."""
    for n in range(1, 9):
        _earlier(ws, monkeypatch, f"run-{n}", n, failing="b" if n == 7 else "")
    (ws.root / "history" / "run-1" / "report.json").write_text(
        (ws.root / "history" / "run-1" / "report.json").read_text("utf-8")[:400], "utf-8"
    )  # damaged, and older than the window: not read, so not named
    read = _counting_whole_reads(monkeypatch)
    result = _now(ws, monkeypatch, "--history-depth", "3")
    history = ws.report()["history"]
    assert [r["name"] for r in history["reports"]] == ["run-6", "run-7", "run-8", "this run"]
    assert history["cases"]["b"] == ["pass", "fail", "pass", "pass"]
    assert read == [f"history/run-{n}/report.json" for n in (8, 7, 6)]
    assert history["skipped"] == [] and "run-1" not in result.err


def test_a_report_of_the_window_that_cannot_be_used_is_skipped_and_an_older_one_read(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(1, 6):
        _earlier(ws, monkeypatch, f"run-{n}", n)
    newest = ws.root / "history" / "run-5" / "report.json"
    newest.write_text(newest.read_text("utf-8")[:400], "utf-8")  # cut short
    read = _counting_whole_reads(monkeypatch)
    result = _now(ws, monkeypatch, "--history-depth", "2")
    history = ws.report()["history"]
    assert [r["name"] for r in history["reports"]] == ["run-3", "run-4", "this run"]
    assert [s["file"] for s in history["skipped"]] == ["history/run-5/report.json"]
    assert "warning: history/run-5/report.json:" in result.err and "skipped" in result.err
    assert read == [f"history/run-{n}/report.json" for n in (5, 4, 3)]


@pytest.mark.parametrize("where", ["head", "end"])
def test_a_report_recording_two_times_has_every_report_read(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """A hand-edited report writes `generated_at` twice, the second time (the one a JSON
    reader keeps) in its first lines or at its end. Every report is then read whole and
    ordered as always: by the time a reader finds."""
    for n in range(1, 5):
        _earlier(ws, monkeypatch, f"run-{n}", n)
    edited = ws.root / "history" / "run-4" / "report.json"
    text = edited.read_text("utf-8")
    again = '\n  "generated_at": "2000-01-01T00:00:00Z"'
    if where == "head":
        text = text.replace('\n  "summary"', again + ',\n  "summary"', 1)
    else:
        assert text.endswith("\n}\n")
        text = text[: -len("\n}\n")] + "," + again + "\n}\n"
        assert len(text.encode()) > 4096, "past the first lines read for the time"
    edited.write_text(text, "utf-8")
    read = _counting_whole_reads(monkeypatch)
    _now(ws, monkeypatch, "--history-depth", "2")
    names = [r["name"] for r in ws.report()["history"]["reports"]]
    assert names == ["run-2", "run-3", "this run"], "run-4 is the oldest by the time kept"
    every = [f"history/run-{n}/report.json" for n in (1, 2, 3, 4)]
    # At the end, run-4 is read whole first (the newest by its first lines), then again.
    assert sorted(read) == (every if where == "head" else sorted([*every, every[-1]]))
