"""Markdown to its visible text: the markdown-it token walk, the fast path for text without
Markdown syntax, and the size budget above which the linear stripper (:mod:`.strip`) is used.

The tokens come from the dialect's shared parser (`validator.commonmark.parse`: CommonMark
with tables and strikethrough, with shortcuts that change no character of the text); the page
renders answers from the same dialect.

Importing this module is cheap: markdown-it is imported, and its parser built, on first use.
"""

from __future__ import annotations

import re
from typing import Any

from ...commonmark import parse
from .markup import charref_code, charref_text, html_block_text, html_tag_text
from .normalize import delete_ignorable, normalize_cleaned, normalize_plain
from .strip import strip_markdown


def _special_text(tok: Any) -> str:
    """Text of a ``text_special`` token: an escaped character or a character reference."""
    if tok.info == "entity" and tok.content == "\ufffd" and tok.markup.startswith("&#"):
        replaced = charref_text(charref_code(tok.markup))
        if replaced is not None:
            return replaced
    return tok.content


def _markdown_text(src: str) -> str:
    """The visible text of `src`, parsed by the dialect's shared parser (`commonmark.parse`,
    which tests/unit/evaluation/text/test_markdown.py compares with markdown-it's own full
    parse)."""
    return visible_text(parse(src))


def visible_text(tokens: list[Any]) -> str:
    """Walk a markdown-it token stream and collect the visible text."""
    out: list[str] = []
    append = out.append
    # Explicit stack instead of recursion: image alt text may nest images.
    stack: list[Any] = [iter(tokens)]
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
            append(html_block_text(tok.content))
            append("\n")
        elif ttype == "html_inline":
            append(html_tag_text(tok.content))
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
# collapses; so it is normalized directly (tests/unit/evaluation/text/test_markdown.py checks that the
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
    text = delete_ignorable(text)
    if not has_markdown_syntax(text):
        return normalize_cleaned(text), None
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
        return normalize_cleaned(text), note
    # A character reference may decode to an invisible character (`&#x200b;`, `&shy;`), and
    # so may an autolink's percent escapes (`<http://a.b/%E2%80%8B>` shows U+200B).
    if "&" in text or "<" in text:
        return normalize_plain(rendered), None
    # Without either, the rendered text is made of the source's characters and line breaks
    # (an escape gives ASCII punctuation), so it holds no ignorable character either.
    return normalize_cleaned(rendered), None
