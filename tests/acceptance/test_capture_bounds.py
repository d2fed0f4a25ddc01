"""capture's bounds on an HTTP answer: `timeout` is a deadline for the whole answer (an
agent that drips a byte every 0.3 s is cut at it), and a gzip-encoded answer is decoded
within the trace size limit, or refused with a reason about the HTTP answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from capture_agent import Agent
from test_capture import cli, http_target, log, suite


@pytest.fixture(scope="module")
def agent() -> Any:
    with Agent() as server:
        yield server


@pytest.fixture(autouse=True)
def _fresh(agent: Agent, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    agent.modes.clear()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DIAG_API_TOKEN", "tok-3f9a1c77e2b04d6a")


def _capture(
    agent: Agent,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    mode: str,
    *extra: str,
    timeout: int = 30,
) -> tuple[int, str]:
    # Only the drip test needs a short deadline; the others get one a loaded machine meets.
    agent.modes["mysql-slow-query"] = mode
    suite(tmp_path, http_target(agent).replace("timeout: 2", f"timeout: {timeout}"))
    code, _, _ = cli(capsys, "capture", "--case", "mysql-slow-query", *extra)
    return code, log(tmp_path)["runs"][0].get("error") or ""


def test_an_agent_that_drips_its_answer_ends_at_the_deadline(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 3 s: the headers come at once, so only the body's drip (a minute long) meets the
    # deadline, even when a loaded machine starts the agent's thread late
    code, error = _capture(agent, tmp_path, capsys, "drip", timeout=3)
    assert code == 1
    assert error.startswith("the answer took longer than the timeout of 3 s"), error
    assert "the timeout is for the whole answer" in error


def test_a_gzip_encoded_answer_is_decoded(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, error = _capture(agent, tmp_path, capsys, "gzip")
    assert code == 0, error
    assert (tmp_path / "captured" / "mysql-slow-query.json").is_file()


def test_a_gzip_answer_that_decodes_past_the_limit_is_refused(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, error = _capture(agent, tmp_path, capsys, "gzip-bomb", "--max-trace-bytes", "1000000")
    assert code == 1
    assert "gzip-encoded answer decodes to more than the 1,000,000-byte limit" in error, error


def test_an_encoding_capture_does_not_decode_is_a_reason_about_the_http_answer(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, error = _capture(agent, tmp_path, capsys, "brotli")
    assert code == 1
    assert "Content-Encoding: br, which capture does not decode" in error, error
    assert "save" not in error
