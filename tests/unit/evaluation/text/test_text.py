"""Tests for validator.text: normalization of keywords / Markdown answers and the leak check."""

from __future__ import annotations

import os
import random
import string
import subprocess
import sys
import time

import pytest
from conftest import REPO
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from validator.evaluation.text import markdown as text_markdown
from validator.evaluation.text import normalize as text_normalize
from validator.evaluation.text import normalize_markdown, normalize_plain, shared_run
from validator.evaluation.unicodeclasses import UNICODE_VERSIONS

HYP = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Characters that stress the normalizer: invisible characters, combining marks (incl. the
# kana voicing mark and Hangul trailing jamo, which compose with a preceding character once
# a space is removed), full-width forms, whitespace of all kinds, CJK, case-special letters.
TRICKY = list(
    "aAzZ ßẞſΣσςİıǰ\u0301\u0308\u0323\u302a\u3099\u11a8\u1161ᄀ가かカ漢連接池耗尽，。：、"
    "ＭｙＳＱＬ０１\u00a0\u3000\u2028\t\n\r\x0b\x0c\x1c\x85\u200b\u200c\u200d\u2060\ufeff"
    "\u00ad\u034f\ufe0f\u3164\ufb01\u2126\u212b\u0345\x00\x07*_`[]()<>#|\\!~&;"
)
tricky_text = st.text(
    alphabet=st.one_of(st.sampled_from(TRICKY), st.characters(exclude_categories=())),
    max_size=40,
)


# ---------------------------------------------------------------------------
# normalize_plain
# ---------------------------------------------------------------------------


def test_plain_casefold_and_fullwidth():
    assert normalize_plain("ＭｙＳＱＬ") == "mysql"
    assert normalize_plain("MySQL") == normalize_plain("ｍｙｓｑｌ") == "mysql"
    assert normalize_plain("Straße") == normalize_plain("STRASSE")
    # full-width punctuation and digits become ASCII
    assert normalize_plain("（ＧＣ）：１２３") == "(gc):123"


def test_plain_drops_invisible_characters():
    assert normalize_plain("my\u200bs\ufeffq\u00adl") == "mysql"
    assert normalize_plain("con\u2060nec\u200dtion\u200c pool") == "connection pool"
    # not Cf, but just as invisible: variation selector, CGJ, Hangul filler, BEL
    assert normalize_plain("my\ufe0fs\u034fq\u3164l\x07") == "mysql"
    assert normalize_plain("连接\u200b池耗尽") == "连接池耗尽"


def test_plain_whitespace_collapse_and_strip():
    assert normalize_plain("  slow \t\n\r  query\u00a0 plan \u3000") == "slow query plan"
    assert normalize_plain("") == ""
    assert normalize_plain(" \n\t\u200b ") == ""


def test_plain_english_words_stay_separated():
    assert normalize_plain("slow\nquery") == "slow query"
    assert "slowquery" not in normalize_plain("slow \n query")


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("连接池\n耗尽", "连接池耗尽"),
        ("连接池 \n  耗尽", "连接池耗尽"),
        ("スロー\nクエリ", "スロークエリ"),
        ("연결\n풀", "연결풀"),
        ("连接池，\n耗尽", "连接池,耗尽"),  # full-width comma became ASCII
        ("MySQL 连接池", "mysql连接池"),  # "pangu" spacing does not matter
        ("连接池 mysql 耗尽", "连接池mysql耗尽"),
    ],
)
def test_plain_cjk_spacing(raw, expected):
    assert normalize_plain(raw) == expected


def test_plain_cjk_keyword_matching_is_symmetric():
    answer = normalize_plain("根因是 MySQL 连接池，\n耗尽导致超时")
    for kw in ("MySQL连接池", "mysql 连接池", "连接池，耗尽", "连接池, 耗尽", "ＭｙＳＱＬ连接池"):
        assert normalize_plain(kw) in answer
    assert normalize_plain("连接池泄漏") not in answer


@pytest.mark.parametrize(
    "kw", ["c++ (gcc)", ".*", "[a-z]+", "|", r"\d+", "$1", "*args*", "a_b", "<tag>", "#1", "~x~"]
)
def test_plain_special_characters_survive_literally(kw):
    assert normalize_plain(kw) == kw
    assert normalize_plain(f"Error in {kw} here") == f"error in {kw} here"


