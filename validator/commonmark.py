"""The Markdown the tool reads: CommonMark with tables and strikethrough (markdown-it-py), one
dialect for the checks, which read an answer's visible text (evaluation/text/markdown.py),
and for the page, which shows the answer as safe HTML (report/answer_html.py).

`parse` gives markdown-it's token stream, with inline children, by a shared parser that
does less work and changes no token's text:

- a block's inline content without a character that may start inline syntax
  (`INLINE_SYNTAX`) is one text token, made here instead of by markdown-it's inline parser
  (a heading or a line of prose usually has none: ~15 % of rendering an answer);
- a link's URL already in the form markdown-it normalizes it to (`PLAIN_URL`) is not
  normalized again (~12 us a URL: parsed, its host IDNA-encoded, percent-encoded);
- line endings and NUL are rewritten only in text that has a CR or a NUL (markdown-it's
  `normalize` rule rewrote every line ending of every answer).

`new_parser` is markdown-it as it comes, configured as the tool configures it: what
tests/unit/evaluation/text/test_markdown.py and tests/unit/report/test_answer_html.py
compare `parse` with. Importing this module is cheap: markdown-it is imported, and the
parsers built, on first use.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any


def new_parser(html: bool = True) -> Any:
    """A MarkdownIt parser of the tool's dialect: CommonMark with tables and strikethrough;
    `html` False: raw HTML is text (the page), True: it is parsed (the checks skip its tags).
    `text_join` is off: it would merge character references into the text around them, and
    the checks' walk must see them (the text is the same: both walks concatenate)."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": html})
    return parser.enable(["table", "strikethrough"]).disable("text_join")


_shared: dict[bool, Any] = {}  # html -> the shared block parser, made on first use


def _parser(html: bool) -> Any:
    """The shared parser: one per process and `html`, since building one compiles its rule
    chains and `parse` keeps all state in per-call objects. Blocks only (`parse` gives each
    block its inline content), no `normalize` rule (`parse` does what it does, when it
    changes anything), plain URLs not normalized."""
    parser = _shared.get(html)
    if parser is None:
        parser = new_parser(html).disable(["inline", "normalize"])
        parser.normalizeLink = _plain_links_as_they_are(parser.normalizeLink)
        _shared[html] = parser
    return parser


# Characters that may start inline syntax for markdown-it's inline rules (CommonMark with
# strikethrough, linkify and typographer off): line breaks, backslash escapes, code spans,
# emphasis, strikethrough, links and images, autolinks and HTML, character references.
# Inline content with none of them is one text token of that content, which markdown-it's
# inline parser would make after trying a rule at each of its terminator characters.
INLINE_SYNTAX = re.compile(r"[\n`*_\[\]<&\\!~]")


def parse(src: str, html: bool = True) -> list[Any]:
    """markdown-it's tokens for `src` (see the module's docstring): what `new_parser(html)`
    gives, each inline token with its children."""
    parser = _parser(html)
    if "\r" in src or "\0" in src:  # markdown-it's `normalize`: CR LF and CR as LF, NUL
        src = src.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
    env: dict[str, Any] = {}  # the block parse's reference definitions, for the links
    tokens: list[Any] = parser.parse(src, env)
    for tok in tokens:
        if tok.type == "inline":
            content, children = tok.content, []
            if INLINE_SYNTAX.search(content) is None:
                children.append(type(tok)("text", "", 0, content=content))
            else:
                parser.inline.parse(content, parser, env, children)
            tok.children = children
    return tokens


# A URL that markdown-it's `normalizeLink` gives back unchanged: optionally http(s):// and a
# host name of letters, digits and hyphens (with a port), then a path, query and fragment of
# the characters it does not percent-encode (a `%` only as an escape, no `[` `]` `\\`), the
# path not starting with `//` (a host). At most `PLAIN_URL_LONGEST` characters: a host name
# over 255 is dropped. tests/unit/evaluation/text/test_markdown.py draws URLs from this
# pattern and checks `normalizeLink` gives each back as it is.
_URL_CHAR = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})"
_HOST_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
PLAIN_URL = re.compile(
    rf"(?:https?://{_HOST_LABEL}(?:\.{_HOST_LABEL})*(?::[0-9]{{1,5}})?)?"
    rf"(?!//)(?:/{_URL_CHAR}*)*"
    rf"(?:\?(?:{_URL_CHAR}|[/?])*)?"
    rf"(?:#(?:{_URL_CHAR}|[/?])*)?"
)
PLAIN_URL_LONGEST = 200


def _plain_links_as_they_are(normalize: Callable[[str], str]) -> Callable[[str], str]:
    """markdown-it's `normalizeLink`, without its work for a URL it gives back unchanged.

    markdown-it normalizes every link's URL (parsed, its host name IDNA-encoded, formatted
    again, percent-encoded: ~12 us a URL, ~10 % of rendering an answer with two links).
    The checks' walk never reads it, the page shows it as text; only whether the result is
    a safe link (`validateLink`) can change the tokens, for autolinks and reference
    definitions. A URL matching `PLAIN_URL` is its own normalized form, so it is returned
    after one match; any other goes through `normalize`, and the tokens are markdown-it's."""

    def normalized(url: str) -> str:
        if len(url) <= PLAIN_URL_LONGEST and PLAIN_URL.fullmatch(url):
            return url
        return normalize(url)

    return normalized
