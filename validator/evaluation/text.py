"""Text normalization and leak detection for diagnosis-trace validation.

The validator compares an agent's final answer (usually Markdown, Chinese or English) with
keyword lists and with the executor's unverified draft.  Every comparison happens on
*normalized* text so that superficial differences -- full-width letters, upper case,
zero-width characters, Markdown markup, soft line breaks inside a Chinese sentence -- can
neither hide a forbidden keyword nor make a required one go missing.

Entry points:

* :func:`normalize_plain` -- for keywords, markers and any text that is *not* Markdown.
  It is also the last step of :func:`normalize_markdown`, so a keyword and an answer go
  through exactly the same character-level pipeline and ``kw in answer`` stays symmetric.
* :func:`normalize_markdown` -- renders Markdown to its visible text (via the markdown-it
  token stream) and then applies :func:`normalize_plain`.  :func:`normalize_markdown_ex`
  also says when it did not render: text longer than ``MARKDOWN_BUDGET_CHARS`` goes
  through the linear :func:`strip_markdown` instead, with a note for the report.
* :func:`keywords_in` -- which of many keywords occur in a text, in one pass.
* :func:`occurs_as_word` / :func:`words_in` -- the same, for ASCII keywords, only as whole
  words (``whole_words: true``): ``flat`` is not found inside ``ivf_flat``.
* :func:`shared_run` -- finds a substring of a given length shared by two texts in
  (practically) linear time; used as the "did the answer copy the rejected draft" check.

Every function here takes time linear in its input (or ``n log n``), whatever the input: no
regular expression backtracks over the text more than a bounded number of times.

Importing this module is cheap: markdown-it is imported, and the parser and the Unicode
tables are built, on first use only.
"""

from __future__ import annotations

import html
import html.entities
import os
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any

__all__ = [
    "MARKDOWN_BUDGET_CHARS",
    "has_markdown_syntax",
    "keywords_in",
    "many_keywords",
    "normalize_markdown",
    "normalize_markdown_ex",
    "normalize_plain",
    "shared_run",
    "strip_markdown",
]

# ---------------------------------------------------------------------------
# normalize_plain
# ---------------------------------------------------------------------------

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

_WS_RUN_RE = re.compile(r"\s+")
# Whitespace (already collapsed to one space) with a CJK character on at least one side.
_CJK_SPACE_RE = re.compile(f" (?=[{_CJK_CLASS}])|(?<=[{_CJK_CLASS}]) ")


# Invisible characters to delete, as code point ranges: category Cf (zero-width space and
# joiners, BOM, soft hyphen, bidi controls, word joiner, tag characters, ...), control
# characters (Cc) that are *not* whitespace (a BEL or NUL between letters is as invisible as
# a zero-width space; tabs and newlines stay whitespace), plus _EXTRA_IGNORABLE_RANGES.
# A literal table because deriving it from the Unicode database scans 1.1 M code points
# (~0.15 s on every run); `ignorable_ranges_from_database()` derives it, and a test keeps the
# two equal (regenerate this table with that function when Python's Unicode version changes).
IGNORABLE_UNICODE_VERSION = "14.0.0"
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


def ignorable_ranges_from_database() -> list[tuple[int, int]]:
    """The ranges of `_IGNORABLE_RANGES`, derived from the running interpreter's Unicode data."""
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
def _ignorable_re() -> re.Pattern[str]:
    """Regex matching runs of the invisible characters of `_IGNORABLE_RANGES`."""

    def esc(cp: int) -> str:
        return f"\\U{cp:08x}"

    body = "".join(esc(lo) if lo == hi else f"{esc(lo)}-{esc(hi)}" for lo, hi in _IGNORABLE_RANGES)
    return re.compile(f"[{body}]+")


@lru_cache(maxsize=1)
def _ignorable_parts() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """`_ignorable_re` cut in three for speed: its ASCII characters, its BMP characters, and
    those beyond the BMP. re tests a class of BMP characters with a bitmap, but a class that
    lists ranges beyond it range by range: the single class costs ~20 ns a character,
    the BMP part alone a third of that, and ASCII text (`str.isascii` is O(1)) less still."""

    def part(keep: Callable[[int, int], bool]) -> re.Pattern[str]:
        body = "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in _IGNORABLE_RANGES if keep(lo, hi))
        return re.compile(f"[{body}]+")

    assert all(lo > 0xFFFF or hi <= 0xFFFF for lo, hi in _IGNORABLE_RANGES)
    ascii_ = re.compile(
        "["
        + "".join(
            f"\\x{lo:02x}-\\x{min(hi, 0x7F):02x}" for lo, hi in _IGNORABLE_RANGES if lo < 0x80
        )
        + "]+"
    )
    return ascii_, part(lambda lo, hi: hi <= 0xFFFF), part(lambda lo, hi: lo > 0xFFFF)


_ASTRAL_RE = re.compile("[\U00010000-\U0010ffff]")


def _delete_ignorable(text: str) -> str:
    """`text` without the characters of `_ignorable_re`: the same as its ``sub("", text)``."""
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
# them equal; regenerate with it when Python's Unicode version changes).
MARK_UNICODE_VERSION = "14.0.0"
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
# Runs shorter than this are sorted by NFKC itself: fast enough, and common in real text.
_MARK_RUN = 32


