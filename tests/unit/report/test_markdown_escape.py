"""report.md escapes only what would start Markdown syntax, and that is enough.

Every string is placed where the report puts text (a table cell, after a label, at the start
of a line, in a heading), rendered with markdown-it-py (CommonMark, plus GitHub's tables and
strikethrough), and the rendered text must be the original, with no markup, link or HTML
made from it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import TESTS, Workspace, good_trace
from markdown_it import MarkdownIt
from markdown_it.token import Token

from validator.display import one_line
from validator.report.markdown import escape

HOSTILE = TESTS / "hostile"

STRINGS = [
    "create_index",
    "1 check(s) failed: keyword-coverage",
    "__init__ and _private_ and snake_case_name",
    "*bold* **strong** a * b 2*3 ***",
    "`code` and ``two`` and a ` lone one",
    "[link](http://example.com) and ![img](x.png) and [ref]: /url",
    "<script>alert(1)</script> <b>bold</b> <!-- c --> a < b <http://x.y>",
    "&amp; &lt;tag&gt; &#60; &#x3C; AT&T R&D",
    "# heading",
    "## not a heading at start ##",
    "ends with hashes ##",
    "> quoted",
    "- item",
    "+ item",
    "= underline",
    "--- rule",
    "1. first",
    "2) second",
    "12345. big",
    "pipes | in | a | cell",
    "~~strike~~ and ~single~ and ~/.ssh",
    "back\\slash \\* \\_ \\\\ and a trailing backslash \\",
    "\\",
    "{braces} (parens) [brackets] !bang",
    "trailing spaces for a hard break  ",
    "html entity at end &",
    "www.example.com and https://example.com and user@example.com @someone",
    "慢查询 customer\\_ref 列 missing index：全角＊星号＊ ｜竖线｜",
    "*",
    "_",
    "<",
    "a_b_c d__e f_ _g",
]


def _hostile_strings() -> list[str]:
    """Every text in the hostile traces (tests/hostile), as a report could show it."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, dict):
            for key, value in node.items():
                found.append(str(key))
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for path in sorted(HOSTILE.glob("*.json")):
        try:
            walk(json.loads(path.read_text("utf-8")))
        except ValueError:
            continue  # not JSON (on purpose): nothing a report would show from it
    return [s for s in dict.fromkeys(found) if s.strip()]


def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table").enable("strikethrough")


def _inline_tokens(tokens: list[Token]) -> list[list[Token]]:
    return [t.children or [] for t in tokens if t.type == "inline"]


def _visible(original: str) -> str:
    """What a reader should see: the text as one line (controls written as escapes), with
    the zero-width spaces `inert` puts into URLs and @mentions left out."""
    return one_line(" ".join(original.replace("\r", "\n").split("\n"))).strip()


PLACES = {
    "cell": lambda s: f"| Reason |\n|---|\n| {s} |\n",
    "after a label": lambda s: f"Reason: {s}\n",
    "line start": lambda s: f"{s}\n",
    "list item": lambda s: f"- **check**: {s}\n",
    "heading": lambda s: f"### {s} — ❌ fail\n",
    "heading end": lambda s: f"### {s}\n",
}


@pytest.mark.parametrize("place", list(PLACES))
@pytest.mark.parametrize("original", STRINGS + _hostile_strings())
def test_escaped_text_renders_as_itself(original: str, place: str) -> None:
    document = PLACES[place](escape(original, line_start=place == "line start"))
    tokens = _parser().parse(document)
    inlines = _inline_tokens(tokens)
    kinds = {t.type for t in tokens} - {
        "paragraph_open",
        "paragraph_close",
        "inline",
        "table_open",
        "table_close",
        "thead_open",
        "thead_close",
        "tbody_open",
        "tbody_close",
        "tr_open",
        "tr_close",
        "th_open",
        "th_close",
        "td_open",
        "td_close",
        "heading_open",
        "heading_close",
        "bullet_list_open",
        "bullet_list_close",
        "list_item_open",
        "list_item_close",
    }
    assert not kinds, f"{document!r} made blocks {kinds}"
    ours = inlines[-1]  # the cell, the paragraph, the item or the heading holding the text
    allowed = {"text"} | ({"strong_open", "strong_close"} if place == "list item" else set())
    made = {t.type for t in ours} - allowed
    assert not made, f"{document!r} made {made}"
    rendered = "".join(t.content for t in ours if t.type == "text")
    expected = {
        "cell": "{}",
        "after a label": "Reason: {}",
        "line start": "{}",
        "list item": "check: {}",
        "heading": "{} — ❌ fail",
        "heading end": "{}",
    }[place].format(_visible(original) or "—")
    assert rendered.replace("\u200b", "") == expected.replace("\u200b", "")


def test_words_and_parentheses_are_not_escaped() -> None:
    assert escape("create_index") == "create_index"
    assert escape("1 check(s) failed: keyword-coverage") == "1 check(s) failed: keyword-coverage"
    assert escape("customer_ref a * b {x} !") == "customer_ref a * b {x} !"
    assert escape("__init__") == "\\_\\_init\\_\\_"
    assert escape("# x") == "# x", "mid-line, as every text of the report is"
    assert escape("# x", line_start=True) == "\\# x"
    assert escape("1. x", line_start=True) == "1\\. x" and escape("0.1.0") == "0.1.0"
    assert escape("a | b") == "a \\| b"


def test_the_report_shows_words_as_they_are(ws: Workspace) -> None:
    ws.case(root_cause_keywords=["create_index", "slow query"], min_keyword_coverage=2)
    ws.trace("db-slow", good_trace(finalAnswer="A slow query."))
    assert ws.run().code == 1
    md = (ws.out / "report.md").read_text("utf-8")
    assert "Reason: 1 check failed: keyword-coverage" in md
    assert "the answer does not mention: create_index (1 of 2" in md
    assert "\\_" not in md and "\\(" not in md


@pytest.mark.parametrize(
    "command", ["python -m validator run", "run --case 'a`b'", "`x`", "run --tag ``two``"]
)
def test_the_command_line_is_one_literal_code_span(command: str) -> None:
    from validator.report.markdown import code_span

    children = _inline_tokens(_parser().parse(f"Command: {code_span(command)}\n"))[0]
    assert [t.type for t in children] == ["text", "code_inline"]
    assert children[1].content == command


@pytest.mark.parametrize("text", ["# heading", "1. item", "- item", "> quote"])
def test_a_text_escaped_once_is_escaped_again_for_where_it_stands(text: str) -> None:
    # Short texts are remembered: by the text and by whether it starts a line.
    inline, starting = escape(text), escape(text, line_start=True)
    assert starting != inline and starting.replace("\\", "") == inline.replace("\\", "")
    assert escape(text) == inline and escape(text, line_start=True) == starting
    long = text + " x" * 200  # past what is remembered: the same rules
    assert escape(long, line_start=True).startswith(starting)
