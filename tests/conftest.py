"""Shared test helpers: run the command line in-process and build small suites on disk."""

from __future__ import annotations

import contextlib
import difflib
import io
import json
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent  # support files: data/, hostile/, lint/


@dataclass
class Result:
    code: int
    out: str
    err: str

    def report(self, out_dir: Path) -> dict[str, Any]:
        return json.loads((out_dir / "report.json").read_text("utf-8"))


def run_cli(*args: str, cwd: Path | None = None) -> Result:
    """Run `python -m validator ARGS` in this process (fast) and capture what it prints."""
    from validator.cli import main

    out, err = io.StringIO(), io.StringIO()
    old = Path.cwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse usage errors
                code = int(exc.code or 0)
    finally:
        os.chdir(old)
    return Result(code, out.getvalue(), err.getvalue())


def markdown_table(markdown: str, first_header: str) -> list[list[str]]:
    """Rows (header first) of the table whose first header cell is given, parsed by markdown-it-py."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    tables: list[list[list[str]]] = []
    row: list[str] = []
    for i, tok in enumerate(tokens):
        if tok.type == "table_open":
            tables.append([])
        elif tok.type == "tr_open":
            row = []
        elif tok.type in ("th_open", "td_open"):
            row.append(tokens[i + 1].content)
        elif tok.type == "tr_close":
            tables[-1].append(row)
    return next(t for t in tables if t[0][0] == first_header)


GOOD_CASE: dict[str, Any] = {
    "id": "db-slow",
    "question": "Why is the order API slow?",
    "root_cause_keywords": [["slow query", "慢查询"], "missing index"],
    "required_tools": ["mysql_slow_log", "mysql_explain"],
    "allowed_verdicts": ["PASS"],
    "forbidden_keywords": ["drop table"],
}


def skip_if_sigint_ignored(signum: int) -> None:
    """Skip a test that interrupts a run with SIGINT when this process ignores SIGINT (a
    background job of a non-interactive shell): the run it starts inherits that, and keeps
    ignoring it as a run started with `nohup` or `&` should."""
    if signum == signal.SIGINT and signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        pytest.skip(
            "SIGINT is ignored in this process (started in the background), so in the run too"
        )


def good_trace(case_id: str = "db-slow", **changes: Any) -> dict[str, Any]:
    trace: dict[str, Any] = {
        "caseId": case_id,
        "question": "Why is the order API slow?",
        "toolInvocations": [
            {"toolName": "mysql_slow_log", "arguments": {}, "status": "success", "durationMs": 10},
            {"toolName": "mysql_explain", "arguments": {}, "status": "success", "durationMs": 5},
        ],
        "executorAnswer": "A slow query on orders lacks an index on customer_ref.",
        "selfEvaluation": {
            "verifier_evaluation": {
                "verdict": "PASS",
                "reason": "supported",
                "trace_summaries": [{"tool": "mysql_explain", "summary": "type ALL"}],
            }
        },
        "finalAnswer": "A **slow query** on `orders`: missing index on customer_ref.",
        "durationMs": 1200,
    }
    trace.update(changes)
    return trace


def set_verdict(trace: dict[str, Any], verdict: Any) -> dict[str, Any]:
    trace["selfEvaluation"]["verifier_evaluation"]["verdict"] = verdict
    return trace


class Workspace:
    """A folder with cases/ and fixtures/ that tests fill, then run the CLI in."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cases = root / "cases"
        self.fixtures = root / "fixtures"
        self.out = root / "reports"
        self.cases.mkdir()
        self.fixtures.mkdir()

    def case(
        self,
        text_or_fields: str | dict[str, Any] | None = None,
        name: str | None = None,
        **changes: Any,
    ) -> Path:
        if isinstance(text_or_fields, str):
            text = text_or_fields
            name = name or "case"
        else:
            fields = dict(GOOD_CASE if text_or_fields is None else text_or_fields)
            fields.update(changes)
            text = json.dumps(fields, ensure_ascii=False, indent=2)  # JSON is YAML
            name = name or str(fields.get("id"))
        path = self.cases / f"{name}.yaml"
        path.write_text(text, "utf-8")
        return path

    def trace(self, case_id: str, content: Any, name: str | None = None) -> Path:
        path = self.fixtures / (name or f"{case_id}.json")
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, "utf-8")
        else:
            path.write_text(json.dumps(content, ensure_ascii=False), "utf-8")
        return path

    def run(self, *extra: str) -> Result:
        return run_cli(
            "run",
            "--cases",
            str(self.cases),
            "--fixtures",
            str(self.fixtures),
            "--out",
            str(self.out),
            "--jobs",
            "1",
            *extra,
            cwd=self.root,
        )

    def report(self) -> dict[str, Any]:
        return json.loads((self.out / "report.json").read_text("utf-8"))

    def case_result(self, case_id: str = "db-slow") -> dict[str, Any]:
        return next(c for c in self.report()["cases"] if c["case_id"] == case_id)


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path)


@pytest.fixture
def comparisons(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every name difflib compares a name with, for a did-you-mean (one `set_seq1` per
    candidate): the work of a suggestion, counted rather than timed."""
    seen: list[str] = []
    original = difflib.SequenceMatcher.set_seq1

    def counted(self: difflib.SequenceMatcher[str], a: str) -> None:
        seen.append(a)
        original(self, a)

    monkeypatch.setattr(difflib.SequenceMatcher, "set_seq1", counted)
    return seen


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every property test (a hypothesis `@given` test) is marked `slow`, like the fuzz, chaos,
    browser and benchmark modules (their `pytestmark`): `-m "not slow"` is the quick check."""
    for item in items:
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.slow)


def queried_views(data_set: str, name: str) -> list[dict[str, Any]]:
    """The `$.view` of every trace of the real file TRACE_DATA/<data_set>/<name>, as
    `query --json` prints it (the file read as run reads it); skipped when it is not there."""
    data = os.environ.get("TRACE_DATA")
    path = Path(data or "") / data_set / name
    if not data or not path.is_file():
        pytest.skip(f"{data_set}/{name} is not in TRACE_DATA ({data})")
    result = run_cli("query", "--json", "$.view", str(path), cwd=Path(data))
    assert result.code == 0, result.out + result.err
    return [match["value"] for match in json.loads(result.out)["matches"]]
