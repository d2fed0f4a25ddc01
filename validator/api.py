"""The library API behind `validator.load_suite` (see README, "Library API")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .app import find_case_files, spec_folders
from .loading.suite import load_suite as _load_suite
from .problems import ERROR, ProblemsFound
from .suite import Suite


def load_suite(cases: str | Path, specs: str | Path | list[str | Path] | None = None) -> Suite:
    """Validate and compile a suite once; raise ProblemsFound listing every error."""
    given: Any = (
        None
        if specs is None
        else [Path(s) for s in ([specs] if isinstance(specs, (str, Path)) else specs)]
    )
    loaded = _load_suite(find_case_files(Path(cases)), spec_folders(given))
    if loaded.suite is None:
        raise ProblemsFound([p for p in loaded.problems if p.severity == ERROR])
    return loaded.suite
