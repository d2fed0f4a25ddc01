r"""Regular expressions with Python's meaning, matched in linear time.

Spec authors write Python regular expressions (jsonpath-ng's `=~` and `sub()` use `re`), but
the text they are matched against comes from a live agent. Python's backtracking engine takes
exponential time on patterns such as `^(a+)+$` with a 31-character value, so a release gate
could hang on one trace. A timeout would make verdicts depend on machine speed; instead every
pattern is run by RE2 (the `google-re2` wheel), whose matching time is linear in the text;
only a pattern Python's own engine cannot backtrack in (anchored at the start, one repeat of
one character class, like a case id's `^[a-z0-9][a-z0-9._-]*$`: `_is_linear`) is matched by
`re`, which answers it in a fraction of a call into RE2.

RE2 reads several constructs differently from Python (`\d` and `\w` are ASCII-only there,
`(?i)` uses simple case folding, `$` does not match before a final newline, `x{,3}` is a
literal). So a pattern is never handed to RE2 as written. It is parsed by Python's own parser
(`re._parser`, the parser `re.compile` uses), and the parse tree is translated:

* every character, character class, `.` and `\d`/`\w`/`\s` becomes an explicit set of code
  point ranges computed with Python's own definitions (case-insensitive sets included), so
  RE2's reading of classes and flags never matters (what `\d`, `\w`, `\s` match and which
  characters fold, learnt by scanning every code point with `re`, are read from the table
  of `unicodeclasses` when it was made for this Python's Unicode version);
* structure (sequence, alternation, groups, greedy and lazy repeats, `^`, `\A`, `\Z`) maps to
  the RE2 construct with the same meaning;
* whatever has no exact RE2 equivalent is refused with the column it starts at: backreferences,
  lookaround, conditional groups, atomic groups, possessive quantifiers, Unicode `\b`/`\B`,
  repeat counts over 1000, and `$` anywhere but at the end of the pattern (or of an
  alternative), where Python's "end, or before a final newline" can be expressed; and for
  `sub()`, which needs where a match ends, a pattern that can match empty text or repeats
  a part that can.

The API is small on purpose: `compile_safe(pattern)` returns a `SafeRegex` with `search` and
`fullmatch` (booleans: a match *span* for `$` would differ) and `substitution(template)` for
`sub()`; every problem is a `RegexError` (a ValueError) carrying the 1-based column.
It is over 600 lines as one concept: the translation from Python's regular-expression
meaning to RE2's is one walk over the parse tree, and its refusals are part of it.
"""

from __future__ import annotations

import _sre  # the case tables Python's `re` itself uses
import array
import functools
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from re import _constants as _c  # type: ignore[attr-defined]  # Python's own regex parser
from re import _parser as _p  # type: ignore[attr-defined]
from typing import Any

from ..problems import has_lone_surrogate
from . import unicodeclasses

__all__ = ["RegexError", "SafeRegex", "compile_safe"]

Ranges = tuple[tuple[int, int], ...]

_MAX_CODE = 0x10FFFF
# UTF-8 text cannot hold surrogates, so no set includes them (see _normalize).
_UNIVERSE: Ranges = ((0, 0xD7FF), (0xE000, _MAX_CODE))
_MAX_RE2_REPEAT = 1000  # RE2 refuses larger counts in {m,n}


