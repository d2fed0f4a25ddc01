"""CI outputs that their consumers accept as they are: SARIF paths, fingerprints and rules;
JUnit times; progress lines off a terminal; the config found up to the repository root; the
docs/CI.md recipe run as pasted; every report format from the library."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, REPO, TESTS, Workspace, good_trace, run_cli, set_verdict

from validator.report.timing import Timing
from validator.results import RunResult

SARIF_SCHEMA = os.environ.get("SARIF_SCHEMA")


def _failing(case_id: str = "db-slow") -> dict[str, Any]:
    return set_verdict(good_trace(case_id), "REVISE")


def _repo_suite(tmp_path: Path) -> Workspace:
    """A suite in `repo/suite/` of a git work tree `repo/` (a `.git` folder is all it
    takes): a failing case, a case with two runs (one failing), a warning check."""
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "suite").mkdir()
    ws = Workspace(tmp_path / "repo" / "suite")
    ws.case()
    ws.trace("db-slow", _failing())
    ws.case(dict(GOOD_CASE, id="twice"))
    ws.trace("twice", good_trace("twice"), name="twice/run-1.json")
    ws.trace("twice", _failing("twice"), name="twice/run-2.json")
    ws.case(dict(GOOD_CASE, id="missing"))
    return ws


def _sarif(out: Path) -> dict[str, Any]:
    return json.loads((out / "report.sarif").read_text("utf-8"))


def _run_in(ws: Workspace, *extra: str) -> dict[str, Any]:
    result = run_cli(
        "run", "--out", str(ws.out), "--jobs", "1", "--format", "sarif", *extra, cwd=ws.root
    )
    assert result.code == 1, result.err
    return _sarif(ws.out)


# --------------------------------------------------------------------------------------------
# SARIF


def test_sarif_paths_are_relative_to_the_repository_root(tmp_path: Path) -> None:
    ws = _repo_suite(tmp_path)
    run = _run_in(ws)["runs"][0]
    failed = next(r for r in run["results"] if r["properties"]["caseId"] == "db-slow")
    uris = [loc["physicalLocation"]["artifactLocation"] for loc in failed["locations"]]
    assert uris == [
        {"uri": "suite/cases/db-slow.yaml", "uriBaseId": "%SRCROOT%"},
        {"uri": "suite/fixtures/db-slow.json", "uriBaseId": "%SRCROOT%"},
    ]
    assert "repository root" in run["originalUriBaseIds"]["%SRCROOT%"]["description"]["text"]
    # --sarif-root overrides it.
    run = _run_in(ws, "--sarif-root", ".")["runs"][0]
    failed = next(r for r in run["results"] if r["properties"]["caseId"] == "db-slow")
    first = failed["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert first == "cases/db-slow.yaml"
    result = run_cli("run", "--sarif-root", "nowhere", cwd=ws.root)
    assert result.code == 2
    assert "--sarif-root nowhere does not exist" in result.err and "Traceback" not in result.err


def test_a_trace_outside_the_root_is_named_in_the_message_not_located(tmp_path: Path) -> None:
    ws = _repo_suite(tmp_path)
    elsewhere = tmp_path / "shared"
    shutil.copytree(ws.fixtures, elsewhere)
    run = _run_in(ws, "--fixtures", str(elsewhere))["runs"][0]
    failed = next(r for r in run["results"] if r["properties"]["caseId"] == "db-slow")
    uris = [loc["physicalLocation"]["artifactLocation"]["uri"] for loc in failed["locations"]]
    assert uris == ["suite/cases/db-slow.yaml"]
    text = failed["message"]["text"]
    assert "outside the repository root, not located" in text
    assert str(elsewhere / "db-slow.json") in text
    for result in run["results"]:
        for loc in result.get("locations", []):
            assert not loc["physicalLocation"]["artifactLocation"]["uri"].startswith("..")


def test_sarif_messages_lead_with_what_failed_and_fingerprints_are_stable(
    tmp_path: Path,
) -> None:
    ws = _repo_suite(tmp_path)
    first = _run_in(ws)["runs"][0]["results"]
    by_case = {(r["properties"]["caseId"], r["ruleId"]): r for r in first}
    text = by_case[("db-slow", "verdict-allowed")]["message"]["text"]
    assert text.startswith("verdict-allowed: ") and text.endswith("(case db-slow)")
    assert "(case twice [run-2.json])" in by_case[("twice", "verdict-allowed")]["message"]["text"]
    assert by_case[("missing", "not-run")]["message"]["text"].startswith("not-run: ")
    # Another run, from another folder (the root is the same), in another order of the
    # arguments: the same fingerprints.
    shutil.rmtree(ws.out)
    again = run_cli(
        "run",
        "--format",
        "sarif",
        "--jobs",
        "2",
        "--fixtures",
        "suite/fixtures",
        "--out",
        str(ws.out),
        "--cases",
        "suite/cases",
        cwd=ws.root.parent,
    )
    assert again.code == 1, again.err
    second = _sarif(ws.out)["runs"][0]["results"]
    prints = [r["partialFingerprints"] for r in first]
    assert prints == [r["partialFingerprints"] for r in second]
    values = [next(iter(p.values())) for p in prints]
    assert len(set(values)) == len(values), "each finding its own fingerprint"


def test_sarif_rules_are_described_with_help_a_docs_link_and_a_level(tmp_path: Path) -> None:
    ws = _repo_suite(tmp_path)
    rules = {r["id"]: r for r in _run_in(ws)["runs"][0]["tool"]["driver"]["rules"]}
    assert set(rules) == {"not-run", "verdict-allowed"}
    for rule in rules.values():
        assert rule["fullDescription"]["text"] and rule["shortDescription"]["text"]
        assert rule["help"]["markdown"] and rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] == "error"
    assert rules["verdict-allowed"]["helpUri"] == "docs/writing-specs.md"
    assert rules["not-run"]["helpUri"] == "docs/outputs.md"
    assert (REPO / "docs" / "writing-specs.md").is_file() and (REPO / "docs/outputs.md").is_file()
    assert "**verdict-allowed**" in rules["verdict-allowed"]["help"]["markdown"]
    url = "https://docs.example.org/trace-validator/"
    rules = {
        r["id"]: r
        for r in _run_in(ws, "--sarif-docs-url", url)["runs"][0]["tool"]["driver"]["rules"]
    }
    assert rules["verdict-allowed"]["helpUri"] == url + "writing-specs.md"


def test_a_warning_check_has_a_warning_default_level(ws: Workspace) -> None:
    specs = ws.root / "specs"
    specs.mkdir()
    (specs / "short-answer.yaml").write_text(
        "id: short-answer\ndescription: The answer is short. Long answers tire readers.\n"
        "severity: warning\nquery: $.finalAnswer\npredicate: contains-none\n"
        "params: {keywords: [slow]}\n",
        "utf-8",
    )
    ws.case(dict(GOOD_CASE, checks=["short-answer", "verdict-allowed"]))
    ws.trace("db-slow", good_trace())
    result = ws.run("--specs", str(specs), "--format", "sarif")
    assert result.code == 0, result.out + result.err
    run = _sarif(ws.out)["runs"][0]
    (rule,) = run["tool"]["driver"]["rules"]
    assert rule["defaultConfiguration"]["level"] == "warning"
    assert rule["shortDescription"]["text"] == "The answer is short."
    assert rule["fullDescription"]["text"].endswith("Long answers tire readers.")
    (result,) = run["results"]
    assert result["message"]["text"].startswith("short-answer: warning: ")


@pytest.mark.skipif(
    not SARIF_SCHEMA,
    reason="set SARIF_SCHEMA to the official SARIF 2.1.0 JSON Schema (.ci/run installs it from"
    " npm: @microsoft/jest-sarif ships lib/schemas/sarif-2.1.0-rtm.5.json)",
)
def test_the_repository_rooted_sarif_validates_against_the_schema(tmp_path: Path) -> None:
    import jsonschema

    schema = json.loads(Path(str(SARIF_SCHEMA)).read_text("utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    ws = _repo_suite(tmp_path)
    outside = tmp_path / "shared"
    shutil.copytree(ws.fixtures, outside)
    for extra in ((), ("--fixtures", str(outside))):
        document = _run_in(ws, *extra)
        errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(document)]
        assert not errors, errors


def test_sarif_tools_summarises_the_findings_by_check(tmp_path: Path) -> None:
    pytest.importorskip(
        "sarif",
        reason="sarif-tools is not installed (`pip install sarif-tools`; .ci/run installs it;"
        " not in the test extra: it brings matplotlib, numpy and python-docx)",
    )
    from sarif import loader

    ws = _repo_suite(tmp_path)
    _run_in(ws)
    sarif_file = loader.load_sarif_file(str(ws.out / "report.sarif"))
    records = sarif_file.get_records()
    codes = sorted((r["Code"], r["Severity"], r["Location"]) for r in records)
    assert codes == [
        ("not-run", "error", "suite/cases/missing.yaml"),
        ("verdict-allowed", "error", "suite/cases/db-slow.yaml"),
        ("verdict-allowed", "error", "suite/cases/twice.yaml"),
    ]
    # Its summary counts findings by check, not one line per case.
    summary = subprocess.run(
        [sys.executable, "-m", "sarif", "summary", str(ws.out / "report.sarif")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "- verdict-allowed: 2" in summary and "- not-run: 1" in summary


# --------------------------------------------------------------------------------------------
# JUnit


def _junit_tree(ws: Workspace) -> Any:
    from lxml import etree

    return etree.parse(str(ws.out / "report.junit.xml"))


def test_junit_time_is_the_checking_time_and_the_agent_duration_is_output(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lxml import etree

    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    ws.case()
    ws.trace("db-slow", good_trace(durationMs=177126))
    ws.case(dict(GOOD_CASE, id="twice"))
    ws.trace("twice", good_trace("twice", durationMs=5000), name="twice/run-1.json")
    ws.trace("twice", _failing("twice"), name="twice/run-2.json")
    assert ws.run("--format", "junit").code == 1
    tree = _junit_tree(ws)
    schema = etree.XMLSchema(etree.parse(str(TESTS / "data/junit-jenkins.xsd")))
    assert schema.validate(tree), schema.error_log
    cases = {tc.get("name"): tc for tc in tree.iter("testcase")}
    times = {name: tc.get("time") for name, tc in cases.items()}
    assert all(t is not None for t in times.values()), times
    assert times["db-slow"] != "177.126", "the agent's duration is no test time"
    assert "agent duration: 177.126 s" in cases["db-slow"].findtext("system-out")
    assert "agent duration: 5.000 s" in cases["twice [run-1.json]"].findtext("system-out")
    suite = tree.getroot().find("testsuite")
    # The suite's time is the whole run's: it holds every case's checking time.
    assert float(suite.get("time")) >= sum(float(t) for t in times.values())
    assert tree.getroot().get("time") == suite.get("time")


def test_junit_with_warnings_and_vacuous_runs_is_valid_for_jenkins(ws: Workspace) -> None:
    """Jenkins' schema allows no <properties> in a test case: what did not fail it is
    written in its <system-out>."""
    from lxml import etree

    specs = ws.root / "specs"
    specs.mkdir()
    (specs / "short-answer.yaml").write_text(
        "id: short-answer\ndescription: the answer avoids the word slow\nseverity: warning\n"
        "query: $.finalAnswer\npredicate: contains-none\nparams: {keywords: [slow]}\n",
        "utf-8",
    )
    ws.case(dict(GOOD_CASE, checks=["short-answer", "verdict-allowed"]))
    ws.trace("db-slow", good_trace())
    assert ws.run("--specs", str(specs), "--format", "junit").code == 0
    tree = _junit_tree(ws)
    schema = etree.XMLSchema(etree.parse(str(TESTS / "data/junit-jenkins.xsd")))
    assert schema.validate(tree), schema.error_log
    (case,) = tree.iter("testcase")
    assert case.find("properties") is None
    assert "warning: short-answer: " in case.findtext("system-out")


@pytest.mark.parametrize(("formats", "timed"), [("json,md,html,sarif", False), ("md,junit", True)])
def test_runs_are_timed_only_for_a_format_that_shows_their_time(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, formats: str, timed: bool
) -> None:
    """Each run's checking time is held until the report is written (~200 bytes a run):
    only JUnit shows it, so a run that writes no JUnit times nothing."""
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    seen: list[str] = []
    watch = Timing.watch

    def counted(self: Timing, runs: Iterable[RunResult]) -> Iterator[RunResult]:
        for run in watch(self, runs):
            seen.append(run.case_id)
            yield run

    monkeypatch.setattr(Timing, "watch", counted)
    ws.case()
    for n in range(3):
        ws.trace("db-slow", good_trace(), name=f"db-slow/run-{n}.json")
    assert ws.run("--format", formats).code == 0
    assert seen == (["db-slow"] * 3 if timed else [])


def test_reproducible_junit_has_no_times(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    """SOURCE_DATE_EPOCH: the same bytes each time, so no measured time is written."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    ws.case()
    ws.trace("db-slow", good_trace())
    assert ws.run("--format", "junit").code == 0
    first = (ws.out / "report.junit.xml").read_bytes()
    assert b" time=" not in first and b"agent duration: 1.200 s" in first
    assert ws.run("--format", "junit", "--jobs", "2").code == 0
    assert (ws.out / "report.junit.xml").read_bytes() == first


