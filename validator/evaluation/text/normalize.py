"""Character-level normalization: what every keyword and every answer goes through.

:func:`normalize_plain` deletes invisible characters, folds case and compatibility forms
(NFKC), collapses whitespace and drops the space next to CJK text; :func:`delete_ignorable`
is its first step alone (Markdown rendering needs it before parsing). The Unicode tables are
literal, with the functions that derive them from the database (a test keeps them equal).
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable
from functools import lru_cache

from ..unicodeclasses import UNICODE_VERSIONS, hex_ranges, joined, later_versions

# Characters that are invisible but are *not* Unicode category Cf, and that could still be
# slipped between the letters of a keyword: the combining grapheme joiner, Hangul fillers
# (the classic "invisible name" characters), Khmer inherent vowels, Mongolian free variation
# selectors and the variation selectors.  All are Default_Ignorable_Code_Point in Unicode.
_EXTRA_IGNORABLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180D),
    (0x180F, 0x180F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0100, 0xE01EF),
)

# "CJK" for the spacing rule: Han (unified, extensions, compatibility, radicals), Hiragana,
# Katakana (incl. phonetic extensions and kana supplements), Bopomofo, Hangul (syllables and
# all jamo blocks), CJK symbols and punctuation, enclosed CJK, CJK compatibility forms,
# half/full-width forms, and the whole of planes 2 and 3 (ideographs only).
# U+3000 (ideographic space) is deliberately excluded: it is whitespace.
_CJK_CLASS = (
    "\u1100-\u11ff"  # Hangul Jamo
    "\u2e80-\u2fff"  # CJK radicals, Kangxi radicals, ideographic description characters
    "\u3001-\u303f"  # CJK symbols and punctuation (without U+3000)
    "\u3040-\u33ff"  # kana, Bopomofo, compatibility jamo, Kanbun, strokes, enclosed, compat
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\ua960-\ua97f"  # Hangul Jamo extended A
    "\uac00-\ud7ff"  # Hangul syllables, Hangul Jamo extended B
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\ufe30-\ufe4f"  # CJK compatibility forms
    "\uff00-\uffef"  # half-width and full-width forms
    "\U00016fe0-\U00016fff"  # ideographic symbols and punctuation
    "\U0001aff0-\U0001b16f"  # kana extended / supplement
    "\U0001f200-\U0001f2ff"  # enclosed ideographic supplement
    "\U00020000-\U0003ffff"  # supplementary and tertiary ideographic planes
)

# Whitespace (already collapsed to one space) with a CJK character on at least one side.
# Both alternatives start with the space, so re goes from space to space rather than trying
# a lookbehind at every character (~4x faster on a rendered answer).
_CJK_SPACE_RE = re.compile(f" (?:(?=[{_CJK_CLASS}])|(?<=[{_CJK_CLASS}] ))")


def _collapse_whitespace(text: str) -> str:
    """Each run of whitespace as one space, none at either end. `str.split` splits on what
    `str.isspace` calls whitespace, which is what re's `\\s` matches (a test compares them
    over every code point), ~3x faster than ``re.sub(r"\\s+", " ", text).strip(" ")``."""
    return " ".join(text.split())


# Invisible characters to delete, as code point ranges: category Cf (zero-width space and
# joiners, BOM, soft hyphen, bidi controls, word joiner, tag characters, ...), control
# characters (Cc) that are *not* whitespace (a BEL or NUL between letters is as invisible as
# a zero-width space; tabs and newlines stay whitespace), plus _EXTRA_IGNORABLE_RANGES.
# A literal table because deriving it from the Unicode database scans 1.1 M code points
# (~0.15 s on every run); `ignorable_ranges_from_database()` derives it, and a test keeps the
# two equal on the running Python. The table is Unicode 14.0.0's (Python 3.11);
# `_IGNORABLE_ADDED` holds what each later version adds (3.12 has 15.0.0, 3.13 15.1.0), and
# a Python whose version is later than all of them gets them all (its test says to add it).
_IGNORABLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x0008),
    (0x000E, 0x001B),
    (0x007F, 0x0084),
    (0x0086, 0x009F),
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x13438),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
    (0xE0100, 0xE01EF),
)
# What each later Unicode version adds, by the versions `unicodeclasses` stores its tables for.
_IGNORABLE_ADDED: dict[str, tuple[tuple[int, int], ...]] = {
    "15.0.0": ((0x13439, 0x1343F),),  # Egyptian hieroglyph format controls
    "15.1.0": (),
}


@lru_cache(maxsize=1)
def _ignorable_ranges() -> tuple[tuple[int, int], ...]:
    """`_IGNORABLE_RANGES` with what this Python's Unicode version adds (`later_versions`)."""
    return joined([*_IGNORABLE_RANGES, *(r for v in later_versions() for r in _IGNORABLE_ADDED[v])])


