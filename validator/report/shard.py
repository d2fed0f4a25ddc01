"""Sharded runs: which shard evaluates a case, and the shard file `validator merge` reads.

`run --shard I/N` evaluates the cases whose id hashes to shard I of N (sha256 of the UTF-8
id, so a case keeps its shard when others are added or removed, on every machine and Python)
and writes, beside its reports, `report.shard.json`: everything the merge needs to build the
report set an unsharded run of the same inputs writes, byte for byte (apart from
`generated_at`), without the case, spec or trace files:

    kind, format, tool         what the file is, and the version that wrote it
    shard                      {index, count}
    suite                      every case of the run (id, file, tags) in report order, and a
                               digest of their fields and the specs: shards of one suite agree
    options                    what shapes the report and the exit code (inputs, formats,
                               gates, ks, quarantine, the baseline's digest): shards agree
    baseline                   {source, document}: the --baseline report, for the comparison
    cases                      this shard's case results (results records, as plain data)
    unmatched                  traces naming no case (shard 1 carries them all)
    unused                     [file, why] of the files this shard did not use
    sources                    the answers SARIF and annotations got about where things are in
                               the case and trace files (`RecordingSources`)
    extras                     the HTML page's answers and tool calls (report/extras.py)

The file is an internal format between one version's `run` and its `merge` (report.json
stays the public contract): merge refuses a file of another version.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import fields
from typing import Any

from ..dataclass import dataclass
from ..fastjson import dumps_compact
from ..results import CaseResult, CheckResult, ClauseResult, RunResult
from .sources import Location, Region, Sources

SHARD_FILE = "report.shard.json"
SHARD_KIND = "trace-validator shard"
SHARD_FORMAT = 1
# The most shards a run is split into: far more than any CI runs in parallel, and few enough
# that a count is never a way to make `run` or `merge` do work per shard.
MAX_SHARDS = 10_000


def shard_of(case_id: str, count: int) -> int:
    """The shard (1..count) that evaluates this case: its id's sha256, modulo count."""
    import hashlib  # here: loading OpenSSL costs every run 3 ms, and only --shard needs it

    digest = hashlib.sha256(case_id.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


@dataclass(frozen=True)
class Shard:
    """One shard of a run (`--shard I/N`): the cases whose ids hash to it."""

    index: int  # 1-based
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`I/N` with 1 <= I <= N. Raises ValueError with a message for the user."""
        index, slash, count = text.strip().partition("/")
        if not (slash and index.strip().isdigit() and count.strip().isdigit()):
            raise ValueError(f"'{text}' is not I/N: write the shard and the count, e.g. 2/4")
        i, n = int(index), int(count)
        if n < 1:
            raise ValueError(f"'{text}': the count of shards must be at least 1, e.g. 1/4")
        if n > MAX_SHARDS:
            raise ValueError(
                f"'{text}': at most {MAX_SHARDS:,} shards; split the cases into fewer, e.g."
                f" {min(i, 100)}/100"
            )
        if not 1 <= i <= n:
            raise ValueError(f"'{text}': shards are numbered 1 to {n}, e.g. 1/{n} ... {n}/{n}")
        return cls(i, n)

    @property
    def text(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, case_id: str) -> bool:
        return shard_of(case_id, self.count) == self.index


# --------------------------------------------------------------------------------------------
# Results records as plain data, and back


# Every field of every record is written, by name (dataclasses.fields): a field added to a
# record later travels through a shard file without a change here, and merge then rebuilds
# the same records. The nested lists (a run's checks, a check's clauses, a case's runs) are
# the only fields that are records themselves.
_NESTED: dict[type, dict[str, type]] = {
    CaseResult: {"runs": RunResult},
    RunResult: {"checks": CheckResult},
    CheckResult: {"clauses": ClauseResult},
    ClauseResult: {},
}


def _data(record: Any) -> dict[str, Any]:
    nested = _NESTED[type(record)]
    out: dict[str, Any] = {}
    for f in fields(record):
        if f.metadata.get("cache"):  # made again from the other fields where needed
            continue
        value = getattr(record, f.name)
        if f.name in nested:
            value = [_data(item) for item in value]
        elif isinstance(value, list):
            value = list(value)
        out[f.name] = value
    return out


def _record(kind: type, data: dict[str, Any]) -> Any:
    nested = _NESTED[kind]
    known = {f.name for f in fields(kind)}
    unknown = set(data) - known
    if unknown:  # written by another version: merge checks the version first
        raise ValueError(f"unknown {kind.__name__} fields: {', '.join(sorted(unknown))}")
    values = {
        name: [_record(nested[name], item) for item in value] if name in nested else value
        for name, value in data.items()
    }
    return kind(**values)


def run_data(run: RunResult) -> dict[str, Any]:
    return _data(run)


def run_from(data: dict[str, Any]) -> RunResult:
    run: RunResult = _record(RunResult, data)
    return run


def case_data(case: CaseResult) -> dict[str, Any]:
    return _data(case)


def case_from(data: dict[str, Any]) -> CaseResult:
    case: CaseResult = _record(CaseResult, data)
    return case


# --------------------------------------------------------------------------------------------
# Where things are in the files: asked once in the shard, answered from the record in merge


def _location_data(where: Location | None) -> list[Any] | None:
    if where is None:
        return None
    r = where.region
    region = None if r is None else [r.line, r.column, r.end_line, r.end_column]
    return [where.file, region, where.what]


def _location_from(data: list[Any] | None) -> Location | None:
    if data is None:
        return None
    file, region, what = data
    return Location(file, None if region is None else Region(*region), what)


class RecordingSources:
    """A `Sources` that remembers every answer it gave, for the shard file."""

    def __init__(self, inner: Sources) -> None:
        self.inner = inner
        self.case_files: dict[str, str | None] = {}
        self.descriptions: dict[str, str | None] = {}
        self.severities: dict[str, str | None] = {}
        self.case_places: dict[tuple[str, str, str], Location | None] = {}
        self.trace_places: dict[tuple[str, str, str], Location | None] = {}

    def case_file(self, case_id: str) -> str | None:
        if case_id not in self.case_files:
            self.case_files[case_id] = self.inner.case_file(case_id)
        return self.case_files[case_id]

    def check_description(self, check: str) -> str | None:
        if check not in self.descriptions:
            self.descriptions[check] = self.inner.check_description(check)
        return self.descriptions[check]

    def check_severity(self, check: str) -> str | None:
        if check not in self.severities:
            self.severities[check] = self.inner.check_severity(check)
        return self.severities[check]

    def case_location(self, case_file: str, check: str, message: str) -> Location | None:
        key = (case_file, check, message)
        if key not in self.case_places:
            self.case_places[key] = self.inner.case_location(case_file, check, message)
        return self.case_places[key]

    def trace_location(self, fixture: str, check: str, message: str) -> Location | None:
        key = (fixture, check, message)
        if key not in self.trace_places:
            self.trace_places[key] = self.inner.trace_location(fixture, check, message)
        return self.trace_places[key]

    def notes(self) -> list[str]:
        return self.inner.notes()

    def data(self) -> dict[str, Any]:
        return {
            "case_files": self.case_files,
            "descriptions": self.descriptions,
            "severities": self.severities,
            "case_places": [[*k, _location_data(v)] for k, v in self.case_places.items()],
            "trace_places": [[*k, _location_data(v)] for k, v in self.trace_places.items()],
            "notes": self.notes(),
        }


class RecordedSources:
    """The `Sources` of a merged report: the shards' recorded answers, together. A question
    no shard was asked (a partial merge) gets no place, as a report read from JSON would."""

    def __init__(self, records: Iterable[dict[str, Any]]) -> None:
        self.case_files: dict[str, str | None] = {}
        self.descriptions: dict[str, str | None] = {}
        self.severities: dict[str, str | None] = {}
        self.places: dict[tuple[str, str, str, str], Location | None] = {}
        self._notes: list[str] = []
        for record in records:
            self.case_files.update(record["case_files"])
            self.descriptions.update(record["descriptions"])
            self.severities.update(record.get("severities") or {})
            for kind in ("case_places", "trace_places"):
                for file, check, message, where in record[kind]:
                    self.places[(kind, file, check, message)] = _location_from(where)
            self._notes += [n for n in record["notes"] if n not in self._notes]

    def case_file(self, case_id: str) -> str | None:
        return self.case_files.get(case_id)

    def check_description(self, check: str) -> str | None:
        return self.descriptions.get(check)

    def check_severity(self, check: str) -> str | None:
        return self.severities.get(check)

    def case_location(self, case_file: str, check: str, message: str) -> Location | None:
        return self.places.get(("case_places", case_file, check, message))

    def trace_location(self, fixture: str, check: str, message: str) -> Location | None:
        return self.places.get(("trace_places", fixture, check, message))

    def notes(self) -> list[str]:
        return list(self._notes)


# --------------------------------------------------------------------------------------------
# The file


def digest(value: Any) -> str:
    """sha256 of a plain value's canonical JSON (sorted keys), for "the same?" checks."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def shard_chunks(document: dict[str, Any], cases: Iterable[CaseResult] = ()) -> Iterator[str]:
    """The shard file's text, in pieces: the text `json.dumps(document, separators=(",",
    ":"))` gives, with its "cases" made from `cases` one case at a time (the document holds
    CASES_HERE in their place), so the runs of every case are never plain data all at once.
    Encoded by `fastjson.dumps_compact`, as report.json's rows are."""
    yield "{"
    for index, (key, value) in enumerate(document.items()):
        yield ("," if index else "") + dumps_compact(key) + ":"
        if value is CASES_HERE:
            yield "["
            for number, case in enumerate(cases):
                yield ("," if number else "") + dumps_compact(case_data(case))
            yield "]"
        else:
            yield dumps_compact(value)
    yield "}\n"


# The place of the "cases" in the document given to `shard_chunks`.
CASES_HERE: Any = object()
