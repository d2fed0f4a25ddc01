"""Problems: what is wrong with an input file, where, and how to fix it.

Every user-facing complaint about a case, spec or trace file is a `Problem`. Loaders and
validators produce them; the command line only formats them. Codes are stable (tests and
users' tooling rely on them) and each is documented in docs/lint-codes.md.
"""

from __future__ import annotations

import heapq
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import field

from .codes import ERROR as ERROR
from .codes import WARNING as WARNING
from .codes import severity_allowed
from .dataclass import dataclass
from .display import ECHO_CHARS, one_line

# Half of a UTF-16 character pair (`\ud800`): text a JSON escape or a library caller can hold
# but no UTF-8 file or report can; each reader replaces it or says so.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogate(text: str) -> bool:
    """Whether `text` holds a lone surrogate (`str.isascii` first: a flag, no scan)."""
    return not text.isascii() and LONE_SURROGATE.search(text) is not None


@dataclass(frozen=True, order=True)
class Problem:
    """One problem in one file, at a 1-based line and column."""

    file: str
    line: int
    column: int
    severity: str
    code: str
    message: str
    # Indented continuation lines, e.g. a JSONPath expression and a caret under the bad column.
    detail: tuple[str, ...] = field(default=(), compare=False)
    # The fix as text to paste (one or several lines), when there is one: `lint --format
    # json` gives it as its own field, so an editor can offer it.
    fix: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        # Every code is registered (validator/codes/) with the severities it may have.
        assert severity_allowed(self.code, self.severity), (
            f"unregistered {self.severity} {self.code}"
        )

    def format(self) -> str:
        """`path:line:column: severity: message [code]`, plus indented detail lines."""
        head = (
            f"{one_line(self.file)}:{self.line}:{self.column}: {self.severity}:"
            f" {one_line(self.message)} [{self.code}]"
        )
        return "\n".join([head, *("    " + one_line(d) for d in self.detail)])

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
        }
        if self.detail:
            out["detail"] = list(self.detail)
        if self.fix:
            out["fix"] = self.fix
        return out


class ProblemsFound(Exception):
    """Raised by a loader when a file cannot be used at all; carries the problems found."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = sorted(problems)
        super().__init__("; ".join(p.format() for p in self.problems))


class InternalError(Exception):
    """A bug in this tool, caught while processing `what` (a file): reported, never a traceback."""

    def __init__(self, what: str, error: BaseException) -> None:
        self.what = what
        self.error = error
        super().__init__(f"while processing {what}: {type(error).__name__}: {error}")


@contextmanager
def processing(what: str) -> Iterator[None]:
    """Name the file being worked on in the report of any unexpected error inside the block."""
    try:
        yield
    except (ProblemsFound, UsageError, InternalError, KeyboardInterrupt):
        raise
    except Exception as exc:
        raise InternalError(what, exc) from exc


class UsageError(Exception):
    """A mistake in how the tool was called (a missing folder, a bad flag value): exit code 2.

    `hint` says how to fix it in command-line words ("pass --cases with ..."); the command
    line prints it after the message, the library leaves it out."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def cli_text(self) -> str:
        """The message as the command line prints it: one safe line, with the hint."""
        text = f"{self.message}: {self.hint}" if self.hint else self.message
        return one_line(text)


def _fold(text: str) -> str:
    """Text as a reader sees it: full-width letters as ASCII (NFKC), case ignored."""
    return unicodedata.normalize("NFKC", text).casefold()


def closest(name: str, candidates: Iterable[str] | Names) -> str | None:
    """The candidate closest to `name` when one is close enough to be a misspelling: one that
    differs only in case or width (`ＷＡＲＮＩＮＧ`, `Warning` for `warning`) first, else the
    closest spelling, compared as written and then folded. Asked of many names against one
    large set (a suite's case ids), pass the set as `Names`: see there."""
    names = candidates if isinstance(candidates, Names) else Names(candidates, shortlist=None)
    return names.closest(name)


def did_you_mean(name: str, candidates: Iterable[str] | Names) -> str:
    """` (did you mean 'x'?)` when a candidate is close to `name`, else an empty string."""
    close = closest(name, candidates)
    return f" (did you mean '{close}'?)" if close is not None else ""


# A name is compared with at most this many names of a larger set: those that share the
# most three-letter pieces with it (`Names`). Over 600 misspellings (a
# letter changed, added or dropped, a suffix, dashes as underscores, upper case) of ids of
# two suites of 2,000, the answer was the exact search's for 99 %, the others a tie of
# equally close ids (or, once, none); ~0.3-0.4 ms an ask, 0.03-0.09 ms for a name of
# another kind (a UUID, a task number).
SHORTLIST = 16
# Pieces of a name counted against the set, rarest first, at most this many names' worth
# a name asked: a piece every case id holds (`-00`) says nothing of which is closest.
_PIECE_WORK = 2_000
_MEMO_MAX = 10_000  # answers kept; past that the memo starts again