# --------------------------------------------------------------------------------------------
# Progress and case lines off a terminal


def _cases_with_failures(ws: Workspace, count: int, every: int) -> list[str]:
    """`count` one-trace cases, every `every`-th failing; the failing ids."""
    failing = []
    for n in range(count):
        case_id = f"case-{n:03d}"
        ws.case(dict(GOOD_CASE, id=case_id))
        if n % every == every - 1:
            ws.trace(case_id, _failing(case_id))
            failing.append(case_id)
        else:
            ws.trace(case_id, good_trace(case_id))
    return failing


def _run_piped(ws: Workspace, *extra: str) -> subprocess.CompletedProcess[str]:
    """The command line in a subprocess, stdout and stderr into one pipe (a CI log)."""
    args = [sys.executable, "-m", "validator", "run", "--cases", str(ws.cases)]
    args += ["--fixtures", str(ws.fixtures), "--out", str(ws.out), "--jobs", "1", *extra]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("SOURCE_DATE_EPOCH", None)
    return subprocess.run(
        args, cwd=ws.root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )


def test_a_ci_log_gets_progress_lines_and_each_fail_line_as_it_is_decided(
    ws: Workspace,
) -> None:
    failing = _cases_with_failures(ws, 250, 25)
    result = _run_piped(ws)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    progress = [line for line in lines if line.startswith("progress: ")]
    # A line every tenth of the traces (more only if a tenth took over 10 seconds).
    assert 10 <= len(progress) <= 20, progress
    assert progress[0].startswith("progress: 25/250 traces checked (10%), 25 cases decided,")
    assert progress[-1] == (
        "progress: 250/250 traces checked (100%), 250 cases decided, 10 did not pass so far"
    )
    fails = [line for line in lines if line.startswith("FAIL")]
    # Once each, in case order...
    assert [line.split()[1].rstrip(":") for line in fails] == failing
    # ... and each before the progress line of the traces after it: printed as decided.
    first_fail = lines.index(fails[0])
    assert first_fail < lines.index(progress[0])
    assert lines.index(fails[-1]) < lines.index(progress[-1])
    assert "\r" not in result.stdout


