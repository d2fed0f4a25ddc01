"""Text normalization, keyword search and leak detection for diagnosis-trace validation.

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

Importing this package is cheap: markdown-it is imported, and the parser and the Unicode
tables are built, on first use only.

One module per concept: :mod:`.normalize` (characters), :mod:`.markdown` (Markdown to text,
the budget), :mod:`.markup` (HTML pieces and character references, shared by the two
Markdown readers), :mod:`.strip` (the linear fallback stripper), :mod:`.keywords` (keyword
search, the automaton), :mod:`.leak` (the shared-run check).
"""

from __future__ import annotations

from .keywords import keywords_in, many_keywords, occurs_as_word, words_in
from .leak import shared_run
from .markdown import (
    MARKDOWN_BUDGET_CHARS,
    has_markdown_syntax,
    normalize_markdown,
    normalize_markdown_ex,
)
from .normalize import (
    ignorable_ranges_from_database,
    mark_ranges_from_database,
    normalize_plain,
)
from .strip import strip_markdown

__all__ = [
    "MARKDOWN_BUDGET_CHARS",
    "has_markdown_syntax",
    "ignorable_ranges_from_database",
    "keywords_in",
    "many_keywords",
    "mark_ranges_from_database",
    "normalize_markdown",
    "normalize_markdown_ex",
    "normalize_plain",
    "occurs_as_word",
    "shared_run",
    "strip_markdown",
    "words_in",
]
