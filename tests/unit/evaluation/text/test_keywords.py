"""Many keywords at once: the Aho-Corasick search must find exactly what one `in` scan per
keyword finds, and contains-min / contains-none must give identical outcomes either way."""

from __future__ import annotations

import random
import string
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validator.evaluation.interpreter import run_predicate
from validator.evaluation.predicates import TraceContext
from validator.evaluation.text import keywords as text_keywords
from validator.evaluation.text import keywords_in, many_keywords, normalize_plain

HYP = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=300)


def by_in(text: str, keywords: list[str]) -> set[str]:
    return {k for k in keywords if k in text}


def by_automaton(text: str, keywords: list[str]) -> set[str]:
    found = text_keywords._Automaton(sorted(set(keywords))).search(text)
    return found | ({""} if "" in keywords else set())


# Small alphabets make overlaps, repeats and keywords inside keywords likely; Chinese,
# full-width forms, combining marks, astral characters and lone surrogates are code points
# like any other to the automaton.
ALPHABETS = ["ab", "abc ", "连接池耗尽", "ａｂＡＢ１，", "a\u0301e\u0301", "x\U0001f600\ud800"]


@st.composite
def text_and_keywords(draw: st.DrawFn) -> tuple[str, list[str]]:
    alphabet = draw(st.sampled_from([*ALPHABETS, "".join(ALPHABETS)]))
    text = draw(st.text(alphabet=alphabet, max_size=60))
    inside = [
        text[i:j]
        for i, j in draw(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), max_size=6))
    ]
    other = draw(st.lists(st.text(alphabet=alphabet, max_size=6), max_size=8))
    keywords = inside + other
    # keywords that are substrings, prefixes and suffixes of other keywords
    keywords += [k[1:] for k in keywords if k] + [k[:-1] for k in keywords if k]
    return text, draw(st.permutations(keywords))


@HYP
@given(text_and_keywords())
def test_automaton_finds_exactly_what_in_finds(case: tuple[str, list[str]]) -> None:
    text, keywords = case
    assert by_automaton(text, keywords) == by_in(text, keywords)


@HYP
@given(st.text(max_size=80), st.lists(st.text(max_size=5), max_size=12))
def test_automaton_on_any_text(text: str, keywords: list[str]) -> None:
    assert by_automaton(text, keywords) == by_in(text, keywords)


@HYP
@given(
    st.text(alphabet=st.sampled_from(list("连接池耗尽导致超时，。 ")), max_size=80),
    st.lists(st.text(alphabet=st.sampled_from(list("连接池耗尽导致")), min_size=1, max_size=4)),
)
def test_automaton_on_chinese(text: str, keywords: list[str]) -> None:
    assert by_automaton(text, keywords) == by_in(text, keywords)


def test_overlapping_and_nested_keywords() -> None:
    keywords = ["he", "she", "his", "hers", "s", "ushers", "x", "", "连接", "连接池", "池耗尽"]
    text = "ushers 连接池耗尽"
    assert by_automaton(text, keywords) == by_in(text, keywords)
    assert by_automaton("aaaa", ["a", "aa", "aaa", "aaaa", "aaaaa"]) == {"a", "aa", "aaa", "aaaa"}


@pytest.fixture
def automaton_always(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text_keywords, "_AUTOMATON_MIN_KEYWORDS", 0)
    monkeypatch.setattr(text_keywords, "_AUTOMATON_MIN_WORK", 0)


@HYP
@given(text_and_keywords())
def test_keywords_in_is_identical_on_both_paths(case: tuple[str, list[str]]) -> None:
    text, keywords = case
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(text_keywords, "_AUTOMATON_MIN_KEYWORDS", 0)
        mp.setattr(text_keywords, "_AUTOMATON_MIN_WORK", 0)
        forced = keywords_in(text, keywords)
    assert forced == keywords_in(text, keywords) == by_in(text, keywords)


def test_thresholds() -> None:
    assert many_keywords(19_000, 1_000_000)
    assert many_keywords(1_000, 10_000)
    assert not many_keywords(999, 10_000_000)  # a few keywords: C-speed `in` is faster
    assert not many_keywords(19_000, 100)  # tiny text: a few microseconds either way


# ---------------------------------------------------------------------------
# contains-min and contains-none: identical outcomes with and without the automaton
# ---------------------------------------------------------------------------

