"""Text for report.html: every value from a case, spec or trace goes through these.

`text` is for one-line fields (ids, names, messages, verdicts), `attr` for attribute values:
control characters, bidi controls, U+2028/U+2029 and lone surrogates become visible escapes
(`display.one_line`), then `& < >` (and, in attributes, quotes) are escaped. `block` is for multi-line text (answers,
tool results): the same, but newlines and tabs are kept. Nothing from a trace is ever put
into a URL, a script or a style; the only link targets are `#case=...` fragments, with the
case id percent-encoded (`fragment`).
"""

from __future__ import annotations

import json
import math
from html import escape
from typing import Any
from urllib.parse import quote

from ..display import one_line

MARK_KINDS = frozenset({"hit", "bad"})


def text(value: Any) -> str:
    """One line of text, safe as element content."""
    return escape(one_line(value), quote=False)


def attr(value: Any) -> str:
    """One line of text, safe inside a double-quoted attribute value."""
    return escape(one_line(value), quote=True)


def opt(value: Any, missing: str = "—") -> str:
    """`text(value)`, or `missing` for None."""
    return missing if value is None else text(value)


def block(text: str) -> str:
    """Multi-line text, safe as element content: newlines and tabs kept, other controls
    made visible."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(
        "\t".join(escape(one_line(part), quote=False) for part in row.split("\t"))
        for row in text.split("\n")
    )


def fragment(value: Any) -> str:
    """A value as a URL fragment parameter (percent-encoded), safe in an href attribute."""
    return escape(quote(one_line(value), safe=""), quote=True)


def data_list(values: Any) -> str:
    """A list of texts as JSON, for a data-* attribute the page's script reads: the whole
    attribute value, in single quotes (JSON is full of double quotes, which would otherwise
    each cost six bytes)."""
    items = values if isinstance(values, list) else []
    data = json.dumps([one_line(v) for v in items], ensure_ascii=False, separators=(",", ":"))
    for char, entity in (("&", "&amp;"), ("'", "&#39;"), ("<", "&lt;"), (">", "&gt;")):
        data = data.replace(char, entity)
    return f"'{data}'"


def marked(text: str, marks: Any) -> str:
    """`text` as `block`, with the [start, end, kind] spans wrapped in <mark class=kind>.
    Each piece is escaped on its own, so a mark can never split an escape or a tag; spans
    that overlap, run backwards or fall outside the text are ignored."""
    out: list[str] = []
    pos = 0
    for mark in marks if isinstance(marks, list) else []:
        if not (isinstance(mark, list | tuple) and len(mark) == 3):
            continue
        start, end, kind = mark
        if not (isinstance(start, int) and isinstance(end, int) and kind in MARK_KINDS):
            continue
        if not pos <= start < end <= len(text):
            continue
        out.append(block(text[pos:start]))
        out.append(f'<mark class="{kind}">{block(text[start:end])}</mark>')
        pos = end
    out.append(block(text[pos:]))
    return "".join(out)


def num(value: Any, unit: str = "") -> str:
    """A count or a measure: 1,234 / 12.5; — when unknown."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return "—"
    text = f"{value:,.1f}".rstrip("0").rstrip(".") if isinstance(value, float) else f"{value:,}"
    return text + unit


def pct(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "—"
    return f"{value * 100:.1f}%"


def sort_value(value: Any) -> str:
    """A number for a cell's data-v (what the page sorts by); empty when unknown."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return ""
    return repr(value) if isinstance(value, float) else str(value)
