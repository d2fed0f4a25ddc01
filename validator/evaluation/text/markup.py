"""HTML pieces and character references inside Markdown: which tags separate words, how an
HTML block reads, how a reference to an invisible character reads. Shared by the markdown-it
rendering (:mod:`.markdown`) and the linear fallback stripper (:mod:`.strip`).
"""

from __future__ import annotations

import html
import html.entities
import re
import sys
from collections.abc import Callable, Iterator
from functools import lru_cache

from .normalize import ignorable_re

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


def charref_text(code: int) -> str | None:
    """What a numeric character reference reads as when the renderer has no character for it.

    markdown-it replaces ``&#0;``, ``&#7;``, ``&#x85;``... with U+FFFD, and ``html.unescape``
    turns ``&#0;`` into U+FFFD and drops ``&#1;``: either way ``rest&#0;art`` would not read
    ``restart``, while a literal NUL there is deleted like any invisible character. So such a
    reference reads as its character written literally would: nothing if it is ignorable
    (see `ignorable_re`), a space if it is whitespace. ``None`` (keep the renderer's
    result) for the others: surrogates, noncharacters, numbers beyond U+10FFFF.
    """
    if code > sys.maxunicode:
        return None
    char = chr(code)
    if ignorable_re().fullmatch(char):
        return ""
    return " " if char.isspace() else None


def charref_code(ref: str) -> int:
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
        replaced = charref_text(charref_code(ref))
        if replaced is not None:
            return replaced
    return out


def _unescape(text: str) -> str:
    """``html.unescape``, except for numeric references it has no character for (`charref_text`)."""
    if "&" not in text:
        return text
    return _CHARREF_RE.sub(_unescape_ref, text)


def html_tag_text(tag: str) -> str:
    """Replacement for one inline HTML token: a space for word-separating tags, else ''."""
    m = _HTML_PIECE_RE.fullmatch(tag)
    if m is not None and m.group("name") and m.group("name").lower() in _BLOCK_TAGS:
        return " "
    return ""


def html_block_text(src: str) -> str:
    """Visible text of an HTML block: tags, comments, declarations and processing
    instructions removed, CDATA content kept, character references decoded (as markdown-it
    does for ordinary text, so ``&amp;`` reads ``&`` everywhere)."""
    return drop_html(src, _RUN_TO_END, _unescape)


def drop_html(src: str, run_to_end: frozenset[str], unescape: Callable[[str], str]) -> str:
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
