"""--case and --tag: which cases of a suite a command works on (run, capture, explain's
lookup), and the same choice applied to a baseline report's cases."""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from typing import Any

from ..dataclass import dataclass
from ..model import Suite
from ..problems import UsageError, did_you_mean


@dataclass(frozen=True)
class Selection:
    """--case patterns (fnmatch globs) and --tag names. Within a flag any entry may match;
    with both flags a case must match a --case pattern and carry a --tag."""

    patterns: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.patterns or self.tags)

    def matches(self, case_id: str, tags: Iterable[str]) -> bool:
        if self.patterns and not any(fnmatchcase(case_id, p) for p in self.patterns):
            return False
        return not self.tags or bool(set(self.tags) & set(tags))

    def keeps(self, case: dict[str, Any]) -> bool:
        """For a case of a baseline report."""
        tags = case.get("tags")
        tags = tags if isinstance(tags, list) else []
        return self.matches(case["case_id"], [t for t in tags if isinstance(t, str)])

    def as_dict(self) -> dict[str, list[str]]:
        return {"cases": list(self.patterns), "tags": list(self.tags)}


def known(names: list[str], limit: int = 8) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def select_cases(suite: Suite, selection: Selection) -> Suite:
    """The suite restricted to the selected cases. Raises UsageError naming any --case or
    --tag that matches nothing (with the closest id or tag), or a selection left empty."""
    if not selection:
        return suite
    _each_matches(suite, selection)
    chosen = {c for c, case in suite.cases.items() if selection.matches(c, case.tags)}
    if not chosen:
        parts = (
            " or ".join(f"--case '{p}'" for p in selection.patterns),
            " or ".join(f"--tag '{t}'" for t in selection.tags),
        )
        asked = " and ".join(part for part in parts if part)
        raise UsageError(f"no case matches {asked}: each matches some case, but none matches all")
    return suite.restricted(chosen)


def _each_matches(suite: Suite, selection: Selection) -> None:
    ids = list(suite.cases)
    for pattern in selection.patterns:
        if not any(fnmatchcase(case_id, pattern) for case_id in ids):
            hint = did_you_mean(pattern, ids) or f"; case ids: {known(ids)}"
            raise UsageError(f"--case '{pattern}' matches no case{hint}")
    all_tags = sorted({t for case in suite.cases.values() for t in case.tags})
    for tag in selection.tags:
        if tag not in all_tags:
            hint = did_you_mean(tag, all_tags) or (
                f"; tags in use: {known(all_tags)}" if all_tags else "; no case has tags"
            )
            raise UsageError(f"--tag '{tag}' matches no case{hint}")
