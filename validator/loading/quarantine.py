"""The quarantine file (`run --quarantine FILE`): cases that are evaluated and reported but
never fail the run, each with the reason why.

    # quarantine.yaml
    - id: redis-memory-eviction
      reason: flaky since the verifier upgrade, tracked in OPS-1234

Read like case files (positions kept, every problem located at its line and column); an
entry whose id matches no case is a warning with the closest id, not an error, so removing a
case does not break a pipeline that still quarantines it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from pathlib import Path
from typing import Any

from .. import codes
from ..dataclass import dataclass
from ..files import read_file
from ..problems import ERROR, WARNING, Names, Problem, ProblemsFound, did_you_mean
from .yamlfile import MAX_FILE_BYTES, YamlDocument, load_yaml_text

KEYS = ("id", "reason")


@dataclass(frozen=True)
class Entry:
    """One quarantined case: its id, the reason given, and where the entry is written."""

    case_id: str
    reason: str
    line: int
    column: int


@dataclass
class Quarantine:
    """A quarantine file read: its entries by case id, and its warnings."""

    file: str
    entries: dict[str, Entry] = field(default_factory=dict)
    warnings: list[Problem] = field(default_factory=list)

    @property
    def reasons(self) -> dict[str, str]:
        return {case_id: entry.reason for case_id, entry in self.entries.items()}

    def unknown(self, case_ids: Iterable[str]) -> list[Problem]:
        """A warning for each entry whose id is not a case of the suite."""
        known = set(case_ids)
        suggested = Names(known)  # many entries of removed cases against many ids: cheap
        out = []
        for entry in self.entries.values():
            if entry.case_id in known:
                continue
            hint = did_you_mean(entry.case_id, suggested)
            out.append(
                Problem(
                    self.file,
                    entry.line,
                    entry.column,
                    WARNING,
                    codes.UNKNOWN_CASE,
                    f"quarantined case '{entry.case_id}' is not a case of this suite{hint}:"
                    " fix the id, or remove the entry",
                )
            )
        return out


def load_quarantine(path: Path, shown: str) -> Quarantine:
    """The quarantine file. Raises UsageError when it cannot be read, ProblemsFound (located)
    when an entry is wrong. An empty file (or one of comments only) quarantines nothing."""
    raw = read_file(
        path,
        MAX_FILE_BYTES,
        "the quarantine file",
        shown,
        "pass --quarantine with a YAML list of '- id: CASE' / 'reason: WHY' entries",
    )
    try:
        doc = load_yaml_text(raw, shown, top=list)
    except ProblemsFound as exc:
        if all(p.code == codes.EMPTY_FILE for p in exc.problems):
            return Quarantine(shown)
        raise
    quarantine = Quarantine(shown, warnings=list(doc.problems))
    errors: list[Problem] = []
    for index, item in enumerate(doc.data):
        entry = _entry(doc, index, item, errors)
        if entry is None:
            continue
        if entry.case_id in quarantine.entries:
            first = quarantine.entries[entry.case_id]
            quarantine.warnings.append(
                doc.problem(
                    (index, "id"),
                    WARNING,
                    codes.DUPLICATE_ENTRY,
                    f"case '{entry.case_id}' is already quarantined at line {first.line}:"
                    " the first entry's reason is kept; remove this one",
                )
            )
            continue
        quarantine.entries[entry.case_id] = entry
    if errors:
        raise ProblemsFound(errors)
    return quarantine


def _entry(doc: YamlDocument, index: int, item: Any, errors: list[Problem]) -> Entry | None:
    """One `{id, reason}` entry, or None after adding its problems to `errors`."""
    if not isinstance(item, dict):
        errors.append(
            doc.problem(
                (index,),
                ERROR,
                codes.WRONG_TYPE,
                "each entry is a mapping with 'id' and 'reason', such as"
                " '- id: my-case' and, below it, '  reason: flaky, see ISSUE-1'",
            )
        )
        return None
    before = len(errors)
    for key in item:
        if key not in KEYS:
            hint = did_you_mean(key, KEYS)
            errors.append(
                doc.problem(
                    (index, key),
                    ERROR,
                    codes.UNKNOWN_KEY,
                    f"unknown key '{key}'{hint}: an entry has only 'id' and 'reason'",
                    key=True,
                )
            )
    for key in KEYS:
        errors.extend(_value_problem(doc, index, item, key))
    if len(errors) > before:
        return None
    at = doc.value_at((index,))
    return Entry(item["id"], item["reason"], at.line, at.column)


def _value_problem(doc: YamlDocument, index: int, item: dict[str, Any], key: str) -> list[Problem]:
    what = "the case id" if key == "id" else "why the case is quarantined (for the report)"
    if key not in item:
        return [
            doc.problem(
                (index,), ERROR, codes.MISSING_KEY, f"this entry has no '{key}': add {what}"
            )
        ]
    value = item[key]
    if not isinstance(value, str):
        return [doc.problem((index, key), ERROR, codes.WRONG_TYPE, f"'{key}' must be text: {what}")]
    if not value.strip():
        return [
            doc.problem((index, key), ERROR, codes.EMPTY_VALUE, f"'{key}' is empty: write {what}")
        ]
    return []
