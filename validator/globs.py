"""File names as the tool reads them: glob patterns as `traces.pattern` and the config read
them (`*` and `?` stay within one folder name, `**` crosses folders, `[abc]` is a set,
`[!abc]` its complement), and natural name order (`run2` before `run10`)."""

from __future__ import annotations

import re
from collections.abc import Collection


class Globs:
    """Glob patterns as `traces.pattern` reads them: `*` and `?` stay within one folder
    name, `**` crosses folders, `[abc]` is a set; a file matches when its path under the
    fixtures folder, or its name, matches."""

    def __init__(self, patterns: Collection[str]) -> None:
        self.regexes = [glob_regex(p) for p in patterns]
        # Patterns that are `*` and a plain ending (`*.json`, the default), as those endings:
        # a name matches when it ends so (`*` takes any name's start, never a `/`), which a
        # path does exactly when its name does (the ending holds no `/`). None when any
        # pattern is another kind.
        endings = [
            p[1:] for p in patterns if p[:1] == "*" and not WILDCARD.search(p, 1) and "/" not in p
        ]
        self.endings = tuple(endings) if len(endings) == len(patterns) else None

    def matches(self, rel: str) -> bool:
        if self.endings is not None:  # a file of thousands, checked against `*.json`
            return rel.endswith(self.endings)
        name = rel.rsplit("/", 1)[-1]
        return any(r.fullmatch(rel) or r.fullmatch(name) for r in self.regexes)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A compiled regular expression for one glob pattern (see `Globs`)."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            piece, i = _glob_piece(pattern, i)
            out.append(piece)
    return re.compile("".join(out), re.DOTALL)


def _glob_piece(pattern: str, i: int) -> tuple[str, int]:
    char = pattern[i]
    if char == "*":
        return "[^/]*", i + 1
    if char == "?":
        return "[^/]", i + 1
    end = pattern.find("]", i + 2) if char == "[" else -1
    if end < 0:
        return re.escape(char), i + 1
    inner = pattern[i + 1 : end]
    negate = inner.startswith("!")
    body = re.escape(inner[1:] if negate else inner).replace("\\-", "-")
    return f"[{'^/' if negate else ''}{body}]", end + 1


# What makes a pattern a glob rather than a plain text (a path, an ending).
WILDCARD = re.compile(r"[*?\[]")

_DIGITS = re.compile(r"(\d+)")


def run_order(name: str) -> tuple[tuple[int | str, ...], str]:
    """Sort key for a case's run files: numbers in names compare as numbers, so `run2.json`
    comes before `run10.json`; names equal as numbers (`run01`, `run1`) keep plain order.

    Splitting on digit runs puts text at even positions and numbers at odd ones, so two keys
    never compare a number with text."""
    parts: list[int | str] = list(_DIGITS.split(name))
    if len(parts) > 1:
        parts[1::2] = map(int, parts[1::2])
    return tuple(parts), name