def test_plain_uppercase_special_characters():
    assert normalize_plain("[A-Z]+ | C++ (GCC)") == "[a-z]+ | c++ (gcc)"


@HYP
@given(st.text())
def test_plain_idempotent(s):
    once = normalize_plain(s)
    assert normalize_plain(once) == once


@HYP
@given(tricky_text)
def test_plain_idempotent_tricky(s):
    once = normalize_plain(s)
    assert normalize_plain(once) == once


@HYP
@given(tricky_text)
def test_plain_output_shape(s):
    out = normalize_plain(s)
    assert out == out.strip()
    assert "  " not in out
    assert not any(c in out for c in "\t\n\r\u200b\ufeff\u00ad\u3000\u00a0")


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("か \u3099", "が"),  # removing the space lets the voicing mark compose
        ("가 \u11a8", "각"),  # Hangul LV + trailing jamo
        ("e\u200b\u0301", "\u00e9"),  # removing a ZWSP lets the accent compose
        ("\u0301 \u302a", "\u302a\u0301"),  # canonical reordering after the join
        ("\u01f0", "\u01f0"),  # casefold decomposes, NFKC recomposes
    ],
)
def test_plain_composes_across_removed_characters(raw, expected):
    assert normalize_plain(raw) == expected
    assert normalize_plain(expected) == expected


def test_plain_handles_lone_surrogates():
    assert normalize_plain("A\ud800 \udfffB") == "a\ud800 \udfffb"


# ---------------------------------------------------------------------------
# normalize_markdown
# ---------------------------------------------------------------------------


def test_md_emphasis_and_strikethrough_markers_disappear():
    assert normalize_markdown("**slow** query") == "slow query"
    assert normalize_markdown("__Slow__ *query* _plan_") == "slow query plan"
    assert normalize_markdown("~~slow~~ query") == "slow query"
    assert normalize_markdown("**连接池**耗尽") == "连接池耗尽"


def test_md_escapes_and_entities():
    assert normalize_markdown(r"set binlog\_expire\_logs\_seconds") == (
        "set binlog_expire_logs_seconds"
    )
    assert normalize_markdown(r"\*not emphasis\*") == "*not emphasis*"
    assert normalize_markdown("a &amp; b &lt;b&gt; &#x41;") == "a & b <b> a"


def test_md_link_text_counts_url_does_not():
    out = normalize_markdown("see [docs](https://x/slow-query) now")
    assert out == "see docs now"
    assert "slow-query" not in out
    out = normalize_markdown('see [the docs](https://x/a "slow-query title")')
    assert "slow-query" not in out and "the docs" in out
    out = normalize_markdown("see [docs][r]\n\n[r]: https://x/slow-query")
    assert out == "see docs"


def test_md_autolink_text_is_visible():
    assert "https://x/slow-query" in normalize_markdown("see <https://x/slow-query>")


def test_md_image_alt_counts_url_does_not():
    out = normalize_markdown("![连接池 **耗尽** 示意](https://img.example/pool-leak.png)")
    assert out == "连接池耗尽示意"
    assert "pool-leak" not in normalize_markdown("![diagram](pool-leak.png)")


def test_md_inline_html_dropped():
    out = normalize_markdown('a <span class="slow-query">b</span> c')
    assert out == "a b c"
    assert "slow-query" not in out and "span" not in out
    # inline tags vanish without splitting a word; line breaks separate words
    assert normalize_markdown("s<b>low</b> query") == "slow query"
    assert normalize_markdown("line1<br>line2") == "line1 line2"
    assert normalize_markdown("x <!-- slow-query --> y") == "x y"


def test_md_html_block_keeps_text_drops_tags():
    src = '<div class="slow-query">\n根因：<b>连接池</b>耗尽 &amp; <!-- 隐藏 -->\n</div>\n\nafter'
    out = normalize_markdown(src)
    assert "连接池耗尽" in out and "&" in out and "after" in out
    assert "slow-query" not in out and "div" not in out and "隐藏" not in out
    assert normalize_markdown("<p>slow</p><p>query</p>") == "slow query"


