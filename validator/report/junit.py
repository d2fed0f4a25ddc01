"""report.junit.xml: the report as JUnit XML, for the test views of Jenkins, GitLab, GitHub.

One `<testsuite>` (inside `<testsuites>`, which every common reader accepts). One `<testcase>`
per case, or per run when a case has several (named `<case-id> [<trace>]`, classname the case
id so readers group the runs of a case). A case or run that failed has a `<failure>` whose
message is its reason and whose text lists each failed check with its message; `error` and
`not_run` are `<error>` elements (a missing or broken trace is not a silent pass, just as the
exit code says). Traces that match no case are errors too.

`time` is the time spent checking: a test case's, the seconds spent evaluating its trace; the
suite's, the whole run's (`Report.timing`). The agent's own duration (the trace's
`durationMs`) is no test time: it is a line of the test case's `<system-out>`, with the
failed checks of severity warning or info and the vacuity note (Jenkins' schema allows no
`<properties>` in a test case). Without timing (a report read back from JSON, or
SOURCE_DATE_EPOCH set) no `time` is written, so the output is a pure function of the report
document: same report, same bytes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

from .document import Report
from .timing import Timing

SUITE_NAME = "trace-validator"

# Characters XML 1.0 cannot carry at all (most C0 controls, lone surrogates, U+FFFE/U+FFFF):
# a trace may hold them, the XML must not.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def clean(value: Any) -> str:
    """Text safe for an XML 1.0 document: forbidden characters shown as \\xNN / \\uNNNN."""
    text = "" if value is None else str(value)

    def show(match: re.Match[str]) -> str:
        code = ord(match.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _NOT_XML.sub(show, text)


def _seconds(duration_ms: Any) -> float | None:
    if isinstance(duration_ms, (int, float)) and not isinstance(duration_ms, bool):
        return max(0.0, duration_ms / 1000)
    return None


Timed = tuple[ET.Element, float | None, str]


def _time(seconds: float) -> str:
    return f"{seconds:.3f}"


def _outcome(
    status: str, reason: Any, failed_checks: list[dict[str, Any]], fixture: Any
) -> ET.Element | None:
    if status == "pass":
        return None
    lines = [f"trace: {fixture}"] if fixture else []
    if status == "fail":
        element = ET.Element("failure", {"type": "fail", "message": clean(reason)})
        lines += [f"{f['check']}: {f['message']}" for f in failed_checks]
    else:
        element = ET.Element("error", {"type": status, "message": clean(reason)})
        if reason:
            lines.append(str(reason))
    element.text = clean("\n".join(lines)) + "\n" if lines else None
    return element


def _testcases(case: dict[str, Any], timing: Timing | None) -> list[Timed]:
    """(testcase element, seconds spent checking, status) for a case: one, or one per run."""
    case_id = case["case_id"]
    items = case["runs"].get("items")
    if not items:
        entries = [(case_id, case)]
    else:
        entries = [(f"{case_id} [{_run_label(item)}]", item) for item in items]
    out = []
    for name, entry in entries:
        seconds = timing.of(case_id, entry.get("fixture")) if timing is not None else None
        attrs = {"name": clean(name), "classname": clean(case_id)}
        if seconds is not None:
            attrs["time"] = _time(seconds)
        element = ET.Element("testcase", attrs)
        status = entry["status"]
        outcome = _outcome(
            status, entry.get("reason"), entry["failed_checks"], entry.get("fixture")
        )
        if outcome is not None and "quarantined" in case:
            # A quarantined case never fails the run: shown as skipped, with what happened.
            outcome = _quarantined(outcome, case["quarantined"])
            status = "skipped"
        if outcome is not None:
            element.append(outcome)
        output = _case_output(entry)
        if output is not None:
            element.append(output)
        out.append((element, seconds, status))
    return out


def _case_output(entry: dict[str, Any]) -> ET.Element | None:
    """The test case's `<system-out>`: what did not fail it but is worth seeing, one
    `name: value` line each: the agent's recorded duration (`agent duration`), each failed
    check of severity warning or info (a line named after its severity), and a run whose
    every check was skipped (`vacuous`)."""
    found = []
    agent = _seconds(entry.get("duration_ms"))
    if agent is not None:
        found.append(("agent duration", f"{_time(agent)} s (the trace's durationMs)"))
    found += [
        (str(w.get("severity") or "warning"), f"{w['check']}: {w['message']}")
        for w in entry.get("failed_warnings") or ()
    ]
    if entry.get("vacuous"):
        found.append(("vacuous", "every check was skipped: nothing in this trace was examined"))
    if not found:
        return None
    element = ET.Element("system-out")
    element.text = clean("".join(f"{name}: {value}\n" for name, value in found))
    return element


def _quarantined(outcome: ET.Element, reason: str) -> ET.Element:
    skipped = ET.Element(
        "skipped",
        {
            "message": clean(
                f"quarantined ({reason}): {outcome.get('type')}: {outcome.get('message')}"
            )
        },
    )
    skipped.text = outcome.text
    return skipped


def _run_label(item: dict[str, Any]) -> str:
    """A run's short name: its file name in FIXTURES/<id>/, or `file.jsonl:LINE`."""
    fixture = str(item.get("fixture") or "?")
    return fixture.rsplit("/", 1)[-1]