def mark_ranges_from_database() -> list[tuple[int, int]]:
    """The ranges of `_MARK_RANGES_HEX`, derived from the running interpreter's Unicode data."""
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
    out = []
    for item in _MARK_RANGES_HEX.split():
        lo, _, hi = item.partition("-")
        out.append((int(lo, 16), int(hi or lo, 16)))
    return out


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
       fillers; see :func:`_ignorable_re`), so ``my\\u200bsql`` cannot dodge ``mysql``.
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
    5. A final NFKC if step 4 joined a composable pair (``か``+space+``\\u3099``).

    Regex and Markdown metacharacters (``c++ (gcc)``, ``.*``, ``[a-z]+``, ``|``) are
    ordinary characters here and pass through unchanged.
    """
    text = _delete_ignorable(text)
    if text.isascii():
        # ASCII (O(1) to tell): no CJK and no combining marks, NFKC changes nothing and
        # casefold is lower(), so only the whitespace step is left: the same result, faster.
        return _WS_RUN_RE.sub(" ", text.lower()).strip(" ")
    text = _presort_marks(text)  # same result, but linear time on long runs of marks
    text = unicodedata.normalize("NFKC", text)
    text = unicodedata.normalize("NFKC", text.casefold())
    text = _delete_ignorable(text)  # defensive: NFKC/casefold do not produce these today
    text = _WS_RUN_RE.sub(" ", text).strip(" ")
    text = _CJK_SPACE_RE.sub("", text)
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    return text


# ---------------------------------------------------------------------------
# normalize_markdown
# ---------------------------------------------------------------------------

_md_parser: Any = None  # markdown_it.MarkdownIt, created on first use


def _parser() -> Any:
    """Return the shared MarkdownIt parser, importing markdown-it on first use.

    One parser for the whole process: construction compiles the rule chains, while
    ``parse`` keeps all state in per-call objects, so sharing it is safe.
    """
    global _md_parser
    if _md_parser is None:
        from markdown_it import MarkdownIt

        # text_join off: it would merge character references into the text around them,
        # and _special_text must see them (the text is the same: the walk concatenates).
        _md_parser = (
            MarkdownIt("commonmark").enable(["table", "strikethrough"]).disable("text_join")
        )
    return _md_parser


# HTML tags whose rendering separates words (block-level elements per the CommonMark HTML
# block list, plus line breaks).  Such a tag becomes a space; any other tag (``<b>``,
# ``<span>``, ``<code>``...) disappears without a trace, as it does in the rendered page,
# so ``s<b>low</b>`` still reads ``slow``.
_BLOCK_TAGS = frozenset(
    """address article aside base basefont blockquote body br caption center col colgroup dd
    details dialog dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2
    h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav noframes ol
    optgroup option p param pre script search section style summary table tbody td
    textarea tfoot th thead title tr track ul""".split()  # noqa: SIM905
)

_ATTR = (
    r"(?:\s+[a-zA-Z_:][a-zA-Z0-9:._-]*"
    r"(?:\s*=\s*(?:[^\"'=<>`\x00-\x20]+|'[^']*'|\"[^\"]*\"))?)"
)
# The pieces of HTML, in the order they are tried (comments, processing instructions, CDATA
# and declarations before tags). Each but the tag may be unterminated: its pattern then
# matches up to the end, with its "<kind>_open" group set, and _html_pieces() decides.
_HTML_PIECE_PARTS: dict[str, str] = {
    "comment": r"(?P<comment><!--.*?(?:-->|(?P<comment_open>\Z)))",
    "pi": r"(?P<pi><\?.*?(?:\?>|(?P<pi_open>\Z)))",
    "cdata_piece": r"(?P<cdata_piece><!\[CDATA\[(?P<cdata>.*?)(?:\]\]>|(?P<cdata_piece_open>\Z)))",
    "decl": r"(?P<decl><![A-Za-z][^>]*(?:>|(?P<decl_open>\Z)))",
    "tag": rf"(?P<tag><(?P<close>/)?(?P<name>[A-Za-z][A-Za-z0-9-]*)(?(close)\s*>|{_ATTR}*\s*/?>))",
}
# Unterminated, these run to the end of an html_block, as in CommonMark.
_RUN_TO_END = frozenset({"comment", "pi", "cdata_piece"})


@lru_cache(maxsize=16)
def _html_piece_re(kinds: frozenset[str]) -> re.Pattern[str]:
    return re.compile("|".join(v for k, v in _HTML_PIECE_PARTS.items() if k in kinds), re.DOTALL)


_HTML_PIECE_RE = _html_piece_re(frozenset(_HTML_PIECE_PARTS))


def _html_pieces(src: str, run_to_end: frozenset[str] = _RUN_TO_END) -> Iterator[re.Match[str]]:
    """The HTML pieces of `src`, left to right; the kinds in `run_to_end` may be unterminated
    (they then take the rest of `src`), the others need their terminator.

    In linear time. A pattern such as ``<![A-Za-z][^>]*>`` fails only after scanning to the
    end of the text, and a regex search retries it at every "<!X" in turn: quadratic (a
    990 KB block of "<!A" took minutes). Here each pattern also matches its unterminated form
    (up to the end); that is "no piece here" for a kind that needs its terminator, and since
    no terminator is left, none of that kind can come later either: the search goes on from
    the next character without it. Each kind is scanned to the end at most once.
    """
    kinds = frozenset(_HTML_PIECE_PARTS)
    pattern = _HTML_PIECE_RE
    pos = 0
    while (m := pattern.search(src, pos)) is not None:
        kind = m.lastgroup  # the outer group of the alternative that matched
        if kind != "tag" and kind not in run_to_end and m.group(f"{kind}_open") is not None:
            kinds = kinds - {kind}
            pattern = _html_piece_re(kinds)
            pos = m.start() + 1  # the "<" is text
            continue
        yield m
        pos = m.end()


def _charref_text(code: int) -> str | None:
    """What a numeric character reference reads as when the renderer has no character for it.

    markdown-it replaces ``&#0;``, ``&#7;``, ``&#x85;``... with U+FFFD, and ``html.unescape``
    turns ``&#0;`` into U+FFFD and drops ``&#1;``: either way ``rest&#0;art`` would not read
    ``restart``, while a literal NUL there is deleted like any invisible character. So such a
    reference reads as its character written literally would: nothing if it is ignorable
    (see `_ignorable_re`), a space if it is whitespace. ``None`` (keep the renderer's
    result) for the others: surrogates, noncharacters, numbers beyond U+10FFFF.
    """
    if code > sys.maxunicode:
        return None
    char = chr(code)
    if _ignorable_re().fullmatch(char):
        return ""
    return " " if char.isspace() else None


def _charref_code(ref: str) -> int:
    """The number of a numeric character reference such as ``&#120;``, ``&#x78`` or ``&#X78;``."""
    digits = ref[2:].rstrip(";")
    if digits[:1] in ("x", "X"):
        return int(digits[1:], 16)
    return int(digits)


