"""`init --from PATH` through the command line on the real traces in TRACE_DATA: the suite it
writes passes `run` and `lint` as written, and it never overwrites."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import run_cli

DATA = Path(os.environ["TRACE_DATA"]) if os.environ.get("TRACE_DATA") else None


def data(name: str) -> Path:
    if DATA is None:
        pytest.skip("set TRACE_DATA to the shared trace data folder to run the init --from tests")
    if not (DATA / name).exists():
        pytest.skip(f"{name} is not in TRACE_DATA ({DATA})")
    return DATA / name


@pytest.mark.parametrize(
    ("source", "guess"),
    [
        ("otel-agent-traces", "otel-genai adapter"),
        ("claude-code", "group: file"),
        ("tau2-bench/gpt-4.1_retail_defautl_gpt-4.1_1trials.json", "split: $.simulations[*]"),
        ("smolagents", "{file_stem}-{index}"),
        ("openai-agents", "left out (not a trace an adapter reads): sources.json"),
        ("openhands", "each line is a whole run"),
        ("openhands/session-63b4315947a049e2b7a51249b3d4fcc3", "group: folder"),
        ("autogen", "autogen adapter"),
        ("langfuse-traces", "langfuse adapter"),
    ],
)
def test_init_from_real_traces_runs_green_and_lints_clean(
    tmp_path: Path, source: str, guess: str
) -> None:
    made = run_cli("init", "--from", str(data(source)), str(tmp_path / "suite"))
    assert made.code == 0, made.err
    assert guess in made.out
    config = (tmp_path / "suite" / "validator.yaml").read_text("utf-8")
    assert "packs: [agent]" in config
    cases = sorted((tmp_path / "suite" / "cases").glob("*.yaml"))
    assert 1 <= len(cases) <= 20
    assert any("required_tools:" in c.read_text("utf-8") for c in cases)
    ran = run_cli("run", "--out", str(tmp_path / "out"), cwd=tmp_path / "suite")
    assert ran.code == 0, ran.out + ran.err
    assert ran.report(tmp_path / "out")["summary"]["failed"] == 0
    linted = run_cli("lint", cwd=tmp_path / "suite")
    assert linted.code == 0, linted.out + linted.err
    assert linted.out.rstrip().splitlines()[-1].startswith("0 errors"), linted.out
    # traces beyond the 20 cases are allowed unmatched: lint does not call them orphans
    assert "[orphan-fixture]" not in linted.out


def test_init_from_fills_the_agent_keys_from_the_trace(tmp_path: Path) -> None:
    source = data("claude-code")
    made = run_cli("init", "--from", str(source), str(tmp_path / "suite"))
    assert made.code == 0, made.err
    case = (tmp_path / "suite" / "cases" / "tool_heavy.yaml").read_text("utf-8")
    cases = [p.read_text("utf-8") for p in (tmp_path / "suite" / "cases").glob("*.yaml")]
    assert any(text.startswith("# final answer begins: ") for text in cases)
    assert 'id: "tool_heavy"' in case
    for key in ("required_tools: [", "max_tool_calls: ", "max_llm_calls: ", "max_duration_ms: "):
        assert key in case


def test_init_from_refuses_to_overwrite(tmp_path: Path) -> None:
    source = data("otel-agent-traces")
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "validator.yaml").write_text("cases: mine\n", "utf-8")
    made = run_cli("init", "--from", str(source), str(suite))
    assert made.code == 2
    assert "validator.yaml" in made.err and "not overwriting" in made.err
    assert (suite / "validator.yaml").read_text("utf-8") == "cases: mine\n"
    assert not (suite / "cases").exists()


def test_init_from_a_path_that_does_not_exist(tmp_path: Path) -> None:
    made = run_cli("init", "--from", str(tmp_path / "nowhere"), str(tmp_path / "suite"))
    assert made.code == 2
    assert "no such file or folder" in made.err


def test_init_from_ignores_the_folders_files_that_are_not_traces(tmp_path: Path) -> None:
    """A data folder's README, licence and notes (and a JSON file no adapter reads) are named
    in traces.ignore, so the first run has no `UNUSED` line; a name holding glob characters
    is written so that it matches itself alone."""
    source = tmp_path / "traces"
    source.mkdir()
    for name in ("short.jsonl", "tool_heavy.jsonl"):
        (source / name).write_bytes((data("claude-code") / name).read_bytes())
    (source / "README.md").write_text("# how these were captured\n", "utf-8")
    (source / "notes[draft].txt").write_text("to do\n", "utf-8")
    (source / "sources.json").write_text('{"urls": []}\n', "utf-8")
    (source / ".git").mkdir()
    (source / ".git" / "HEAD").write_text("ref: refs/heads/main\n", "utf-8")
    made = run_cli("init", "--from", str(source), str(tmp_path / "suite"))
    assert made.code == 0, made.err
    assert "guessed ignore: .git, README.md, notes[draft].txt, sources.json" in made.out
    config = (tmp_path / "suite" / "validator.yaml").read_text("utf-8")
    assert 'ignore: [".git", "README.md", "notes[[]draft].txt", "sources.json"]' in config
    ran = run_cli("run", "--out", str(tmp_path / "out"), cwd=tmp_path / "suite")
    assert ran.code == 0, ran.out + ran.err
    assert "UNUSED" not in ran.out
    assert "; 4 files ignored (traces.ignore)" in ran.out
    unused = ran.report(tmp_path / "out")["unused_files"]
    assert len(unused) == 4
    assert all(u["reason"] == "ignored: traces.ignore names it" for u in unused)


def test_init_from_names_no_file_to_ignore_past_twenty(tmp_path: Path) -> None:
    source = tmp_path / "traces"
    source.mkdir()
    (source / "short.jsonl").write_bytes((data("claude-code") / "short.jsonl").read_bytes())
    for i in range(21):
        (source / f"log-{i:02d}.txt").write_text("a log line\n", "utf-8")
    made = run_cli("init", "--from", str(source), str(tmp_path / "suite"))
    assert made.code == 0, made.err
    assert "guessed 21 files are not traces (log-00.txt, log-01.txt, log-02.txt, ...)" in made.out
    assert "ignore:" not in (tmp_path / "suite" / "validator.yaml").read_text("utf-8")
