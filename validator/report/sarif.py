"""report.sarif: findings as SARIF 2.1.0, for code-scanning views (GitHub, Azure DevOps, IDEs).

One result per failed check of each run, `ruleId` the check id. A run in error, a case
without a trace and a trace that matches no case are results too (rules `run-error`,
`not-run`, `unmatched-trace`), so a red run never shows "no findings". Level `error` when the
finding fails the run; `warning` when it does not: the case is quarantined, or it passed on
its min_passes / min_pass_rate with this run failing.

Each result is located, first, at the case file, on the line and column of the case key the
check used (`allowed_verdicts:`; the case's `id` when the key is not written), and second at
the trace file, on the region of the value the check read (see `commands/locate.py`); both
as paths relative to the folder the run started in (`%SRCROOT%`), columns counted in Unicode
code points. A report read back from JSON has no sources: results are then located at the
files without a region.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from .document import Report
from .sources import Location, Region

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"

# Findings that are no check's: their rules.
_OWN_RULES = {
    "run-error": "The trace could not be evaluated (unreadable, not JSON, or not a trace).",
    "not-run": "The case has no trace to evaluate.",
    "unmatched-trace": "A trace names no case of the suite.",
}

# The SARIF level of a failed check that did not fail its run, by its severity.
_LEVELS = {"warning": "warning", "info": "note"}


def uri(path: str) -> tuple[str, str | None]:
    """A file's URI and base: relative to %SRCROOT% when relative, file:// when absolute."""
    pure = PurePath(path)
    if pure.is_absolute():
        return pure.as_uri(), None
    return quote(pure.as_posix(), safe="/"), SRCROOT


def _region(region: Region | None) -> dict[str, int] | None:
    if region is None:
        return None
    out = {"startLine": region.line}
    if region.column is not None:
        out["startColumn"] = region.column
    if region.end_line is not None:
        out["endLine"] = region.end_line
    if region.end_column is not None:
        out["endColumn"] = region.end_column
    return out


def _location(where: Location) -> dict[str, Any]:
    address, base = uri(where.file)
    artifact: dict[str, Any] = {"uri": address}
    if base:
        artifact["uriBaseId"] = base
    physical: dict[str, Any] = {"artifactLocation": artifact}
    region = _region(where.region)
    if region:
        physical["region"] = region
    return {"physicalLocation": physical, "message": {"text": where.what}}


