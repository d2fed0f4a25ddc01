"""validator.text against hostile answers: invisible characters that markdown-it would make
visible, and regular expressions that must stay linear in the size of the answer."""

from __future__ import annotations

import time

import pytest

from validator import text as text_mod
from validator.interpreter import run_predicate
from validator.predicates import TraceContext
from validator.text import normalize_markdown, normalize_plain


def _forbidden(answer: str, keyword: str, markdown: bool = True) -> bool:
    """Whether contains-none finds `keyword` in `answer` (as the forbidden-keywords spec does)."""
    args = {"keywords": [keyword], "markdown": markdown}
    return not run_predicate("contains-none", [answer], args, TraceContext({})).passed


# ---------------------------------------------------------------------------
# NUL and other characters markdown-it replaces
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("markdown", [True, False])
def test_nul_cannot_split_a_forbidden_phrase(markdown: bool) -> None:
    assert _forbidden("rest\u0000art mysql", "restart mysql", markdown)
    assert _forbidden("**rest\u0000art** mysql", "restart mysql", markdown=True)


@pytest.mark.parametrize(
    "answer",
    [
        "rest\u0000art mysql",
        "rest\u0000\u0000art mysql",
        "rest\u200b\u0000\u2060art mysql",  # mixed with the other ignorable characters
        "rest\x07art mysql",  # other controls markdown-it leaves alone are deleted as before
        "rest&#0;art mysql",  # markdown-it: U+FFFD for a reference to NUL
        "rest&#x0;art mysql",
        "rest&#00000;art mysql",
        "rest&#7;art mysql",  # markdown-it: U+FFFD for references to controls too
        "rest&#x7F;art mysql",
        "rest&#x200B;art mysql",  # a reference to an invisible character
        "<div>\nrest&#0;art mysql\n</div>",  # html.unescape: U+FFFD for &#0; in HTML blocks
        "<div>\nrest&#1;art mysql\n</div>",
        "rest\u0000art&#11;mysql",  # a reference to a whitespace character reads as a space
    ],
)
def test_invisible_characters_and_references_to_them_are_deleted(answer: str) -> None:
    assert _forbidden(answer, "restart mysql")
    assert "restart mysql" in normalize_markdown(answer)


def test_nul_is_deleted_before_rendering_so_markup_around_it_still_works() -> None:
    assert normalize_markdown("*\u0000slow\u0000* query") == "slow query"
    assert normalize_markdown("\u0000# Root cause") == "root cause"
    assert normalize_markdown("`rest\u0000art`") == "restart"


def test_plain_and_markdown_paths_agree_on_nul() -> None:
    for raw in ("rest\u0000art", "\u0000", "a\u0000 \u0000b", "连接\u0000池"):
        assert normalize_markdown(raw) == normalize_plain(raw)


def test_references_without_a_character_still_read_as_replacement_character() -> None:
    # Surrogates and numbers beyond Unicode are not invisible: they stay U+FFFD, as rendered.
    assert normalize_markdown("a&#xD800;b") == "a\ufffdb"
    assert normalize_markdown("a&#x110000;b") == "a\ufffdb"
    # A literal U+FFFD is visible text.
    assert normalize_markdown("a\ufffdb") == "a\ufffdb"
    # Inside code, a reference is literal text.
    assert normalize_markdown("`a&#0;b`") == "a&#0;b"


def test_html_block_references_keep_html_rules_for_visible_characters() -> None:
    # &#x80; is the euro sign in HTML (Windows-1252 rule); unchanged.
    assert normalize_markdown("<div>\n&#x80; &amp; &lt;b&gt;\n</div>") == "€ & <b>"


# ---------------------------------------------------------------------------
# Linear-time regular expressions.  CPU time of 4x the input, best of several runs, against
# a wide margin: linear code measures ~4, quadratic ~16 (no wall-clock thresholds).
# ---------------------------------------------------------------------------


def _best_cpu_time(fn, repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


HTML_BLOCK_ATTACKS = {
    "declarations": "<!A",  # took ~248 s for 990 KB before the fix
    "declarations and tags": "<!A <b>",
    "comment opens": "<!--",
    "processing instructions": "<?x",
    "cdata": "<![CDATA[",
    "unterminated quoted attributes": '<a x="',
    "unterminated single quotes": "<a x='",
    "attributes without end": "<a b c ",
    "closing tags without end": "</a ",
}


@pytest.mark.parametrize("unit", HTML_BLOCK_ATTACKS.values(), ids=HTML_BLOCK_ATTACKS.keys())
def test_html_block_text_is_linear(unit: str) -> None:
    small = unit * (50_000 // len(unit))
    large = unit * (200_000 // len(unit))
    t1 = _best_cpu_time(lambda: text_mod._html_block_text(small))
    t2 = _best_cpu_time(lambda: text_mod._html_block_text(large))
    assert t2 / max(t1, 1e-4) < 10.0, (t1, t2)


def test_unterminated_declaration_keeps_its_text_and_later_pieces() -> None:
    # The linear scan must find exactly what the old (quadratic) pattern found.
    assert text_mod._html_block_text("<!A x &amp; y <b") == "<!A x & y <b"
    assert text_mod._html_block_text("<!A x <!-- z") == "<!A x "  # comments run to the end
    assert text_mod._html_block_text("<!A<!A x <b>y</b>") == "y"  # "<b>" ends the first one
    assert text_mod._html_block_text("<!DOCTYPE html><p>x") == " x"
