"""`capture` and `run --capture` against a real HTTP agent of the tests' own (127.0.0.1, a
free port; tests/capture_agent.py) and against a command target, through the command line.

Every request loop is bounded: timeouts of a second or two, retries of at most 2, and the
agent's misbehaviours each end (a slow answer sleeps 3 s, a 50 MB body is cut at 50 MB).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

import pytest
from capture_agent import Agent
from conftest import REPO, skip_if_sigint_ignored

from validator.cli import main

CASES = REPO / "cases"
CASE_IDS = sorted(p.stem for p in CASES.glob("*.yaml"))
TOKEN = "tok-3f9a1c77e2b04d6a"  # the secret of these tests: never in any output
BODY = (
    '{"question": "{question}", "session": "eval-{case_id}-{run}", "tags": "{tags}",'
    ' "note": "{{literal}}", "braced": "{{{case_id}}}", "dollar": "${{not_env}} costs $5"}'
)


@pytest.fixture(scope="module")
def agent() -> Any:
    with Agent() as server:
        yield server


@pytest.fixture(autouse=True)
def _fresh(agent: Agent, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    agent.modes.clear()
    with agent.lock:
        agent.requests.clear()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DIAG_API_TOKEN", TOKEN)


def suite(tmp: Path, target: str, extra: str = "") -> Path:
    """A suite of the shipped cases whose traces go to tmp/captured."""
    config = tmp / "validator.yaml"
    config.write_text(
        f"cases: {CASES}\nfixtures: captured\n{extra}target:\n{target}", encoding="utf-8"
    )
    return config


def http_target(agent: Agent, more: str = "") -> str:
    return (
        f"  url: {agent.url}/diagnose\n"
        "  headers:\n    Authorization: Bearer ${DIAG_API_TOKEN}\n"
        f"  body: {BODY}\n"
        "  trace: $.trace\n"
        "  timeout: 2\n"
        f"{more}"
    )


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def log(tmp: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((tmp / "reports" / "capture.json").read_text("utf-8"))
    return document


def report(tmp: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((tmp / "reports" / "report.json").read_text("utf-8"))
    return document


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


# --------------------------------------------------------------------------------------------
# Capture, resume, repeat, run --capture


def test_capture_saves_each_trace_where_run_finds_it(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite(tmp_path, http_target(agent))
    code, out, _ = cli(capsys, "capture")
    assert code == 0, out
    assert "capture: 6 runs of 6 cases: 6 captured, 0 kept" in out
    assert [p.name for p in files_under(tmp_path / "captured")] == [f"{c}.json" for c in CASE_IDS]
    runs = log(tmp_path)["runs"]
    assert {(r["status"], r["http_status"], r["attempts"]) for r in runs} == {("captured", 200, 1)}
    # What the agent received: each case's question as text (quotes and Chinese intact),
    # the session filled in, a case key as its JSON text, `{{` as a literal brace.
    sent = {r["case"]: r for r in agent.requests}
    pool = sent["connection-pool-exhausted"]["body"]
    assert pool["question"] == (
        'Why are checkout requests timing out with "Connection is not available"?'
    )
    assert pool["session"] == "eval-connection-pool-exhausted-1"
    assert pool["tags"] == '["mysql","pool","timeout"]'
    assert pool["note"] == "{literal}"
    assert pool["braced"] == "{connection-pool-exhausted}"
    assert pool["dollar"] == "${not_env} costs $5"
    assert sent["binlog-disk-full"]["body"]["question"] == "订单库为什么在凌晨变成只读？"
    assert sent["binlog-disk-full"]["headers"]["Authorization"] == f"Bearer {TOKEN}"
    code, out, _ = cli(capsys, "run")
    assert code == 0, out
    assert "6 cases: 6 passed" in out


def test_a_second_capture_does_only_the_missing_runs(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite(tmp_path, http_target(agent))
    assert cli(capsys, "capture", "--repeat", "2")[0] == 0
    assert len(agent.requests) == 12
    (tmp_path / "captured" / "redis-memory-eviction" / "run-2.json").unlink()
    before = (tmp_path / "captured" / "mysql-slow-query" / "run-1.json").stat().st_mtime_ns
    code, out, _ = cli(capsys, "capture", "--repeat", "3")
    assert code == 0
    assert "18 runs of 6 cases: 7 captured, 11 kept" in out
    assert len(agent.requests) == 12 + 7
    assert agent.attempts("redis-memory-eviction", 2) == 2
    assert agent.attempts("mysql-slow-query", 1) == 1
    assert (tmp_path / "captured" / "mysql-slow-query" / "run-1.json").stat().st_mtime_ns == before
    code, out, _ = cli(capsys, "capture", "--repeat", "3", "--case", "mysql-*", "--overwrite")
    assert code == 0 and "3 captured, 0 kept" in out
    assert agent.attempts("mysql-slow-query", 1) == 2


def test_repeat_after_a_single_capture_keeps_it_as_run_1(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite(tmp_path, http_target(agent))
    assert cli(capsys, "capture", "--tag", "redis")[0] == 0
    single = tmp_path / "captured" / "redis-memory-eviction.json"
    text = single.read_text("utf-8")
    code, out, _ = cli(capsys, "capture", "--tag", "redis", "--repeat", "2")
    assert code == 0 and "1 captured, 1 kept" in out
    assert not single.exists()
    folder = tmp_path / "captured" / "redis-memory-eviction"
    assert (folder / "run-1.json").read_text("utf-8") == text
    assert sorted(p.name for p in folder.iterdir()) == ["run-1.json", "run-2.json"]
    code, out, _ = cli(capsys, "run", "--case", "redis-memory-eviction")
    assert code == 0, out


def test_run_capture_gates_on_pass_hat_k_of_the_captured_runs(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One run in three gets another verdict: pass^3 fails that case, pass@3 does not.
    agent.modes["redis-memory-eviction"] = "flip"
    suite(tmp_path, http_target(agent))
    code, out, _ = cli(capsys, "run", "--capture", "--repeat", "3")
    assert code == 1
    assert "18 captured" in out
    doc = report(tmp_path)
    case = next(c for c in doc["cases"] if c["case_id"] == "redis-memory-eviction")
    assert case["status"] == "fail"
    assert (case["runs"]["total"], case["runs"]["passed"]) == (3, 2)
    assert "verdict-allowed" in [c["check"] for c in case["failed_checks"]]
    assert doc["summary"]["pass_hat"]["3"] == round(5 / 6, 4)
    assert doc["summary"]["pass_at"]["3"] == 1.0
    assert doc["summary"]["flaky_cases"] == 1
    assert (tmp_path / "reports" / "capture.json").is_file()


# --------------------------------------------------------------------------------------------
# An agent that misbehaves


def test_transient_failures_are_retried_honouring_retry_after(
    agent: Agent,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from validator.capture import transport
    from validator.commands import capture as capture_command

    # The pauses between attempts are read where capture asks for them, not timed.
    paused: list[float] = []

    class Recording(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            if timeout is not None:
                paused.append(timeout)
            return super().wait(timeout)

    monkeypatch.setattr(
        capture_command, "Limits", lambda **kw: transport.Limits(stop=Recording(), **kw)
    )
    agent.modes.update(
        {
            "binlog-disk-full": "500-once",
            "connection-pool-exhausted": "429-once",  # Retry-After: 1
            "milvus-collection-not-loaded": "drop-once",
        }
    )
    suite(tmp_path, http_target(agent, "  retries: 2\n"))
    code, out, _ = cli(capsys, "capture")
    assert code == 0, out
    runs = {r["case_id"]: r for r in log(tmp_path)["runs"]}
    for case_id in (
        "binlog-disk-full",
        "connection-pool-exhausted",
        "milvus-collection-not-loaded",
    ):
        assert runs[case_id]["attempts"] == 2, runs[case_id]
        assert runs[case_id]["status"] == "captured"
    # It waited as asked (Retry-After: 1); the two other retries waited a backoff of < 1 s.
    assert sorted(paused)[-1] == 1.0 and sorted(paused)[-2] < 1.0, paused
    assert runs["mysql-slow-query"]["attempts"] == 1


def test_each_failure_fails_its_run_only_with_a_reason(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent.modes.update(
        {
            "binlog-disk-full": "slow",
            "connection-pool-exhausted": "500",
            "milvus-collection-not-loaded": "invalid",
            "mysql-slow-query": "huge",
            "redis-memory-eviction": "huge-stream",
        }
    )
    # The agent's `slow` answer takes 3 s; the timeout of 2 s leaves the others (a 5 MB stream
    # among them) time to answer on a loaded machine.
    suite(tmp_path, http_target(agent, "  retries: 1\n"))
    # No stall: each reason below says the timeout or the size limit stopped that run.
    code, out, _ = cli(capsys, "run", "--capture", "--max-trace-bytes", "5000000")
    assert code == 1
    reasons = {r["case_id"]: r["error"] for r in log(tmp_path)["runs"]}
    assert "no answer within the timeout of 2 s" in reasons["binlog-disk-full"]
    assert "HTTP 500" in reasons["connection-pool-exhausted"]
    assert "(after 2 attempts)" in reasons["connection-pool-exhausted"]
    assert '"overloaded"' in reasons["connection-pool-exhausted"]  # the body's first bytes
    assert "not a JSON trace: invalid JSON at line 1" in reasons["milvus-collection-not-loaded"]
    assert (
        "declares 52,428,800 bytes, more than the 5,000,000-byte limit"
        in reasons["mysql-slow-query"]
    )
    assert "more than the 5,000,000-byte limit" in reasons["redis-memory-eviction"]
    assert reasons["rejected-diagnosis-degraded"] is None
    # Only the good run was saved, and nothing else (no temporary file).
    assert files_under(tmp_path / "captured") == [
        tmp_path / "captured" / "rejected-diagnosis-degraded.json"
    ]
    # The run shows each failed capture as that case's error, not as "not run".
    statuses = {c["case_id"]: (c["status"], c["reason"]) for c in report(tmp_path)["cases"]}
    assert statuses["rejected-diagnosis-degraded"][0] == "pass"
    for case_id in reasons.keys() - {"rejected-diagnosis-degraded"}:
        status, reason = statuses[case_id]
        assert status == "error" and "capture failed: " in reason, (case_id, reason)
    assert "ERROR    connection-pool-exhausted: " in out


def test_a_trace_path_that_finds_nothing_shows_the_answer_with_secrets_redacted(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent.modes["mysql-slow-query"] = "notrace"  # echoes the Authorization header
    suite(tmp_path, http_target(agent))
    code, out, _ = cli(capsys, "capture", "--case", "mysql-slow-query")
    assert code == 1
    error = log(tmp_path)["runs"][0]["error"]
    assert error.startswith("target.trace $.trace finds nothing in the answer; it begins:")
    assert '"token": "Bearer [redacted]"' in error
    assert TOKEN not in out + json.dumps(log(tmp_path))


def test_no_secret_in_any_file_or_message(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The agent puts the token in a trace, in an answer without a trace and in an error.
    agent.modes.update(
        {"mysql-slow-query": "leak", "redis-memory-eviction": "notrace", "binlog-disk-full": "500"}
    )
    suite(
        tmp_path,
        http_target(agent, "  retries: 0\n").replace(
            "/diagnose", "/diagnose?key=${DIAG_API_TOKEN}"
        ),
    )
    code, out, err = cli(
        capsys, "run", "--capture", "--format", "json,md,junit,html,sarif", "--repeat", "2"
    )
    assert code == 1
    assert any(TOKEN in r["headers"].get("Authorization", "") for r in agent.requests)
    written = files_under(tmp_path)
    assert len(written) > 10
    for path in written:
        assert TOKEN.encode() not in path.read_bytes(), path
    assert TOKEN not in out + err
    leaked = tmp_path / "captured" / "mysql-slow-query" / "run-1.json"
    assert json.loads(leaked.read_text("utf-8"))["debug"] == {"auth": "Bearer [redacted]"}
    assert "a secret in the trace was redacted" in json.dumps(log(tmp_path))


# --------------------------------------------------------------------------------------------
# A command target


AGENT_SCRIPT = """\
import json, pathlib, sys
question, case = sys.argv[1], sys.argv[2]
if case == "binlog-disk-full":
    print("loading the model", file=sys.stderr)
    print("Error: quota exceeded", file=sys.stderr)
    sys.exit(3)