class _Results:
    """The results of one report, with the rules they use."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.sources = report.sources
        self.rules: dict[str, str | None] = {}
        self.results: list[dict[str, Any]] = []

    def _add(
        self,
        rule: str,
        level: str,
        text: str,
        locations: list[Location | None],
        properties: dict[str, Any],
    ) -> None:
        if rule not in self.rules:
            own = _OWN_RULES.get(rule)
            self.rules[rule] = own or (
                self.sources.check_description(rule) if self.sources else None
            )
        result: dict[str, Any] = {"ruleId": rule, "level": level, "message": {"text": text}}
        placed = [_location(where) for where in locations if where is not None]
        cases = (self.report.head.get("inputs") or {}).get("cases")
        if not placed and isinstance(cases, str) and cases:
            # Code scanning refuses a result without a location: the cases' path at least.
            placed = [_location(Location(cases, None, "the cases"))]
        if placed:
            result["locations"] = placed
        result["properties"] = properties
        self.results.append(result)

    def _case_place(self, row: dict[str, Any], check: str, message: str) -> Location | None:
        if self.sources is None:  # a report read back from JSON does not name case files
            return None
        file = self.sources.case_file(row["case_id"])
        return self.sources.case_location(file, check, message) if file else None

    def _trace_place(self, fixture: Any, check: str, message: str) -> Location | None:
        if not isinstance(fixture, str) or not fixture:
            return None
        if self.sources is not None:
            return self.sources.trace_location(fixture, check, message)
        return _plain_trace(fixture)

    def case(self, row: dict[str, Any]) -> None:
        level = "warning" if row["status"] == "pass" or "quarantined" in row else "error"
        props: dict[str, Any] = {"caseId": row["case_id"], "caseStatus": row["status"]}
        if "quarantined" in row:
            props["quarantined"] = row["quarantined"]
        items = row["runs"].get("items")
        for run in items if items else [row]:
            self.run(row, run, level, props)

    def run(
        self, row: dict[str, Any], run: dict[str, Any], level: str, props: dict[str, Any]
    ) -> None:
        fixture = run.get("fixture")
        name = (
            f"{row['case_id']} [{os.path.basename(fixture)}]"
            if row["runs"].get("items") and fixture
            else row["case_id"]
        )
        props = {**props, "fixture": fixture} if fixture else props
        status = run["status"]
        if status == "fail":
            for failed in run["failed_checks"]:
                check, message = failed["check"], failed["message"]
                places = [
                    self._case_place(row, check, message),
                    self._trace_place(fixture, check, message),
                ]
                self._add(check, level, f"{name}: {check}: {message}", places, props)
        elif status == "error":
            places = [self._trace_place(fixture, "", "") or self._case_place(row, "", "")]
            self._add("run-error", level, f"{name}: {run.get('reason')}", places, props)
        elif status == "not_run":
            places = [self._case_place(row, "", "")]
            self._add("not-run", level, f"{name}: {run.get('reason')}", places, props)
        for warned in run.get("failed_warnings") or ():
            # A failed warning check is a SARIF warning, an info check a note: never an error,
            # since neither failed the run.
            check, message = warned["check"], warned["message"]
            places = [
                self._case_place(row, check, message),
                self._trace_place(fixture, check, message),
            ]
            severity = warned.get("severity")
            text = f"{name}: {check} ({severity}): {message}"
            self._add(check, _LEVELS.get(severity, "warning"), text, places, props)

    def unmatched(self, trace: dict[str, Any]) -> None:
        fixture = trace.get("fixture")
        self._add(
            "unmatched-trace",
            "error",
            f"{fixture}: {trace.get('reason')}",
            [self._trace_place(fixture, "", "")],
            {"caseId": trace.get("case_id")},
        )


def _plain_trace(fixture: str) -> Location:
    """A trace without sources to look in: a JSON Lines entry (`export.jsonl:12`) at its line."""
    name, colon, number = fixture.rpartition(":")
    if colon and number.isdigit() and name.endswith(".jsonl"):
        return Location(name, Region(int(number)), "the trace")
    return Location(fixture, None, "the trace")


def document(report: Report) -> dict[str, Any]:
    """The SARIF log as plain data."""
    found = _Results(report)
    for row in report.cases():
        found.case(row)
    for trace in report.unmatched:
        found.unmatched(trace)
    rule_ids = sorted(found.rules)
    index = {rule: i for i, rule in enumerate(rule_ids)}
    for result in found.results:
        result["ruleIndex"] = index[result["ruleId"]]
    tool = report.head.get("tool", {})
    rules = []
    for rule in rule_ids:
        entry: dict[str, Any] = {"id": rule}
        if found.rules[rule]:
            entry["shortDescription"] = {"text": found.rules[rule]}
        rules.append(entry)
    invocation: dict[str, Any] = {"executionSuccessful": True}
    notes = report.sources.notes() if report.sources is not None else []
    if notes:
        invocation["toolExecutionNotifications"] = [
            {"level": "note", "message": {"text": note}} for note in notes
        ]
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": str(tool.get("name") or "trace-validator"),
                        "version": str(tool.get("version") or ""),
                        "rules": rules,
                    }
                },
                "invocations": [invocation],
                "originalUriBaseIds": {
                    SRCROOT: {"description": {"text": "the folder the run was started in"}}
                },
                "columnKind": "unicodeCodePoints",
                "results": found.results,
            }
        ],
    }


def chunks(report: Report) -> Iterator[str]:
    """report.sarif: indented JSON, one result per failed check."""
    yield json.dumps(document(report), indent=2, ensure_ascii=False, allow_nan=False)
    yield "\n"