def test_quiet_prints_no_progress_and_no_case_lines(ws: Workspace) -> None:
    _cases_with_failures(ws, 210, 30)
    result = _run_piped(ws, "-q")
    assert result.returncode == 1
    (line,) = result.stdout.splitlines()
    assert line.startswith("210 cases: 203 passed, 7 failed")


def test_the_case_lines_are_the_same_whether_printed_early_or_late(ws: Workspace) -> None:
    """With JSON Lines no case is decided before the end: the same lines either way."""
    failing = _cases_with_failures(ws, 12, 4)
    folder = run_cli(
        "run", "--cases", str(ws.cases), "--fixtures", str(ws.fixtures), "--out", str(ws.out),
        cwd=ws.root,
    )  # fmt: skip
    export = ws.root / "all.jsonl"
    export.write_text(
        "".join(p.read_text("utf-8") + "\n" for p in sorted(ws.fixtures.glob("*.json"))), "utf-8"
    )
    jsonl = run_cli(
        "run", "--cases", str(ws.cases), "--fixtures", str(export), "--out", str(ws.out),
        cwd=ws.root,
    )  # fmt: skip
    fails = [line for line in folder.out.splitlines() if line.startswith("FAIL")]
    assert [line.split()[1].rstrip(":") for line in fails] == failing
    assert fails == [line for line in jsonl.out.splitlines() if line.startswith("FAIL")]


