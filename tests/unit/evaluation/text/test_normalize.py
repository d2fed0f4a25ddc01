"""Text normalization (validator.evaluation.text) on hostile answers: invisible characters
that markdown-it would make visible, the Markdown rendering budget and its linear fallback,
and regular expressions that must stay linear in the size of the answer."""

from __future__ import annotations

import re
import sys
import time
import unicodedata

import pytest
from conftest import REPO
from hypothesis import example, given, settings
from hypothesis import strategies as st

from validator.evaluation import text as text_mod
from validator.evaluation.interpreter import run_predicate
from validator.evaluation.predicates import TraceContext
from validator.evaluation.text import markdown as text_markdown
from validator.evaluation.text import markup as text_markup
from validator.evaluation.text import normalize as text_normalize
from validator.evaluation.text import normalize_markdown, normalize_plain
from validator.evaluation.unicodeclasses import UNICODE_VERSIONS


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


@pytest.mark.slow  # benchmark-like: measures how a cost grows
@pytest.mark.parametrize("unit", HTML_BLOCK_ATTACKS.values(), ids=HTML_BLOCK_ATTACKS.keys())
def test_html_block_text_is_linear(unit: str) -> None:
    small = unit * (50_000 // len(unit))
    large = unit * (200_000 // len(unit))
    t1 = _best_cpu_time(lambda: text_markup.html_block_text(small))
    t2 = _best_cpu_time(lambda: text_markup.html_block_text(large))
    assert t2 / max(t1, 1e-4) < 10.0, (t1, t2)


def test_unterminated_declaration_keeps_its_text_and_later_pieces() -> None:
    # The linear scan must find exactly what the old (quadratic) pattern found.
    assert text_markup.html_block_text("<!A x &amp; y <b") == "<!A x & y <b"
    assert text_markup.html_block_text("<!A x <!-- z") == "<!A x "  # comments run to the end
    assert text_markup.html_block_text("<!A<!A x <b>y</b>") == "y"  # "<b>" ends the first one
    assert text_markup.html_block_text("<!DOCTYPE html><p>x") == " x"


# Long runs of combining marks: NFKC's canonical ordering is an insertion sort in CPython, so a
# run out of order was quadratic (1 MB of "\u0301\u0323" ~13 minutes); normalize_plain
# now sorts long runs itself first, which must not change any result.

MARKS = [
    *"\u0300\u0301\u0308\u0323\u0327\u0345\u05b0\u0591\u064b\u0f71\u0f72\u0f74\u0f80",
    *"\u3099\u309a\u302a\u302f\u1dc0\u20d0\ufe20\U0001d165\U0001d16d\U0001e944",
    *"\u0f73\u0f75\u0f81\u0344\uff9e\uff9f",  # decompose into non-starters only
]
# starters, characters with trailing marks, astral characters that are not marks, others
OTHERS = [*"a e u か ǘ\u1e09\u01d6\u0340\u0341\u034f\u200b\u0f77\U0001d15e\U0001f600\U00020000"]
# Runs long enough (32+) for the presorting to apply, broken by the other characters.
mark_soup = st.lists(
    st.one_of(
        st.sampled_from(OTHERS),
        st.lists(st.sampled_from(MARKS + OTHERS[-3:]), min_size=20, max_size=70).map("".join),
    ),
    max_size=6,
).map("".join)


@settings(deadline=None, max_examples=300)
@given(mark_soup)
def test_presorting_marks_changes_no_nfkc_result(text: str) -> None:
    assert unicodedata.normalize(
        "NFKC", text_normalize._presort_marks(text)
    ) == unicodedata.normalize("NFKC", text)


def test_presorting_applies_to_long_runs_only() -> None:
    short = "a" + "\u0301\u0323" * 15  # 30 marks: NFKC sorts them itself
    assert text_normalize._presort_marks(short) == short
    # 32 marks, an astral character that is not a mark, 2 marks (too few to bother)
    long = "a" + "\u0301\u0323" * 16 + "\U0001f600" + "\u0301\u0323"
    presorted = "a" + "\u0323" * 16 + "\u0301" * 16 + "\U0001f600\u0301\u0323"
    assert text_normalize._presort_marks(long) == presorted


@pytest.mark.slow  # benchmark-like: measures how a cost grows
def test_long_runs_of_marks_normalize_in_linear_time() -> None:
    small = "a" + "\u0301\u0323" * 25_000
    large = "a" + "\u0301\u0323" * 100_000
    assert normalize_plain(small) == unicodedata.normalize("NFKC", small)
    t1 = _best_cpu_time(lambda: normalize_plain(small), repeats=3)
    t2 = _best_cpu_time(lambda: normalize_plain(large), repeats=3)
    assert t2 / max(t1, 1e-4) < 10.0, (t1, t2)


def test_mark_table_matches_the_unicode_database() -> None:
    if unicodedata.unidata_version not in UNICODE_VERSIONS:
        pytest.skip(
            f"no table stored for Unicode {unicodedata.unidata_version}: add what"
            " mark_ranges_from_database() gives beyond the latest to _MARK_ADDED_HEX"
        )
    assert text_normalize._mark_ranges() == text_mod.mark_ranges_from_database()


# ---------------------------------------------------------------------------
# The Markdown rendering budget
# ---------------------------------------------------------------------------

BUDGET = text_mod.MARKDOWN_BUDGET_CHARS


def _markdown_of_length(n: int) -> str:
    unit = "**restart** mysql. "
    return unit * (n // len(unit)) + "." * (n % len(unit))


def test_budget_renders_up_to_the_limit_and_notes_beyond() -> None:
    at = _markdown_of_length(BUDGET)
    normalized, note = text_mod.normalize_markdown_ex(at)
    assert note is None and "**" not in normalized
    over = _markdown_of_length(BUDGET + 1)
    normalized, note = text_mod.normalize_markdown_ex(over)
    assert note is not None
    assert f"{BUDGET + 1:,} characters" in note and f"budget of {BUDGET:,}" in note
    assert "without Markdown rendering" in note
    assert "**" not in normalized and "restart mysql" in normalized  # markup still stripped


def test_budget_counts_characters_once_invisible_ones_are_deleted() -> None:
    padded = _markdown_of_length(BUDGET) + "\u200b" * 1000
    assert text_mod.normalize_markdown_ex(padded)[1] is None


def test_text_without_markdown_syntax_has_no_budget() -> None:
    plain = "the connection pool was exhausted. " * 100_000  # 3.5 MB
    normalized, note = text_mod.normalize_markdown_ex(plain)
    assert note is None and normalized == normalize_plain(plain)


def test_over_the_budget_markdown_it_is_not_called(monkeypatch) -> None:
    def refuse(src: str) -> str:
        raise AssertionError("markdown-it called over the budget")

    monkeypatch.setattr(text_markdown, "_markdown_text", refuse)
    for unit in ("[", "*[", "![", "| a |\n", "`[", "[x](!["):
        assert text_mod.normalize_markdown_ex(unit * (BUDGET // len(unit) + 1))[1] is not None


def test_markdown_it_failure_is_noted(monkeypatch) -> None:
    def boom(src: str) -> str:
        raise RuntimeError("parser exploded")

    monkeypatch.setattr(text_markdown, "_markdown_text", boom)
    normalized, note = text_mod.normalize_markdown_ex("**Slow**\n query")
    assert normalized == normalize_plain("**Slow**\n query")
    assert note is not None and "RuntimeError" in note and "without Markdown rendering" in note


def test_budget_note_reaches_the_check_message_and_details() -> None:
    answer = _markdown_of_length(BUDGET * 2)
    ctx = TraceContext({})
    outcome = run_predicate("contains-none", [answer], {"keywords": ["restart mysql"]}, ctx)
    assert not outcome.passed  # the forbidden phrase is still found without rendering
    assert "note: the text has" in outcome.message
    assert outcome.details is not None and len(outcome.details["notes"]) == 1
    outcome = run_predicate("contains-min", [answer], {"keywords": ["restart mysql"]}, ctx)
    assert outcome.passed and "without Markdown rendering" in outcome.message
    outcome = run_predicate("no-shared-run", ["short"], {"other": [answer], "min_length": 10}, ctx)
    assert outcome.passed and outcome.details == {"notes": [ctx.text_notes[answer]]}
    # rendered (small) answers get no note, and their details are unchanged
    small = run_predicate("contains-none", ["**x**"], {"keywords": ["y"]}, ctx)
    assert small.details == {"found": []} and "note" not in small.message
    # nor do answers matched with markdown: false
    plain = run_predicate("contains-none", [answer], {"keywords": ["y"], "markdown": False}, ctx)
    assert "note" not in plain.message


# Answers that are slow for markdown-it (1 MB of "[" took 14 s) and answers that exercise each
# rule of the fallback. Over the budget the work must be linear: CPU time of 4x the input.
FALLBACK_ATTACKS = {
    "brackets": "[",
    "emphasis and brackets": "*[",
    "images": "![",
    "nested images": "![a](",
    "links with long destinations": "[x](" + "a" * 200,
    "table rows": "| a | b |\n",
    "code span runs": "` ",
    "growing backtick runs": "`[``[```[",
    "declarations": "<!A",
    "comments": "<!--",
    "entities": "&#x41;&",
    "escapes": "\\",
    "underscores": "_a ",
    "line markers": "\n> - # 1. ",
}


@pytest.mark.slow  # benchmark-like: measures how a cost grows
@pytest.mark.parametrize("unit", FALLBACK_ATTACKS.values(), ids=FALLBACK_ATTACKS.keys())
def test_fallback_is_linear(unit: str) -> None:
    small = unit * (100_000 // len(unit))
    large = unit * (400_000 // len(unit))
    assert text_mod.normalize_markdown_ex(small)[1] is not None  # over the budget
    t1 = _best_cpu_time(lambda: text_mod.normalize_markdown_ex(small), repeats=3)
    t2 = _best_cpu_time(lambda: text_mod.normalize_markdown_ex(large), repeats=3)
    assert t2 / max(t1, 1e-4) < 10.0, (t1, t2)


@pytest.mark.slow  # benchmark-like: measures memory
def test_fallback_memory_stays_small() -> None:
    # markdown-it needed ~300 bytes a character for a big table; the fallback works chunk by
    # chunk. Allocation sizes are deterministic, so this is a stable bound.
    import tracemalloc

    answer = "` " * 250_000 + "| a | b |\n" * 25_000  # 750,000 characters
    tracemalloc.start()
    try:
        text_mod.normalize_markdown_ex(answer)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # a few copies of the text, and one chunk's working set (measured: ~30 MB in all)
    assert peak < 16 * len(answer) + 32 * 2**20, peak


FALLBACK_SAMPLES = [
    "**slow** query, __Slow__ *query* _plan_, ~~slow~~ query, **连接池**耗尽",
    r"set binlog\_expire\_logs\_seconds; \*not emphasis\*; a &amp; b &lt;b&gt; &#x41;",
    'see [docs](https://x/slow-query) and [the docs](https://x/a "slow-query title")',
    "see [docs][r]\n\n[r]: https://x/slow-query",
    "see <https://x/slow-query> and ![连接池 **耗尽** 示意](https://img.example/pool-leak.png)",
    'a <span class="slow-query">b</span> c, s<b>low</b> query, line1<br>line2, x <!-- q --> y',
    "set `max_connections` to 500, `a*b*` stays, 2 * 3 * 4, snake_case_name and __init__",
    "text\n\n```sql\nSELECT * FROM t\nWHERE x;\n```\n",
    "| 指标 | Value |\n|---|---|\n| slow | query |\n| QPS | 100 |\n",
    "# Root\ncause\n\n- slow\n- query\n\n1. slow\n2. query\n\n> slow\n\n---\n\nquery",
    "slow  \nquery, slow\\\nquery; 根因是数据库连接池\n耗尽。\n\n建议：调大\n`max_connections`。",
    "[![badge](img.svg)](https://ci) rest&#0;art",
]


@pytest.mark.parametrize("sample", FALLBACK_SAMPLES)
def test_fallback_reads_common_markdown_as_rendering_does(sample: str) -> None:
    assert normalize_plain(text_mod.strip_markdown(sample)) == normalize_markdown(sample)


def test_fallback_reads_the_fixture_answers_as_rendering_does() -> None:
    import json

    answers = []
    for path in sorted((REPO / "fixtures").glob("*.json")):
        doc = json.loads(path.read_text("utf-8"))
        answers += [
            doc[k] for k in ("finalAnswer", "executorAnswer") if isinstance(doc.get(k), str)
        ]
    assert len(answers) >= 10
    for answer in answers:
        assert normalize_plain(text_mod.strip_markdown(answer)) == normalize_markdown(answer)


def test_fallback_keeps_what_is_text() -> None:
    strip = text_mod.strip_markdown
    assert strip("a <!-- never closed") == "a <!-- never closed"  # inline: text, not a comment
    assert strip("x `unclosed code") == "x `unclosed code"
    assert strip("a ~ b ~5") == "a ~ b ~5"
    assert strip("C:\\temp") == "C:\\temp"


# ---------------------------------------------------------------------------
# normalize_plain's shortcuts (ASCII text, the ignorable class cut in three, presorted marks)
# must give exactly what the straightforward pipeline gives
# ---------------------------------------------------------------------------


# The straightforward forms of the whitespace steps: any whitespace run, and a space with a
# CJK character after it or before it.
WHITESPACE_RUN = re.compile(r"\s+")
CJK = text_normalize._CJK_CLASS
CJK_SPACE = re.compile(f" (?=[{CJK}])|(?<=[{CJK}]) ")


def reference_normalize_plain(text: str) -> str:
    """normalize_plain without any shortcut, as it was written first."""
    ignorable = text_normalize.ignorable_re()
    text = ignorable.sub("", text)
    text = unicodedata.normalize("NFKC", text)
    text = unicodedata.normalize("NFKC", text.casefold())
    text = ignorable.sub("", text)
    text = WHITESPACE_RUN.sub(" ", text).strip(" ")
    text = CJK_SPACE.sub("", text)
    # Step 5: NFKC again while the text is not normalized, each pass deleting a space a
    # reordered CJK mark now touches (`0 \u0339 \u309b`: the mark moves next to the space).
    while not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
        text = CJK_SPACE.sub("", text)
    return text


def test_normalizing_makes_no_ignorable_character() -> None:
    # normalize_plain deletes ignorable characters before NFKC, casefold and NFKC, not after
    # (on the Unicode versions whose tables are stored): no code point becomes one through
    # them, and none is a canonical composite, so no pair of characters composes into one.
    ignorable, nfkc = text_normalize.ignorable_re(), unicodedata.normalize
    made = [
        f"U+{cp:04X}"
        for cp in range(sys.maxunicode + 1)
        if not 0xD800 <= cp <= 0xDFFF
        and not ignorable.match(chr(cp))
        and ignorable.search(nfkc("NFKC", nfkc("NFKC", chr(cp)).casefold()))
    ]
    assert made == []
    composites = [
        f"U+{cp:04X}"
        for lo, hi in text_normalize._ignorable_ranges()
        for cp in range(lo, hi + 1)
        if unicodedata.decomposition(chr(cp))[:1] not in ("", "<")
    ]
    assert composites == []


def test_str_split_and_re_agree_on_what_whitespace_is() -> None:
    # normalize_plain collapses whitespace with str.split (str.isspace), the straightforward
    # form with re's \s: the same characters on this Python, every code point compared.
    by_re = {cp for cp in range(sys.maxunicode + 1) if re.match(r"\s", chr(cp))}
    by_split = {cp for cp in range(sys.maxunicode + 1) if len(f"a{chr(cp)}b".split()) == 2}
    assert by_re == by_split
    assert {0x20, 0x85, 0xA0, 0x3000, 0x1C} <= by_re  # the set is the Unicode one


IGNORABLE = [chr(lo) for lo, _ in text_normalize._ignorable_ranges()] + [
    chr(hi) for _, hi in text_normalize._ignorable_ranges()
]


@settings(deadline=None, max_examples=500)
@given(
    st.one_of(
        st.text(),
        st.text(alphabet=st.characters(max_codepoint=127)),
        st.lists(
            st.sampled_from(
                [*IGNORABLE, *"aZ \t\n\x1c\x85\xa0\u3000\u2028连接，ＭｙＳＱＬか\u3099한"]
            )
        ).map("".join),
        mark_soup,
    )
)
@example("0 \u0339 \u309b")  # found by this test in CI: a pass of step 5 the reference lacked
def test_normalize_plain_equals_the_reference_pipeline(text: str) -> None:
    assert normalize_plain(text) == reference_normalize_plain(text)