class RegexError(ValueError):
    """A pattern (or `sub()` replacement) that is invalid or has no exact linear-time form.

    `column` is 1-based in `text`, which is the pattern, or the replacement when `part` is
    "replacement".
    """

    text: str
    column: int
    message: str
    part: str

    def __init__(self, text: str, column: int, message: str, part: str = "pattern") -> None:
        self.text = text
        self.column = column
        self.message = message
        self.part = part
        super().__init__(f"invalid regular expression {part} {text!r}: {message} (column {column})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.text, self.column, self.message, self.part))


# --------------------------------------------------------------------------- code point sets


def _normalize(ranges: Iterable[tuple[int, int]]) -> Ranges:
    """Sorted, merged ranges, without surrogates."""
    merged: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    out: list[tuple[int, int]] = []
    for lo, hi in merged:
        if lo < 0xD800:
            out.append((lo, min(hi, 0xD7FF)))
        if hi > 0xDFFF:
            out.append((max(lo, 0xE000), hi))
    return tuple(out)


def _complement(ranges: Ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    start = 0
    for lo, hi in ranges:
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= _MAX_CODE:
        out.append((start, _MAX_CODE))
    return _normalize(out)


def _minus(ranges: Ranges, removed: Ranges) -> Ranges:
    return _complement(_normalize([*_complement(ranges), *removed]))


def _from_codes(codes: Iterable[int]) -> Ranges:
    return _normalize((code, code) for code in codes)


@functools.cache
def _all_text() -> str:
    """Every code point but the surrogates, in order: Python's `re` is run over it to learn
    exactly which characters a class matches."""
    codes = array.array("I", range(0xD800))
    if codes.itemsize != 4:  # pragma: no cover - every platform CPython runs on has 4
        return "".join(map(chr, range(0xD800))) + "".join(map(chr, range(0xE000, _MAX_CODE + 1)))
    # Decoded from UTF-32 in one C loop: 4x quicker than a chr() a code point (needed only
    # where the table of unicodeclasses is not for this Python's Unicode version).
    codes.extend(range(0xE000, _MAX_CODE + 1))
    return codes.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")


def _code_at(index: int) -> int:
    return index if index < 0xD800 else index + 0x800


def _scanned_set(single_char_pattern: str, flags: str = "") -> Ranges:
    """The code points Python's `re` matches with a one-character pattern (exact by
    construction: it is Python's answer, not a re-implementation of it)."""
    runs = re.finditer(f"{flags}(?:{single_char_pattern})+", _all_text())
    return _normalize((_code_at(m.start()), _code_at(m.end() - 1)) for m in runs)


# A negated category and the one it is the complement of (unicodeclasses stores the latter).
_NEGATED = {r"\D": r"\d", r"\S": r"\s", r"\W": r"\w"}


@functools.cache
def _python_set(single_char_pattern: str, flags: str = "") -> Ranges:
    """`_scanned_set`, from the table of unicodeclasses when it is for this Python's Unicode
    version (the scan takes ~30 ms a class)."""
    positive = _NEGATED.get(single_char_pattern, single_char_pattern)
    stored = unicodeclasses.stored(flags + positive)
    if stored is None:
        return _scanned_set(single_char_pattern, flags)
    return stored if positive == single_char_pattern else _complement(stored)


def _scanned_cased() -> str:
    iscased = _sre.unicode_iscased
    return "".join(chr(c) for c in range(_MAX_CODE + 1) if iscased(c) and not 0xD800 <= c <= 0xDFFF)


@functools.cache
def _cased_text() -> str:
    """Every character whose case Python's `re` can fold. A case-insensitive atom matches a
    character outside this set exactly when the case-sensitive atom does (re's fold maps an
    uncased character to itself and cased ones to cased ones), so only these are tried."""
    stored = unicodeclasses.stored("cased")
    if stored is None:
        return _scanned_cased()
    return "".join(chr(c) for lo, hi in stored for c in range(lo, hi + 1))


@functools.cache
def _cased_ranges() -> Ranges:
    return _from_codes(map(ord, _cased_text()))


def _scanned_table() -> dict[str, Ranges]:
    """What the table of unicodeclasses holds, scanned on this Python (the test that keeps
    the two equal; the table is regenerated from it)."""
    table = {
        flags + pattern: _scanned_set(pattern, flags)
        for flags in ("", "(?a)")
        for pattern in (r"\d", r"\s", r"\w")
    }
    table["cased"] = _from_codes(map(ord, _scanned_cased()))
    return table


_CATEGORY_TEXT = {
    _c.CATEGORY_DIGIT: r"\d",
    _c.CATEGORY_NOT_DIGIT: r"\D",
    _c.CATEGORY_SPACE: r"\s",
    _c.CATEGORY_NOT_SPACE: r"\S",
    _c.CATEGORY_WORD: r"\w",
    _c.CATEGORY_NOT_WORD: r"\W",
}


def _category_set(category: Any, flags: int) -> Ranges:
    return _python_set(_CATEGORY_TEXT[category], "(?a)" if flags & _c.SRE_FLAG_ASCII else "")


def _class_items_set(items: list[tuple[Any, Any]], flags: int) -> Ranges:
    """The code points a `[...]` matches, case-sensitively."""
    negate = False
    ranges: list[tuple[int, int]] = []
    for op, av in items:
        if op is _c.NEGATE:
            negate = True
        elif op is _c.LITERAL:
            ranges.append((av, av))
        elif op is _c.RANGE:
            ranges.append(av)
        elif op is _c.CATEGORY:
            ranges.extend(_category_set(av, flags))
        else:  # pragma: no cover - the parser puts nothing else in a class
            raise _Unsupported("class", f"unexpected class item {op}")
    result = _normalize(ranges)
    return _complement(result) if negate else result


def _python_atom(op: Any, av: Any) -> str:
    """A one-character atom written back as Python pattern text (every character escaped)."""
    if op is _c.LITERAL:
        return f"\\U{av:08x}"
    if op is _c.NOT_LITERAL:
        return f"[^\\U{av:08x}]"
    parts = []
    for item_op, item_av in av:
        if item_op is _c.NEGATE:
            parts.append("^")
        elif item_op is _c.LITERAL:
            parts.append(f"\\U{item_av:08x}")
        elif item_op is _c.RANGE:
            parts.append(f"\\U{item_av[0]:08x}-\\U{item_av[1]:08x}")
        else:
            parts.append(_CATEGORY_TEXT[item_av])
    return "[" + "".join(parts) + "]"


def _freeze(av: Any) -> Any:
    return tuple(av) if isinstance(av, list) else av


@functools.lru_cache(maxsize=4096)
def _atom_set(op: Any, av: Any, flags: int) -> Ranges:
    """The code points one character atom (LITERAL, NOT_LITERAL, IN, ANY) matches."""
    if op is _c.ANY:
        return _UNIVERSE if flags & _c.SRE_FLAG_DOTALL else _minus(_UNIVERSE, ((10, 10),))
    if op is _c.LITERAL:
        base = _normalize([(av, av)])
    elif op is _c.NOT_LITERAL:
        base = _minus(_UNIVERSE, ((av, av),))
    else:
        base = _class_items_set(list(av), flags)
    if not flags & _c.SRE_FLAG_IGNORECASE:
        return base
    prefix = "(?ai)" if flags & _c.SRE_FLAG_ASCII else "(?i)"
    folded = re.findall(prefix + _python_atom(op, list(av) if op is _c.IN else av), _cased_text())
    return _normalize([*_minus(base, _cased_ranges()), *_from_codes(map(ord, folded))])


def _re2_char(code: int) -> str:
    char = chr(code)
    return char if char.isascii() and char.isalnum() else f"\\x{{{code:x}}}"


def _re2_set(ranges: Ranges) -> str:
    if not ranges:
        return r"[^\x00-\x{10ffff}]"  # matches nothing
    if ranges == _UNIVERSE:
        return r"(?s:.)"
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return _re2_char(ranges[0][0])
    if _is_ascii_case_pair(ranges):
        # RE2 reads a class [Xx] as "x, ignoring case" and, once an alternation merges it
        # into a larger class, folds it with Unicode rules: `b|[Ss]` would match "ſ".
        return f"(?:{chr(ranges[0][0])}|{chr(ranges[1][0])})"
    parts = [_re2_char(lo) if lo == hi else f"{_re2_char(lo)}-{_re2_char(hi)}" for lo, hi in ranges]
    return "[" + "".join(parts) + "]"


def _is_ascii_case_pair(ranges: Ranges) -> bool:
    if len(ranges) != 2 or any(lo != hi for lo, hi in ranges):
        return False
    upper, lower = ranges[0][0], ranges[1][0]
    return 0x41 <= upper <= 0x5A and lower == upper + 0x20


# ------------------------------------------------------------------------------- translation


class _Unsupported(Exception):
    """A construct without an exact RE2 form; `kind` tells `_locate` what to look for."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


_REFUSED = {
    _c.GROUPREF: ("backref", "backreferences (\\1, (?P=name)) are not supported"),
    _c.GROUPREF_EXISTS: ("conditional", "conditional groups (?(1)...|...) are not supported"),
    _c.ASSERT: ("lookaround", "lookahead and lookbehind ((?=...), (?<=...)) are not supported"),
    _c.ASSERT_NOT: ("lookaround", "lookahead and lookbehind ((?!...), (?<!...)) are not supported"),
    _c.ATOMIC_GROUP: ("atomic", "atomic groups (?>...) are not supported"),
    _c.POSSESSIVE_REPEAT: ("possessive", "possessive quantifiers (*+, ++, ?+) are not supported"),
}

_BOUNDARY_MESSAGE = (
    "\\b and \\B are not supported: Python finds word boundaries with Unicode letters, the"
    " linear-time engine with ASCII ones only; start the pattern with (?a) to use ASCII"
    " word boundaries"
)
_DOLLAR_MESSAGE = (
    "`$` is supported only at the end of the pattern or of an alternative (elsewhere it"
    " would have to look ahead for a final newline); write \\Z for the very end, or use (?m)"
)
# What `$` (end of text, or before a final newline) becomes at the end of the pattern. For a
# yes/no search the final newline may as well be consumed, and a full match must end at the
# very end anyway. A substitution needs Python's span, so the newline `$` may stand before is
# captured in a group of its own ("d1", "d2", ...) and cut off the match afterwards: at most
# one way through `\n?\z` succeeds, so RE2 picks the same match as Python does.
_DOLLAR_SEARCH = r"(?:\n?\z)"
_DOLLAR_FULL = r"\z"
_DOLLAR_SUB = None


class _Translator:
    """Writes a parse tree from `re._parser` as an RE2 pattern with the same meaning."""

    def __init__(self, dollar: str | None) -> None:
        self.dollar = dollar
        self.dollar_groups: list[str] = []
        self.empty_loops = 0  # repeats whose body can match empty text (see `_repeat`)
        self.handlers: dict[Any, Callable[[Any, int, bool], str]] = {
            _c.LITERAL: self._atom(_c.LITERAL),
            _c.NOT_LITERAL: self._atom(_c.NOT_LITERAL),
            _c.IN: self._atom(_c.IN),
            _c.ANY: self._atom(_c.ANY),
            _c.BRANCH: self._branch,
            _c.SUBPATTERN: self._group,
            _c.MAX_REPEAT: self._repeat(""),
            _c.MIN_REPEAT: self._repeat("?"),
            _c.AT: self._at,
        }

    def sequence(self, items: Any, flags: int, tail: bool) -> str:
        # `tail`: nothing follows in the whole pattern (where `$` can be translated).
        last = len(items) - 1
        return "".join(
            self.item(op, av, flags, tail and i == last) for i, (op, av) in enumerate(items)
        )

    def item(self, op: Any, av: Any, flags: int, tail: bool) -> str:
        handler = self.handlers.get(op)
        if handler is None:
            kind, message = _REFUSED.get(op, ("other", f"the construct {op} is not supported"))
            raise _Unsupported(kind, message)
        return handler(av, flags, tail)

    def _atom(self, op: Any) -> Callable[[Any, int, bool], str]:
        def emit(av: Any, flags: int, tail: bool) -> str:
            relevant = flags & (_c.SRE_FLAG_IGNORECASE | _c.SRE_FLAG_ASCII | _c.SRE_FLAG_DOTALL)
            return _re2_set(_atom_set(op, _freeze(av), relevant))

        return emit

    def _branch(self, av: Any, flags: int, tail: bool) -> str:
        return "(?:" + "|".join(self.sequence(alt, flags, tail) for alt in av[1]) + ")"

    def _group(self, av: Any, flags: int, tail: bool) -> str:
        group, add_flags, del_flags, body = av
        inner = self.sequence(body, (flags | add_flags) & ~del_flags, tail)
        # Named after Python's group number, so replacements find groups by number.
        return f"(?P<g{group}>{inner})" if group is not None else f"(?:{inner})"

    def _repeat(self, lazy: str) -> Callable[[Any, int, bool], str]:
        def emit(av: Any, flags: int, tail: bool) -> str:
            low, high, body = av
            unbounded = high is _c.MAXREPEAT
            if low > _MAX_RE2_REPEAT or (not unbounded and high > _MAX_RE2_REPEAT):
                raise _Unsupported(
                    "repeat", f"repeat counts over {_MAX_RE2_REPEAT} are not supported"
                )
            repeated = unbounded or high > 1
            if repeated and body.getwidth()[0] == 0:
                # Python runs one more, empty, iteration that resets the body's groups, and
                # RE2 does not; and the two order the ways through an empty iteration
                # differently, so a match may end elsewhere (`(\n??)*$` on "1\n\n",
                # `((a??)(b?))*`). Whether there is a match is the same: only `sub()`, which
                # needs the span and the groups, refuses such a repeat.
                self.empty_loops += 1
            # Another iteration may follow the body unless at most one is allowed.
            inner = self.sequence(body, flags, tail and not repeated)
            return f"(?:{inner}){_quantifier(low, None if unbounded else high)}{lazy}"

        return emit

    def _at(self, av: Any, flags: int, tail: bool) -> str:
        multiline = flags & _c.SRE_FLAG_MULTILINE
        if av is _c.AT_BEGINNING:
            return "(?m:^)" if multiline else r"\A"
        if av is _c.AT_BEGINNING_STRING:
            return r"\A"
        if av is _c.AT_END_STRING:
            return r"\z"
        if av is _c.AT_END:
            return self._end(bool(multiline), tail)
        if av in (_c.AT_BOUNDARY, _c.AT_NON_BOUNDARY):
            if flags & _c.SRE_FLAG_ASCII:  # Python's ASCII word boundary is RE2's
                return r"\b" if av is _c.AT_BOUNDARY else r"\B"
            raise _Unsupported("boundary", _BOUNDARY_MESSAGE)
        raise _Unsupported("other", f"the anchor {av} is not supported")  # pragma: no cover

    def _end(self, multiline: bool, tail: bool) -> str:
        if multiline:  # before any newline or at the end: the same in RE2
            return "(?m:$)"
        if not tail:
            raise _Unsupported("dollar", _DOLLAR_MESSAGE)
        if self.dollar is not None:
            return self.dollar
        name = f"d{len(self.dollar_groups) + 1}"
        self.dollar_groups.append(name)
        return f"(?:(?P<{name}>\\n?)\\z)"


def _quantifier(low: int, high: int | None) -> str:
    if high is None:
        return {0: "*", 1: "+"}.get(low, f"{{{low},}}")
    if (low, high) == (0, 1):
        return "?"
    return f"{{{low}}}" if low == high else f"{{{low},{high}}}"


# ------------------------------------------------------------------------ error locations


def _tokens(pattern: str) -> Iterator[tuple[int, str]]:
    """(index, text) of the pattern's tokens outside character classes: an escape, a whole
    class, a group opening with what follows it, or one character. Enough to point at a
    construct; `re` has already checked the syntax."""
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\":
            yield i, pattern[i : i + 2]
            i += 2
        elif char == "[":
            j = i + 1
            j += pattern.startswith("^", j)
            j += pattern.startswith("]", j)
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            yield i, pattern[i : j + 1]
            i = j + 1
        elif pattern.startswith("(?", i):
            yield i, pattern[i : i + 4]
            i += 2
        else:
            yield i, char
            i += 1


_GROUP_PREFIXES = {
    "lookaround": ("(?=", "(?!", "(?<=", "(?<!"),
    "conditional": ("(?(",),
    "atomic": ("(?>",),
}
_LARGE_REPEAT = re.compile(r"\{(\d*),?(\d*)\}")


def _locate(pattern: str, kind: str) -> int:
    """The 0-based index where the first construct of `kind` starts (0 if not found)."""
    tokens = list(_tokens(pattern))
    for k, (index, text) in enumerate(tokens):
        following = tokens[k + 1][1] if k + 1 < len(tokens) else ""
        if _is_kind(kind, text, following, pattern, index):
            return index
    return 0


def _is_kind(kind: str, text: str, following: str, pattern: str, index: int) -> bool:
    if kind == "backref":
        return (len(text) == 2 and text[0] == "\\" and text[1] in "123456789") or text.startswith(
            "(?P="
        )
    if kind in _GROUP_PREFIXES:
        return text.startswith(_GROUP_PREFIXES[kind])
    if kind == "possessive":
        return text in ("*", "+", "?", "}") and following == "+"
    if kind == "boundary":
        return text in ("\\b", "\\B")
    if kind == "dollar":
        return text == "$"
    if kind == "repeat":
        match = _LARGE_REPEAT.match(pattern, index) if text == "{" else None
        return match is not None and any(g and int(g) > _MAX_RE2_REPEAT for g in match.groups())
    return False


# ----------------------------------------------------------------------------------- regexes


def _re2_options(capture: bool) -> Any:
    import re2  # on first use: a suite without regexes never loads RE2

    options = re2.Options()
    options.log_errors = False  # errors are raised, not also printed on stderr
    options.never_capture = not capture  # yes/no programs need no groups: faster
    return options


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"a regular expression applies to text, not to {type(value).__name__}")
    return value


def _encoding_guard(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except UnicodeEncodeError:
        # Only from the library API: traces read from files have lone surrogates replaced.
        raise ValueError(
            "the text holds a lone surrogate (\\ud800-\\udfff), which no UTF-8 regular"
            " expression engine can read"
        ) from None


class SafeRegex:
    """A compiled pattern: Python's meaning, RE2's linear-time matching (or Python's own,
    for a pattern it runs in linear time: see `_is_linear`)."""

    __slots__ = ("_full", "_linear", "_python", "_search", "_tree", "pattern")

    def __init__(self, pattern: str, python: re.Pattern[str], tree: Any) -> None:
        self.pattern = pattern
        self._python = python
        self._tree = tree
        self._search = _program(pattern, tree, _DOLLAR_SEARCH, capture=False)[0]
        self._full = _program(pattern, tree, _DOLLAR_FULL, capture=False)[0]
        self._linear = _is_linear(tree)

    def search(self, text: str) -> bool:
        """Whether the pattern matches somewhere in `text` (as `re.search`)."""
        text = _text(text)
        if self._linear and not has_lone_surrogate(text):  # RE2's error for the other
            return self._python.search(text) is not None
        return _encoding_guard(lambda: self._search.search(text)) is not None

    def fullmatch(self, text: str) -> bool:
        """Whether the pattern matches all of `text` (as `re.fullmatch`)."""
        text = _text(text)
        if self._linear and not has_lone_surrogate(text):  # RE2's error for the other
            return self._python.fullmatch(text) is not None
        return _encoding_guard(lambda: self._full.fullmatch(text)) is not None

    def substitution(self, template: str) -> Callable[[str], str]:
        """`lambda text: re.sub(pattern, template, text)`, checked now.

        Refused (RegexError): a pattern that can match empty text (Python's rule for an empty
        match right after another match cannot be expressed with RE2), one that repeats a
        part that can match empty text (`(a?b?)*`: the two engines may end such a match at
        different places, see `_Translator._repeat`) and a template Python rejects.
        """
        if self._tree.getwidth()[0] == 0:
            raise RegexError(
                self.pattern,
                1,
                "a replacement pattern must not be able to match empty text"
                " (add what it must match, e.g. `+` instead of `*`)",
            )
        program, translator = _program(self.pattern, self._tree, _DOLLAR_SUB, capture=True)
        if translator.empty_loops:
            raise RegexError(
                self.pattern,
                1,
                "a replacement pattern must not repeat a part that can match empty text"
                " (`(a?b?)*`, `(x??)+`): Python and the linear-time engine may end such a"
                " match at different places; make each repeated part match at least one"
                " character (e.g. `(a|b)*` for `(a?b?)*`)",
            )
        python_pieces = _template_pieces(self._python, template)
        # Python's group numbers as RE2's (the translation names group N "gN").
        index = program.groupindex
        pieces = [p if isinstance(p, str) else index[f"g{p}"] if p else 0 for p in python_pieces]
        dollars = [index[name] for name in translator.dollar_groups]
        return functools.partial(_substitute, program, dollars, pieces)

    def __reduce__(self) -> tuple[Any, ...]:
        return (compile_safe, (self.pattern,))

    def __repr__(self) -> str:
        return f"SafeRegex({self.pattern!r})"


_ONE_CHARACTER = frozenset((_c.LITERAL, _c.NOT_LITERAL, _c.IN, _c.ANY, _c.CATEGORY))
_REPEATS = frozenset((_c.MAX_REPEAT, _c.MIN_REPEAT))


def _is_linear(tree: Any) -> bool:
    """Whether Python's backtracking engine runs the pattern in time linear in the text, so
    RE2 (whose every call costs microseconds of conversion) is not needed: anchored at the
    start (`^` without `(?m)`, or `\\A`), then single characters, classes and anchors, with
    at most one repeat, of a single character or class (`^[a-z0-9][a-z0-9._-]*$`, a case id's
    pattern). Only one place to start and one repeat to give back: nothing to retry twice."""
    items = list(tree)
    if tree.state.flags & re.MULTILINE or not items:
        return False
    if items[0] not in ((_c.AT, _c.AT_BEGINNING), (_c.AT, _c.AT_BEGINNING_STRING)):
        return False
    repeats = 0
    for op, av in items[1:]:
        if op in _REPEATS:
            body = list(av[2])
            if len(body) != 1 or body[0][0] not in _ONE_CHARACTER:
                return False
            repeats += 1
        elif op not in _ONE_CHARACTER and op is not _c.AT:
            return False
    return repeats <= 1


def _program(pattern: str, tree: Any, dollar: str | None, capture: bool) -> tuple[Any, _Translator]:
    """The RE2 program for a parse tree, and its translator (which knows the groups that hold
    the newline a final `$` stood before, and the groups a replacement must not use)."""
    translator = _Translator(dollar)
    try:
        text = translator.sequence(tree, tree.state.flags, True)
    except _Unsupported as exc:
        raise RegexError(pattern, _locate(pattern, exc.kind) + 1, exc.message) from None
    except RecursionError:
        raise RegexError(pattern, 1, "the pattern nests too deeply") from None
    import re2

    try:
        return re2.compile(text, _re2_options(capture)), translator
    except re2.error as exc:  # in practice: a program over RE2's memory budget
        detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        raise RegexError(
            pattern, 1, f"the pattern is too large for the linear-time engine ({detail})"
        ) from None


def _substitute(program: Any, dollars: list[int], pieces: list[str | int], text: str) -> str:
    """Python's `re.sub` loop over RE2 matches. No match is empty (see `substitution`), so
    searching on from where the previous match ended finds what Python finds."""
    text = _text(text)
    out: list[str] = []
    done = 0
    while done <= len(text):
        match = _encoding_guard(lambda: program.search(text, done))  # noqa: B023 - called now
        if match is None:
            break
        # A newline consumed for a final `$` is not part of Python's match.
        end = match.end() - any(match.group(name) for name in dollars)
        out.append(text[done : match.start()])
        for piece in pieces:
            if isinstance(piece, str):
                out.append(piece)
                continue
            start, stop = match.span(piece)
            out.append(text[start : min(stop, end)] if start >= 0 else "")
        done = end
    out.append(text[done:])
    return "".join(out)


_SENTINEL = 0xF0000  # a private-use plane: marks group values while parsing a template


def _template_pieces(python: re.Pattern[str], template: Any) -> list[str | int]:
    """A `sub()` template as literal texts and group numbers (0: the whole match), parsed by
    Python itself: expanding it on a match whose groups hold marker characters shows where
    each group goes and what every escape means."""
    if not isinstance(template, str):
        raise RegexError(repr(template), 1, "the replacement must be text", "replacement")
    if any(ord(char) >= _SENTINEL for char in template) or python.groups >= 0xFFFF:
        raise RegexError(template, 1, "private-use characters are not supported", "replacement")
    try:
        expanded = _marker_match(python).expand(template)
    except (re.error, IndexError) as exc:
        position = getattr(exc, "pos", None) or 0
        message = getattr(exc, "msg", None) or str(exc)
        raise RegexError(template, position + 1, message, "replacement") from None
    return _split_expanded(expanded, python.groups)


def _marker_match(python: re.Pattern[str]) -> re.Match[str]:
    """A match with the pattern's groups (numbers and names) whose group N holds the
    single character _SENTINEL + N."""
    names = {number: name for name, number in python.groupindex.items()}
    probe = [f"\\U{_SENTINEL:08x}"]
    for number in range(1, python.groups + 1):
        marker = f"\\U{_SENTINEL + number:08x}"
        probe.append(f"(?P<{names[number]}>{marker})" if number in names else f"({marker})")
    text = "".join(chr(_SENTINEL + n) for n in range(python.groups + 1))
    match = re.fullmatch("".join(probe), text)
    assert match is not None
    return match


def _split_expanded(expanded: str, groups: int) -> list[str | int]:
    pieces: list[str | int] = []
    literal: list[str] = []
    i = 0
    while i < len(expanded):
        code = ord(expanded[i])
        if code < _SENTINEL:
            literal.append(expanded[i])
            i += 1
            continue
        if literal:
            pieces.append("".join(literal))
            literal = []
        pieces.append(code - _SENTINEL)
        # \g<0> is every marker in a row: skip the group markers that are part of it.
        i += groups + 1 if code == _SENTINEL else 1
    if literal:
        pieces.append("".join(literal))
    return pieces


@functools.lru_cache(maxsize=1024)
def compile_safe(pattern: str) -> SafeRegex:
    """Compile `pattern` with Python's meaning for linear-time matching.

    Raises RegexError (a ValueError) with the 1-based column of the problem: for anything
    Python's `re` rejects, and for constructs without an exact linear-time equivalent.
    """
    if not isinstance(pattern, str):
        raise RegexError(repr(pattern), 1, f"a pattern must be text, not {type(pattern).__name__}")
    try:
        with warnings.catch_warnings():
            # FutureWarning ("possible nested set") must not fail a spec when warnings are
            # errors: the pattern's meaning today is what counts.
            warnings.simplefilter("ignore")
            python = re.compile(pattern)
            tree = _p.parse(pattern)
    except re.error as exc:
        raise RegexError(pattern, (exc.pos or 0) + 1, exc.msg) from None
    except (RecursionError, OverflowError) as exc:
        raise RegexError(pattern, 1, f"the pattern cannot be compiled: {exc}") from None
    return SafeRegex(pattern, python, tree)