if case == "milvus-collection-not-loaded":
    print("Thinking... done")
    print("warning: no trace exporter configured", file=sys.stderr)
    sys.exit(0)
for path in sorted(pathlib.Path(sys.argv[3]).glob("*.json")):
    trace = json.loads(path.read_text("utf-8"))
    if trace["question"] == question:
        print(json.dumps(trace, ensure_ascii=False))
"""


def test_a_command_target_captures_its_standard_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "agent.py").write_text(AGENT_SCRIPT, encoding="utf-8")
    suite(
        tmp_path,
        f"  command: [{sys.executable}, agent.py, '{{question}}', '{{case_id}}',"
        f" {REPO / 'fixtures'}]\n  timeout: 20\n",
    )
    code, out, _ = cli(capsys, "run", "--capture")
    assert code == 1
    reasons = {r["case_id"]: r["error"] for r in log(tmp_path)["runs"]}
    assert reasons["binlog-disk-full"] == (
        "the command exited with status 3; its standard error ends: loading the model |"
        " Error: quota exceeded"
    )
    assert reasons["milvus-collection-not-loaded"].startswith(
        "the command's output is not a JSON trace: invalid JSON at line 1 column 1"
    )
    assert reasons["milvus-collection-not-loaded"].endswith(
        "it begins: Thinking... done\\n; its standard error ends: warning: no trace exporter"
        " configured"
    )
    assert "4 passed, 0 failed, 0 not run, 2 errors" in out
    assert len(files_under(tmp_path / "captured")) == 4


SLOW_SCRIPT = """\
import json, pathlib, sys, time