def test_md_code_spans_and_fences_kept():
    assert normalize_markdown("set `max_connections` to 500") == "set max_connections to 500"
    out = normalize_markdown("text\n\n```sql\nSELECT * FROM t\nWHERE x;\n```\n")
    assert out == "text select * from t where x;"
    assert "sql" not in out.replace("select", "")  # the info string is not content
    assert normalize_markdown("para\n\n    indented **code**\n") == "para indented **code**"


def test_md_tables():
    src = "| 指标 | Value |\n|---|---|\n| slow | query |\n| QPS | 100 |\n"
    out = normalize_markdown(src)
    assert out == "指标value slow query qps 100"
    assert "|" not in out and "---" not in out
    assert "slowquery" not in out


def test_md_block_boundaries_separate_words():
    assert normalize_markdown("# Root\ncause") == "root cause"
    assert normalize_markdown("- slow\n- query") == "slow query"
    assert normalize_markdown("1. slow\n2. query") == "slow query"
    assert normalize_markdown("> slow\n\nquery") == "slow query"
    assert normalize_markdown("slow\n\n---\n\nquery") == "slow query"
    assert normalize_markdown("slow\nquery") == "slow query"
    assert normalize_markdown("slow  \nquery") == "slow query"  # hard break
    assert normalize_markdown("slow\\\nquery") == "slow query"


def test_md_soft_break_inside_chinese():
    src = "根因是数据库连接池\n耗尽。\n\n建议：调大\n`max_connections`。"
    out = normalize_markdown(src)
    assert normalize_plain("连接池耗尽") in out
    assert normalize_plain("调大max_connections") in out
    assert "连接池耗尽" in normalize_markdown("连接池  \n耗尽")  # hard break


def test_md_zero_width_cannot_hide_keyword():
    assert "mysql" in normalize_markdown("**My\u200bSQL** 连接\ufeff池")
    assert "连接池" in normalize_markdown("**My\u200bSQL** 连接\ufeff池")


def test_md_keyword_special_characters():
    answer = normalize_markdown("Use c++ (gcc) and the regex `[a-z]+` or `.*`, a | b.")
    for kw in ("c++ (gcc)", "[a-z]+", ".*", "|"):
        assert normalize_plain(kw) in answer


def test_md_falls_back_to_plain_when_parser_fails(monkeypatch):
    def boom(src, html=True):
        raise RuntimeError("parser exploded")

    monkeypatch.setattr(text_markdown, "parse", boom)
    assert normalize_markdown("**Slow**\n query") == normalize_plain("**Slow**\n query")


markdownish = st.lists(
    st.one_of(
        st.sampled_from(list("*_`~[]()!<>#|-\\&;:/\n \t>=\"'0123456789.")),
        st.sampled_from(["<div>", "</div>", "<!--", "-->", "```", "    ", "&amp;", "](", "| -"]),
        st.sampled_from(TRICKY),
        st.characters(exclude_categories=()),  # includes lone surrogates
    ),
    max_size=80,
).map("".join)


@HYP
@given(st.one_of(st.text(), markdownish, st.lists(markdownish).map("".join)))
@example("0\u00b4<DIV>\u302a")  # NFKC puts the CJK tone mark next to the DIV's space
def test_md_never_raises_and_output_is_plain_normalized(s):
    out = normalize_markdown(s)
    assert isinstance(out, str)
    assert normalize_plain(out) == out


def test_md_import_is_lazy():
    code = (
        "import sys, validator\n"
        "pre = 'markdown_it' in sys.modules\n"
        "import validator.evaluation.text\n"
        "print('skip' if pre else ('eager' if 'markdown_it' in sys.modules else 'lazy'))\n"
    )
    root = REPO
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
    }
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root, env=env
    )
    result = res.stdout.strip()
    if result == "skip":
        pytest.skip("the validator package itself imports markdown_it")
    assert result == "lazy"


# ---------------------------------------------------------------------------
# shared_run
# ---------------------------------------------------------------------------


def brute_shared(a: str, b: str, n: int) -> set[str]:
    return {a[i : i + n] for i in range(len(a) - n + 1)} & {
        b[j : j + n] for j in range(len(b) - n + 1)
    }


small_text = st.text(alphabet="ab", max_size=60) | st.text(alphabet="abc", max_size=60)