def ignorable_ranges_from_database() -> list[tuple[int, int]]:
    """The ignorable ranges, derived from the running interpreter's Unicode data."""
    points = {
        cp
        for cp in range(sys.maxunicode + 1)
        if unicodedata.category(chr(cp)) == "Cf"
        or (unicodedata.category(chr(cp)) == "Cc" and not chr(cp).isspace())
    }
    for lo, hi in _EXTRA_IGNORABLE_RANGES:
        points.update(range(lo, hi + 1))
    ranges: list[tuple[int, int]] = []
    for cp in sorted(points):
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    return ranges


@lru_cache(maxsize=1)
def ignorable_re() -> re.Pattern[str]:
    """Regex matching runs of the invisible characters of the ignorable table."""

    def esc(cp: int) -> str:
        return f"\\U{cp:08x}"

    ranges = _ignorable_ranges()
    body = "".join(esc(lo) if lo == hi else f"{esc(lo)}-{esc(hi)}" for lo, hi in ranges)
    return re.compile(f"[{body}]+")


@lru_cache(maxsize=1)
def _ignorable_parts() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """`ignorable_re` cut in three for speed: its ASCII characters, its BMP characters, and
    those beyond the BMP. re tests a class of BMP characters with a bitmap, but a class that
    lists ranges beyond it range by range: the single class costs ~20 ns a character,
    the BMP part alone a third of that, and ASCII text (`str.isascii` is O(1)) less still."""

    ranges = _ignorable_ranges()

    def part(keep: Callable[[int, int], bool]) -> re.Pattern[str]:
        body = "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ranges if keep(lo, hi))
        return re.compile(f"[{body}]+")

    assert all(lo > 0xFFFF or hi <= 0xFFFF for lo, hi in ranges)
    ascii_ = re.compile(
        "["
        + "".join(f"\\x{lo:02x}-\\x{min(hi, 0x7F):02x}" for lo, hi in ranges if lo < 0x80)
        + "]+"
    )
    return ascii_, part(lambda lo, hi: hi <= 0xFFFF), part(lambda lo, hi: lo > 0xFFFF)


_ASTRAL_RE = re.compile("[\U00010000-\U0010ffff]")

# Whether NFKC, casefold and NFKC again can make an ignorable character out of text that has
# none: not on the Unicode versions whose tables are stored (no code point gives one, and no
# ignorable character is a canonical composite, so no pair composes into one: a test checks
# both over every code point on its Python; 14.0.0, 15.0.0 and 15.1.0 were all checked). On
# a later version, `normalize_plain` deletes them once more after normalizing, to be sure.
_NORMALIZING_KEEPS_IGNORABLES_OUT = unicodedata.unidata_version in UNICODE_VERSIONS


def delete_ignorable(text: str) -> str:
    """`text` without the characters of `ignorable_re`: the same as its ``sub("", text)``."""
    ascii_, bmp, astral = _ignorable_parts()
    if text.isascii():
        return ascii_.sub("", text)
    text = bmp.sub("", text)
    return astral.sub("", text) if _ASTRAL_RE.search(text) else text


