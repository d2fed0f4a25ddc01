"""An agent's answer, written in Markdown, as SAFE HTML for the report page: `render`.

An answer is text the agent wrote, so it is hostile until shown otherwise: it may hold
`<script>`, an `<img onerror>`, a `javascript:` link or a tracking image. The page shows it
rendered (headings, lists, tables, code, emphasis) yet nothing in it can run, load or
navigate:

- **Raw HTML is text.** The answer is parsed with HTML off (`commonmark.parse`: the dialect
  the checks read), so `<script>` is shown as written.
- **Only allowed tags are written.** The HTML is not markdown-it's renderer output: a walk
  over its tokens writes each kind of token it knows as one tag of ALLOWED_TAGS, with no
  attribute but `class` (and an ordered list's numeric `start`); any other token is written
  as its escaped text. So no attribute (`on*`, `href`, `src`, `style`) can appear.
- **Images are not fetched:** an image is its alt text (`<span class="image">`).
- **Links are inert:** the link text, then the address in brackets as text
  (`<span class="url">`); no `href`. An autolink is its address once.
- **Headings are demoted** by HEADING_SHIFT levels (`#` is `<h3>`), so an answer's heading
  never outranks the page's own.
- **Very long input** (over MARKDOWN_LIMIT characters) is shown as preformatted text, not
  parsed: the page must open at once, whatever the answer.

The page calls `render` on the answer it received (already clipped, see extras.py); the
other reporters never do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..commonmark import parse
from .html_text import block

HEADING_SHIFT = 2  # `#` becomes <h3>: the page's own headings are h1 and h2
MARKDOWN_LIMIT = 50_000  # characters parsed as Markdown; longer answers are shown as text
ALLOWED_TAGS = frozenset(
    {
        "p",
        "h3",
        "h4",
        "h5",
        "h6",
        "em",
        "strong",
        "s",
        "code",
        "pre",
        "ul",
        "ol",
        "li",
        "blockquote",
        "hr",
        "br",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "span",
    }
)

# Tokens written as one tag each (the opening and closing token of a pair share the tag).
_PAIRS = {
    "blockquote": "blockquote",
    "bullet_list": "ul",
    "ordered_list": "ol",
    "list_item": "li",
    "table": "table",
    "thead": "thead",
    "tbody": "tbody",
    "tr": "tr",
    "th": "th",
    "td": "td",
    "em": "em",
    "strong": "strong",
    "s": "s",
}
_ALIGN = re.compile(r"text-align:(left|center|right)")
_LANGUAGE = re.compile(r"[A-Za-z0-9_+.#-]{1,40}")


def _escape(text: str) -> str:
    # The page's rule for any text from a trace: markup escaped, controls, bidi controls and
    # lone surrogates shown as visible escapes (newlines and tabs kept).
    return block(text)


def _heading(token: Any) -> str:
    level = int(token.tag[1:]) if re.fullmatch(r"h[1-6]", token.tag) else 1
    return f"h{min(6, level + HEADING_SHIFT)}"


def _open(token: Any, tag: str) -> str:
    if tag == "ol":
        start = token.attrGet("start")
        if isinstance(start, int) or (isinstance(start, str) and start.isdigit()):
            return f'<ol start="{int(start)}">'
    if tag in ("th", "td"):
        align = _ALIGN.fullmatch(str(token.attrGet("style") or ""))
        if align:
            return f'<{tag} class="align-{align[1]}">'
    return f"<{tag}>"


def _code_block(token: Any) -> str:
    language = (token.info or "").strip().split(" ", 1)[0]
    shown = f' class="language-{language}"' if _LANGUAGE.fullmatch(language) else ""
    return f"<pre><code{shown}>{_escape(token.content)}</code></pre>\n"


_BREAKS = {"softbreak": "\n", "hardbreak": "<br>\n"}
_TEXTS = frozenset({"text", "text_special", "html_inline"})  # raw HTML is text too


def _link(token: Any, links: list[str | None]) -> str:
    """A link's text as a span; after it, its address as text (an autolink's is its text)."""
    if token.type == "link_open":
        links.append(None if token.info == "auto" else str(token.attrGet("href") or ""))
        return '<span class="link">'
    address = links.pop() if links else None
    shown = f' <span class="url">({_escape(address)})</span>' if address else ""
    return "</span>" + shown


def _inline_token(token: Any, links: list[str | None]) -> str:
    kind = token.type
    if kind in _TEXTS:
        return _escape(token.content)
    if kind in _BREAKS:
        return _BREAKS[kind]
    if kind == "code_inline":
        return f"<code>{_escape(token.content)}</code>"
    if kind == "image":
        alt = "".join(_plain(token.children or []))
        return f'<span class="image">{_escape(alt)}</span>'
    if kind in ("link_open", "link_close"):
        return _link(token, links)
    name, _, side = kind.rpartition("_")
    if name in _PAIRS and side in ("open", "close"):
        return f"<{_PAIRS[name]}>" if side == "open" else f"</{_PAIRS[name]}>"
    return _escape(token.content or "")


def _inline(children: Iterable[Any]) -> str:
    links: list[str | None] = []  # the address of each open link (None: an autolink)
    return "".join(_inline_token(token, links) for token in children)


def _plain(children: Iterable[Any]) -> Iterable[str]:
    """The text of inline tokens (an image's alt text), markup left out."""
    for token in children:
        if token.type in ("text", "text_special", "code_inline"):
            yield token.content
        elif token.type in ("softbreak", "hardbreak"):
            yield " "
        elif token.children:
            yield from _plain(token.children)


def _block(token: Any) -> str | None:
    """The HTML of one block token, or None when it is not a block this walk knows."""
    kind = token.type
    if kind in ("paragraph_open", "paragraph_close"):
        if token.hidden:  # a tight list's paragraphs: no <p>
            return ""
        return "<p>" if kind == "paragraph_open" else "</p>\n"
    if kind == "heading_open":
        return f"<{_heading(token)}>"
    if kind == "heading_close":
        return f"</{_heading(token)}>\n"
    if kind == "inline":
        return _inline(token.children or [])
    if kind in ("fence", "code_block"):
        return _code_block(token)
    if kind == "hr":
        return "<hr>\n"
    name, _, side = kind.rpartition("_")
    if name in _PAIRS and side in ("open", "close"):
        tag = _PAIRS[name]
        return _open(token, tag) if side == "open" else f"</{tag}>\n"
    return None


def render(markdown_text: str) -> str:
    """The answer as HTML made only of ALLOWED_TAGS, with nothing that runs, loads or
    navigates (see the module's docstring)."""
    if not isinstance(markdown_text, str):
        return ""
    if len(markdown_text) > MARKDOWN_LIMIT:
        return f"<pre>{_escape(markdown_text)}</pre>\n"
    out: list[str] = []
    for token in parse(markdown_text, html=False):
        shown = _block(token)
        out.append(shown if shown is not None else _escape(token.content or ""))
    return "".join(out)
