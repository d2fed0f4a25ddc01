"""Every file a flag or the config names is refused at once when it is not a regular file or
is over its limit, with one message shape (validator/files.py): a FIFO never hangs a run,
/dev/zero never fills the memory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GOOD_CASE, REPO, Workspace, good_trace

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def _run(ws: Workspace, *extra: str) -> subprocess.CompletedProcess[str]:
    # a separate process with a timeout: a read that blocks would hang the test run itself
    return subprocess.run(
        [sys.executable, "-m", "validator", "run", "--cases", "cases", "--fixtures",
         "fixtures", "--out", "reports", "--jobs", "1", *extra],
        cwd=ws.root, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip


@pytest.fixture
def suite(ws: Workspace) -> Workspace:
    ws.case(GOOD_CASE)
    ws.trace("db-slow", good_trace())
    os.mkfifo(ws.root / "pipe")
    return ws


@pytest.mark.parametrize(
    ("flag", "what"),
    [
        ("--quarantine", "the quarantine file"),
        ("--baseline", "the baseline"),
        ("--config", "the config file"),
    ],
)
@pytest.mark.parametrize("source", ["pipe", "/dev/zero"])
def test_a_flag_naming_a_pipe_or_a_device_is_refused_at_once(
    suite: Workspace, flag: str, what: str, source: str
) -> None:
    if source.startswith("/dev/") and not Path(source).exists():
        pytest.skip(f"needs {source}")
    done = _run(suite, flag, source)
    assert done.returncode == 2, done.stderr
    kind = "a pipe" if source == "pipe" else "a device"
    assert f"cannot read {what} {source}: it is {kind}, not a regular file" in done.stderr
    assert "internal error" not in done.stderr


def test_a_case_file_that_is_a_pipe_is_refused_at_once(suite: Workspace) -> None:
    os.mkfifo(suite.cases / "other.yaml")
    done = subprocess.run(
        [sys.executable, "-m", "validator", "lint", "cases/other.yaml"],
        cwd=suite.root, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert done.returncode != 0
    assert "not a regular file" in done.stdout + done.stderr


def test_an_oversized_quarantine_file_is_refused_with_the_same_message(suite: Workspace) -> None:
    big = suite.root / "big.yaml"
    big.write_text("# " + "x" * (5 * 1024 * 1024) + "\n", "utf-8")
    done = _run(suite, "--quarantine", "big.yaml")
    assert done.returncode == 2
    assert "cannot read the quarantine file big.yaml: it is 5,242,883 bytes, over the" in (
        done.stderr
    )
