"""How long the run took: the seconds spent checking each trace, and the whole run's, for
JUnit's `time` attributes. A side channel of the report (`Report.timing`), never part of
report.json: the document stays the same from one run of the same inputs to the next, and
so do Markdown, HTML and SARIF. With SOURCE_DATE_EPOCH set (reproducible output) nothing
is timed, and report.junit.xml is byte-identical too."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import field

from ..dataclass import dataclass
from ..results import RunResult


def reproducible() -> bool:
    """SOURCE_DATE_EPOCH is set: every report must come out the same bytes each time."""
    return bool(os.environ.get("SOURCE_DATE_EPOCH", "").strip())


@dataclass
class Timing:
    """Seconds spent checking each run, by (case id, fixture), and the run's whole time."""

    runs: dict[tuple[str, str | None], float] = field(default_factory=dict)
    total: float = 0.0
    _started: float = field(default_factory=time.perf_counter)

    def watch(self, runs: Iterable[RunResult]) -> Iterator[RunResult]:
        """The runs, unchanged, each one's checking time noted as it goes by."""
        for run in runs:
            if run.check_seconds is not None:
                key = (run.case_id, run.fixture)
                self.runs[key] = self.runs.get(key, 0.0) + run.check_seconds
            yield run

    def stop(self) -> None:
        """The run's time: from this timing's start until now."""
        self.total = time.perf_counter() - self._started

    def of(self, case_id: str, fixture: object) -> float | None:
        return self.runs.get((case_id, fixture if isinstance(fixture, str) else None))