# html.unescape's own pattern (Lib/html/__init__.py), so each match is exactly one reference
# that html.unescape would replace.
_CHARREF_RE = re.compile(r"&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)")


def _unescape_ref(m: re.Match[str]) -> str:
    ref = m.group(0)
    out = html.unescape(ref)
    if ref[1] == "#" and out in ("", "\ufffd"):
        replaced = _charref_text(_charref_code(ref))
        if replaced is not None:
            return replaced
    return out


def _unescape(text: str) -> str:
    """``html.unescape``, except for numeric references it has no character for (`_charref_text`)."""
    if "&" not in text:
        return text
    return _CHARREF_RE.sub(_unescape_ref, text)


def _special_text(tok: Any) -> str:
    """Text of a ``text_special`` token: an escaped character or a character reference."""
    if tok.info == "entity" and tok.content == "\ufffd" and tok.markup.startswith("&#"):
        replaced = _charref_text(_charref_code(tok.markup))
        if replaced is not None:
            return replaced
    return tok.content


def _html_tag_text(tag: str) -> str:
    """Replacement for one inline HTML token: a space for word-separating tags, else ''."""
    m = _HTML_PIECE_RE.fullmatch(tag)
    if m is not None and m.group("name") and m.group("name").lower() in _BLOCK_TAGS:
        return " "
    return ""


def _html_block_text(src: str) -> str:
    """Visible text of an HTML block: tags, comments, declarations and processing
    instructions removed, CDATA content kept, character references decoded (as markdown-it
    does for ordinary text, so ``&amp;`` reads ``&`` everywhere)."""
    return _drop_html(src, _RUN_TO_END, _unescape)


def _drop_html(src: str, run_to_end: frozenset[str], unescape: Callable[[str], str]) -> str:
    """`src` without its HTML pieces (see `_html_pieces`): a block-level tag becomes a space,
    CDATA keeps its content (literal), the text between pieces goes through `unescape`."""
    parts: list[str] = []
    pos = 0
    for m in _html_pieces(src, run_to_end):
        parts.append(unescape(src[pos : m.start()]))
        pos = m.end()
        cdata = m.group("cdata")
        if cdata is not None:
            parts.append(cdata)  # literal text, no entity decoding inside CDATA
        else:
            name = m.group("name")
            if name and name.lower() in _BLOCK_TAGS:
                parts.append(" ")
    parts.append(unescape(src[pos:]))
    return "".join(parts)