@settings(HYP, max_examples=400)
@given(small_text, small_text, st.integers(1, 8), small_text)
def test_shared_run_exact_vs_brute_force(a, b, n, common):
    for x, y in ((a, b), (a + common, common + b), (b + common + a, a + common)):
        expected = brute_shared(x, y, n)
        got = shared_run(x, y, n)
        if expected:
            assert got in expected
            assert len(got) == n and got in x and got in y
        else:
            assert got is None


@HYP
@given(st.text(alphabet="abcd", max_size=200), st.text(alphabet="abcd", max_size=200))
def test_shared_run_exact_min_len_30_tiny_alphabet(a, b):
    # repetitive strings: exercises the many-positions-per-gram path
    a, b = a * 3, b * 2
    expected = brute_shared(a, b, 30)
    got = shared_run(a, b, 30)
    assert (got in expected) if expected else got is None


def test_shared_run_none_when_nothing_shared():
    assert shared_run("abcdefghij" * 3, "klmnopqrst" * 3, 5) is None
    assert shared_run("the pool was exhausted", "the disk was full again", 10) is None


def test_shared_run_at_start_and_end():
    run = "connection pool exhausted by slow queries"[:30]
    noise_a = "x" * 50
    noise_b = "y" * 50
    assert shared_run(run + noise_a, noise_b + run, 30) == run  # start of a, end of b
    assert shared_run(noise_a + run, run + noise_b, 30) == run  # end of a, start of b
    assert shared_run(run, run, 30) == run  # both exactly min_len long
    assert shared_run(run + noise_a, noise_b + run[:-1] + "!", 30) is None  # one short


def test_shared_run_is_symmetric_in_result_existence():
    a = "alpha beta gamma delta epsilon zeta eta theta"
    b = "something else entirely, then gamma delta epsilon zeta, done"
    assert shared_run(a, b, 20) is not None
    assert shared_run(b, a, 20) is not None
    assert shared_run(a, b, 40) is None


def test_shared_run_edge_cases():
    assert shared_run("", "", 1) is None
    assert shared_run("", "abc", 1) is None
    assert shared_run("abc", "", 3) is None
    assert shared_run("ab", "ab", 3) is None  # shorter than min_len
    assert shared_run("xay", "zaw", 1) == "a"
    with pytest.raises(ValueError):
        shared_run("abc", "abc", 0)
    with pytest.raises(ValueError):
        shared_run("abc", "abc", -5)


def test_shared_run_many_decoys_around_one_real_match():
    # The same 16-char gram appears at many positions with different contexts (like
    # log lines); only one context is shared.  Exercises the heavy-gram path.
    gram = "connection pool "
    a = "".join(f"{i:07d}a{gram}b{i:07d}|" for i in range(300))
    b = "".join(f"{i:07d}c{gram}d{i:07d}|" for i in range(300))
    assert shared_run(a, b, 30) is None
    shared = f"0000150a{gram}b0000150"  # 32 characters of a
    assert shared in a
    x = len(b) // 3
    b2 = b[:x] + "#" + shared + "#" + b[x:]  # '#' never occurs in a
    got = shared_run(a, b2, 30)
    assert got is not None and len(got) == 30 and got in a
    assert got in shared