def _unmatched_testcase(trace: dict[str, Any]) -> Timed:
    element = ET.Element(
        "testcase", {"name": clean(trace["fixture"]), "classname": "unmatched-traces"}
    )
    reason = f"matches no case: {trace['reason']}"
    error = ET.SubElement(element, "error", {"type": "unmatched", "message": clean(reason)})
    error.text = clean(f"trace: {trace['fixture']}\n{reason}") + "\n"
    return element, None, "error"


def _properties(suite: ET.Element, report: Report) -> None:
    properties = ET.SubElement(suite, "properties")
    head, summary = report.head, report.summary
    inputs = head.get("inputs") or {}
    tool = head.get("tool") or {}
    for name, value in (
        ("tool.version", tool.get("version")),
        ("inputs.cases", inputs.get("cases")),
        ("inputs.fixtures", inputs.get("fixtures")),
        ("summary.pass_rate", summary["pass_rate"]),
        ("summary.pass_hat_k", summary["pass_hat_k"]),
        ("summary.pass_at_k", summary["pass_at_k"]),
        ("summary.flaky_cases", summary["flaky_cases"]),
    ):
        if value is not None:
            ET.SubElement(properties, "property", {"name": name, "value": clean(value)})


def chunks(report: Report) -> Iterator[str]:
    testcases: list[Timed] = []
    for case in report.cases():
        testcases += _testcases(case, report.timing)
    testcases += [_unmatched_testcase(trace) for trace in report.unmatched]
    failures = sum(status == "fail" for _, _, status in testcases)
    skipped = sum(status == "skipped" for _, _, status in testcases)
    errors = sum(status not in ("pass", "fail", "skipped") for _, _, status in testcases)
    times = {"time": _time(report.timing.total)} if report.timing is not None else {}
    counts = {
        "tests": str(len(testcases)),
        "failures": str(failures),
        "errors": str(errors),
        "skipped": str(skipped),
    }
    # <testsuites> has no `skipped` attribute in Jenkins' schema (junit-10.xsd).
    totals = {k: v for k, v in counts.items() if k != "skipped"}
    root = ET.Element("testsuites", {"name": SUITE_NAME, **totals, **times})
    timestamp = str(report.head.get("generated_at") or "").removesuffix("Z")
    suite = ET.SubElement(
        root,
        "testsuite",
        {"name": SUITE_NAME, **counts, **times, "timestamp": clean(timestamp)},
    )
    _properties(suite, report)
    for element, _, _ in testcases:
        suite.append(element)
    ET.indent(root, space="  ")
    yield '<?xml version="1.0" encoding="UTF-8"?>\n'
    yield ET.tostring(root, encoding="unicode")
    yield "\n"