question = sys.argv[1]
slow = pathlib.Path("slow").exists()
for path in sorted(pathlib.Path(sys.argv[2]).glob("*.json")):
    trace = json.loads(path.read_text("utf-8"))
    if trace["question"] == question:
        text = json.dumps(trace, ensure_ascii=False)
        sys.stdout.write(text[:50])
        sys.stdout.flush()
        time.sleep(0.4 if slow else 0)  # half a trace is out: an interrupt must not save it
        sys.stdout.write(text[50:])
"""


@pytest.mark.slow  # chaos: the capture is signalled mid-trace
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_mid_capture_keeps_only_whole_traces(
    tmp_path: Path, signum: signal.Signals, code: int
) -> None:
    skip_if_sigint_ignored(signum)
    (tmp_path / "slow.py").write_text(SLOW_SCRIPT, encoding="utf-8")
    (tmp_path / "slow").touch()
    suite(
        tmp_path,
        f"  command: [{sys.executable}, slow.py, '{{question}}', {REPO / 'fixtures'}]\n"
        "  concurrency: 2\n",
    )
    child = subprocess.Popen(
        [sys.executable, "-m", "validator", "capture", "--repeat", "5"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(list((tmp_path).glob("captured/*/run-*.json"))) < 2:
        time.sleep(0.05)
    child.send_signal(signum)
    out, err = child.communicate(timeout=30)
    assert child.returncode == code, out + err
    assert "capture stopped:" in err
    assert ("interrupted:" if code == 130 else "terminated:") in err
    saved = files_under(tmp_path / "captured")
    assert 2 <= len(saved) < 30
    for path in saved:
        assert not path.name.startswith("."), path  # no temporary file left
        json.loads(path.read_text("utf-8"))  # every file whole
    summary = log(tmp_path)["summary"]
    assert summary["captured"] == len(saved) and summary["interrupted"] == 30 - len(saved)
    # Resuming does the rest.
    (tmp_path / "slow").unlink()
    done = subprocess.run(
        [sys.executable, "-m", "validator", "capture", "--repeat", "5", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{30 - len(saved)} captured, {len(saved)} kept" in done.stdout


# --------------------------------------------------------------------------------------------
# Bad input


def test_an_unset_environment_variable_is_named_before_any_request(
    agent: Agent,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DIAG_API_TOKEN")
    suite(tmp_path, http_target(agent))
    for argv in (["capture"], ["run", "--capture"]):
        code, _, err = cli(capsys, *argv)
        assert code == 2
        assert "environment variable DIAG_API_TOKEN, which is not set" in err
        assert "export DIAG_API_TOKEN=" in err
    assert agent.requests == []
    assert not (tmp_path / "reports").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{question", "a placeholder '{name}' is not closed with '}'"),
        ("a } b", "a '}' that closes no placeholder: write '}}' for a literal '}'"),
        ('{"a": 1}', "a placeholder '{name}' needs a name of letters, digits and '_'"),
        ("${}", "an environment variable '${NAME}' needs a name"),
        ("${TOKEN", "an environment variable '${NAME}' is not closed"),
    ],
)
def test_a_template_that_cannot_be_read_is_shown_with_a_caret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    quoted = json.dumps(text)
    suite(tmp_path, f"  url: http://127.0.0.1:9/ask\n  body: {{q: {quoted}}}\n")
    code, out, _ = cli(capsys, "lint")
    assert code == 1
    line = next(ln for ln in out.splitlines() if "[bad-template]" in ln)
    assert line.startswith("validator.yaml:5:13: error: target.body.q: " + message), line
    caret = out.splitlines()[out.splitlines().index(line) + 2]
    assert caret.strip() == "^"


def test_target_mistakes_are_located_lint_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite(
        tmp_path,
        "  url: http://127.0.0.1:9/ask?q={qestion}\n"
        "  methd: POST\n"
        '  body: {"q": "{question}", "raw": "{not json}", "ok": "{{x}}"}\n'
        "  command: [agent]\n",
    )
    code, out, _ = cli(capsys, "lint")
    assert code == 1
    assert (
        "validator.yaml:4:8: error: target.url: {qestion} names no case key (did you mean"
        " 'question'?)" in out
    )
    assert "validator.yaml:5:3: error: target: unknown key 'methd' (did you mean 'method'?)" in out
    assert "target.body.raw: a placeholder '{name}' needs a name" in out
    assert "[bad-template]" in out
    assert "validator.yaml:7:3: error: target has both url and command" in out
    code, _, err = cli(capsys, "capture")
    assert code == 2 and "[unknown-key]" in err  # nothing is sent with a broken config


def test_a_config_without_a_target_cannot_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "validator.yaml").write_text(f"cases: {CASES}\n", encoding="utf-8")
    code, _, err = cli(capsys, "run", "--capture")
    assert code == 2 and "has no target" in err
    code, _, err = cli(capsys, "run", "--repeat", "3")
    assert code == 2 and "--repeat is a capture option" in err


def test_tls_is_verified_unless_the_config_says_verify_false(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: no self-signed certificate to test with")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    tls = Agent()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    tls.server.socket = context.wrap_socket(tls.server.socket, server_side=True)
    with tls:
        target = http_target(tls).replace("http://", "https://")
        suite(tmp_path, target)
        code, out, _ = cli(capsys, "capture", "--case", "mysql-slow-query")
        assert code == 1
        assert "TLS failed: " in log(tmp_path)["runs"][0]["error"]
        assert "CERTIFICATE_VERIFY_FAILED" in log(tmp_path)["runs"][0]["error"]
        suite(tmp_path, target + "  verify: false\n")
        for _ in range(2):  # a warning on every capture
            code, out, err = cli(capsys, "capture", "--case", "mysql-slow-query", "--overwrite")
            assert code == 0, out
            assert "target.verify is false" in err and "[tls-unverified]" in err


def test_rate_limits_the_requests_per_second(
    agent: Agent,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from validator.capture import transport

    # The limiter's schedule is read, not timed: the clock stands still and each hold-back
    # the limiter asks for is recorded (and not slept).
    monkeypatch.setattr(
        transport, "time", types.SimpleNamespace(monotonic=lambda: 1000.0, time=time.time)
    )
    held: list[float] = []
    limiter_wait = transport.RateLimiter.wait

    class Recording:
        def __init__(self, stop: threading.Event) -> None:
            self.stop = stop

        def wait(self, seconds: float) -> bool:
            held.append(seconds)
            return self.stop.is_set()

        def is_set(self) -> bool:
            return self.stop.is_set()

    monkeypatch.setattr(
        transport.RateLimiter,
        "wait",
        lambda limiter, stop: limiter_wait(limiter, Recording(stop)),  # type: ignore[arg-type]
    )
    suite(tmp_path, http_target(agent, "  rate: 5\n  concurrency: 6\n"))
    assert cli(capsys, "capture")[0] == 0
    assert len(agent.requests) == 6
    # 6 starts at 5 a second: the first at once, each next 0.2 s later, the last after 1 s.
    assert sorted(held) == pytest.approx([0.2, 0.4, 0.6, 0.8, 1.0])


# --------------------------------------------------------------------------------------------
# Real data: a real trace set captured through a command, then the example suite run on it


def test_real_traces_captured_through_a_command_evaluate_as_in_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = os.environ.get("TRACE_DATA")
    if not data:
        pytest.skip("TRACE_DATA is not set: the real trace sets are not available")
    source = Path(data) / "otel-agent-traces"
    if not source.is_dir():
        pytest.skip(f"{source} is missing")
    example = REPO / "examples" / "otel-genai"
    checks = (
        "[required-tools, clock-before-write, no-failed-spans, no-loops, llm-budget, steps-answer]"
    )
    (tmp_path / "validator.yaml").write_text(
        f"cases: {example / 'cases'}\nspecs: [{example / 'specs'}]\nfixtures: captured\n"
        f"packs: []\nchecks: {checks}\ntraces:\n  view: otel-genai\ntarget:\n"
        f"  command: [{sys.executable}, -c, 'import sys; sys.stdout.write(open(sys.argv[1]).read())',"
        f" '{source}/{{case_id}}.json']\n",
        encoding="utf-8",
    )
    code, out, _ = cli(capsys, "run", "--capture", "--out", "captured-report")
    assert "7 captured" in out
    captured = json.loads((tmp_path / "captured-report" / "report.json").read_text("utf-8"))
    in_place = main(["run", "--fixtures", str(source), "--out", "in-place", "-q"])
    capsys.readouterr()
    assert in_place == code
    expected = json.loads((tmp_path / "in-place" / "report.json").read_text("utf-8"))
    assert {c["case_id"]: c["status"] for c in captured["cases"]} == {
        c["case_id"]: c["status"] for c in expected["cases"]
    }


def test_workers_are_gone_after_a_capture(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite(tmp_path, http_target(agent))
    assert cli(capsys, "capture")[0] == 0
    assert not [t for t in threading.enumerate() if t.name.startswith("capture-")]


def test_case_keys_fill_templates_and_a_missing_one_fails_without_a_request(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # forbidden_verdicts: set by one case, [] (its spec's default) for the others;
    # degraded_markers: set by none, its spec's default null.
    body = (
        '{"question": "{question}", "session": "eval-{case_id}-{run}",'
        ' "fv": "{forbidden_verdicts}", "dm": "{degraded_markers}"}'
    )
    suite(tmp_path, http_target(agent).replace(BODY, body))
    assert cli(capsys, "capture")[0] == 0
    sent = {r["case"]: r["body"] for r in agent.requests}
    assert (sent["redis-memory-eviction"]["fv"], sent["redis-memory-eviction"]["dm"]) == (
        '["REJECT"]',
        "null",
    )
    assert sent["mysql-slow-query"]["fv"] == "[]"
    # min_passes: a core key no case sets, with no default.
    suite(tmp_path, http_target(agent).replace(BODY, '{"k": "{min_passes}"}'))
    code, out, _ = cli(capsys, "capture", "--overwrite", "--case", "mysql-slow-query")
    assert code == 1 and "1 failed" in out
    assert len(agent.requests) == 6
    (run,) = log(tmp_path)["runs"]
    assert run["attempts"] == 0
    assert run["error"] == (
        "case 'mysql-slow-query' does not set min_passes, which the target's {min_passes}"
        f" needs: set it in {CASES / 'mysql-slow-query.yaml'}"
    )


def test_an_overwrite_that_fails_keeps_the_old_trace_and_run_reports_the_error(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite(tmp_path, http_target(agent, "  retries: 0\n"))
    assert cli(capsys, "capture", "--case", "mysql-slow-query")[0] == 0
    saved = tmp_path / "captured" / "mysql-slow-query.json"
    old = saved.read_bytes()
    agent.modes["mysql-slow-query"] = "500"
    code, _, _ = cli(capsys, "run", "--capture", "--overwrite", "--case", "mysql-slow-query")
    assert code == 1
    assert saved.read_bytes() == old
    (case,) = report(tmp_path)["cases"]
    assert case["status"] == "error"
    assert case["reason"].startswith("capture failed: the agent answered HTTP 500")


def test_a_progress_bar_on_a_terminal_only(agent: Agent, tmp_path: Path) -> None:
    import pty

    suite(tmp_path, http_target(agent))
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "validator", "capture"],
            cwd=tmp_path, stdout=subprocess.PIPE, stderr=follower, text=True, timeout=60,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )  # fmt: skip
        os.close(follower)
        shown = b""
        while True:
            try:
                piece = os.read(leader, 65536)
            except OSError:
                break
            if not piece:
                break
            shown += piece
    finally:
        os.close(leader)
    assert done.returncode == 0
    assert b"capturing [" in shown and b"6/6 runs" in shown
    assert "capturing [" not in done.stdout  # a pipe gets no bar


def test_retry_after_is_read_as_seconds_or_an_http_date() -> None:
    from validator.capture.transport import retry_after

    now = 1_445_412_480.0  # Wed, 21 Oct 2015 07:28:00 GMT
    assert retry_after("3", now) == 3.0
    assert retry_after(" 1.5 ", now) == 1.5
    assert retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now) == 30.0
    assert retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now) == 0.0  # in the past: now
    assert retry_after("-5", now) == 0.0
    assert retry_after("soon", now) is None  # unreadable: the backoff applies
    assert retry_after(None, now) is None


def test_a_missing_cases_path_the_flag_replaces_does_not_stop_capture(
    agent: Agent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As for run: `cases:` names a folder not on this machine, and --cases gives the real one.
    config = suite(tmp_path, http_target(agent))
    text = config.read_text("utf-8").replace(f"cases: {CASES}", "cases: not-here/cases")
    config.write_text(text, "utf-8")
    code, _, err = cli(capsys, "capture")
    assert code == 2
    assert 'validator.yaml:1:8: error: cases: "not-here/cases" does not exist' in err
    code, out, _ = cli(capsys, "capture", "--cases", str(CASES))
    assert code == 0, out
    assert "capture: 6 runs of 6 cases: 6 captured, 0 kept" in out