def _markdown_text(src: str) -> str:
    """Walk the markdown-it token stream and collect the visible text."""
    out: list[str] = []
    append = out.append
    # Explicit stack instead of recursion: image alt text may nest images.
    stack: list[Any] = [iter(_parser().parse(src))]
    while stack:
        tok = next(stack[-1], None)
        if tok is None:
            stack.pop()
            continue
        ttype = tok.type
        if ttype in ("text", "code_inline"):
            append(tok.content)
        elif ttype == "text_special":
            append(_special_text(tok))
        elif ttype in ("inline", "image"):
            # Inline container, or image whose children are the parsed alt text.  The
            # image URL (attrs["src"]) and title are never looked at.
            if tok.children:
                stack.append(iter(tok.children))
            elif ttype == "image":
                append(tok.content)
        elif ttype in ("softbreak", "hardbreak"):
            append("\n")
        elif ttype in ("fence", "code_block"):
            # Only the code; the fence info string (language tag) is markup.
            append("\n")
            append(tok.content)
            append("\n")
        elif ttype == "html_block":
            append("\n")
            append(_html_block_text(tok.content))
            append("\n")
        elif ttype == "html_inline":
            append(_html_tag_text(tok.content))
        elif tok.block and (tok.nesting != 0 or ttype == "hr"):
            # Block boundary (paragraph, heading, list item, table cell, blockquote...).
            append("\n")
        # Everything else -- em/strong/s/link open and close -- is markup: nothing.
        # In particular link_open's href is ignored: link text counts, the URL does not.
    return "".join(out)


def normalize_markdown(text: str) -> str:
    """Normalize a Markdown answer to its visible text, then :func:`normalize_plain`.

    What counts as text: text tokens (with backslash escapes and character references
    resolved, so ``binlog\\_expire`` -> ``binlog_expire``), inline code, the contents of
    fenced and indented code blocks, link text (also the URL of an autolink ``<http://..>``,
    because that *is* its visible text), image alt text, and the text inside HTML blocks.
    What does not: emphasis/strikethrough markers, link and image URLs and titles, link
    reference definitions, fence info strings, list bullets/numbers, table pipes, HTML
    tags and comments.

    Block boundaries (paragraphs, headings, list items, table cells, block quotes, code
    blocks), soft and hard breaks, and block-level HTML tags (``<br>``, ``<p>``,
    ``<div>``...) become whitespace, so words of adjacent blocks never glue together;
    :func:`normalize_plain` then removes such whitespace next to CJK text, where there
    are no word spaces anyway.  Inline tags such as ``<b>`` vanish without a space.

    Invisible characters (those :func:`normalize_plain` deletes, NUL included) are deleted
    *before* rendering, and a numeric character reference to one (``&#0;``, ``&#x200B;``) is
    deleted too, so ``rest\x00art`` and ``rest&#0;art`` both read ``restart`` (markdown-it
    alone would show U+FFFD there); a reference to a whitespace character reads as a space.

    Walking the token stream (instead of rendering HTML and stripping tags) keeps escaped
    ``<`` and ``&lt;`` in the text as they are displayed, and never confuses user text for
    markup.  Never raises: if markdown-it fails on some input, the raw text is normalized
    with :func:`normalize_plain` instead.
    """
    # Invisible characters go before rendering (in normalize_markdown_ex): markdown-it turns
    # NUL into a visible U+FFFD (CommonMark's rule for NUL, the only character its "normalize"
    # step replaces), and a deleted character must not change the Markdown structure it
    # stands between either.
    return normalize_markdown_ex(text)[0]


# ---------------------------------------------------------------------------
# Which answers markdown-it renders: the fast path and the budget
# ---------------------------------------------------------------------------

# Answers longer than this (in characters, once invisible characters are deleted) that contain
# Markdown syntax are not given to markdown-it. Its cost is linear but steep for some markup:
# up to ~20 us a character on this project's machine ("[x](![" repeated; 1 MB of "[" took
# 14 s, a 960 KB table 5.7 s and 287 MB), so this bounds one answer's rendering to ~1.4 s
# and ~30 MB whatever its content. Longer answers go through strip_markdown() (linear: 0.3 s
# for a megabyte of ordinary Markdown, at most 0.7 s for the worst found) and the caller
# gets a note saying so. A size, not a clock: the same answer takes the same path on every
# machine.
MARKDOWN_BUDGET_CHARS = 65_536

_LINE_START_SYNTAX = r"[^\S\n\r]*(?:[#>+=-]|[0-9]+[.)])"
_LINE_START_SYNTAX_RE = re.compile(_LINE_START_SYNTAX)
# Text in which none of these occurs is not Markdown to markdown-it (CommonMark 0.31.2 with the
# table and strikethrough extensions, typographer and linkify off): its visible text is the
# text itself, up to whitespace at line ends and block boundaries, which normalize_plain
# collapses; so it is normalized directly (tests/test_text_fastpath.py checks that the
# outputs are identical). Conservative: each item matches more than what really is syntax.
_MARKDOWN_SYNTAX_RE = re.compile(
    # anywhere: code spans, emphasis with "*", links and images, table pipes
    r"[`*\[\]|]"
    # strikethrough and "~~~" fences (markdown-it reads a single "~" as text)
    r"|~~"
    # a "_" run not inside a word: one with a letter or digit on both sides can neither open
    # nor close emphasis (CommonMark's rule for "_"), so max_connections is text. (Written
    # "_(?<!\w_)", not "(?<!\w)_": every alternative then starts with a character, which
    # lets re skip ahead to the next candidate at C speed: twice as fast.)
    r"|_(?<!\w_)|_(?!\w)"
    # backslash escapes and hard breaks (a backslash before anything else, C:\temp, is text)
    r"|\\(?:[!-/:-@\[-`{-~\n\r]|\Z)"
    # autolinks and HTML ("a < b" is text)
    r"|<(?!\s|\Z)"
    # character references, valid or not ("R&D" is text)
    r"|&(?:#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{1,31};)"
    # at the start of a line (the first line: _LINE_START_SYNTAX_RE), after any whitespace
    # (also an ideographic space, though only spaces and tabs indent): ATX headings, block
    # quotes, bullet list markers and thematic breaks with "-" or "+", setext underlines,
    # ordered list markers ("1." "1)")
    r"|[\n\r]" + _LINE_START_SYNTAX
)
# Not listed because, without the above, they only change whitespace: indentation (an indented
# code block shows its lines verbatim, and nothing in them is markup), two trailing spaces (a
# hard break is a line break), "!" (an image needs "["), and "#", "-", "+", "=", ">", digits
# and "." inside a line.


