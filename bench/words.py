"""Benchmark: what `whole_words: true` costs on contains-min, against the substring search.

    python bench/words.py            # each shape, median of 7 runs
    python bench/words.py --repeat 15

The text is normalized once per trace and shared by the checks (TraceContext caches it), so
each figure times the keyword search alone: the same context is reused for every run after
one warm-up call. Shapes: an answer of the usual size with a case's keywords; a 1 MB answer;
many keywords (the one-pass Aho-Corasick search); and a worst case for the boundary test, a
one-letter keyword that occurs at every position but never as a whole word.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from validator.evaluation.interpreter import run_predicate
from validator.evaluation.predicates import TraceContext

WORDS = [
    "pool",
    "connection",
    "index",
    "query",
    "mysql",
    "slow",
    "table",
    "scan",
    "cache",
    "latency",
    "连接池",
    "慢查询",
    "IVF_FLAT",
]


def answer(chars: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    out: list[str] = []
    size = 0
    while size < chars:
        word = rng.choice(WORDS)
        out.append(word)
        size += len(word) + 1
    return " ".join(out)


def shapes() -> list[tuple[str, str, list[Any]]]:
    keywords = ["slow query", "FLAT", "mysql", ["missing index", "缺少索引"], "2024", "连接池"]
    many = [f"kw{i}" for i in range(2000)] + ["FLAT", "mysql"]
    return [
        ("answer 4 KB, 6 keyword entries", answer(4_000), keywords),
        ("answer 1 MB, 6 keyword entries", answer(1_000_000), keywords),
        ("answer 200 KB, 2,002 keywords (one pass)", answer(200_000), many),
        ("worst case: 'a' in 1 MB of 'a'", "a" * 1_000_000, ["a"]),
    ]


def timed(text: str, keywords: list[Any], whole: bool, repeat: int) -> float:
    ctx = TraceContext({})
    args = {"keywords": keywords, "min": 1, "markdown": False, "whole_words": whole}
    run_predicate("contains-min", [text], args, ctx)  # normalizes the text once, as a trace does
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run_predicate("contains-min", [text], args, ctx)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    print(f"{'shape':45} {'substring':>12} {'whole_words':>12} {'ratio':>7}")
    for name, text, keywords in shapes():
        off = timed(text, keywords, False, repeat)
        on = timed(text, keywords, True, repeat)
        print(f"{name:45} {off * 1000:10.3f}ms {on * 1000:10.3f}ms {on / off:6.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
