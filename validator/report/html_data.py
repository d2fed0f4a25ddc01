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
  (optional), each child a text or an element. A number, as a selector or a child, is an
  index into the data's `strings` (Strings: what ten thousand panels repeat is written once).

The trees come from the same renderers as the rest of the page (html_case.py,
html_trace.py), whose output is already escaped: `tree` reads that HTML back into elements and
texts (character references resolved: the page sets text, never markup). In the JSON, every
`<` is written `\\u003c`.

The block holds that JSON compressed, in base64 (`{"deflate": "..."}`, see `packed`): a
page of 3,000 cases repeats much (labels, check names, tool names, log lines), and the
browser decompresses it natively (DecompressionStream) before it renders anything; base64
has no character that could end the block.
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from collections.abc import Iterable, Iterator
from html import unescape
from typing import Any

from ..fastjson import dumps_compact

VOID = frozenset({"br", "hr", "wbr", "img", "input", "meta", "link"})


# Our renderers' markup only: tags with double- or single-quoted attribute values, text
# with every `<` escaped (html_text.py), no comments.
_TOKEN = re.compile(
    r"<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[^\s=>]+(?:=\"[^\"]*\"|='[^']*')?)*)\s*/?>|([^<]+)"
)
_ATTR = re.compile(r"([^\s=]+)(?:=\"([^\"]*)\"|='([^']*)')?")


# What each tag's attribute text gives (its selector, its other attributes): a page repeats a
# few thousand of them (`<mark class="hit">`, `<td class="t" data-v="3">`) ~230,000 times for
# 2,000 cases. Emptied when full.
_OPENED: dict[tuple[str, str], tuple[str, dict[str, str] | None]] = {}
_OPENED_MAX = 4096


def _open(tag: str, raw: str) -> list[Any]:
    """A new element for the tag: [selector] or [selector, attributes]."""
    found = _OPENED.get((tag, raw))
    if found is None:
        selector = tag
        attrs: dict[str, str] = {}
        for name, double, single in _ATTR.findall(raw):
            value = unescape(double or single)
            if name == "class":
                selector += "".join(f".{c}" for c in value.split())
            else:
                attrs[name] = value
        if len(_OPENED) >= _OPENED_MAX:
            _OPENED.clear()
        found = _OPENED[tag, raw] = (selector, attrs or None)
    selector, attributes = found
    # A copy: the caller appends children, and `cell_value` takes an attribute out.
    return [selector, dict(attributes)] if attributes else [selector]


def tree(html: str) -> Any:
    """The one element of an HTML fragment (our own, escaped markup) as a tree."""
    root: list[Any] = ["div"]
    stack = [root]
    names = [""]  # the tag name of each open element, beside `stack`
    parent = root  # stack[-1]
    for closing, tag, raw, data in _TOKEN.findall(html):
        if data:
            if "&" in data:
                data = unescape(data)
            if len(parent) > 1 and isinstance(parent[-1], str):
                parent[-1] += data
            else:
                parent.append(data)
        elif closing:
            if names[-1] == tag:
                stack.pop()
                names.pop()
                parent = stack[-1]
            elif tag in names[1:]:
                depth = len(names) - 1 - names[::-1].index(tag)
                del stack[depth:], names[depth:]
                parent = stack[-1]
        else:
            node = _open(tag, raw) if raw else [tag]
            parent.append(node)
            if tag not in VOID:
                stack.append(node)
                names.append(tag)
                parent = node
    nodes = [n for n in root[1:] if not (isinstance(n, str) and not n.strip())]
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


class Strings:
    """The page's string table: selectors, and texts up to SHORT characters, are written once
    (at the end of the data, `strings`) and named by their index everywhere else: ten
    thousand panels repeat the same check names, labels and classes."""

    SHORT = 80

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def _id(self, text: str) -> int:
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.index)
        return found

    def intern(self, node: Any) -> Any:
        """A tree with its selectors and short texts replaced by their index."""
        if isinstance(node, str):
            return self._id(node) if len(node) <= self.SHORT else node
        short, index = self.SHORT, self.index
        out: list[Any] = [self._id(node[0])]
        for child in node[1:]:
            if isinstance(child, str):  # most children: a text, looked up here
                if len(child) <= short:
                    found = index.get(child)
                    if found is None:
                        found = index[child] = len(index)
                    out.append(found)
                else:
                    out.append(child)
            else:
                out.append(child if isinstance(child, dict) else self.intern(child))
        return out

    def table(self) -> list[str]:
        return list(self.index)


def dumps(data: Any) -> str:
    """JSON safe as the content of a <script> element (and unchanged by JSON.parse): json's
    compact text, written by orjson where it gives the same (`fastjson.dumps_compact`)."""
    return dumps_compact(data).replace("<", "\\u003c")


def packed(pieces: Iterable[str], level: int = 6) -> Iterator[str]:
    """JSON text, compressed (zlib, which the browser's DecompressionStream('deflate')
    reads) and in base64, in pieces. The same text always gives the same bytes."""
    zipper = zlib.compressobj(level)
    pending = b""
    for piece in pieces:
        pending += zipper.compress(piece.encode("utf-8"))
        whole = len(pending) - len(pending) % 3
        if whole >= 3 << 14:
            yield base64.b64encode(pending[:whole]).decode("ascii")
            pending = pending[whole:]
    yield base64.b64encode(pending + zipper.flush()).decode("ascii")


def unpacked(text: str) -> Any:
    """The data of a page's JSON block (what the page's script decodes)."""
    return json.loads(zlib.decompress(base64.b64decode(json.loads(text)["deflate"])))
