"""The answer as safe HTML (validator/report/answer_html.py): whatever the agent wrote, the
HTML holds only allowed tags, no attribute that runs, loads or navigates, and shows the
hostile text as text."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from validator.report import answer_html
from validator.report.answer_html import ALLOWED_TAGS, MARKDOWN_LIMIT, render

# attribute -> the tags that may carry it, and what its value may be
ALLOWED_ATTRIBUTES = {"class": r"(align-(left|center|right)|language-[\w+.#-]+|link|url|image)"}

HOSTILE = [
    "<script>window.__pwned = 1</script>",
    "<SCRIPT SRC=//evil/x.js></SCRIPT>",
    '<img src=x onerror="alert(1)">',
    '<a href="javascript:alert(1)">x</a>',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](  javascript:alert(1) )",
    "[click](vbscript:msgbox(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![tracker](https://evil.example/pixel.png)",
    "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    '![x" onerror="alert(1)](x.png)',
    "<https://evil.example/?a=1&b=<script>>",
    "<javascript:alert(1)>",
    '[x](https://e.example "t\\" onmouseover=\\"alert(1)")',
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "&#60;script&#62;alert(1)&#60;/script&#62;",
    "&#x3C;img src=x onerror=alert(1)&#x3E;",
    "<div onclick=alert(1)>*a*</div>\n\n<style>body{display:none}</style>",
    "<iframe src=//evil></iframe><object data=x></object><embed src=x>",
    "<svg><script>alert(1)</script></svg><math><mi xlink:href=javascript:alert(1)>",
    "```html\n<script>alert(1)</script>\n```",
    '```" onmouseover=alert(1) x="\nx\n```',
    "`<script>`",
    "| <b onmouseover=alert(1)>a</b> | [b](javascript:x) |\n|---|---|\n| ![c](x) | d |",
    "> " * 200 + "deep",
    "- " * 200 + "deep",
    "*" * 5000 + "x" + "*" * 5000,
    "[" * 5000 + "x" + "](" * 5000,
    "<" * 5000,
    "# <h1>x</h1>\n###### six\n\n####### seven",
    "<!-- x --><![CDATA[ <script> ]]><?php echo 1 ?>\u2028\u2029\x00",
    "[a]: javascript:alert(1)\n\n[a]",
]


class _Walker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str, str | None]] = []
        self.text: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend((tag, name, value) for name, value in attrs)
        if tag not in ("br", "hr"):
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_comment(self, data: str) -> None:
        raise AssertionError(f"a comment in the output: {data!r}")

    def handle_decl(self, decl: str) -> None:
        raise AssertionError(f"a declaration in the output: {decl!r}")

    def handle_pi(self, data: str) -> None:
        raise AssertionError(f"a processing instruction in the output: {data!r}")


def checked(markdown_text: str) -> _Walker:
    """The output, parsed: only allowed tags, well nested, only allowed attributes."""
    import re

    out = render(markdown_text)
    walker = _Walker()
    walker.feed(out)
    walker.close()
    assert not walker.open, f"left open: {walker.open}"
    assert set(walker.tags) <= ALLOWED_TAGS, set(walker.tags) - ALLOWED_TAGS
    for tag, name, value in walker.attributes:
        if name == "start":
            assert tag == "ol" and value is not None and value.isdigit()
            continue
        assert name in ALLOWED_ATTRIBUTES, (tag, name, value)
        assert value is not None and re.fullmatch(ALLOWED_ATTRIBUTES[name], value), value
    return walker


@pytest.mark.parametrize("text", HOSTILE)
def test_nothing_runs_loads_or_navigates(text: str) -> None:
    walker = checked(text)
    shown = "".join(walker.text)
    if "<script>" in text and "&" not in text:
        assert "<script>" in shown  # raw HTML is shown as text, not dropped


def test_the_markdown_subset_is_kept() -> None:
    out = render(
        "# Root cause\n\nThe **slow query** on *orders*; `EXPLAIN` shows ~~no~~ a scan.\n\n"
        "1. add an index\n2. re-run\n\n- a\n- b\n\n| step | ms |\n|---|--:|\n| scan | 900 |\n\n"
        "```sql\nCREATE INDEX i ON orders (customer_id);\n```\n\n> quoted\n"
    )
    for part in (
        "<h3>Root cause</h3>",
        "<strong>slow query</strong>",
        "<em>orders</em>",
        "<code>EXPLAIN</code>",
        "<s>no</s>",
        "<ol><li>add an index</li>",
        "<ul><li>a</li>",
        '<td class="align-right">900</td>',
        '<pre><code class="language-sql">CREATE INDEX i ON orders (customer_id);\n</code></pre>',
        "<blockquote><p>quoted</p>",
    ):
        assert part in out, part
    checked(out)


def test_links_are_inert_and_images_their_alt_text() -> None:
    out = render("See [the runbook](https://wiki.example/db?a=1&b=2) and ![a graph](g.png).")
    assert out == (
        '<p>See <span class="link">the runbook</span> '
        '<span class="url">(https://wiki.example/db?a=1&amp;b=2)</span> and '
        '<span class="image">a graph</span>.</p>\n'
    )
    assert (
        render("<https://e.example/x>") == '<p><span class="link">https://e.example/x</span></p>\n'
    )
    assert "javascript:" not in "".join(
        value or "" for _, _, value in checked("[x](javascript:alert(1))").attributes
    )


def test_headings_are_demoted_and_stay_headings() -> None:
    out = render("# one\n## two\n#### four\n###### six")
    assert out == "<h3>one</h3>\n<h4>two</h4>\n<h6>four</h6>\n<h6>six</h6>\n"


def test_very_long_input_is_shown_as_text() -> None:
    text = "<script>x</script> **a** " * (MARKDOWN_LIMIT // 10)
    walker = checked(text)
    assert walker.tags == ["pre"] and "".join(walker.text) == text + "\n"
    checked("word " * 20_000)  # long, under the limit: parsed


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "<",
                ">",
                "&",
                '"',
                "'",
                "*",
                "_",
                "`",
                "[",
                "]",
                "(",
                ")",
                "!",
                "#",
                "|",
                "-",
                "\n",
                " ",
                "javascript:",
                "on",
                "=",
                "script",
                "img",
                "a",
                "http://x",
                "\\",
                "&#60;",
                "~",
                ">",
                "1.",
                "```",
            ]
        ),
        max_size=60,
    ).map("".join)
)
def test_any_text_gives_allowed_html(text: str) -> None:
    checked(text)


# ---------------------------------------------------------------------------
# The dialect's shared parser gives the page what markdown-it alone gives
# ---------------------------------------------------------------------------

SPEC = json.loads((REPO / "tests" / "data" / "commonmark-spec-0.31.2-examples.json").read_text())
# markdown-it as the page configured it before it shared the checks' parser (text_join on).
ALONE = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


def rendered_alone(text: str, monkeypatch: pytest.MonkeyPatch) -> str:
    with monkeypatch.context() as patch:
        patch.setattr(answer_html, "parse", lambda src, html: ALONE.parse(src))
        return render(text)


LINKED = [
    "see [a](https://grafana.example/d/x?from=now-1h#panel-2) and <https://wiki.example/r>",
    "[A](HTTPS://Host.Example:8443/p;q?x=(1)&y=%41) [b](/rel/path) [c](#frag) [d](rel)",
    "[odd](https://a.b/c%zz) [sp](<https://a.b/c d>) [br](https://a.b/?x=[1])",
    "[r]: https://例子.测试/路径 'title'\n\n[s]: //host/x\n\n[r] [s] <mailto:Foo@Bar.com>",
    "# Title\r\n\r\n- one\r- two &amp; `x`\r\n\r\n> quoted\0\r\n> on",
    "plain heading\n===\n\n| a | b |\n|---|:-:|\n| 1 &lt; 2 | \\*x\\* |",
]


@pytest.mark.parametrize("text", [*(e["markdown"] for e in SPEC["examples"]), *HOSTILE, *LINKED])
def test_the_shared_parser_gives_the_page_markdown_it_s_html(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Plain inline content, plain URLs and line endings passed over, character references
    # kept apart from the text around them: none changes a character of the page's HTML.
    assert render(text) == rendered_alone(text, monkeypatch)


@settings(deadline=None, max_examples=300)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(
                [
                    "*",
                    "_",
                    "`",
                    "[",
                    "](",
                    ")",
                    "<",
                    ">",
                    "&amp;",
                    "&#",
                    "\\",
                    "!",
                    "~~",
                    "\n",
                    "\n\n",
                    "# ",
                    "- ",
                    "1. ",
                    "| a |",
                    "---",
                    "http://a.b/",
                    "连接池",
                    " ",
                    "x",
                ]
            ),
            st.characters(),
        ),
        max_size=40,
    ).map("".join)
)
def test_generated_text_gives_the_page_markdown_it_s_html(text: str) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert render(text) == rendered_alone(text, monkeypatch)
