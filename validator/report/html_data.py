"""report.html's results as data: one `<script type="application/json">` block the page's
script renders from (html_script.py), so that a page of ten thousand cases opens at once.

Each case is one array (arrays, not objects: a key repeated ten thousand times costs bytes):

    [case_id, status, verdict, tags, failed_checks, change, search, sort_values, row, panel]

- `failed_checks`: the checks that failed in some run (the Failed check filter);
- `search`: what the search box looks in besides the answer: the case id, tags, check names
  and the checks' messages, one per line;
- `sort_values`: one per column of `cols` (a number, a text, or null: unknown, sorted last);
- `row` and `panel`: the case's table row and panel as a tree, built by the page with
  `document.createElement` and text nodes only: an element is `[selector, attributes?,
  ...children]`, its selector a tag name followed by `.class` parts, `attributes` an object
  (optional), each child a text or an element.

The trees come from the same renderers as the rest of the page (html_case.py,
html_trace.py), whose output is already escaped: `tree` reads that HTML back into elements and
texts (character references resolved: the page sets text, never markup). In the JSON, every
`<` is written `\\u003c`, so no text can end the block.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from typing import Any

VOID = frozenset({"br", "hr", "wbr", "img", "input", "meta", "link"})


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root: list[Any] = ["root"]
        self.stack: list[list[Any]] = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        selector = tag
        extra: dict[str, str] = {}
        for name, value in attrs:
            if name == "class":
                selector += "".join(f".{c}" for c in (value or "").split())
            else:
                extra[name] = value if value is not None else ""
        node: list[Any] = [selector, extra] if extra else [selector]
        self.stack[-1].append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth][0].split(".", 1)[0] == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        parent = self.stack[-1]
        if len(parent) > 1 and isinstance(parent[-1], str):
            parent[-1] += data
        else:
            parent.append(data)


def tree(html: str) -> Any:
    """The one element of an HTML fragment (our own, escaped markup) as a tree."""
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    nodes = [n for n in builder.root[1:] if not (isinstance(n, str) and not n.strip())]
    return nodes[0] if len(nodes) == 1 else ["div", *nodes]


def texts(node: Any) -> list[str]:
    """Every text of a tree, in order."""
    if isinstance(node, str):
        return [node]
    out: list[str] = []
    for child in node[1:]:
        if not isinstance(child, dict):
            out += texts(child)
    return out


def cell_value(cell: list[Any]) -> float | str | None:
    """What a row's cell sorts by: its `data-v` number (empty: unknown), else its text
    (unknown when empty or `—`); the attribute is taken out of the tree."""
    attrs = cell[1] if len(cell) > 1 and isinstance(cell[1], dict) else None
    if attrs is not None and "data-v" in attrs:
        raw = attrs.pop("data-v")
        if not attrs:
            del cell[1]
        return float(raw) if raw else None
    shown = "".join(texts(cell)).strip()
    return None if shown in ("", "—") else shown


def dumps(data: Any) -> str:
    """JSON safe as the content of a <script> element (and unchanged by JSON.parse)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c")


def block(data: Any) -> str:
    return f'<script type="application/json" id="data">{dumps(data)}</script>\n'
