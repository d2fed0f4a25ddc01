"""The Markdown fast path: text without Markdown syntax characters skips markdown-it, and must
normalize exactly as if it had been rendered.

Differential: every input is normalized both ways -- `normalize_markdown` (which takes the fast
path when `has_markdown_syntax` is false) and a forced rendering through markdown-it -- and
the results must be identical, on the CommonMark spec examples (and variants of them that
the fast path accepts), on every text in the repository's fixtures and test data, and on
generated text. Each corpus must also send enough inputs down the fast path for the
comparison to mean something.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validator import commonmark
from validator.evaluation.text import has_markdown_syntax, normalize_markdown, normalize_plain
from validator.evaluation.text import markdown as text_markdown
from validator.evaluation.text import normalize as text_normalize

ROOT = REPO
SPEC = json.loads((ROOT / "tests" / "data" / "commonmark-spec-0.31.2-examples.json").read_text())
EXAMPLES: list[str] = [e["markdown"] for e in SPEC["examples"]]

HYP = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=400)


def rendered(text: str) -> str:
    """Always through markdown-it, as normalize_markdown did before the fast path."""
    return normalize_plain(
        text_markdown._markdown_text(text_normalize.ignorable_re().sub("", text))
    )


def fast_path_taken(text: str) -> bool:
    return not has_markdown_syntax(text_normalize.ignorable_re().sub("", text))


def assert_same(inputs: list[str], min_fast: int) -> None:
    fast = 0
    for text in inputs:
        assert normalize_markdown(text) == rendered(text), repr(text)
        fast += fast_path_taken(text)
    assert fast >= min_fast, f"only {fast} of {len(inputs)} inputs took the fast path"


# ---------------------------------------------------------------------------
# CommonMark spec examples
# ---------------------------------------------------------------------------

ANYWHERE = re.compile(r"[\\`*_\[\]<&~|]")


def spec_variants() -> list[str]:
    """The examples, and variants that keep their block structure (indentation, tabs, blank
    lines, list numbers, heading and quote markers) but drop or hide what the fast path
    refuses, so that many of them take it."""
    out = []
    for example in EXAMPLES:
        dropped = ANYWHERE.sub("", example)
        out += [example, dropped, ANYWHERE.sub("x", example)]
        out.append(re.sub(r"(?m)^", "a", dropped))  # every line-start marker now mid-line
        out.append(re.sub(r"(?m)^([ \t]*)", r"\1", dropped).replace("\n", "  \n"))  # hard breaks
    return out


def test_spec_examples_fast_path_is_identical() -> None:
    assert len(EXAMPLES) == 652
    assert_same(EXAMPLES, min_fast=20)


def test_spec_variants_fast_path_is_identical() -> None:
    assert_same(spec_variants(), min_fast=1000)


def test_fast_path_refuses_every_example_whose_rendering_changes_more_than_whitespace() -> None:
    # The converse check: whenever markdown-it's visible text differs from the input beyond
    # whitespace, the fast path must not have been taken.
    for text in spec_variants():
        if fast_path_taken(text):
            squeezed = "".join(text.split())
            assert "".join(text_markdown._markdown_text(text).split()) == squeezed, repr(text)


# ---------------------------------------------------------------------------
# Every text of the repository's fixtures and test data
# ---------------------------------------------------------------------------


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def repository_texts() -> list[str]:
    texts: list[str] = []
    for folder in ("fixtures", "tests", "examples"):
        for path in sorted((ROOT / folder).rglob("*.json")):
            try:
                doc = json.loads(path.read_text("utf-8"))
            except (ValueError, UnicodeDecodeError):
                continue  # the hostile files that are not JSON on purpose
            texts += _strings(doc)
    return texts


def test_fixture_answers_fast_path_is_identical() -> None:
    texts = repository_texts()
    answers = []
    for path in sorted((ROOT / "fixtures").glob("*.json")):
        doc = json.loads(path.read_text("utf-8"))
        answers += [
            doc[k] for k in ("finalAnswer", "executorAnswer") if isinstance(doc.get(k), str)
        ]
    assert len(answers) >= 10
    assert set(answers) <= set(texts)
    assert_same(texts, min_fast=50)


def test_bench_corpus_answers_fast_path_is_identical(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from corpus import write_corpus
    finally:
        sys.path.remove(str(ROOT / "bench"))
    _, fixtures, _ = write_corpus(tmp_path, "cases", 60, 7)
    texts = []
    for path in sorted(fixtures.rglob("*.json")):
        doc = json.loads(path.read_text("utf-8"))
        texts += [doc[k] for k in ("finalAnswer", "executorAnswer") if isinstance(doc.get(k), str)]
    assert_same(texts, min_fast=5)


# ---------------------------------------------------------------------------
# Generated text
# ---------------------------------------------------------------------------

# What the fast path accepts, and what could fool it: punctuation that is not syntax, "!" "#"
# "-" "+" "=" ">" and digits with "." or ")" (syntax only at a line start), every kind of
# whitespace and line break, indentation, trailing double spaces, Chinese, full-width forms of
# the syntax characters (not syntax to markdown-it, but NFKC makes them ASCII), combining marks.
PIECES = [
    *"abcXYZ0123456789",
    *"!\"#$%'()+,-./:;=>?@^{}",
    " ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "\n\n",
    "    ",
    "  \n",
    "\u00a0",
    "\u3000",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x85",
    "\u2028",
    "\u2029",
    "1.",
    "1)",
    "# ",
    "- ",
    "+ ",
    "> ",
    "===",
    "---",
    "\n1. ",
    "\n- ",
    "\n# ",
    "\n> ",
    "\n    ",
    "\n\t",
    "连接池",
    "耗尽",
    "，",
    "。",
    "：",
    "！",
    "（",
    "）",
    "＃",
    "＊",
    "＿",
    "［",
    "］",
    "｀",
    "～",
    "＜",
    "＞",
    "＆",
    "＼",
    "｜",
    "ＭｙＳＱＬ",
    "\u0301",
    "\u3099",
    "か",
    "\u200b",
    "\x00",
    "¨",
    # the characters that are syntax only in some places
    "_",
    "a_b",
    "连接_池",
    "__",
    "\\",
    "C:\\temp",
    "\\n",
    "<",
    " < ",
    "&",
    " & ",
    "R&D",
    "&amp;",
    "&#35;",
    "&#x200b;",
    "&shy;",
    "<http://a.b/x%E2%80%8By>",
    "<http://a.b/%C2%AD>",
    "&nosuch;",
    "~",
    "~5",
    "~~",
]
ascii_text = st.text(alphabet=st.characters(max_codepoint=127), max_size=60)
chinese_text = st.text(
    alphabet=st.sampled_from(list("连接池耗尽导致超时根因，。：；！？（）、 \n"))
)
pieces_text = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
mixed_text = st.lists(
    st.one_of(st.sampled_from(PIECES), st.characters(exclude_categories=())), max_size=40
).map("".join)


@HYP
@given(st.one_of(ascii_text, chinese_text, pieces_text, mixed_text, st.text()))
def test_generated_text_fast_path_is_identical(text: str) -> None:
    assert normalize_markdown(text) == rendered(text)


@HYP
@given(pieces_text)
def test_generated_fast_path_candidates(text: str) -> None:
    # The same, for text built from what the fast path accepts (most of it takes it).
    assert normalize_markdown(text) == rendered(text)


def test_generated_pieces_mostly_take_the_fast_path() -> None:
    import random

    rng = random.Random(5)
    texts = ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 30))) for _ in range(3000)]
    assert_same(texts, min_fast=500)


@pytest.mark.parametrize(
    "text",
    [
        "Plain prose, with punctuation: (a), 'b', \"c\"; 100% done! #1 - 2 + 3 = 5 > 4.",
        "根因是数据库连接池\n耗尽。\n\n建议：调大 max_connections。",
        "R&D spent ~5 ms when a < b, see C:\\temp\\x.log",
        "    indented\n\tline\n\n    code block?",
        "two trailing spaces  \nmake a hard break",
        "2024-01-01 12:00 alert fired\n2024-01-01 12:05 acknowledged",
        "x\r\ny\rz",
    ],
)
def test_typical_plain_answers_take_the_fast_path(text: str) -> None:
    assert fast_path_taken(text)
    assert normalize_markdown(text) == rendered(text)


@pytest.mark.parametrize(
    "text",
    [
        "**bold**",
        "_a_",
        "a_",
        "a\\*b",
        "a\\\nb",
        "`code`",
        "[link]",
        "a]b",
        "<b>",
        "&amp;",
        "&#35;",
        "&nosuch;",
        "a<b",
        "~~x~~",
        "a | b",
        "# heading",
        "   # heading",
        "x\n> quote",
        "- item",
        "+ item",
        "1. item",
        "12) item",
        "title\n===",
        "title\n---",
        "\u3000# heading after an ideographic space",  # conservative: any whitespace
        "x\r# heading after a lone CR",
    ],
)
def test_markdown_syntax_takes_the_slow_path(text: str) -> None:
    assert not fast_path_taken(text)


# ---------------------------------------------------------------------------
# Link URLs: the shared parser skips markdown-it's normalization of plain URLs
# ---------------------------------------------------------------------------

LINKS = [
    "see [a](https://grafana.example/d/x?from=now-1h#panel-2) and <https://wiki.example/r>",
    "[A](HTTPS://Host.Example:8443/p;q?x=(1)&y=%41) [b](/rel/path) [c](#frag) [d](rel)",
    "[odd](https://a.b/c%zz) [sp](<https://a.b/c d>) [br](https://a.b/?x=[1])",
    "<javascript:alert(1)> [x](javascript:alert(1)) <DATA:image/png;base64,AA> <file:///etc>",
    "[r]: https://例子.测试/路径 'title'\n\n[s]: //host/x\n\n[r] [s] <mailto:Foo@Bar.com>",
    "[t]: javascript:alert(1)\n\n[t] <http://[::1]:80/x> [u](https://a.b\\c)",
    "[long](https://" + "a" * 250 + ".example/x) [h](http://0." + "0." * 130 + "0/x)",
]


# markdown-it as it comes, configured as the tool configures it (its rule chains compiled
# once for these tests).
ALONE = commonmark.new_parser()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a&#x200b;b *x*", "ab x"),  # an entity makes an invisible character: deleted
        ("co&shy;de `y`", "code y"),
        ("a\u200bb *x*", "ab x"),  # one in the source is deleted before rendering
        ("*x* <b>a\u2060b</b> `c\u200bd`", "x ab cd"),
        ("<http://a.b/x%E2%80%8By> *z*", "http://a.b/xy z"),  # an autolink decodes %-escapes
        ("*z* <https://a.b/%C2%AD>", "z https://a.b/"),
    ],
)
def test_invisible_characters_are_deleted_wherever_they_come_from(text: str, expected: str) -> None:
    assert normalize_markdown(text) == expected == rendered(text)


def rendered_alone(text: str) -> str:
    return text_markdown.visible_text(ALONE.parse(text))


# Line endings and NUL, which markdown-it's `normalize` rule rewrites (the shared parser
# leaves that rule out and does the same only when the text has a CR or a NUL).
LINE_ENDINGS = [
    "a\r\nb",
    "a\rb\r\n\r\nc",
    "# Title\r\n\r\n- one\r- two\r\n\r\n> quoted\r\n> on",
    "```\r\ncode\r\nmore\r\n```\r\nafter",
    "a  \r\nb",  # a hard break before CR LF
    "x\0y *z*\r\n\0",
    "| a | b |\r\n|---|---|\r\n| 1 | 2 |",
]


@pytest.mark.parametrize("text", [*EXAMPLES, *spec_variants(), *LINKS, *LINE_ENDINGS])
def test_the_shared_parser_renders_what_markdown_it_alone_renders(text: str) -> None:
    # Each text twice: nothing the first rendering leaves behind changes the second.
    alone = rendered_alone(text)
    assert text_markdown._markdown_text(text) == alone
    assert text_markdown._markdown_text(text) == alone


@HYP
@given(st.one_of(ascii_text, chinese_text, pieces_text, mixed_text, st.text()))
def test_generated_text_renders_as_markdown_it_alone_renders_it(text: str) -> None:
    # Inline content is parsed only when it may hold inline syntax, links' URLs normalized
    # only when not plain: neither changes a character of the text.
    assert text_markdown._markdown_text(text) == rendered_alone(text)


# Drawing a URL from the pattern takes ~10 ms: 500 a run here (each CI run draws others;
# 100,000 were checked once when the pattern was written).
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=500)
@given(
    st.from_regex(commonmark.PLAIN_URL, fullmatch=True).filter(
        lambda url: len(url) <= commonmark.PLAIN_URL_LONGEST
    )
)
def test_a_plain_url_is_its_own_normalized_form(url: str) -> None:
    # What lets the shared parser give such a URL back without markdown-it's normalization.
    assert ALONE.normalizeLink(url) == url  # one parser as markdown-it makes it, not one a URL


@pytest.mark.parametrize(
    "url",
    [
        "//@",  # a path starting with // is a host
        "https://a.b/c d",
        "https://a.b/%zz",
        "https://a.b/?x=[1]",
        "https://a.b\\c",
        "https://例子.测试/x",
        "http://0." + "0." * 130 + "0/x",  # a host name over 255 characters is dropped
    ],
)
def test_a_url_markdown_it_changes_is_not_plain(url: str) -> None:
    assert commonmark.new_parser().normalizeLink(url) != url
    plain = len(url) <= commonmark.PLAIN_URL_LONGEST and commonmark.PLAIN_URL.fullmatch(url)
    assert not plain


def test_only_a_url_that_is_not_plain_is_normalized_by_markdown_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from markdown_it import MarkdownIt

    normalize, asked = MarkdownIt.normalizeLink, []

    def counted(self: MarkdownIt, url: str) -> str:
        asked.append(url)
        return str(normalize(self, url))

    monkeypatch.setattr(MarkdownIt, "normalizeLink", counted)
    monkeypatch.setattr(commonmark, "_shared", {})  # a shared parser made anew
    text = "[a](https://grafana.example/d/x) [b](<https://a.b/c d>) [c](https://例子.测试/路径)"
    assert normalize_markdown(text) == "a b c"
    assert asked == ["https://a.b/c d", "https://例子.测试/路径"]
