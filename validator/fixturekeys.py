"""A case's `fixture:` key: which files under the fixtures folder it picks (a path, a glob,
or a folder), and what is wrong with one. `inputs.plan_fixtures` asks it of each file.

A key with no wildcard names one file and is looked up by its path. A glob or a folder is
matched only against the files that start with its text before its first wildcard
(`traces/run-7/` of the folder `traces/run-7`): the keys are filed by that text, and a
file looks up each of its own beginnings that some key has, so a suite whose thousands of
cases each pick their files costs a few look-ups a file, not a match against every key.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path

from .globs import WILDCARD, Globs, glob_regex


class FixtureKeys:
    """The cases' `fixture:` keys: which files each picks, and what is wrong with one."""

    def __init__(self, fixtures: Path, picks: Mapping[str, str], traces: Globs) -> None:
        self.cases: dict[str, int] = {}  # every case with a `fixture:` key -> its place
        self._paths: dict[str, list[str]] = {}  # a key with no wildcard -> its cases
        self._globs: dict[str, list[tuple[str, re.Pattern[str] | None]]] = {}  # start -> keys
        self._starts: list[int] = []  # the lengths of those starts, each once, ascending
        self.bad: dict[str, str] = {}
        self.hits: set[str] = set()
        self.folders: dict[str, str] = {}  # case id -> a folder it names ('x/')
        self.traces = traces  # traces.pattern: the files a folder key picks
        for case_id, pick in picks.items():
            self.cases[case_id] = len(self.cases)
            self._add(fixtures, case_id, pick)

    def _add(self, fixtures: Path, case_id: str, pick: str) -> None:
        clean = pick.strip().replace("\\", "/").rstrip("/")
        if not clean or clean.startswith("/") or ".." in clean.split("/") or ":" in clean[:2]:
            self.bad[case_id] = (
                f"fixture: '{pick}' must name files under the fixtures folder, without"
                " '..' or an absolute path"
            )
            return
        if (fixtures / clean).is_dir():
            self.folders[case_id] = clean + "/"
            self._add_glob(case_id, clean + "/**")
        elif WILDCARD.search(clean) is None:
            self._paths.setdefault(clean, []).append(case_id)
        else:
            self._add_glob(case_id, clean)

    def _add_glob(self, case_id: str, pattern: str) -> None:
        wildcard = WILDCARD.search(pattern)
        start = pattern[: wildcard.start()] if wildcard is not None else pattern
        at = bisect.bisect_left(self._starts, len(start))
        if at == len(self._starts) or self._starts[at] != len(start):
            self._starts.insert(at, len(start))
        # `start/**` (a folder) matches whatever starts so: no regular expression to run.
        regex = None if pattern[len(start) :] == "**" else glob_regex(pattern)
        self._globs.setdefault(start, []).append((case_id, regex))

    def pickers(self, rel: str) -> list[str]:
        """The cases whose `fixture:` key picks the file at `rel`, in the keys' order."""
        out = list(self._paths.get(rel, ()))
        for length in self._starts:
            if length > len(rel):
                break
            for case_id, regex in self._globs.get(rel[:length], ()):
                if regex is not None and not regex.fullmatch(rel):
                    continue
                if case_id in self.folders and not self.traces.matches(rel):
                    continue  # a folder picks its trace files, not its notes
                out.append(case_id)
        if out:
            self.hits.update(out)
            if len(out) > 1:
                out.sort(key=self.cases.__getitem__)
        return out

    def found(self, case_id: str) -> bool:
        return case_id in self.hits

    def problems(self, selected: Collection[str], shown: str) -> Iterator[tuple[str, str]]:
        """(case id, why) for each selected case whose key is wrong or picks nothing under
        the fixtures folder (as `shown`): an error of that case."""
        for case_id in sorted(set(self.cases) & set(selected)):
            if case_id in self.bad:
                yield case_id, self.bad[case_id]
            elif case_id not in self.hits:
                yield case_id, f"fixture: matches no file under {shown}: fix the path or glob"
