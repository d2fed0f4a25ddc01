"""How a cost grows, measured without any absolute time: two CPU-time measurements of one
run compared as a ratio (best of several, since a shared machine's noise only adds time)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_cpu_time(work: Callable[[], object], repeats: int = 5, inner: int = 1) -> float:
    """The least CPU time of `repeats` measurements, each of `inner` calls of `work`."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(inner):
            work()
        best = min(best, time.process_time() - start)
    return best


def growth(small: Callable[[], object], large: Callable[[], object], **how: int) -> float:
    """CPU time of `large` over CPU time of `small` (measured alternately, best of several)."""
    small_time = best_cpu_time(small, **how)
    large_time = best_cpu_time(large, **how)
    return large_time / max(small_time, 1e-9)
