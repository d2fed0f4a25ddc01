"""Where a failed check's inputs are written: a line and column in the case file, a region
in the trace file. For SARIF (`report/sarif.py`) and GitHub annotations.

Only what a finding asks for is read, once: a case file is parsed again (with positions) the
first time one of its checks failed, a trace file the first time one of its runs failed. The
check's spec says what it used: the failing clause (found by the JSONPath its message starts
with) binds case keys (`{case: allowed_verdicts}`: that key's line in the case file) and
queries the trace (`$.selfEvaluation.verifier_evaluation.verdict`: that value's region in the
trace, found by walking the JSON text along the query's plain steps; a step like `[*]` or
`..` stops the walk at the value reached so far, and a value that is missing at the nearest
value that exists). Re-reading traces has a budget (`MAX_TRACE_FILES`, `MAX_TRACE_BYTES`):
past it, findings are placed at the trace file without a region, and `notes()` says so.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from ..loading.yamlfile import YamlDocument, load_yaml
from ..model import Binding, Clause, Spec, Suite
from ..problems import ProblemsFound, counted
from ..report.sources import Location, Region

MAX_TRACE_FILES = 1000
MAX_TRACE_BYTES = 256 * 1024 * 1024

_JSONL = re.compile(r"(.+):(\d+)\Z", re.DOTALL)


class FileSources:
    """`report.sources.Sources` read from the files of this run."""

    def __init__(self, suite: Suite, max_trace_bytes: int = 64 * 1024 * 1024) -> None:
        self.specs = suite.specs
        self.files = {case.id: case.file for case in suite.cases.values()}
        self.max_trace_bytes = max_trace_bytes
        self._cases: dict[str, YamlDocument | None] = {}
        self._texts: dict[str, str | None] = {}
        self._lines: dict[str, list[int] | None] = {}
        self._read_files = 0
        self._read_bytes = 0
        self._over_budget = 0

    # -- the suite -------------------------------------------------------------------------

    def case_file(self, case_id: str) -> str | None:
        return self.files.get(case_id)

    def check_description(self, check: str) -> str | None:
        spec = self.specs.get(check)
        return " ".join(spec.description.split()) if spec and spec.description else None

    def check_severity(self, check: str) -> str | None:
        spec = self.specs.get(check)
        return spec.severity if spec else None

    def _clause(self, check: str, message: str) -> tuple[Spec | None, Clause | None]:
        spec = self.specs.get(check)
        if spec is None or not spec.clauses:
            return spec, None
        for clause in spec.clauses:
            where = clause.condition.where
            if message.startswith(f"{where}:") or f"[{clause.name}] {where}:" in message:
                return spec, clause
        return spec, spec.clauses[0]

    # -- the case file ---------------------------------------------------------------------

    def case_location(self, case_file: str, check: str, message: str) -> Location | None:
        doc = self._case(case_file)
        if doc is None:
            return Location(case_file, None, "the case") if case_file else None
        spec, clause = self._clause(check, message)
        keys = _case_keys(clause) + list(spec.reads if spec else ())
        for key in keys:
            at = doc.keys.get((key,))
            if at is not None:
                return Location(case_file, Region(at.line, at.column), f"{key} in the case")
        at = doc.key_at(("id",))
        return Location(case_file, Region(at.line, at.column), "the case")

    def _case(self, case_file: str) -> YamlDocument | None:
        if case_file not in self._cases:
            try:
                self._cases[case_file] = load_yaml(Path(case_file), case_file)
            except (ProblemsFound, OSError):
                self._cases[case_file] = None
        return self._cases[case_file]

    # -- the trace file --------------------------------------------------------------------

    def trace_location(self, fixture: str, check: str, message: str) -> Location | None:
        if not fixture:
            return None
        _, clause = self._clause(check, message)
        query = (
            clause.condition.queries[0].expression if clause and clause.condition.queries else ""
        )
        what = f"{query} in the trace" if query else "the trace"
        match = _JSONL.match(fixture)
        if match and os.path.isfile(match.group(1)) and not os.path.isfile(fixture):
            return self._jsonl_location(match.group(1), int(match.group(2)), query, what)
        text = self._text(fixture)
        span = json_span(text, static_steps(query)) if text is not None and query else None
        if span is None:
            return Location(fixture, None, what)
        return Location(fixture, _region(text or "", *span), what)

    def _jsonl_location(self, file: str, number: int, query: str, what: str) -> Location:
        """A JSON Lines trace: its line always; the value's columns when the line is read."""
        line = self._line(file, number)
        span = json_span(line, static_steps(query)) if line is not None and query else None
        if span is None or line is None:
            return Location(file, Region(number), what)
        start, end = span
        if "\n" in line[start:end]:  # a value spread over lines cannot be in one line
            return Location(file, Region(number), what)
        return Location(file, Region(number, start + 1, number, end + 1), what)

    def _budget(self, size: int) -> bool:
        if self._read_files >= MAX_TRACE_FILES or self._read_bytes + size > MAX_TRACE_BYTES:
            self._over_budget += 1
            return False
        self._read_files += 1
        self._read_bytes += size
        return True

    def _text(self, fixture: str) -> str | None:
        if fixture not in self._texts:
            self._texts[fixture] = None
            try:
                size = os.stat(fixture).st_size
                if size <= self.max_trace_bytes and self._budget(size):
                    with open(fixture, "rb") as handle:
                        raw = handle.read(self.max_trace_bytes + 1)
                    self._texts[fixture] = raw.decode("utf-8-sig", errors="replace")
            except OSError:
                pass
        return self._texts[fixture]

    def _line(self, file: str, number: int) -> str | None:
        """Line `number` (1-based) of a JSON Lines file, through an index of line starts made
        on first use (one pass over the file; within the budget)."""
        if file not in self._lines:
            self._lines[file] = None
            try:
                if self._budget(os.stat(file).st_size):
                    self._lines[file] = _line_starts(file)
            except OSError:
                pass
        starts = self._lines[file]
        if starts is None or not 1 <= number <= len(starts):
            return None
        try:
            with open(file, "rb") as handle:
                handle.seek(starts[number - 1])
                raw = handle.readline(self.max_trace_bytes + 1)
        except OSError:
            return None
        return raw.decode("utf-8", errors="replace").rstrip("\r\n")

    def notes(self) -> list[str]:
        if not self._over_budget:
            return []
        over = self._over_budget
        return [
            f"{counted(over, 'trace file')} {'was' if over == 1 else 'were'} not read again to"
            " find the value a check"
            f" used (over {MAX_TRACE_FILES} files or {MAX_TRACE_BYTES // (1024 * 1024)} MiB):"
            " their findings point at the trace file without a line"
        ]