def test_with_v_the_case_lines_and_their_checks_are_the_same_printed_early_or_late(
    ws: Workspace,
) -> None:
    """-v: every case's line and its checks' lines, printed as each case is decided (one
    file per trace) or at the end (JSON Lines), read the same as report.json's rows."""
    failing = _cases_with_failures(ws, 6, 3)
    export = ws.root / "all.jsonl"
    export.write_text(
        "".join(p.read_text("utf-8") + "\n" for p in sorted(ws.fixtures.glob("*.json"))), "utf-8"
    )
    outputs = []
    for fixtures in (ws.fixtures, export):
        result = run_cli(
            "run", "-v", "--cases", str(ws.cases), "--fixtures", str(fixtures),
            "--out", str(ws.out), "--color", "never", cwd=ws.root,
        )  # fmt: skip
        outputs.append(
            [line for line in result.out.splitlines() if line[:4] in ("PASS", "FAIL", "    ")]
        )
    early, late = outputs
    assert early == late
    rows = json.loads((ws.out / "report.json").read_text("utf-8"))["cases"]
    expected = []
    for row in rows:
        expected.append(f"{row['status'].upper():8} {row['case_id']}: {row['reason'] or 'passed'}")
        expected += [
            f"    {c['status'].upper():7} {c['check']}: {c['message']}" for c in row["checks"]
        ]
    assert early == expected
    assert [line.split()[1].rstrip(":") for line in early if line.startswith("FAIL")] == failing


