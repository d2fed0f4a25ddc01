"""An answer's Markdown as safe HTML, for report.html (`render`).

A stand-in: the text escaped inside one paragraph. The Markdown renderer (a safe subset: no
raw HTML, no scripts, inert links) replaces it with the same signature.
"""

from __future__ import annotations

from .html_text import block


def render(markdown_text: str) -> str:
    """`markdown_text` as HTML that is safe to put in the page as it is."""
    return f"<p>{block(markdown_text)}</p>"