@pytest.mark.parametrize("min_len", [4, 8, 30, 31])
def test_shared_run_every_alignment_with_repeated_grams(min_len):
    # A is periodic text with a period that is a multiple of the sampling step, so the
    # sampled grams inside the repeated part occur at many positions (heavy path), those
    # touching the unique ids occur once (direct path).  Every window of A, at every phase
    # relative to the sampling grid, must be found in a B that contains only that window.
    s = max(1, min_len // 2)
    period = 4 * s
    idlen = max(3, min(10, period // 3))
    filler = (string.ascii_letters * 10)[: period - idlen]
    a = "".join(f"{filler}{j:0{idlen - 1}d}|" for j in range(40))
    for start in range(period, 3 * period):
        window = a[start : start + min_len]
        b = "###" + window + "###"
        assert shared_run(a, b, min_len) == window
        assert shared_run(b, a, min_len) == window
        assert shared_run(a, "###" + window[:-1] + "#" + "###", min_len) is None


def test_shared_run_across_markdown_boundaries_after_normalization():
    draft = normalize_plain(
        "The connection pool was exhausted because max_connections was only 100."
    )
    answer = normalize_markdown(
        "## Root cause\n\nThe **connection pool** was\nexhausted because "
        "`max_connections` was *only* 100."
    )
    got = shared_run(answer, draft, 30)
    assert got is not None and len(got) == 30
    paraphrase = normalize_markdown("## Root cause\n\nToo few DB connections (limit: 100).")
    assert shared_run(paraphrase, draft, 30) is None


def test_shared_run_chinese_across_markdown_boundaries():
    draft = normalize_plain(
        "根因：数据库连接池耗尽，因为最大连接数只配置了一百，并且大量慢查询长时间占用连接，导致新请求超时。"
    )
    answer = normalize_markdown(
        "### 根因\n\n数据库**连接池**耗尽，因为最大连接数只配置了\n一百，并且大量"
        "[慢查询](https://x/slow)长时间占用连接，导致新请求超时。"
    )
    assert shared_run(answer, draft, 30) is not None
    assert shared_run(normalize_markdown("### 根因\n\n磁盘写满。"), draft, 30) is None


# ---------------------------------------------------------------------------
# shared_run scaling.  Not timed against a wall-clock threshold (machines are noisy):
# (1) count work deterministically -- every string slice shared_run takes goes through
#     str.__getitem__, and each slice is O(min_len) work -- and compare 2x the input;
# (2) a CPU-time ratio for 4x the input with a wide margin: linear code measures ~4-7 here
#     (dict lookups get slower as the index outgrows the CPU caches), quadratic ~16.
# ---------------------------------------------------------------------------


def _random_words(seed: int, nchars: int) -> str:
    rng = random.Random(seed)
    vocab = [
        "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 9)))
        for _ in range(5000)
    ]
    out: list[str] = []
    size = 0
    while size < nchars:
        word = rng.choice(vocab)
        out.append(word)
        size += len(word) + 1
    return " ".join(out)[:nchars]


def _repetitive_pair(nchars: int) -> tuple[str, str]:
    # Every record contains the same gram with a unique context: many k-gram hits, none of
    # which extends to 30 characters.  A per-position check would be quadratic here.
    gram = "connection pool timeout "
    count = nchars // 40
    a = "".join(f"{i:07d}a{gram}b{i:07d}" for i in range(count))
    b = "".join(f"{i:07d}c{gram}d{i:07d}" for i in range(count))
    return a, b


def _random_pair(nchars: int) -> tuple[str, str]:
    return _random_words(1, nchars), _random_words(2, nchars)


class _CountingStr(str):
    """A str whose indexing and slicing are counted (the results are plain str)."""

    calls = 0

    def __getitem__(self, key):
        _CountingStr.calls += 1
        return str.__getitem__(self, key)


def _slices_taken(a: str, b: str) -> int:
    _CountingStr.calls = 0
    assert shared_run(_CountingStr(a), _CountingStr(b), 30) is None
    return _CountingStr.calls


@pytest.mark.parametrize("make_pair", [_random_pair, _repetitive_pair])
def test_shared_run_work_grows_linearly(make_pair):
    small = _slices_taken(*make_pair(200_000))
    large = _slices_taken(*make_pair(400_000))
    assert small > 0
    assert large / small < 2.5, (small, large)  # linear ~2, quadratic ~4


def _best_cpu_time(fn, repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.slow  # benchmark-like: measures how a cost grows
@pytest.mark.parametrize("make_pair", [_random_pair, _repetitive_pair])
def test_shared_run_cpu_time_grows_linearly(make_pair):
    a1, b1 = make_pair(100_000)
    a2, b2 = make_pair(400_000)
    assert shared_run(a1, b1, 30) is None and shared_run(a2, b2, 30) is None
    t1 = _best_cpu_time(lambda: shared_run(a1, b1, 30))
    t2 = _best_cpu_time(lambda: shared_run(a2, b2, 30))
    assert t2 / max(t1, 1e-6) < 10.0, (t1, t2)  # linear ~4-7, quadratic ~16


def test_ignorable_table_matches_the_unicode_database() -> None:
    import unicodedata

    from validator.evaluation import text

    if unicodedata.unidata_version not in UNICODE_VERSIONS:
        pytest.skip(
            f"no table stored for Unicode {unicodedata.unidata_version}: add what"
            " ignorable_ranges_from_database() gives beyond the latest to _IGNORABLE_ADDED"
        )
    assert list(text_normalize._ignorable_ranges()) == text.ignorable_ranges_from_database()