# --------------------------------------------------------------------------------------------
# The docs/CI.md recipe


def _workflow_steps() -> list[dict[str, Any]]:
    import yaml

    text = (REPO / "docs" / "CI.md").read_text("utf-8")
    block = text.split("## GitHub Actions", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    workflow = yaml.safe_load(block)
    steps: list[dict[str, Any]] = workflow["jobs"]["validate"]["steps"]
    return steps


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_ci_recipe_runs_as_pasted_in_a_scratch_repository(tmp_path: Path) -> None:
    """The workflow's `run:` steps, in order, in a clone whose origin has the suite on main
    and a change that breaks a case: each step exits as the recipe means, and the job
    summary holds the change's report only."""
    origin = tmp_path / "origin"
    origin.mkdir()
    ws = Workspace(origin)
    ws.case()
    ws.trace("db-slow", good_trace())
    ws.case(dict(GOOD_CASE, id="other"))
    ws.trace("other", good_trace("other"))
    _git(origin, "init", "-q", "-b", "main")
    _git(origin, "add", "-A")
    _git(origin, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "suite")
    checkout = tmp_path / "work" / "checkout"
    checkout.parent.mkdir()
    _git(tmp_path / "work", "clone", "-q", str(origin), "checkout")
    # The change under review: a regression in one case.
    (checkout / "fixtures" / "db-slow.json").write_text(json.dumps(_failing()), "utf-8")

    summary = tmp_path / "summary.md"
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "GITHUB_ACTIONS": "true",
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": str(runner_temp),
    }
    env.pop("SOURCE_DATE_EPOCH", None)
    bin_dir = tmp_path / "bin"  # `python` as the recipe calls it: this interpreter
    bin_dir.mkdir()
    wrapper = bin_dir / "python"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', "utf-8")
    wrapper.chmod(0o755)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    codes = {}
    for step in _workflow_steps():
        if "run" not in step or step["run"].startswith("pip install"):
            continue  # the install step: this checkout's code is on PYTHONPATH
        script = step["run"].replace("${{ github.event.repository.default_branch }}", "main")
        done = subprocess.run(
            ["bash", "-e", "-c", script], cwd=checkout, env=env, capture_output=True, text=True
        )
        codes[step["name"]] = (done.returncode, done.stdout + done.stderr)
    assert codes["Lint case and spec files"][0] == 0, codes
    assert codes["Baseline from the default branch"][0] == 0, codes
    assert (runner_temp / "baseline" / "report.json").is_file()
    code, output = codes["Evaluate the traces"]
    assert code == 1, output  # the regression fails the gate, not a usage error (2)
    assert "REGRESSED db-slow: pass -> fail" in output
    assert "::error " in output  # annotations from the evaluation step
    written = summary.read_text("utf-8")
    # One report in the job summary: the change's (its regression), not the baseline's.
    assert written.count("\n# ") + written.startswith("# ") == 1, written[:400]
    assert "db-slow" in written
    for name in ("report.json", "report.md", "report.junit.xml", "report.sarif"):
        assert (checkout / "reports" / name).is_file()