def _case_keys(clause: Clause | None) -> list[str]:
    if clause is None:
        return []
    params: dict[str, Any] = clause.condition.params
    return [b.case for b in params.values() if isinstance(b, Binding) and b.case]


def _line_starts(file: str) -> list[int]:
    starts, offset = [], 0
    with open(file, "rb") as handle:
        for raw in handle:
            starts.append(offset)
            offset += len(raw)
    return starts


def _region(text: str, start: int, end: int) -> Region:
    line, column = _line_col(text, start)
    end_line, end_column = _line_col(text, end)
    return Region(line, column, end_line, end_column)


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


# --------------------------------------------------------------------------------------------
# JSON text, walked without building the document

_STEP = re.compile(
    r"""\.([A-Za-z_][\w-]*)|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[\s*"((?:[^"\\]|\\.)*)"\s*\]|\[\s*(\d+)\s*\]"""
)
_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def static_steps(expression: str) -> list[str | int]:
    """The plain leading steps of a JSONPath (`$.a['b'][0]` -> ['a', 'b', 0]), up to the first
    step that is not a plain name or index (`[*]`, `..`, a filter)."""
    text = expression.strip()
    if not text.startswith("$"):
        return []
    steps: list[str | int] = []
    at = 1
    while at < len(text):
        match = _STEP.match(text, at)
        if match is None:
            break
        name, single, double, index = match.groups()
        if index is not None:
            steps.append(int(index))
        else:
            steps.append(name if name is not None else (single if single is not None else double))
        at = match.end()
    return steps


def json_span(text: str, steps: list[str | int]) -> tuple[int, int] | None:
    """Offsets [start, end) of the value at `steps` in the JSON `text`, or of the deepest
    value on the way that exists; None when not even the first step exists (or the text is
    not JSON)."""
    if not steps:
        return None
    try:
        at = _WS.match(text, 1 if text.startswith("\ufeff") else 0).end()  # type: ignore[union-attr]
        found = 0
        for step in steps:
            inner = _child(text, at, step)
            if inner is None:
                break
            at, found = inner, found + 1
        if not found:
            return None
        return at, _DECODER.raw_decode(text, at)[1]
    except (ValueError, IndexError, AttributeError):
        return None


def _child(text: str, at: int, step: str | int) -> int | None:
    """Where the value of key/index `step` of the container starting at `at` starts."""
    opener = text[at]
    if (opener == "{") != isinstance(step, str) or opener not in "{[":
        return None
    at = _skip(text, at + 1)
    index = 0
    while text[at] not in "}]":
        if opener == "{":
            key, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
            at = _skip(text, at)
            at = _skip(text, at + 1)  # the ':'
            if key == step:
                return at
        elif index == step:
            return at
        at = _skip(text, _DECODER.raw_decode(text, at)[1])
        if text[at] == ",":
            at = _skip(text, at + 1)
        index += 1
    return None


def _skip(text: str, at: int) -> int:
    match = _WS.match(text, at)
    return match.end() if match else at
