"""report.sarif: findings as SARIF 2.1.0, for code-scanning views (GitHub, Azure DevOps, IDEs).

One result per failed check of each run, `ruleId` the check id. A run in error, a case
without a trace and a trace that matches no case are results too (rules `run-error`,
`not-run`, `unmatched-trace`), so a red run never shows "no findings". Level `error` when the
finding fails the run; `warning` when it does not: the case is quarantined, or it passed on
its min_passes / min_pass_rate with this run failing.

Each result is located, first, at the case file, on the line and column of the case key the
check used (`allowed_verdicts:`; the case's `id` when the key is not written), and second at
the trace file, on the region of the value the check read (see `commands/locate.py`); both
as paths relative to the repository root (`%SRCROOT%`: the top of the git work tree holding
the working folder, else the working folder; `Report.sarif_root` overrides it), columns
counted in Unicode code points. A file outside that root is no location code scanning can
show: it is named in the result's message instead. A report read back from JSON has no
sources: results are then located at the files without a region.

A message starts with what failed (`<rule>: ` and the check's message), then names the case,
so that readers grouping by message (sarif-tools' summary) group by check. Each result's
`partialFingerprints` hash its rule, case and check (and the run's trace name when the case
has several runs), so a finding keeps its identity from one run to the next. Each rule has a
full description, Markdown help, a `helpUri` to its documentation page and a default level.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import Any
from urllib.parse import quote

from ..repository import repository_root
from .document import Report
from .sources import Location, Region

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT = "traceValidatorFinding/v1"
# Where helpUri points: the documentation page, relative to the docs folder of trace-validator
# (the repository and the sdist hold it); Report.sarif_docs_url makes it absolute.
DOCS = "docs/"

# Findings that are no check's: their rules (description, help, docs page).
_OWN_RULES = {
    "run-error": (
        "The trace could not be evaluated (unreadable, not JSON, or not a trace).",
        "Open the trace named in the result: it is missing, too large, not JSON, or not the"
        " shape its view reads. `python -m validator explain CASE --fixtures FILE` shows why.",
    ),
    "not-run": (
        "The case has no trace to evaluate.",
        "Save a trace for the case under the fixtures folder (its file named after the case"
        " id), or capture one with `python -m validator capture --case ID`.",
    ),
    "unmatched-trace": (
        "A trace names no case of the suite.",
        "Rename the trace after the case it belongs to, add the case, or pass"
        " `--allow-unmatched` when such traces are expected.",
    ),
}
_OWN_PAGE = "outputs.md"
_CHECK_PAGE = "writing-specs.md"

# The SARIF level of a failed check that did not fail its run, by its severity.
_LEVELS = {"warning": "warning", "info": "note"}
# A rule's default level, by its check's severity.
_DEFAULT_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def uri(path: str, root: Path | None = None) -> tuple[str, str | None] | None:
    """A file's URI relative to `root` (default: the working folder) and its base
    (%SRCROOT%); None when the file is outside the root."""
    pure = PurePath(path)
    where = Path(os.path.abspath(pure))
    base = Path(os.path.abspath(root or Path.cwd()))
    try:
        relative = where.relative_to(base)
    except ValueError:
        return None
    return quote(relative.as_posix(), safe="/"), SRCROOT


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


def _location(where: Location, root: Path) -> dict[str, Any] | None:
    found = uri(where.file, root)
    if found is None:
        return None
    address, base = found
    artifact: dict[str, Any] = {"uri": address}
    if base:
        artifact["uriBaseId"] = base
    physical: dict[str, Any] = {"artifactLocation": artifact}
    region = _region(where.region)
    if region:
        physical["region"] = region
    return {"physicalLocation": physical, "message": {"text": where.what}}


def fingerprint(*parts: str) -> str:
    """A stable hash of a finding's identity (rule, case, check, run)."""
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()[:32]


