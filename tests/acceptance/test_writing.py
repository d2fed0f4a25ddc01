"""Writing the report set and the job summary when the disk, the folder or the process fails.

The report set is all old or all new after any failure; no temporary file is left; a job
summary is either appended whole or left exactly as it was; nothing blocks on a FIFO.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, REPO, Workspace, good_trace, set_verdict

import validator.report as report_module
from validator.api import load_suite
from validator.evaluation.grouping import group_results
from validator.evaluation.runner import evaluate_all
from validator.inputs import plan_fixtures
from validator.problems import UsageError
from validator.report import append_step_summary, write_reports
from validator.report.document import Report, build_report

OLD_FORMATS = ["json", "md", "html"]
NEW_FORMATS = ["json", "md", "junit"]  # report.junit.xml is new, report.html is not rewritten


def _report(ws: Workspace, epoch: str, monkeypatch: pytest.MonkeyPatch) -> Report:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    suite = load_suite(ws.cases, specs=[])
    plan = plan_fixtures(list(suite.cases), ws.fixtures, "fixtures")
    runs = list(evaluate_all(suite, plan.jobs(), 1, root=ws.fixtures))
    return build_report(*group_results(suite, runs, plan))


def _small_suite(ws: Workspace) -> None:
    for case_id in ("alpha", "beta", "gamma"):
        ws.case(dict(GOOD_CASE, id=case_id))
    ws.trace("alpha", good_trace("alpha"))
    ws.trace("beta", set_verdict(good_trace("beta"), "REVISE"))
    ws.trace("gamma", "{broken")


def _state(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _restore(folder: Path, state: dict[str, bytes]) -> None:
    for path in folder.iterdir():
        path.unlink()
    for name, data in state.items():
        (folder / name).write_bytes(data)


class Injector:
    """Counts the I/O steps of the report writer and fails the `fail_at`-th one."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.fail_at = fail_at
        self.steps: list[str] = []

    def step(self, name: str) -> None:
        self.steps.append(name)
        if len(self.steps) - 1 == self.fail_at:
            raise OSError(errno.ENOSPC, f"injected failure at {name}")


class FailingHandle:
    """A text file whose writes, flush and close count as steps."""

    def __init__(self, handle: Any, injector: Injector) -> None:
        self.handle = handle
        self.injector = injector

    def __enter__(self) -> FailingHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()

    def write(self, text: str) -> int:
        self.injector.step("write")
        written: int = self.handle.write(text)
        return written

    def writelines(self, pieces: Iterator[str]) -> None:
        for piece in pieces:
            self.write(piece)

    def flush(self) -> None:
        self.injector.step("flush")
        self.handle.flush()

    def fileno(self) -> int:
        fd: int = self.handle.fileno()
        return fd

    def close(self) -> None:
        self.handle.close()