# --------------------------------------------------------------------------------------------
# The config found up to the repository root


def _suite_with_config(folder: Path) -> Workspace:
    folder.mkdir(parents=True)
    ws = Workspace(folder)
    ws.case()
    ws.trace("db-slow", good_trace())
    (folder / "validator.yaml").write_text("cases: cases\nfixtures: fixtures\n", "utf-8")
    return ws


def test_the_config_is_found_in_the_nearest_parent_and_named(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    ws = _suite_with_config(tmp_path / "repo" / "suite")
    below = ws.cases / "deeper"
    below.mkdir()
    result = run_cli("run", "--out", str(tmp_path / "out"), cwd=below)
    assert result.code == 0, result.err
    assert "config: ../../validator.yaml (the nearest validator.yaml above" in result.err
    report = json.loads((tmp_path / "out" / "report.json").read_text("utf-8"))
    assert report["inputs"]["config"] == "../../validator.yaml"
    assert report["summary"]["total"] == 1
    # In the working folder itself: found without a word.
    result = run_cli("run", "--out", str(tmp_path / "out"), cwd=ws.root)
    assert result.code == 0 and "config:" not in result.err


def test_the_config_search_stops_at_the_repository_root(tmp_path: Path) -> None:
    _suite_with_config(tmp_path / "outer")
    inner = tmp_path / "outer" / "repo"
    (inner / ".git").mkdir(parents=True)
    result = run_cli("run", "--out", str(tmp_path / "out"), cwd=inner)
    assert result.code == 2
    assert "config:" not in result.err and "Traceback" not in result.err
    # Outside any repository, only the working folder is looked in.
    plain = tmp_path / "outer" / "plain"
    plain.mkdir()
    result = run_cli("run", "--out", str(tmp_path / "out"), cwd=plain)
    assert result.code == 2 and "config:" not in result.err


# --------------------------------------------------------------------------------------------
# The library writes every format


def test_the_library_writes_every_format_from_report_from_runs(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pickle

    from validator import evaluate_partition, load_suite, report_from_runs, write_reports
    from validator.problems import UsageError

    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    monkeypatch.chdir(ws.root)
    ws.case()
    ws.case(dict(GOOD_CASE, id="fine"))
    suite = load_suite(ws.cases)
    runs = evaluate_partition(suite, [("t/db-slow.json", _failing()), good_trace("fine")])
    document = report_from_runs(suite, runs)
    assert isinstance(document, dict) and document["summary"]["failed"] == 1
    assert pickle.loads(pickle.dumps(document)) == document
    formats = ["json", "md", "junit", "sarif", "html"]
    written = write_reports(document, ws.root / "lib", formats)
    assert sorted(p.name for p in written) == sorted(
        ["report.json", "report.md", "report.junit.xml", "report.sarif", "report.html"]
    )
    assert json.loads((ws.root / "lib" / "report.json").read_text("utf-8")) == document
    sarif = _sarif(ws.root / "lib")["runs"][0]
    (failed,) = sarif["results"]
    case_place = failed["locations"][0]["physicalLocation"]
    assert case_place["artifactLocation"]["uri"] == "cases/db-slow.yaml"
    assert "region" in case_place  # the case key the check read: the suite's sources
    junit = (ws.root / "lib" / "report.junit.xml").read_text("utf-8")
    assert 'name="db-slow"' in junit and " time=" in junit
    assert "db-slow" in (ws.root / "lib" / "report.html").read_text("utf-8")
    # A document read back from JSON: every format too, with what JSON holds.
    again = json.loads(json.dumps(document))
    write_reports(again, ws.root / "again", formats)
    assert (ws.root / "again" / "report.sarif").is_file()
    with pytest.raises(UsageError, match="unknown report format 'pdf'"):
        write_reports(document, ws.root / "x", ["json", "pdf"])