KEYWORD = st.one_of(
    st.text(alphabet=st.sampled_from(list("abc 连接池耗尽ＡＢ\u200b*_")), max_size=5),
    st.sampled_from(
        ["MySQL", "ｍｙｓｑｌ", "连接池", "连接池耗尽", "pool", " ", "\u200b", "**x**"]
    ),
)
ENTRY = st.one_of(KEYWORD, st.lists(KEYWORD, min_size=1, max_size=3))
ANSWER = st.text(alphabet=st.sampled_from(list("abc 连接池耗尽ＡＢ\n*_`MySQLpool")), max_size=80)


def outcomes(name: str, answers: list[str], args: dict) -> tuple:
    out = run_predicate(name, answers, args, TraceContext({}))
    return out.passed, out.message, out.details


@HYP
@given(
    st.sampled_from(["contains-min", "contains-none"]),
    st.lists(ANSWER, max_size=3),
    st.lists(ENTRY, max_size=8),
    st.booleans(),
)
def test_predicates_identical_with_and_without_the_automaton(
    name: str, answers: list[str], keywords: list, markdown: bool
) -> None:
    args = {"keywords": keywords, "markdown": markdown}
    if name == "contains-min":
        args["min"] = 0.5
    plain = outcomes(name, answers, args)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(text_keywords, "_AUTOMATON_MIN_KEYWORDS", 0)
        mp.setattr(text_keywords, "_AUTOMATON_MIN_WORK", 0)
        forced = outcomes(name, answers, args)
    assert forced == plain


def _random_keywords(rng: random.Random, count: int) -> list[str]:
    vocab = [
        "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 9)))
        for _ in range(3000)
    ]
    return [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 3))) for _ in range(count)]


def test_many_keywords_against_a_large_answer(automaton_always: None) -> None:
    rng = random.Random(3)
    keywords = _random_keywords(rng, 2_000)
    answer = " ".join(rng.choice(keywords) for _ in range(5_000))
    expected = by_in(normalize_plain(answer), [normalize_plain(k) for k in keywords])
    out = run_predicate(
        "contains-min", [answer], {"keywords": keywords, "min": 1}, TraceContext({})
    )
    assert out.details is not None and set(out.details["matched"]) == expected
    out = run_predicate("contains-none", [answer], {"keywords": keywords}, TraceContext({}))
    assert out.details is not None and set(out.details["found"]) == expected


# ---------------------------------------------------------------------------
# Cost: linear in the text, not in keywords x text. CPU-time ratios with wide margins (no
# wall-clock thresholds): 8x the keywords must cost about the same, 4x the text about 4x.
# ---------------------------------------------------------------------------


def _best_cpu_time(fn, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.slow  # benchmark-like: measures how a cost grows
def test_search_cost_does_not_grow_with_the_number_of_keywords() -> None:
    rng = random.Random(4)
    keywords = [normalize_plain(k) for k in _random_keywords(rng, 8_000)]
    text = normalize_plain(" ".join(rng.choice(keywords) for _ in range(10_000)))
    few = text_keywords._Automaton(sorted(set(keywords[:1_000])))
    many = text_keywords._Automaton(sorted(set(keywords)))
    t_few = _best_cpu_time(lambda: few.search(text))
    t_many = _best_cpu_time(lambda: many.search(text))
    # 8x the keywords: one `in` per keyword would cost ~8x; one pass costs about the same.
    # The bound leaves room for a noisy shared machine (CPU times, best of several).
    assert t_many / max(t_few, 1e-4) < 5.0, (t_few, t_many)
    assert many_keywords(len(keywords), len(text))


@pytest.mark.slow  # benchmark-like: measures how a cost grows
def test_search_cost_is_linear_in_the_text() -> None:
    rng = random.Random(5)
    keywords = [normalize_plain(k) for k in _random_keywords(rng, 2_000)]
    automaton = text_keywords._Automaton(sorted({*keywords, "never there"}))  # no early stop
    words = [rng.choice(keywords) for _ in range(20_000)]
    small = " ".join(words[:5_000]) + " zzzz"
    large = " ".join(words) + " zzzz"
    t1 = _best_cpu_time(lambda: automaton.search(small))
    t2 = _best_cpu_time(lambda: automaton.search(large))
    assert t2 / max(t1, 1e-4) < 10.0, (t1, t2)