# Code points whose compatibility decomposition is made only of non-starters (canonical
# combining class not 0): combining marks, and a few others such as U+0F73 and U+FF9E.
# NFKC sorts each run of non-starters by combining class, and CPython sorts by insertion:
# a long run out of order is quadratic (1 MB of "\u0323\u0301" would take ~13 minutes).
# Hex ranges, space-separated, as `mark_ranges_from_database()` derives them (a test keeps
# them equal on the running Python): Unicode 14.0.0's, and in `_MARK_ADDED_HEX` what each
# later version adds, as for the ignorable table.
_MARK_RANGES_HEX = (
    "0300-034E 0350-036F 0483-0487 0591-05BD 05BF 05C1-05C2 05C4-05C5 05C7 0610-061A "
    "064B-065F 0670 06D6-06DC 06DF-06E4 06E7-06E8 06EA-06ED 0711 0730-074A 07EB-07F3 07FD "
    "0816-0819 081B-0823 0825-0827 0829-082D 0859-085B 0898-089F 08CA-08E1 08E3-08FF 093C "
    "094D 0951-0954 09BC 09CD 09FE 0A3C 0A4D 0ABC 0ACD 0B3C 0B4D 0BCD 0C3C 0C4D 0C55-0C56 "
    "0CBC 0CCD 0D3B-0D3C 0D4D 0DCA 0E38-0E3A 0E48-0E4B 0EB8-0EBA 0EC8-0ECB 0F18-0F19 0F35 "
    "0F37 0F39 0F71-0F75 0F7A-0F7D 0F80-0F84 0F86-0F87 0FC6 1037 1039-103A 108D 135D-135F "
    "1714-1715 1734 17D2 17DD 18A9 1939-193B 1A17-1A18 1A60 1A75-1A7C 1A7F 1AB0-1ABD "
    "1ABF-1ACE 1B34 1B44 1B6B-1B73 1BAA-1BAB 1BE6 1BF2-1BF3 1C37 1CD0-1CD2 1CD4-1CE0 "
    "1CE2-1CE8 1CED 1CF4 1CF8-1CF9 1DC0-1DFF 20D0-20DC 20E1 20E5-20F0 2CEF-2CF1 2D7F "
    "2DE0-2DFF 302A-302F 3099-309A A66F A674-A67D A69E-A69F A6F0-A6F1 A806 A82C A8C4 "
    "A8E0-A8F1 A92B-A92D A953 A9B3 A9C0 AAB0 AAB2-AAB4 AAB7-AAB8 AABE-AABF AAC1 AAF6 ABED "
    "FB1E FE20-FE2F FF9E-FF9F 101FD 102E0 10376-1037A 10A0D 10A0F 10A38-10A3A 10A3F "
    "10AE5-10AE6 10D24-10D27 10EAB-10EAC 10F46-10F50 10F82-10F85 11046 11070 1107F "
    "110B9-110BA 11100-11102 11133-11134 11173 111C0 111CA 11235-11236 112E9-112EA "
    "1133B-1133C 1134D 11366-1136C 11370-11374 11442 11446 1145E 114C2-114C3 115BF-115C0 "
    "1163F 116B6-116B7 1172B 11839-1183A 1193D-1193E 11943 119E0 11A34 11A47 11A99 11C3F "
    "11D42 11D44-11D45 11D97 16AF0-16AF4 16B30-16B36 16FF0-16FF1 1BC9E 1D165-1D169 "
    "1D16D-1D172 1D17B-1D182 1D185-1D18B 1D1AA-1D1AD 1D242-1D244 1E000-1E006 1E008-1E018 "
    "1E01B-1E021 1E023-1E024 1E026-1E02A 1E130-1E136 1E2AE 1E2EC-1E2EF 1E8D0-1E8D6 "
    "1E944-1E94A "
)
_MARK_ADDED_HEX = {"15.0.0": "10EFD-10EFF 11F41-11F42 1E08F 1E4EC-1E4EF", "15.1.0": ""}
# Both tables are stored for the versions `unicodeclasses` stores: one list of them.
assert set(_IGNORABLE_ADDED) == set(_MARK_ADDED_HEX) == set(UNICODE_VERSIONS[1:])
# Runs shorter than this are sorted by NFKC itself: fast enough, and common in real text.
_MARK_RUN = 32


def mark_ranges_from_database() -> list[tuple[int, int]]:
    """The mark ranges, derived from the running interpreter's Unicode data."""
    ranges: list[tuple[int, int]] = []
    for cp in range(sys.maxunicode + 1):
        if 0xD800 <= cp <= 0xDFFF:
            continue  # surrogates have no decomposition
        parts = unicodedata.normalize("NFKD", chr(cp))
        if not all(unicodedata.combining(c) for c in parts):
            continue
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    return ranges


def _mark_ranges() -> list[tuple[int, int]]:
    """The mark table of this Python's Unicode version (see `_ignorable_ranges`)."""
    added = [_MARK_ADDED_HEX[v] for v in later_versions()]
    return list(hex_ranges(" ".join([_MARK_RANGES_HEX, *added]).split()))


@lru_cache(maxsize=1)
def _mark_run_re() -> re.Pattern[str]:
    """Regex matching runs of at least `_MARK_RUN` characters that are combining marks of the
    Basic Multilingual Plane or any character beyond it.

    A superset of `_MARK_RANGES_HEX`, for speed: re tests a class of BMP characters with one
    bitmap lookup, but a class that also lists ranges beyond the BMP range by range (~100 ns
    a character here, doubling normalize_plain's time); astral characters are rare, and
    `_sorted_marks` tells the exact ones apart.
    """
    body = "".join(f"\\u{lo:04x}-\\u{hi:04x}" for lo, hi in _mark_ranges() if hi <= 0xFFFF)
    return re.compile(f"[{body}\\U00010000-\\U0010ffff]{{{_MARK_RUN},}}")


@lru_cache(maxsize=1)
def _mark_tables() -> tuple[re.Pattern[str], dict[int, str]]:
    """The exact mark class (runs of `_MARK_RUN` or more: shorter ones NFKC sorts quickly
    itself), and the decomposition (NFKD) of the marks that decompose (U+0344, U+0F73,
    U+FF9E...), for ``str.translate``."""
    ranges = _mark_ranges()
    body = "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ranges)
    decompose = {
        cp: parts
        for lo, hi in ranges
        for cp in range(lo, hi + 1)
        if (parts := unicodedata.normalize("NFKD", chr(cp))) != chr(cp)
    }
    return re.compile(f"[{body}]{{{_MARK_RUN},}}"), decompose


