"""The command line as a table: each command's module builds its parser and runs it; the
flags, help, program name, -v and --color as a user meets them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import REPO, run_cli

from validator.cli import ALL, COMMANDS, build_parser, module_of
from validator.report.gate import Gate
from validator.report.regression import parse_limit

# Every flag each command had before cli.py became a table: none may go.
FLAGS = {
    "run": "--allow-unmatched --annotations --baseline --capture --case --cases --config"
    " --fail-on --fail-severity --fixtures --follow-symlinks --format --help --jobs --k"
    " --max-regression --max-trace-bytes --min-pass-rate --min-run-pass-rate"
    " --no-allow-unmatched --no-annotations --out --overwrite --quarantine --quiet --repeat"
    " --shard --specs --tag -h -q",
    "merge": "--allow-partial --annotations --help --no-annotations --out --quiet -h -q",
    "lint": "--config --fixtures --follow-symlinks --format --help --specs --strict -h",
    "schema": "--config --help --specs -h",
    "query": "--config --help --json --max-trace-bytes -h",
    "explain": "--cases --color --config --fixtures --follow-symlinks --help --json"
    " --max-trace-bytes --specs -h",
    "capture": "--case --cases --config --fixtures --help --max-trace-bytes --out --overwrite"
    " --quiet --repeat --specs --tag -h -q",
    "init": "--help -h",
}


def _python(code: str, *, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
    )


def test_every_command_is_a_row_whose_module_builds_its_parser_and_runs_it() -> None:
    assert [c.name for c in COMMANDS] == list(FLAGS)
    for command in COMMANDS:
        module = module_of(command)
        assert callable(module.build_parser) and callable(module.main), command.name
    source = (REPO / "validator" / "cli.py").read_text("utf-8")
    assert "def cmd_" not in source and 'command == "' not in source


def test_every_flag_of_every_command_is_kept() -> None:
    _, built = build_parser(ALL)
    for name, flags in FLAGS.items():
        have = {s for action in built[name]._actions for s in action.option_strings}
        assert set(flags.split()) <= have, (name, set(flags.split()) - have)


def test_only_the_command_given_is_imported() -> None:
    code = (
        "import sys\n"
        "from validator.cli import main\n"
        "assert main(['lint', 'cases', 'specs']) == 0\n"
        "print(sorted(m for m in sys.modules if m.startswith('validator.commands.')))\n"
    )
    result = _python(code)
    assert result.returncode == 0, result.stderr
    loaded = result.stdout.splitlines()[-1]
    assert "validator.commands.lint" in loaded
    for other in ("run", "merge", "explain", "capture", "query"):
        assert f"validator.commands.{other}'" not in loaded, loaded


def test_run_help_fits_a_screen() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "validator", "run", "--help"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "80"},
    )
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert len(lines) < 60, len(lines)
    assert "docs/cli.md" in result.stdout  # where the detail went


def test_the_program_is_named_as_invoked() -> None:
    code = (
        "import sys\n"
        "sys.argv[0] = '/usr/local/bin/trace-validator'\n"
        "from validator.cli import main\n"
        "main(sys.argv[1:] or ['--version'])\n"
    )
    version = _python(code)
    assert version.stdout.startswith("trace-validator "), version.stdout
    usage = _python(code.replace("['--version']", "['run', '--shard', 'x']"))
    assert usage.returncode == 2
    assert usage.stderr.startswith("usage: trace-validator run"), usage.stderr
    plain = _python(code.replace("/usr/local/bin/trace-validator", "-c"))
    assert plain.stdout.startswith("python -m validator "), plain.stdout


def test_the_command_line_reference_in_the_docs_is_the_parsers() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "update_cli_docs.py"), "--check"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_verbose_prints_a_line_per_check_and_quiet_only_the_summary(tmp_path: Path) -> None:
    plain = run_cli("run", "--out", str(tmp_path / "a"), cwd=REPO)
    verbose = run_cli("run", "-v", "--out", str(tmp_path / "b"), cwd=REPO)
    quiet = run_cli("run", "-q", "-v", "--out", str(tmp_path / "c"), cwd=REPO)
    assert plain.code == verbose.code == quiet.code == 0
    assert "PASS     mysql-slow-query: passed" not in plain.out
    assert "PASS     mysql-slow-query: passed" in verbose.out
    assert "    PASS    keyword-coverage: " in verbose.out
    assert "    SKIPPED " in verbose.out
    assert len(quiet.out.splitlines()) == 1
    # -v never changes a report: the command line reports show leaves it out
    a = json.loads((tmp_path / "a" / "report.json").read_text("utf-8"))["inputs"]
    b = json.loads((tmp_path / "b" / "report.json").read_text("utf-8"))["inputs"]
    assert a["command"] == b["command"]


@pytest.mark.parametrize("command", [["run"], ["explain", "mysql-slow-query"]])
def test_color_is_asked_for_or_left_to_the_terminal_and_no_color(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = ["--out", str(tmp_path)] if command == ["run"] else []
    verbose = ["-v"] if command == ["run"] else []
    plain = run_cli(*command, *out, *verbose, cwd=REPO)
    assert "\x1b[" not in plain.out  # not a terminal
    coloured = run_cli(*command, *out, *verbose, "--color", "always", cwd=REPO)
    assert "\x1b[32;1mPASS\x1b[0m" in coloured.out
    monkeypatch.setenv("NO_COLOR", "1")
    never = run_cli(*command, *out, *verbose, "--color", "never", cwd=REPO)
    assert "\x1b[" not in never.out
    bad = run_cli(*command, *out, "--color", "sometimes", cwd=REPO)
    assert bad.code == 2 and "invalid choice: 'sometimes'" in bad.err


def test_merge_colours_and_prints_per_check_lines_too(tmp_path: Path) -> None:
    folders = []
    for i in (1, 2):
        folder = tmp_path / f"s{i}"
        assert run_cli("run", "--shard", f"{i}/2", "--out", str(folder), cwd=REPO).code == 0
        folders.append(str(folder))
    merged = run_cli(
        "merge", *folders, "--out", str(tmp_path / "m"), "-v", "--color", "always", cwd=REPO
    )
    assert merged.code == 0, merged.err
    assert "\x1b[32;1mPASS\x1b[0m" in merged.out and "    " in merged.out


def test_the_gate_goes_to_json_and_back() -> None:
    gate = Gate(
        fail_on="flaky",
        fail_vacuous=True,
        fail_severity="warning",
        min_pass_rate=Fraction(9, 10),
        min_run_pass_rate=Fraction(2, 3),
        max_regression=(parse_limit("pass_rate:-0.02"), parse_limit("avg_duration_ms:+20%")),
        quarantine="quarantine.yaml",
        allow_unmatched=True,
    )
    data = json.loads(json.dumps(gate.to_json()))
    assert Gate.from_json(data) == gate
    assert Gate().to_json(changed_only=True) == {}
    assert Gate.from_json({}) == Gate()
    for bad in ({"fail_on": "sometimes"}, {"min_pass_rate": "3/2"}, {"extra": 1}, []):
        with pytest.raises(ValueError):
            Gate.from_json(bad)


def test_the_report_schema_describes_the_recorded_gate(tmp_path: Path) -> None:
    from dataclasses import fields

    import jsonschema

    from validator.loading.schema import load_schema
    from validator.report.gate import FAIL_ON
    from validator.results import SEVERITIES

    schema = load_schema("report")
    gate = schema["properties"]["inputs"]["properties"]["gate"]["properties"]
    shown_elsewhere = {"quarantine", "allow_unmatched"}
    assert set(gate) == {f.name for f in fields(Gate)} - shown_elsewhere
    assert gate["fail_on"]["enum"] == list(FAIL_ON)
    assert gate["fail_severity"]["enum"] == list(SEVERITIES[:2])
    flags = ["--fail-on", "never,vacuous", "--fail-severity", "warning", "--min-pass-rate", "90%"]
    flags += ["--min-run-pass-rate", "0.5"]
    result = run_cli("run", *flags, "--out", str(tmp_path), cwd=REPO)
    assert result.code == 0, result.err
    report = json.loads((tmp_path / "report.json").read_text("utf-8"))
    jsonschema.validate(report, schema)
    assert report["inputs"]["gate"]["min_run_pass_rate"] == "1/2"