class Names:
    """One set of names asked for the closest to many others: a suite's case ids against
    each trace file, or trace, that names no case.

    `closest(name)` answers as the function `closest` does, once per name asked. A set of
    more than `shortlist` names (None: never) compares a name's spelling only with the
    `shortlist` names sharing the most three-letter pieces of its folded spelling (the
    rarer pieces first, `_PIECE_WORK` at most): two thousand misnamed files against two
    thousand case ids are then two thousand small comparisons, not four million (~40 s).
    A misspelling (a letter changed, added or dropped, a suffix, a case) shares most pieces
    with the name it misspells, so it is still found; a name that shares few with any is
    given no suggestion rather than a far-fetched one, and so is a text longer than any id
    (over 200 characters: a trace's field can hold a megabyte). Nothing is read of the set
    before the first name is asked, so a run with no misnamed file pays nothing for one."""

    def __init__(self, candidates: Iterable[str], shortlist: int | None = SHORTLIST) -> None:
        self._candidates: Iterable[str] | None = candidates  # read when first asked
        self._shortlist = shortlist
        # Folded spelling -> the names with it, in order; the folded spellings, in order.
        self._folds: dict[str, list[str]] = {}
        self._folded: list[str] = []
        self._pieces: dict[str, list[int]] | None = None  # piece -> folded spellings holding it
        self._memo: dict[str, str | None] = {}

    def closest(self, name: str) -> str | None:
        text = str(name)
        if text in self._memo:
            return self._memo[text]
        if self._candidates is not None:
            for candidate in sorted(set(self._candidates)):
                self._folds.setdefault(_fold(candidate), []).append(candidate)
            self._folded = sorted(self._folds)
            self._candidates = None
        found = self._closest(text)
        if len(text) <= ECHO_CHARS:  # a longer text is no id and is not kept
            if len(self._memo) >= _MEMO_MAX:
                self._memo.clear()
            self._memo[text] = found
        return found

    def _closest(self, text: str) -> str | None:
        import difflib  # here: only a name not found needs it (~1 ms of every start-up)

        folds = self._folded
        large = self._shortlist is not None and len(folds) > self._shortlist
        if large and len(text) > ECHO_CHARS:  # no id is that long: a text from a trace
            return None
        folded = _fold(text)
        same = [c for c in self._folds.get(folded, ()) if c != text]
        if same:
            return same[0]
        if large:
            folds = self._near(folded, self._shortlist or 0)
            if not folds:
                return None
        names = [n for f in folds for n in self._folds[f]]
        close = difflib.get_close_matches(text, names, n=1, cutoff=0.6)
        if close:
            return close[0]
        close = difflib.get_close_matches(folded, folds, n=1, cutoff=0.6)
        return self._folds[close[0]][-1] if close else None

    def _near(self, folded: str, most: int) -> list[str]:
        """The folded spellings sharing the most pieces with `folded`, `most` at most, of
        those sharing at least half of the pieces counted (the rarer ones, see
        `_PIECE_WORK`): a misspelling shares most; a name of another kind (a UUID, a task
        number) shares a few digits with many and is compared with none."""
        if self._pieces is None:
            self._pieces = {}
            for index, spelling in enumerate(self._folded):
                for piece in _pieces_of(spelling):
                    self._pieces.setdefault(piece, []).append(index)
        holders = sorted((self._pieces.get(p, []) for p in _pieces_of(folded)), key=len)
        shared: Counter[int] = Counter()
        work = counted = 0
        for held in holders:
            work += len(held)
            if work > _PIECE_WORK and shared:
                break
            shared.update(held)
            counted += 1
        least = max(1, counted // 2)
        best = heapq.nsmallest(
            most, (i for i in shared if shared[i] >= least), key=lambda i: (-shared[i], i)
        )
        return [self._folded[i] for i in sorted(best)]


def _pieces_of(spelling: str) -> set[str]:
    """The three-letter pieces of a spelling, its ends marked (`ab` has NUL `ab` and `ab`
    NUL): a name's first and last letters count as pieces of their own."""
    padded = f"\0{spelling}\0"
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def has_errors(problems: Iterable[Problem]) -> bool:
    return any(p.severity == ERROR for p in problems)


def kind_of(value: object) -> str:
    """A JSON/YAML type name a non-developer understands ("text", "a list", ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def plural(noun: str) -> str:
    """`spans`, `tool-calls`, `fixes`; a noun already ending in s (`attributes`) as it is."""
    if noun.endswith("s"):
        return noun
    return f"{noun}es" if noun.endswith(("x", "ch", "sh")) else f"{noun}s"


def counted(count: object, noun: str) -> str:
    """`1 span`, `12 records`, `0 traces`: a count and its noun, in agreement."""
    return f"{count} {noun if count == 1 else plural(noun)}"


def show(value: object, limit: int = 60) -> str:
    """A short, JSON-looking rendering of a value for messages."""
    import json

    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        text = repr(value)
    return cut_shown(text, limit)


def cut_shown(text: str, limit: int) -> str:
    """A rendering `show` made, cut to `limit` characters with `...`; a quoted text cut
    short keeps its closing quote, so it still reads as one text."""
    if len(text) <= limit:
        return text
    if text.startswith('"'):
        return text[: limit - 4] + '..."'
    return text[: limit - 3] + "..."


def typo_of(name: str, known: Iterable[str]) -> str | None:
    """The known name `name` is a slip of the spelling of (the same but for case, else at
    most two letters apart, the nearest), else None: a name further away is a name of its
    own, never offered as a "did you mean" only because it looks alike (`max_calls` is not
    `max_tool_calls`, `allowed_verdicts` not `allowed_tools`)."""
    names = sorted(set(known))
    same = [n for n in names if n != name and n.lower() == name.lower()]
    if same:
        return same[0]
    scored = sorted((edit_distance(name, n), n) for n in names if n != name)
    return scored[0][1] if scored and scored[0][0] <= 2 else None


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (short names: the plain dynamic programme)."""
    if abs(len(a) - len(b)) > 2:
        return 3
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]
