"""`run --shard I/N`: the shard's cases, and the shard file it writes for `validator merge`.

What a shard evaluates: the selected cases (after --case/--tag) whose id hashes to it
(`report.shard.Shard`); the files of the other shards' cases are not read. Traces naming no
case are reported by shard 1 only, so a merge lists each once, in trace order. The shard's
own reports (and exit code) cover its cases; the shard file carries what `merge` needs to
write the report set of the whole run (see `report/shard.py` for its shape).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..dataclass import dataclass
from ..model import Suite
from ..report import SOURCES, ExtraFile, needed
from ..report.baseline import Baseline
from ..report.document import TOOL_NAME, Report
from ..report.shard import (
    CASES_HERE,
    SHARD_FILE,
    SHARD_FORMAT,
    SHARD_KIND,
    RecordingSources,
    Shard,
    digest,
    run_data,
    shard_chunks,
)
from ..results import CaseResult, RunResult
from ..version import __version__
from .gating import annotation_lines


def shard_reports_unmatched(shard: Shard | None) -> bool:
    """Whether this run lists the traces that match no case: every run but shards 2..N
    (shard 1 lists them, so that a merge lists each once)."""
    return shard is None or shard.index == 1


def shard_suite(suite: Suite, shard: Shard | None) -> Suite:
    """The cases of this shard (the whole suite without --shard)."""
    if shard is None:
        return suite
    return suite.restricted({c for c in suite.cases if shard.owns(c)})


def shard_baseline(baseline: Baseline | None, shard: Shard | None) -> Baseline | None:
    """A shard's own report compares its cases with the baseline's cases of the same shard."""
    if baseline is None or shard is None:
        return baseline
    keep = baseline.keep

    def owns(case: dict[str, Any]) -> bool:
        return shard.owns(case["case_id"]) and (keep is None or keep(case))

    return replace(baseline, keep=owns)


def _file_digest(path: str) -> str | None:
    import hashlib  # here: loading OpenSSL costs every run 3 ms, and only --shard needs it

    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def suite_identity(suite: Suite) -> dict[str, Any]:
    """Every case of the run (all shards'), and a digest of the cases' fields and the spec
    files, so that merge can tell shards of different checkouts apart."""
    cases = [{"id": c.id, "file": c.file, "tags": list(c.tags)} for c in suite.cases.values()]
    fields = [[c.id, c.file, c.fields] for c in suite.cases.values()]
    specs = [[s.id, s.file, _file_digest(s.file)] for s in suite.specs.values()]
    return {"cases": cases, "digest": digest([fields, specs, suite.default_checks])}


def options_data(
    options: Any, inputs: dict[str, Any], quarantine: Any, baseline: Baseline | None
) -> dict[str, Any]:
    """What shapes the merged report and its exit code; every shard of a run must agree.
    `options`: the run's RunOptions; its gate is recorded whole (`Gate.to_json`), and merge
    judges with it."""
    return {
        "inputs": inputs,
        "formats": list(options.formats),
        "gate": options.gate.to_json(),
        "ks": list(options.ks) if options.ks is not None else None,
        "quarantine": quarantine.reasons if quarantine is not None else None,
        "baseline": digest(baseline.document) if baseline is not None else None,
        "max_trace_bytes": options.max_trace_bytes,
    }


@dataclass
class ShardFile:
    """The shard file of one `run --shard`, made when the report set is written."""

    shard: Shard
    suite: dict[str, Any]  # suite_identity
    options: dict[str, Any]  # options_data
    baseline: Baseline | None
    cases: list[CaseResult]
    unmatched: list[RunResult]
    unused: list[tuple[str, str]]

    @classmethod
    def of(
        cls,
        options: Any,
        chosen: Suite,
        inputs: dict[str, Any],
        quarantine: Any,
        baseline: Baseline | None,
        results: tuple[list[CaseResult], list[RunResult], list[tuple[str, str]]],
    ) -> ShardFile | None:
        """The shard file of a run (`options`: its RunOptions; `chosen`: the selected cases
        of every shard; `inputs`: the report's inputs without the shard; `results`: the
        shard's cases, unmatched traces and unused files). None without --shard."""
        if options.shard is None:
            return None
        cases, unmatched, unused = results
        identity = suite_identity(chosen)
        data = options_data(options, inputs, quarantine, baseline)
        return cls(options.shard, identity, data, baseline, cases, unmatched, unused)

    def extra(self, report: Report) -> ExtraFile:
        """The file for `write_reports(..., extra=...)`. The report's sources are recorded
        from here on: every place SARIF and the annotations ask for is asked by the time the
        file is written."""
        if report.sources is not None and not isinstance(report.sources, RecordingSources):
            report.sources = RecordingSources(report.sources)
        return SHARD_FILE, lambda: self.chunks(report)

    def chunks(self, report: Report) -> Iterator[str]:
        yield from shard_chunks(self.document(report), self.cases)

    def document(self, report: Report) -> dict[str, Any]:
        from ..report.sarif import document, sarif_root

        sources = report.sources
        if isinstance(sources, RecordingSources):
            annotation_lines(report)  # merge may print them (GitHub Actions)
            if needed(self.options["formats"], SOURCES):
                document(report)  # already asked while report.sarif was written, if it was
        baseline = self.baseline
        return {
            "kind": SHARD_KIND,
            "format": SHARD_FORMAT,
            "tool": {"name": TOOL_NAME, "version": __version__},
            "shard": {"index": self.shard.index, "count": self.shard.count},
            "suite": self.suite,
            "options": self.options,
            "baseline": (
                {"source": baseline.source, "document": baseline.document} if baseline else None
            ),
            "cases": CASES_HERE,  # made one case at a time by shard_chunks
            "unmatched": [run_data(r) for r in self.unmatched],
            "unused": [[file, why] for file, why in self.unused],
            "sources": sources.data() if isinstance(sources, RecordingSources) else None,
            "extras": report.extras,
            # The folder report.sarif's paths are relative to, as this shard found it: the
            # merged report.sarif keeps it (unless merge is given --sarif-root).
            "sarif_root": os.path.abspath(sarif_root(report)),
        }