def has_markdown_syntax(text: str) -> bool:
    """Whether `text` has a character that may start Markdown syntax (see `_MARKDOWN_SYNTAX_RE`);
    when it has none, rendering it changes nothing but whitespace. Linear time."""
    return (
        _LINE_START_SYNTAX_RE.match(text) is not None
        or _MARKDOWN_SYNTAX_RE.search(text) is not None
    )


def normalize_markdown_ex(text: str) -> tuple[str, str | None]:
    """:func:`normalize_markdown`, and a note when the text was not rendered as Markdown.

    The note (``None`` when the text was rendered, or needed no rendering) says which budget
    was exceeded and that the text was matched without Markdown rendering, for the report.

    * Invisible characters are deleted first (see :func:`normalize_markdown`).
    * Text without any Markdown syntax character (:func:`has_markdown_syntax`) skips
      markdown-it: :func:`normalize_plain` gives the same result, faster.
    * Text longer than ``MARKDOWN_BUDGET_CHARS`` characters is not rendered either: its markup
      is removed by :func:`strip_markdown`, a cheap linear approximation, and there is a note.
    * If markdown-it raises, the raw text is normalized, with a note.
    """
    text = _delete_ignorable(text)
    if not has_markdown_syntax(text):
        return normalize_plain(text), None
    if len(text) > MARKDOWN_BUDGET_CHARS:
        note = (
            f"the text has {len(text):,} characters, over the budget of"
            f" {MARKDOWN_BUDGET_CHARS:,} for Markdown rendering: it was matched without"
            " Markdown rendering (markup removed by a simpler, linear pass)"
        )
        return normalize_plain(strip_markdown(text)), note
    try:
        rendered = _markdown_text(text)
    except Exception as exc:  # a validator must not crash on a weird answer
        note = (
            f"Markdown rendering failed ({type(exc).__name__}): the text was matched"
            " without Markdown rendering"
        )
        return normalize_plain(text), note
    return normalize_plain(rendered), None


# ---------------------------------------------------------------------------
# strip_markdown: the linear fallback for answers over the budget
# ---------------------------------------------------------------------------

# Pattern sources, compiled on first use (re caches them): importing this module stays cheap.
_LINE_END = r"\r\n?"
# Whole lines that are only markup, each pattern anchored at a line start (so tried once a
# line) and without nested repetition: linear.
_LINE_RULES: tuple[tuple[str, Any], ...] = (
    # code fence lines: the fence and its info string (language tag) are markup
    (r"(?m)^[ \t]{0,3}(?:`{3,}|~{3,})[^\n]*$", ""),
    # link reference definitions: "[label]: /url 'title'"
    (
        r"(?m)^[ \t]{0,3}\[[^\[\]\n]+\]:[ \t]*(?:<[^<>\n]*>|\S+)"
        r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*$",
        "",
    ),
    # lines of only -, =, *, _, |, : and spaces: setext underlines, thematic breaks, table
    # delimiter rows
    (r"(?m)^[ \t]*[-=|:*_][-=|:*_ \t]*$", ""),
    # block quote markers, then a heading marker or a list marker
    (
        r"(?m)^[ \t]*(?:>[ \t]?)*[ \t]*"
        r"(?:#{1,6}(?=[ \t]|$)|[-+*](?=[ \t])|[0-9]{1,9}[.)](?=[ \t]|$))?",
        "",
    ),
    # table rows (lines starting with "|"): the pipes separate cells
    (r"(?m)^[ \t]*\|[^\n]*", lambda m: m.group().replace("|", " ")),
)
# Inline links, images and full reference links: their text. The label stops at the next
# bracket and the destination at the next space or parenthesis, so each character is scanned
# by one attempt of each part: linear.
_LINK = (
    r"!?\[([^\[\]]*)\]"
    r"(?:\([ \t\n]*(?:<[^<>\n]*>|[^\s()]*)"
    r"(?:[ \t\n]+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?[ \t\n]*\)"
    r"|\[[^\[\]]*\])"
)
_BACKTICKS = r"`+"
_INLINE = (
    r"<(?P<autolink>[A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\x00-\x20]*"
    r"|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)>"
    r"|\\(?P<escaped>[!-/:-@\[-`{-~])"
    r"|(?P<hardbreak>\\\n)"
    r"|(?P<entity>&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});)"
    r"|(?P<delims>[*_~]+)"
)


