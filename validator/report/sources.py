"""What a reporter may look up beyond the report document: where things are in the files.

The report document names files (a case row's `file`, a run's `fixture`) but not where in
them a check's input is written; SARIF and GitHub annotations want a line and a column.
Finding them means reading the case and trace files again, which the report layer does not
do: the command that made the report hands the report a `Sources` (see
`commands/locate.py`), and a report read back from JSON has none (findings are then placed
at the files, without a line).
"""

from __future__ import annotations

from typing import Protocol

from ..dataclass import dataclass


@dataclass(frozen=True)
class Region:
    """1-based; the end column is the one after the last character (SARIF's convention)."""

    line: int
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None


@dataclass(frozen=True)
class Location:
    """Where a check's input is in a case or trace file, for a report to point at."""

    file: str  # as the report names it
    region: Region | None
    what: str  # what is there, for a reader: "allowed_verdicts in the case"


class Sources(Protocol):
    def case_file(self, case_id: str) -> str | None: ...

    def check_description(self, check: str) -> str | None: ...

    def check_severity(self, check: str) -> str | None: ...

    def case_location(self, case_file: str, check: str, message: str) -> Location | None: ...

    def trace_location(self, fixture: str, check: str, message: str) -> Location | None: ...

    def notes(self) -> list[str]: ...
