"""Keyword search: which of many keywords occur in a text (plain ``in`` for a few, an
Aho-Corasick automaton for many), and whole-word matching for ASCII keywords.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

# One `kw in text` scan per keyword costs ~0.25 ms per keyword per megabyte (19,000 keywords:
# 11.5 s per 1 MB trace); one pass of the Aho-Corasick automaton below costs ~0.25-0.4 s per
# megabyte whatever the number of keywords (pure Python, one dictionary step a character),
# plus ~20 us per keyword to build, once per process. So the automaton is used from about
# 1,000 keywords, when the scans would also cover at least 10 million characters; plain
# `in` (C speed) stays for everything smaller, the common case. Either way, the same result.
_AUTOMATON_MIN_KEYWORDS = 1_000
_AUTOMATON_MIN_WORK = 10_000_000


def many_keywords(keywords: int, chars: int) -> bool:
    """Whether :func:`keywords_in` would search for `keywords` keywords in a text of `chars`
    characters with the automaton rather than one ``in`` scan each."""
    return keywords >= _AUTOMATON_MIN_KEYWORDS and keywords * chars >= _AUTOMATON_MIN_WORK


def keywords_in(text: str, keywords: Iterable[str]) -> set[str]:
    """The `keywords` that occur in `text`: exactly ``{k for k in keywords if k in text}``
    (so the empty keyword occurs everywhere), in one pass over `text` when there are many."""
    wanted = frozenset(keywords)
    if not many_keywords(len(wanted), len(text)):
        return {k for k in wanted if k in text}
    found = _automaton(wanted).search(text)
    if "" in wanted:
        found.add("")
    return found


# A word character, for whole-word matching, is an ASCII letter, digit or `_`: a keyword is
# compared with normalized text (case folded, full-width letters folded to ASCII), and a CJK
# character next to an ASCII word ends it (`mysql连接池` holds the word `mysql`).
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_WORD_CLASS = "[0-9A-Za-z_]"


@lru_cache(maxsize=4096)
def _word_pattern(keyword: str) -> re.Pattern[str] | None:
    """The keyword with a boundary test at each end that is a word character, or None when
    neither end is one (or the keyword is not ASCII): then a substring test is the same."""
    if not keyword.isascii():
        return None
    head, tail = keyword[:1] in _WORD_CHARS, keyword[-1:] in _WORD_CHARS
    if not (head or tail):
        return None
    # The literal comes first, so `re` finds candidates with its fast literal scan; the test
    # before it looks back over the keyword (a fixed width) to the character preceding it.
    # One-character tests around a literal: at most len(keyword) steps a candidate.
    before = f"(?<!{_WORD_CLASS}(?s:.){{{len(keyword)}}})" if head else ""
    after = f"(?!{_WORD_CLASS})" if tail else ""
    return re.compile(re.escape(keyword) + before + after)


def occurs_as_word(text: str, keyword: str) -> bool:
    """Whether `keyword` occurs in `text` as a whole word: where the keyword starts (ends)
    with a word character (ASCII letter, digit, `_`), the text character before (after) it
    is not one. A keyword with any non-ASCII character keeps substring matching: Chinese has
    no word boundaries. Both are expected normalized (:func:`normalize_plain`)."""
    pattern = _word_pattern(keyword)
    if pattern is None:
        return keyword in text
    return pattern.search(text) is not None


def words_in(text: str, keywords: Iterable[str]) -> set[str]:
    """The `keywords` that occur in `text` as whole words (:func:`occurs_as_word`): the
    substring search of :func:`keywords_in` finds the candidates, then only those are
    tested for boundaries."""
    return {k for k in keywords_in(text, keywords) if occurs_as_word(text, k)}


@lru_cache(maxsize=4)  # a case's keywords are the same for each of its traces; ~30 MB for 19,000
def _automaton(keywords: frozenset[str]) -> _Automaton:
    return _Automaton(sorted(keywords))  # sorted: the same automaton in every process


class _Automaton:
    """Aho-Corasick automaton over code points: which of its keywords occur in a text.

    States are trie nodes (``goto``: character -> state), ``fail`` is the longest proper
    suffix of a state's path that is also a trie path, and ``report`` the nearest state on the
    fail chain (the state itself included) that ends a keyword. A search reports each keyword
    once: a state's chain is walked only up to a state already reported, so the walks cost
    at most one step per state in all, and the search is linear in the text.
    """

    __slots__ = ("_fail", "_goto", "_out", "_report", "_size")

    def __init__(self, keywords: list[str]) -> None:
        goto: list[dict[str, int]] = [{}]
        out: list[str] = [""]  # the keyword a state ends, or ""
        for keyword in keywords:
            if not keyword:
                continue
            state = 0
            for char in keyword:
                nxt = goto[state].get(char)
                if nxt is None:
                    nxt = goto[state][char] = len(goto)
                    goto.append({})
                    out.append("")
                state = nxt
            out[state] = keyword
        fail = [0] * len(goto)
        report = [0] * len(goto)
        queue = list(goto[0].values())  # breadth first: a state's fail state comes earlier
        for state in queue:  # the root's children fail to the root
            report[state] = state if out[state] else 0
        for parent in queue:
            for char, state in goto[parent].items():
                queue.append(state)
                f = fail[parent]
                while f and char not in goto[f]:
                    f = fail[f]
                fail[state] = goto[f].get(char, 0)
                report[state] = state if out[state] else report[fail[state]]
        self._goto, self._fail, self._out, self._report = goto, fail, out, report
        self._size = sum(1 for o in out if o)

    def search(self, text: str) -> set[str]:
        goto, fail, out, report = self._goto, self._fail, self._out, self._report
        reported = bytearray(len(goto))
        found: list[str] = []
        state = 0
        for char in text:
            nxt = goto[state].get(char)
            while nxt is None and state:
                state = fail[state]
                nxt = goto[state].get(char)
            state = nxt or 0  # a goto target is never the root
            hit = report[state]
            if hit and not reported[hit]:
                while hit and not reported[hit]:
                    reported[hit] = 1
                    found.append(out[hit])
                    hit = report[fail[hit]]
                if len(found) == self._size:
                    break  # every keyword found: the rest of the text cannot add any
        return set(found)