def strip_markdown(text: str) -> str:
    """An approximation of the visible text of Markdown `text`, in linear time.

    For answers over the rendering budget (see :func:`normalize_markdown_ex`). It removes what
    :func:`normalize_markdown` removes in the common cases: fence lines, link reference
    definitions, heading, list and block quote markers, setext and table delimiter rows,
    table pipes, link and image URLs (their text and alt text stay), HTML tags and comments,
    emphasis and strikethrough markers (not ``_`` inside a word, nor ``*`` between spaces);
    it keeps code span contents verbatim and resolves backslash escapes and character
    references. Nested constructs beyond one level of links, emphasis inside code blocks
    and other corner cases may read differently than when rendered.
    """
    text = re.sub(_LINE_END, "\n", text)
    # Chunk by chunk (cut after a line break where there is one), so the intermediate copies
    # and the list of backtick runs stay small however long the text: a 64 MiB answer of
    # "` " would otherwise list 32 million runs. Inline markup rarely spans a cut.
    parts: list[str] = []
    pos = 0
    while pos < len(text):
        end = pos + _STRIP_CHUNK
        if end < len(text):
            cut = text.rfind("\n", pos, end)
            end = cut + 1 if cut > pos else end
        parts.append(_strip_chunk(text[pos:end]))
        pos = end
    return "".join(parts)


_STRIP_CHUNK = 1 << 18


def _strip_chunk(text: str) -> str:
    for pattern, repl in _LINE_RULES:
        text = re.sub(pattern, repl, text)
    for _ in range(2):  # a second pass for an image inside a link: [![alt](img)](url)
        text = re.sub(_LINK, r"\1", text)
    parts: list[str] = []
    for segment, is_code in _code_spans(text):
        parts.append(segment if is_code else _strip_inline(segment))
    return "".join(parts)


def _code_spans(text: str) -> Iterator[tuple[str, bool]]:
    """`text` cut into (segment, is code span content), code spans as in CommonMark: from a
    backtick run to the next run of the same length; their backticks are left out.

    Linear: the runs are listed once, and for each length a cursor only moves forward."""
    runs = [m.span() for m in re.finditer(_BACKTICKS, text)]
    by_length: dict[int, list[int]] = {}
    for i, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(i)
    cursor = dict.fromkeys(by_length, 0)
    pos = i = 0
    while i < len(runs):
        start, end = runs[i]
        same = by_length[end - start]
        c = cursor[end - start]
        while c < len(same) and same[c] <= i:
            c += 1
        cursor[end - start] = c
        if c == len(same):  # never closed: literal backticks
            i += 1
            continue
        closing = runs[same[c]]
        yield text[pos:start], False
        yield text[end : closing[0]], True
        pos = closing[1]
        i = same[c] + 1
    yield text[pos:], False


def _strip_inline(segment: str) -> str:
    """Outside code spans: HTML pieces (terminated ones only: a stray "<!--" in prose is text),
    then autolinks, escapes, references and emphasis delimiters, in one pass."""
    return re.sub(_INLINE, _inline_piece, _drop_html(segment, frozenset(), _no_unescape))


def _no_unescape(text: str) -> str:
    return text


def _inline_piece(m: re.Match[str]) -> str:
    kind = m.lastgroup
    if kind == "delims":
        return _delimiter_text(m)
    if kind == "entity":
        return _entity_text(m.group(kind))
    if kind == "hardbreak":
        return "\n"
    return m.group(kind or 0)  # an autolink's URL, an escaped character


def _delimiter_text(m: re.Match[str]) -> str:
    """A run of ``*``, ``_`` and ``~``: removed as emphasis or strikethrough markup, except
    where CommonMark reads it as text: between spaces (``2 * 3``), a single ``~``, and
    underscores inside a word (``max_connections``)."""
    run, text = m.group(), m.string
    start, end = m.span()
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    if (before.isspace() and after.isspace()) or run == "~":
        return run
    if run.strip("_") == "" and before.isalnum() and after.isalnum():
        return run
    return ""


def _entity_text(ref: str) -> str:
    """A character reference as markdown-it reads it, invisible characters as in _charref_text."""
    if ref[1] != "#":
        return html.entities.html5.get(ref[1:], ref)
    from markdown_it.common.utils import isValidEntityCode

    code = _charref_code(ref)
    if isValidEntityCode(code):
        return chr(code)
    replaced = _charref_text(code)
    return "\ufffd" if replaced is None else replaced


# ---------------------------------------------------------------------------
# Many keywords at once
# ---------------------------------------------------------------------------

# One `kw in text` scan per keyword costs ~0.25 ms per keyword per megabyte (19,000 keywords:
# 11.5 s per 1 MB trace); one pass of the Aho-Corasick automaton below costs ~0.25-0.4 s per
# megabyte whatever the number of keywords (pure Python, one dictionary step a character),
# plus ~20 us per keyword to build, once per process. So the automaton is used from about
# 1,000 keywords, when the scans would also cover at least 10 million characters; plain
# `in` (C speed) stays for everything smaller, the common case. Either way, the same result.
_AUTOMATON_MIN_KEYWORDS = 1_000
_AUTOMATON_MIN_WORK = 10_000_000