def _sorted_marks(m: re.Match[str]) -> str:
    """A run found by `_mark_run_re`, each long block of marks in it in canonical order."""
    blocks, decompose = _mark_tables()
    return blocks.sub(lambda b: _canonical_order(b.group().translate(decompose)), m.group())


def _canonical_order(marks: str) -> str:
    """`marks` (decomposed non-starters) stably sorted by combining class, which is exactly
    the canonical order NFKC gives them. One ``str.translate`` pass per class present keeps
    that class's characters, in order: C speed, and no object per character (a 16 MB run
    stays a few strings of 16 MB)."""
    classes: dict[int, list[str]] = {}
    for char in set(marks):
        classes.setdefault(unicodedata.combining(char), []).append(char)
    if len(classes) == 1:
        return marks
    parts = []
    for ccc in sorted(classes):
        others = {ord(c): None for k, chars in classes.items() if k != ccc for c in chars}
        parts.append(marks.translate(others))
    return "".join(parts)


def _presort_marks(text: str) -> str:
    """`text` with each long run of combining marks already in canonical order.

    Canonically equivalent to `text` (a stable sort by combining class of a contiguous block
    of non-starters is what canonical ordering does to the run containing it), so NFKC gives
    the same result, but its insertion sort then has next to nothing to move: linear time.
    """
    return _mark_run_re().sub(_sorted_marks, text)


def normalize_plain(text: str) -> str:
    """Normalize text for keyword matching; idempotent.

    Steps, and why:

    1. Delete invisible characters (Cf, non-whitespace controls, variation selectors, Hangul
       fillers; see :func:`ignorable_re`), so ``my\\u200bsql`` cannot dodge ``mysql``.
       Done first so that the deletion cannot leave an un-normalized combining sequence.
    2. NFKC, ``casefold()``, NFKC: full-width ``ＭｙＳＱＬ`` and ``MySQL`` both become
       ``mysql``; full-width punctuation becomes ASCII; ligatures and compatibility forms
       are unfolded.  The second NFKC recomposes what casefolding decomposed.  Long runs of
       combining marks are put in canonical order first (`_presort_marks`): the same
       result, in linear time instead of CPython's quadratic insertion sort.
    3. Collapse every whitespace run (any ``str.isspace`` character, including NBSP and
       the ideographic space) to one space and strip both ends.
    4. Delete the space when a CJK character is on *either* side of it.  Chinese and
       Japanese have no word spaces, so a Markdown soft line break inside a sentence
       (``连接池\\n耗尽``) must not break the keyword ``连接池耗尽``.  Requiring CJK on
       only one side (rather than both) also makes matching insensitive to "pangu" spacing
       (``MySQL 连接池`` vs ``MySQL连接池``) and to the space after punctuation that NFKC
       turned into ASCII (``连接池，\\n耗尽`` -> ``连接池,耗尽``).  Hangul is included as
       requested, so Korean word spaces disappear too.  Keywords get the same treatment,
       so the rule only adds matches across a former space (``mysql 连接池`` now also
       matches ``MySQL连接池``); it does not make a keyword miss text it used to match.
    5. A final NFKC if step 4 joined a composable pair (``か``+space+``\\u3099``) or left
       marks out of order, then step 4 again (and so on) if that put a CJK mark next to
       a space.

    Regex and Markdown metacharacters (``c++ (gcc)``, ``.*``, ``[a-z]+``, ``|``) are
    ordinary characters here and pass through unchanged.
    """
    return normalize_cleaned(delete_ignorable(text))


def normalize_cleaned(text: str) -> str:
    """:func:`normalize_plain` of text that holds no ignorable character (step 1 done: its
    own result, or a rendering of such text that can have made none)."""
    if text.isascii():
        # ASCII (O(1) to tell): no CJK and no combining marks, NFKC changes nothing and
        # casefold is lower(), so only the whitespace step is left: the same result, faster.
        return _collapse_whitespace(text.lower())
    text = _presort_marks(text)  # same result, but linear time on long runs of marks
    text = unicodedata.normalize("NFKC", text)
    text = unicodedata.normalize("NFKC", text.casefold())
    if not _NORMALIZING_KEEPS_IGNORABLES_OUT:
        text = delete_ignorable(text)
    text = _collapse_whitespace(text)
    text = _CJK_SPACE_RE.sub("", text)
    while not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
        # Reordering marks can bring a CJK one next to a space (`0 \u0301\u302a`: the
        # tone mark U+302A goes before the accent): that space goes too, or a second call
        # would delete it. Each pass that changes anything deletes a space: it ends.
        text = _CJK_SPACE_RE.sub("", text)
    return text