class _Results:
    """The results of one report, with the rules they use."""

    def __init__(self, report: Report, root: Path) -> None:
        self.report = report
        self.sources = report.sources
        self.root = root
        self.rules: set[str] = set()
        self.results: list[dict[str, Any]] = []

    def _add(
        self,
        rule: str,
        level: str,
        text: str,
        locations: list[Location | None],
        properties: dict[str, Any],
        identity: tuple[str, ...],
    ) -> None:
        self.rules.add(rule)
        placed, outside = [], []
        for where in locations:
            if where is None:
                continue
            located = _location(where, self.root)
            if located is None:
                outside.append(where.file)
            else:
                placed.append(located)
        cases = (self.report.head.get("inputs") or {}).get("cases")
        if not placed and isinstance(cases, str) and cases:
            # Code scanning refuses a result without a location: the cases' path at least.
            located = _location(Location(cases, None, "the cases"), self.root)
            placed = [located] if located else []
        if outside:
            named = ", ".join(outside)
            text += f" [outside the repository root, not located: {named}]"
        result: dict[str, Any] = {"ruleId": rule, "level": level, "message": {"text": text}}
        if placed:
            result["locations"] = placed
        result["partialFingerprints"] = {FINGERPRINT: fingerprint(rule, *identity)}
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
        case_id = row["case_id"]
        label = os.path.basename(fixture) if row["runs"].get("items") and fixture else ""
        name = f"{case_id} [{label}]" if label else case_id
        props = {**props, "fixture": fixture} if fixture else props
        status = run["status"]
        if status == "fail":
            for failed in run["failed_checks"]:
                check, message = failed["check"], failed["message"]
                places = [
                    self._case_place(row, check, message),
                    self._trace_place(fixture, check, message),
                ]
                text = f"{check}: {message} (case {name})"
                self._add(check, level, text, places, props, (case_id, check, label))
        elif status == "error":
            places = [self._trace_place(fixture, "", "") or self._case_place(row, "", "")]
            text = f"run-error: {run.get('reason')} (case {name})"
            self._add("run-error", level, text, places, props, (case_id, "", label))
        elif status == "not_run":
            places = [self._case_place(row, "", "")]
            text = f"not-run: {run.get('reason')} (case {name})"
            self._add("not-run", level, text, places, props, (case_id, "", label))
        for warned in run.get("failed_warnings") or ():
            # A failed warning check is a SARIF warning, an info check a note: never an error,
            # since neither failed the run.
            check, message = warned["check"], warned["message"]
            places = [
                self._case_place(row, check, message),
                self._trace_place(fixture, check, message),
            ]
            severity = warned.get("severity")
            text = f"{check}: {severity}: {message} (case {name})"
            level_of = _LEVELS.get(severity, "warning")
            self._add(check, level_of, text, places, props, (case_id, check, label))

    def unmatched(self, trace: dict[str, Any]) -> None:
        fixture = trace.get("fixture")
        self._add(
            "unmatched-trace",
            "error",
            f"unmatched-trace: {trace.get('reason')} (trace {fixture})",
            [self._trace_place(fixture, "", "")],
            {"caseId": trace.get("case_id")},
            (str(fixture), ""),
        )

    def rule(self, rule: str, docs_url: str) -> dict[str, Any]:
        """A rule's entry: its descriptions, Markdown help, docs page and default level."""
        own = _OWN_RULES.get(rule)
        sources = self.sources
        if own is not None:
            full, help_text, page, level = own[0], own[1], _OWN_PAGE, "error"
        else:
            described = sources.check_description(rule) if sources else None
            full = described or f"The check {rule} of the suite's specs."
            severity = (sources.check_severity(rule) if sources else None) or "error"
            level = _DEFAULT_LEVELS.get(severity, "error")
            help_text = (
                f"**{rule}** (severity {severity}): {full.rstrip('.')}. The result's message says"
                " what the trace held; the first location is the case key the check read, the"
                " second the value in the trace. `python -m validator explain CASE` shows each"
                " step of the check."
            )
            page = _CHECK_PAGE
        return {
            "id": rule,
            "shortDescription": {"text": _first_sentence(full)},
            "fullDescription": {"text": full},
            "help": {"text": help_text, "markdown": help_text},
            "helpUri": f"{docs_url}{page}",
            "defaultConfiguration": {"level": level},
        }


def _first_sentence(text: str) -> str:
    head, dot, rest = text.partition(". ")
    return head + "." if dot and rest else text


def _plain_trace(fixture: str) -> Location:
    """A trace without sources to look in: a JSON Lines entry (`export.jsonl:12`) at its line."""
    name, colon, number = fixture.rpartition(":")
    if colon and number.isdigit() and name.endswith(".jsonl"):
        return Location(name, Region(int(number)), "the trace")
    return Location(fixture, None, "the trace")


def sarif_root(report: Report) -> Path:
    """The folder SARIF's URIs are relative to: the report's (--sarif-root), else the top
    of the git work tree holding the working folder, else the working folder."""
    if report.sarif_root is not None:
        return report.sarif_root
    return repository_root() or Path.cwd()


def document(report: Report) -> dict[str, Any]:
    """The SARIF log as plain data."""
    root = sarif_root(report)
    found = _Results(report, root)
    for row in report.cases():
        found.case(row)
    for trace in report.unmatched:
        found.unmatched(trace)
    rule_ids = sorted(found.rules)
    index = {rule: i for i, rule in enumerate(rule_ids)}
    for result in found.results:
        result["ruleIndex"] = index[result["ruleId"]]
    tool = report.head.get("tool", {})
    docs_url = report.sarif_docs_url or DOCS
    rules = [found.rule(rule, docs_url) for rule in rule_ids]
    driver: dict[str, Any] = {
        "name": str(tool.get("name") or "trace-validator"),
        "version": str(tool.get("version") or ""),
    }
    if report.sarif_docs_url:  # an absolute URI, as SARIF wants it: only when given
        driver["informationUri"] = report.sarif_docs_url
    driver["rules"] = rules
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
                "tool": {"driver": driver},
                "invocations": [invocation],
                "originalUriBaseIds": {
                    SRCROOT: {
                        "description": {
                            "text": "the repository root (the top of the git work tree the"
                            " run was started in, else the folder it was started in)"
                        }
                    }
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