def many_keywords(keywords: int, chars: int) -> bool:
    """Whether :func:`keywords_in` would search for `keywords` keywords in a text of `chars`
    characters with the automaton rather than one ``in`` scan each."""
    return keywords >= _AUTOMATON_MIN_KEYWORDS and keywords * chars >= _AUTOMATON_MIN_WORK


def keywords_in(text: str, keywords: Iterable[str]) -> set[str]:
    """The `keywords` that occur in `text`: exactly ``{k for k in keywords if k in text}``
    (so the empty keyword occurs everywhere), in one pass over `text` when there are many."""
    wanted = frozenset(keywords)
    if not many_keywords(len(wanted), len(text)):
        return {k for k in wanted if k in text}
    found = _automaton(wanted).search(text)
    if "" in wanted:
        found.add("")
    return found


# A word character, for whole-word matching, is an ASCII letter, digit or `_`: a keyword is
# compared with normalized text (case folded, full-width letters folded to ASCII), and a CJK
# character next to an ASCII word ends it (`mysql连接池` holds the word `mysql`).
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_WORD_CLASS = "[0-9A-Za-z_]"


@lru_cache(maxsize=4096)
def _word_pattern(keyword: str) -> re.Pattern[str] | None:
    """The keyword with a boundary test at each end that is a word character, or None when
    neither end is one (or the keyword is not ASCII): then a substring test is the same."""
    if not keyword.isascii():
        return None
    head, tail = keyword[:1] in _WORD_CHARS, keyword[-1:] in _WORD_CHARS
    if not (head or tail):
        return None
    # The literal comes first, so `re` finds candidates with its fast literal scan; the test
    # before it looks back over the keyword (a fixed width) to the character preceding it.
    # One-character tests around a literal: at most len(keyword) steps a candidate.
    before = f"(?<!{_WORD_CLASS}(?s:.){{{len(keyword)}}})" if head else ""
    after = f"(?!{_WORD_CLASS})" if tail else ""
    return re.compile(re.escape(keyword) + before + after)


def occurs_as_word(text: str, keyword: str) -> bool:
    """Whether `keyword` occurs in `text` as a whole word: where the keyword starts (ends)
    with a word character (ASCII letter, digit, `_`), the text character before (after) it
    is not one. A keyword with any non-ASCII character keeps substring matching: Chinese has
    no word boundaries. Both are expected normalized (:func:`normalize_plain`)."""
    pattern = _word_pattern(keyword)
    if pattern is None:
        return keyword in text
    return pattern.search(text) is not None


def words_in(text: str, keywords: Iterable[str]) -> set[str]:
    """The `keywords` that occur in `text` as whole words (:func:`occurs_as_word`): the
    substring search of :func:`keywords_in` finds the candidates, then only those are
    tested for boundaries."""
    return {k for k in keywords_in(text, keywords) if occurs_as_word(text, k)}


@lru_cache(maxsize=4)  # a case's keywords are the same for each of its traces; ~30 MB for 19,000
def _automaton(keywords: frozenset[str]) -> _Automaton:
    return _Automaton(sorted(keywords))  # sorted: the same automaton in every process


class _Automaton:
    """Aho-Corasick automaton over code points: which of its keywords occur in a text.

    States are trie nodes (``goto``: character -> state), ``fail`` is the longest proper
    suffix of a state's path that is also a trie path, and ``report`` the nearest state on the
    fail chain (the state itself included) that ends a keyword. A search reports each keyword
    once: a state's chain is walked only up to a state already reported, so the walks cost
    at most one step per state in all, and the search is linear in the text.
    """

    __slots__ = ("_fail", "_goto", "_out", "_report", "_size")

    def __init__(self, keywords: list[str]) -> None:
        goto: list[dict[str, int]] = [{}]
        out: list[str] = [""]  # the keyword a state ends, or ""
        for keyword in keywords:
            if not keyword:
                continue
            state = 0
            for char in keyword:
                nxt = goto[state].get(char)
                if nxt is None:
                    nxt = goto[state][char] = len(goto)
                    goto.append({})
                    out.append("")
                state = nxt
            out[state] = keyword
        fail = [0] * len(goto)
        report = [0] * len(goto)
        queue = list(goto[0].values())  # breadth first: a state's fail state comes earlier
        for state in queue:  # the root's children fail to the root
            report[state] = state if out[state] else 0
        for parent in queue:
            for char, state in goto[parent].items():
                queue.append(state)
                f = fail[parent]
                while f and char not in goto[f]:
                    f = fail[f]
                fail[state] = goto[f].get(char, 0)
                report[state] = state if out[state] else report[fail[state]]
        self._goto, self._fail, self._out, self._report = goto, fail, out, report
        self._size = sum(1 for o in out if o)

    def search(self, text: str) -> set[str]:
        goto, fail, out, report = self._goto, self._fail, self._out, self._report
        reported = bytearray(len(goto))
        found: list[str] = []
        state = 0
        for char in text:
            nxt = goto[state].get(char)
            while nxt is None and state:
                state = fail[state]
                nxt = goto[state].get(char)
            state = nxt or 0  # a goto target is never the root
            hit = report[state]
            if hit and not reported[hit]:
                while hit and not reported[hit]:
                    reported[hit] = 1
                    found.append(out[hit])
                    hit = report[fail[hit]]
                if len(found) == self._size:
                    break  # every keyword found: the rest of the text cannot add any
        return set(found)


