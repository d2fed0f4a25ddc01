"""The linear fallback for answers over the Markdown rendering budget: markup removed by
line rules and one inline pass, without markdown-it.
"""

from __future__ import annotations

import html
import html.entities
import re
from collections.abc import Iterator
from typing import Any

from .markup import charref_code, charref_text, drop_html

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
    return re.sub(_INLINE, _inline_piece, drop_html(segment, frozenset(), _no_unescape))


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
    """A character reference as markdown-it reads it, invisible characters as in charref_text."""
    if ref[1] != "#":
        return html.entities.html5.get(ref[1:], ref)
    from markdown_it.common.utils import isValidEntityCode

    code = charref_code(ref)
    if isValidEntityCode(code):
        return chr(code)
    replaced = charref_text(code)
    return "\ufffd" if replaced is None else replaced