class FailingOs:
    """The report module's `os`, with open, fdopen, fsync, link and replace as steps."""

    def __init__(self, injector: Injector) -> None:
        self.injector = injector

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def _wrap(self, name: str) -> Callable[..., Any]:
        real = getattr(os, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            self.injector.step(name)
            return real(*args, **kwargs)

        return call

    def __getattribute__(self, name: str) -> Any:
        if name in ("open", "fsync", "replace", "link"):
            return object.__getattribute__(self, "_wrap")(name)
        if name == "fdopen":
            injector = object.__getattribute__(self, "injector")
            return lambda *a, **k: FailingHandle(os.fdopen(*a, **k), injector)
        return object.__getattribute__(self, name)


def test_a_failure_at_any_step_leaves_the_old_set_or_the_new_set_and_no_temporary_file(
    ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _small_suite(ws)
    old_report = _report(ws, "1700000000", monkeypatch)
    new_report = _report(ws, "1800000000", monkeypatch)
    out = tmp_path / "out"
    write_reports(old_report, out, OLD_FORMATS)
    old = _state(out)
    write_reports(new_report, out, NEW_FORMATS)
    new = _state(out)
    assert old != new and set(new) == set(old) | {"report.junit.xml"}

    counting = Injector()
    _restore(out, old)
    monkeypatch.setattr(report_module, "os", FailingOs(counting))
    write_reports(new_report, out, NEW_FORMATS)
    assert _state(out) == new
    kinds = set(counting.steps)
    assert {"open", "write", "flush", "fsync", "replace"} <= kinds, kinds
    assert counting.steps.count("replace") == len(NEW_FORMATS)
    assert counting.steps.count("write") > 3 * len(NEW_FORMATS)

    outcomes = set()
    for index, name in enumerate(counting.steps):
        _restore(out, old)
        monkeypatch.setattr(report_module, "os", FailingOs(Injector(fail_at=index)))
        if name == "link":  # no hard link for the backup: it is copied instead
            write_reports(new_report, out, NEW_FORMATS)
        else:
            with pytest.raises(UsageError, match="injected failure"):
                write_reports(new_report, out, NEW_FORMATS)
        after = _state(out)
        temps = [n for n in after if n.startswith(".")]
        assert not temps, (index, name, temps)
        assert after in (old, new), f"a mix of old and new after failing step {index} ({name})"
        outcomes.add((name == "link", "old" if after == old else "new"))
    assert outcomes == {(False, "old"), (True, "new")}, outcomes


def test_a_report_target_that_is_a_folder_stops_before_anything_is_replaced(
    ws: Workspace,
) -> None:
    _small_suite(ws)
    assert ws.run().code == 1
    before = (ws.out / "report.json").read_bytes()
    (ws.out / "report.md").unlink()
    (ws.out / "report.md").mkdir()
    ws.trace("gamma", good_trace("gamma"))  # the next report.json would differ
    result = ws.run()
    assert result.code == 2
    assert "report.md is a folder" in result.err, result.err
    assert "remove it or pass another --out" in result.err, result.err
    assert (ws.out / "report.json").read_bytes() == before
    assert sorted(p.name for p in ws.out.iterdir()) == ["report.json", "report.md"]


def test_out_that_is_a_file_says_so(ws: Workspace) -> None:
    _small_suite(ws)
    ws.out.write_text("not a folder", "utf-8")
    result = ws.run()
    assert result.code == 2
    assert (
        f"error: --out {ws.out} is a file, not a folder: pass a folder (it is created if missing)"
        in result.err
    ), result.err
    assert ws.out.read_text("utf-8") == "not a folder"


# --------------------------------------------------------------------------------------------
# GITHUB_STEP_SUMMARY


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_step_summary_that_is_a_fifo_is_refused_without_blocking(ws: Workspace) -> None:
    _small_suite(ws)
    fifo = ws.root / "summary.fifo"
    os.mkfifo(fifo)
    env = dict(os.environ, GITHUB_STEP_SUMMARY=str(fifo), PYTHONPATH=str(REPO))
    command = [sys.executable, "-m", "validator", "run", "--jobs", "1", "-q"]
    done = subprocess.run(
        command, cwd=ws.root, env=env, capture_output=True, text=True, timeout=15, check=False
    )
    assert done.returncode == 1, done.stderr
    assert f"warning: cannot append the report to GITHUB_STEP_SUMMARY ({fifo})" in done.stderr
    assert (ws.out / "report.json").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_step_summary_that_cannot_grow_is_left_exactly_as_it_was(
    ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import resource
    import signal

    _small_suite(ws)
    report = _report(ws, "1700000000", monkeypatch)
    summary = tmp_path / "summary.md"
    earlier = "## Earlier step\n" + "x" * 100 + "\n"
    summary.write_text(earlier, "utf-8")
    # The file size limit makes the kernel write part of the text and then refuse the rest,
    # as a full disk would; Python ignores SIGXFSZ, so the write fails with EFBIG instead.
    assert signal.getsignal(signal.SIGXFSZ) == signal.SIG_IGN
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (len(earlier) + 500, hard))
    try:
        ok = append_step_summary(report, summary)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert ok is False
    assert summary.read_text("utf-8") == earlier
    assert append_step_summary(report, summary) is True
    assert summary.read_text("utf-8").startswith(earlier + "\n# Trace validation report")


def test_a_step_summary_write_failing_midway_is_truncated_back(
    ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _small_suite(ws)
    report = _report(ws, "1700000000", monkeypatch)
    summary = tmp_path / "summary.md"
    summary.write_text("## Earlier step\n", "utf-8")
    calls = []

    def half_then_full(fd: int, data: bytes) -> int:
        calls.append(len(data))
        if len(calls) == 1:
            return os.write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, "No space left on device")

    class DiskFull:
        def __getattr__(self, name: str) -> Any:
            return half_then_full if name == "write" else getattr(os, name)

    monkeypatch.setattr(report_module, "os", DiskFull())
    assert append_step_summary(report, summary) is False
    assert len(calls) == 2, "the short write was continued"
    assert summary.read_text("utf-8") == "## Earlier step\n"


def test_report_json_rows_keep_json_s_bytes_whichever_encoder_writes_them(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # report.json's rows are written as the bytes orjson gives, or json's text where orjson
    # writes otherwise (a float of 1e-7, a lone surrogate: U+FFFD in the file): one file,
    # every row json's own compact bytes.
    import json

    _small_suite(ws)
    report = _report(ws, "1767225600", monkeypatch)
    odd = {"case_id": "odd\udc80", "figure": 1e-07, "text": "no-such-thing"}
    tiny = {"case_id": "tiny", "figure": 1.5e-05}
    report.rows.extend([odd, tiny])
    assert report.items is not None
    report.items.extend([None, None])
    write_reports(report, ws.out, ["json"])
    raw = (ws.out / "report.json").read_bytes()
    lines = raw.decode("utf-8").splitlines()
    for row in report.rows:
        text = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
        expected = text.replace("\udc80", "\ufffd")
        assert any(line.strip().rstrip(",") == expected for line in lines), expected
    assert json.loads(raw)["cases"][-2]["case_id"] == "odd\ufffd"


def test_the_same_files_when_no_thread_can_be_started_for_their_fsync(
    ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _small_suite(ws)
    report = _report(ws, "1700000000", monkeypatch)
    write_reports(report, tmp_path / "threads", NEW_FORMATS)
    synced: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    def no_thread(self: Any) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(report_module.threading.Thread, "start", no_thread)
    monkeypatch.setattr(report_module.os, "fsync", fsync)
    write_reports(report, tmp_path / "none", NEW_FORMATS)
    assert len(synced) == len(NEW_FORMATS)  # each file synced all the same, here
    assert _state(tmp_path / "none") == _state(tmp_path / "threads")


def test_a_piece_longer_than_the_write_buffer_is_written_whole_and_in_order(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A format may give one long piece (junit's and sarif's whole document): it is written in
    # slices of the buffer's size, which must join to the same bytes, multi-byte characters
    # cut between two slices included.
    _small_suite(ws)
    report = _report(ws, "1767225600", monkeypatch)
    size = report_module._WRITE_BUFFER
    long_text = "诊断" * size + "\udc80" + "x" * (size + 7)  # over 3 buffers, and odd
    pieces = ["head ", long_text.encode("utf-8", "replace"), long_text, " tail"]
    write_reports(report, ws.out, ["json"], [("long.txt", lambda: pieces)])
    expected = b"".join(
        p if isinstance(p, bytes) else p.encode("utf-8", report_module.REPLACE_SURROGATES)
        for p in pieces
    )
    assert (ws.out / "long.txt").read_bytes() == expected
    assert (ws.out / "long.txt").read_text("utf-8").count("诊断") == 2 * size