# ---------------------------------------------------------------------------
# shared_run
# ---------------------------------------------------------------------------

# A sampled k-gram occurring at more than this many sampled positions is checked through a
# set of candidate windows instead of position by position (see shared_run).
_DIRECT_LIMIT = 4


# complexity: one linear-time search (sampled k-grams, then a verified extension) whose
# branches are its cases; split up, its invariants would be spread over several functions.
def shared_run(a: str, b: str, min_len: int) -> str | None:
    """Return a substring of length exactly ``min_len`` occurring in both ``a`` and ``b``,
    or ``None`` if they share no run that long.

    This is the leak check: if the normalized final answer and the normalized rejected
    draft share a ``min_len``-character run, the answer copied the draft.  Only existence
    matters, so the first shared run found is returned (not the longest).

    ``min_len < 1`` raises ``ValueError`` (every string "shares" the empty run, so the
    question is meaningless).  If either string is shorter than ``min_len`` -- in
    particular if it is empty -- the result is ``None``.

    Method (exact: no false positives, no misses), practically linear in
    ``len(a) + len(b)`` so two multi-megabyte answers take about a second, where a
    quadratic longest-common-substring would take hours:

    * let ``s = max(1, min_len // 2)`` and ``k = min_len - s + 1``; index the k-grams of
      the longer string ``A`` that start at multiples of ``s``.  Every window of length
      ``min_len`` in ``A`` fully contains one of these sampled k-grams (a multiple of
      ``s`` lies in any ``s`` consecutive start positions);
    * slide over every k-gram of the other string ``B``; on a hit (``A[p:p+k] ==
      B[q:q+k]``) check whether the aligned match extends to ``min_len`` characters, i.e.
      ``A[p-t:p-t+min_len] == B[q-t:q-t+min_len]`` for some ``t`` in ``0..s-1``.  The
      check uses slice comparisons and ``os.path.commonprefix`` on ``s-1``-character
      slices, so it is cheap, and the scan returns at the first real match;
    * a k-gram sampled at many positions of ``A`` (repetitive text: log lines, tables)
      would make per-position checks quadratic, so for such a gram the set of all
      ``min_len`` windows of ``A`` containing one of its sampled occurrences is built once,
      and each hit costs at most ``s`` set lookups.  Total work is bounded by
      ``O(len(A) + s * len(B))`` slice operations even on adversarial input.
    """
    if min_len < 1:
        raise ValueError(f"min_len must be >= 1, got {min_len!r}")
    if len(a) < min_len or len(b) < min_len:
        return None
    # Index the longer string (only 1/s of its positions) and slide over the shorter one:
    # the slide is the per-character Python loop, so it should run over fewer characters.
    big, small = (a, b) if len(a) >= len(b) else (b, a)
    s = max(1, min_len // 2)
    k = min_len - s + 1
    ext = s - 1  # characters the k-gram must still grow by, on the left and right together

    index: dict[str, Any] = {}  # k-gram -> int position, or list of positions
    for p in range(0, len(big) - k + 1, s):
        gram = big[p : p + k]
        prev = index.get(gram)
        if prev is None:
            index[gram] = p
        elif type(prev) is int:
            index[gram] = [prev, p]
        else:
            prev.append(p)

    windows: dict[str, frozenset[str]] = {}  # heavy k-gram -> all min_len windows around it
    n_big, n_small = len(big), len(small)
    get = index.get
    commonprefix = os.path.commonprefix
    for q in range(n_small - k + 1):
        gram = small[q : q + k]
        hit = get(gram)
        if hit is None:
            continue
        if ext == 0:
            return gram  # k == min_len: the k-gram itself is the shared run
        positions = (hit,) if type(hit) is int else hit
        if len(positions) <= _DIRECT_LIMIT:
            right_small = small[q + k : q + k + ext]
            for p in positions:
                # Grow right as far as possible (<= ext), then check the rest on the left.
                right = len(commonprefix([big[p + k : p + k + ext], right_small]))
                need = ext - right
                if need == 0 or (
                    p >= need and q >= need and big[p - need : p] == small[q - need : q]
                ):
                    return big[p - need : p - need + min_len]
            continue
        wins = windows.get(gram)
        if wins is None:
            wins = frozenset(
                big[p - t : p - t + min_len]
                for p in positions
                for t in range(s)
                if p - t >= 0 and p - t + min_len <= n_big
            )
            windows[gram] = wins
        for t in range(s):
            start = q - t
            if start < 0:
                break
            if start + min_len > n_small:
                continue
            cand = small[start : start + min_len]
            if cand in wins:
                return cand
    return None
