"""The suite config (validator.yaml, --config) through the command line: found, overridden by
flags, and every mistake in it reported where it is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import GOOD_CASE, Result, Workspace, good_trace, run_cli


def _config(ws: Workspace, text: str, name: str = "validator.yaml") -> Path:
    path = ws.root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def _run(ws: Workspace, *extra: str, cwd: Path | None = None) -> Result:
    """`run` with only the output flags: the layout comes from the config (or defaults)."""
    return run_cli("run", "--out", str(ws.out), "--jobs", "1", *extra, cwd=cwd or ws.root)


# --------------------------------------------------------------------------------------------
# Found, and overridden


def test_the_config_in_the_working_folder_sets_the_layout(ws: Workspace) -> None:
    (ws.root / "suite" / "my-cases").mkdir(parents=True)
    (ws.root / "suite" / "traces").mkdir()
    ws.cases = ws.root / "suite" / "my-cases"
    ws.fixtures = ws.root / "suite" / "traces"
    ws.case()
    ws.trace("db-slow", good_trace())
    _config(ws, "cases: suite/my-cases\nfixtures: suite/traces\n")
    result = _run(ws)
    assert result.code == 0, result.out + result.err
    report = ws.report()
    assert report["inputs"]["config"] == "validator.yaml"
    assert report["inputs"]["cases"] == "suite/my-cases"
    assert report["inputs"]["fixtures"] == "suite/traces"


def test_config_paths_are_relative_to_the_config_file_not_the_working_folder(
    ws: Workspace, tmp_path: Path
) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    _config(ws, "cases: cases\nfixtures: fixtures\n", name="conf/../validator.yaml")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = _run(ws, "--config", str(ws.root / "validator.yaml"), cwd=elsewhere)
    assert result.code == 0, result.out + result.err
    assert ws.case_result()["status"] == "pass"


def test_a_config_folder_given_as_config_finds_its_validator_yaml(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    _config(ws, "traces: {allow_unmatched: false}\n")
    result = _run(ws, "--config", str(ws.root), cwd=ws.root.parent)
    assert result.code == 0, result.out + result.err


def test_flags_override_the_config(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    other = ws.root / "other"
    other.mkdir()
    (other / "db-slow.json").write_text(json.dumps(good_trace(finalAnswer="nothing")), "utf-8")
    _config(ws, "fixtures: other\n")
    assert _run(ws).code == 1, "the config's fixtures: the failing trace"
    result = _run(ws, "--fixtures", "fixtures")
    assert result.code == 0, result.out
    assert ws.report()["inputs"]["fixtures"] == "fixtures"


def test_allow_unmatched_from_the_config_and_the_flags_that_override_it(ws: Workspace) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    ws.trace("stray", good_trace("stray"))
    _config(ws, "traces:\n  allow_unmatched: true\n")
    assert _run(ws).code == 0
    assert ws.report()["inputs"]["traces"] == {"allow_unmatched": True}
    assert [u["fixture"] for u in ws.report()["unmatched_traces"]] == ["fixtures/stray.json"]
    assert _run(ws, "--no-allow-unmatched").code == 1


def test_packs_and_default_checks(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="own", checks=["forbidden-keywords"]))
    failing = good_trace(finalAnswer="nothing about it")  # fails keyword-coverage only
    ws.trace("db-slow", failing)
    ws.trace("own", dict(failing, caseId="own"))
    _config(ws, "checks: [verdict-present, evidence-coverage]\n")
    assert _run(ws).code == 0
    checks = {c["case_id"]: [k["check"] for k in c["checks"]] for c in ws.report()["cases"]}
    assert checks == {
        "db-slow": ["verdict-present", "evidence-coverage"],  # the config's order
        "own": ["forbidden-keywords"],  # a case that names checks gets exactly those
    }
    (ws.cases / "own.yaml").unlink()  # its check is in the pack
    _config(ws, "packs: []\n")
    result = _run(ws)
    assert result.code == 2, "no pack: db-slow would apply no check at all"
    assert "cases/db-slow.yaml:2:9: error: case 'db-slow' applies no check" in result.err
    assert "[no-checks]" in result.err


def test_schema_config_prints_the_config_schema() -> None:
    result = run_cli("schema", "config", "--config", "ignored.yaml")
    assert result.code == 0, result.err
    schema = json.loads(result.out)
    assert set(schema["properties"]) == {
        "cases",
        "specs",
        "fixtures",
        "packs",
        "checks",
        "tools",
        "traces",
        "target",
    }
    assert "case_id" in schema["properties"]["traces"]["properties"]


def test_a_missing_config_file_is_a_usage_error(ws: Workspace) -> None:
    for command in ("run", "lint"):
        result = run_cli(command, "--config", "nope.yaml", cwd=ws.root)
        assert result.code == 2
        assert "config file nope.yaml does not exist" in result.err


# --------------------------------------------------------------------------------------------
# Mistakes, each located in the config


BAD_CONFIGS = [
    # (config text, the line printed on stderr)
    (
        "fixture: fixtures\n",
        "validator.yaml:1:1: error: unknown key 'fixture' (did you mean 'fixtures'?) [unknown-key]",
    ),
    (
        "traces:\n  splt: $[*]\n",
        "validator.yaml:2:3: error: traces: unknown key 'splt' (did you mean 'split'?)"
        " [unknown-key]",
    ),
    (
        "specs: my-specs\n",
        'validator.yaml:1:8: error: specs must be a list, found text "my-specs": write a'
        " list, e.g. [my-specs] [wrong-type]",
    ),
    (
        "cases: cases\nfixtures: fixturs\n",
        'validator.yaml:2:11: error: fixtures: "fixturs" does not exist (looked for'
        " fixturs; paths are relative to the config file's folder) [config-path]",
    ),
    (
        "traces:\n  split: $.simulations[*\n",
        "validator.yaml:2:10: error: traces.split: JSONPath does not compile at character 16:",
    ),
    (
        "traces:\n  case_id: '{file_stem}-{$.id'\n",
        "validator.yaml:2:12: error: traces.case_id: this '{' is not closed: add the '}' (at"
        " character 13) [bad-template]",
    ),
    (
        "traces:\n  case_id: '{file_stm}'\n",
        "validator.yaml:2:12: error: traces.case_id: unknown placeholder '{file_stm}' (did you"
        " mean '{file_stem}'?)",
    ),
    (
        "traces:\n  format: jsonlines\n",
        "validator.yaml:2:11: error: traces.format is \"jsonlines\" (did you mean 'jsonl'?);"
        " allowed: json, jsonl, otlp-json [bad-value]",
    ),
    (
        "packs: [diagnosys]\n",
        'validator.yaml:1:9: error: packs[0]: there is no standard spec pack "diagnosys" (did'
        " you mean 'diagnosis'?)",
    ),
    (
        "checks: [verdict-alowed]\n",
        "validator.yaml:1:10: error: checks names 'verdict-alowed', which is no known spec (did"
        " you mean 'verdict-allowed'?)",
    ),
    (
        "traces:\n  format: otlp-json\n  split: $[*]\n",
        "validator.yaml:3:10: error: traces.split does not apply to format otlp-json",
    ),
    (
        "traces:\n  allow_unmatched: yes please\n",
        "validator.yaml:2:20: error: traces.allow_unmatched must be true or false, found text",
    ),
]


@pytest.mark.parametrize(("text", "expected"), BAD_CONFIGS)
def test_a_bad_config_stops_run_and_is_reported_by_lint(
    ws: Workspace, text: str, expected: str
) -> None:
    ws.case()
    ws.trace("db-slow", good_trace())
    _config(ws, text)
    result = _run(ws)
    assert result.code == 2
    assert expected in result.err, result.err
    assert "Traceback" not in result.err
    assert not ws.out.exists(), "nothing is evaluated with a broken config"
    linted = run_cli("lint", cwd=ws.root)
    assert linted.code == 1
    assert expected in linted.out, linted.out


def test_a_jsonpath_that_does_not_compile_has_a_caret(ws: Workspace) -> None:
    ws.case()
    _config(ws, "traces:\n  case_id: '{$.a[*.b}'\n")
    result = run_cli("lint", cwd=ws.root)
    lines = result.out.splitlines()
    at = next(i for i, line in enumerate(lines) if "[bad-jsonpath]" in line)
    assert lines[at].startswith("validator.yaml:2:12: error: traces.case_id: JSONPath does not")
    assert lines[at + 1].strip() == "{$.a[*.b}"
    assert lines[at + 2].index("^") == lines[at + 1].index("{") + 6  # under the '.'


def test_a_config_that_is_not_yaml_is_located(ws: Workspace) -> None:
    ws.case()
    _config(ws, "traces: [unclosed\n")
    result = _run(ws)
    assert result.code == 2
    # at the '[' that is not closed, saying so (the parser notices on the next line)
    assert "validator.yaml:1:9: error: YAML syntax error: the list opened with [" in result.err


def test_lint_lints_the_config_and_the_fixtures_it_names(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="redis-memory"))
    ws.trace("db-slow", good_trace())
    _config(ws, "cases: cases\nfixtures: fixtures\n")
    result = run_cli("lint", "--format", "json", cwd=ws.root)
    doc = json.loads(result.out)
    assert [p["code"] for p in doc["problems"]] == ["no-fixture"], "the config names fixtures"
    assert doc["counts"]["files"] == 3, "two cases and the config"
    _config(ws, "cases: cases\n")
    result = run_cli("lint", "--format", "json", cwd=ws.root)
    assert json.loads(result.out)["problems"] == [], "no fixtures named: none checked"


def test_a_flag_replacing_a_missing_config_path_lets_the_run_go_on(ws: Workspace) -> None:
    # The config names folders that do not exist here (a checkout beside other data): a
    # command given --fixtures / --cases never reads those keys, so they stop nothing; run
    # without the flags, and lint, still say where they are wrong.
    ws.case()
    ws.trace("db-slow", good_trace())
    _config(ws, "cases: elsewhere/cases\nfixtures: ../../data/traces\n")
    stopped = _run(ws)
    assert stopped.code == 2
    assert "validator.yaml:2:11: error: fixtures:" in stopped.err
    assert "validator.yaml:1:8: error: cases:" in stopped.err
    half = _run(ws, "--fixtures", str(ws.fixtures))
    assert half.code == 2
    assert "validator.yaml:1:8: error: cases:" in half.err
    assert "fixtures:" not in half.err
    both = _run(ws, "--fixtures", str(ws.fixtures), "--cases", str(ws.cases))
    assert both.code == 0, both.out + both.err
    assert ws.case_result()["status"] == "pass"
    linted = run_cli("lint", cwd=ws.root)
    assert linted.code == 1  # lint's exit code for errors found
    assert "validator.yaml:2:11: error: fixtures:" in linted.out + linted.err
