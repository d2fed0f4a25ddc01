"""Reliability figures of repeated runs: pass^k and pass@k for any k, Wilson intervals,
nearest-rank percentiles.

A case with `n` counted runs of which `c` passed gives, for each k <= n, the unbiased
estimates of the chance that k runs drawn without replacement from its n all pass (pass^k)
or that at least one does (pass@k):

    pass^k = C(c, k) / C(n, k)          pass@k = 1 - C(n - c, k) / C(n, k)

(the pass@k estimator of Chen et al. 2021, and the pass^k of tau-bench). The suite's figure
is the mean over the cases that have at least k runs. Everything is computed with integers
and fractions, so the figure does not depend on summation order or float rounding, and is
rounded once, at the end, to 4 places (half to even). A run in error counts as a run that did
not pass (it is one of the case's n runs, not one of its c); a case with no run at all
(not_run, or an unusable fixture) is left out of every k and counted in
`cases_with_fewer_runs`.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import lru_cache

from ..shares import share_of

# The two-sided 95 % normal quantile: Wilson's interval uses z, not a t quantile.
Z95 = 1.959963984540054
DIGITS = 4


def pass_hat(n: int, c: int, k: int) -> Fraction:
    """The unbiased estimate that k of the n runs, drawn without replacement, all pass."""
    return Fraction(math.comb(c, k), math.comb(n, k))


def pass_at(n: int, c: int, k: int) -> Fraction:
    """The unbiased estimate that at least one of k runs drawn from the n passes."""
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def default_ks(counts: Iterable[tuple[int, int]]) -> tuple[int, ...]:
    """1 .. the smallest number of runs a case has (cases with no run do not count: one case
    without a trace must not remove every k)."""
    runs = [n for n, _ in counts if n > 0]
    return tuple(range(1, min(runs) + 1)) if runs else ()


def _round_ratio(numerator: int, denominator: int) -> float:
    """numerator / denominator rounded half to even to `DIGITS` places, by integer division
    (the same as `round(Fraction(...), DIGITS)`, without reducing huge fractions first)."""
    quotient, remainder = divmod(numerator * 10**DIGITS, denominator)
    if 2 * remainder > denominator or (2 * remainder == denominator and quotient % 2):
        quotient += 1
    return quotient / 10**DIGITS


class _Group:
    """The cases that have the same number of runs n, counted by their passes c, with
    C(n, k), C(c, k) and C(n - c, k) carried from one k to the next (a multiplication and an
    exact division each, rather than each binomial computed afresh: a case of 10,000 runs
    has 10,000 ks)."""

    def __init__(self, n: int, passes: Counter[int]) -> None:
        self.n = n
        self.cases = sum(passes.values())
        self.weights = list(passes.items())  # (c, cases)
        self.total = 1  # C(n, k)
        self.hits = [1] * len(self.weights)  # C(c, k)
        self.misses = [1] * len(self.weights)  # C(n - c, k)

    def step(self, k: int) -> None:
        """Move from k - 1 to k."""
        self.total = self.total * (self.n - k + 1) // k
        for i, (c, _) in enumerate(self.weights):
            self.hits[i] = self.hits[i] * (c - k + 1) // k if self.hits[i] else 0
            miss = self.n - c
            self.misses[i] = self.misses[i] * (miss - k + 1) // k if self.misses[i] else 0

    def sums(self) -> tuple[int, int]:
        """The numerators over C(n, k) of the group's pass^k and pass@k terms, summed."""
        every = sum(w * hit for (_, w), hit in zip(self.weights, self.hits, strict=True))
        some = sum(
            w * (self.total - miss) for (_, w), miss in zip(self.weights, self.misses, strict=True)
        )
        return every, some


def estimates(
    counts: Sequence[tuple[int, int]], ks: Sequence[int] | None = None
) -> dict[str, dict[str, float | int | None]]:
    """`pass_hat`, `pass_at` and `cases_with_fewer_runs`, each keyed by str(k).

    `counts`: (runs, passed runs) per case. `ks`: the ks to report (default: `default_ks`).
    A k no case has enough runs for gets null estimates. Exact: the terms of the cases with
    the same n share the denominator C(n, k) and are summed as integers; the groups' sums are
    added as fractions without reducing them, and the mean is rounded by integer division."""
    chosen = sorted(set(ks)) if ks is not None else list(default_ks(counts))
    by_runs: dict[int, Counter[int]] = defaultdict(Counter)
    for n, c in counts:
        if n > 0:
            by_runs[n][c] += 1
    groups = [_Group(n, passes) for n, passes in sorted(by_runs.items())]
    hat: dict[str, float | int | None] = {}
    at: dict[str, float | int | None] = {}
    fewer: dict[str, float | int | None] = {}
    wanted = set(chosen)
    for k in range(1, (chosen[-1] if chosen else 0) + 1):
        live = [g for g in groups if g.n >= k]
        for group in live:
            group.step(k)
        if k not in wanted:
            continue
        eligible = sum(g.cases for g in live)
        fewer[str(k)] = len(counts) - eligible
        if not eligible:
            hat[str(k)] = at[str(k)] = None
            continue
        # sum over groups of every_g / total_g, as one unreduced fraction
        every_num, some_num, denominator = 0, 0, 1
        for group in live:
            every, some = group.sums()
            every_num = every_num * group.total + every * denominator
            some_num = some_num * group.total + some * denominator
            denominator *= group.total
        hat[str(k)] = _round_ratio(every_num, denominator * eligible)
        at[str(k)] = _round_ratio(some_num, denominator * eligible)
    return {"pass_hat": hat, "pass_at": at, "cases_with_fewer_runs": fewer}


def wilson_interval(passed: int, total: int, z: float = Z95) -> list[float] | None:
    """The Wilson score interval of a pass rate, [low, high], rounded outward to 4 places
    (so the interval printed always contains the one computed); None without runs."""
    if total <= 0:
        return None
    return list(_wilson(passed, total, z))


@lru_cache(maxsize=1024)
def _wilson(passed: int, total: int, z: float) -> tuple[float, float]:
    """The interval, computed once per (passed, total): the cases of a report share a few
    (2,000 cases of one run each: two)."""
    p = passed / total
    z2 = z * z
    centre = (p + z2 / (2 * total)) / (1 + z2 / total)
    half = z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total)) / (1 + z2 / total)
    scale = 10**DIGITS
    # Exact ends for all-pass and all-fail: the float formula can land a hair inside them.
    low = 0.0 if passed == 0 else max(0.0, math.floor((centre - half) * scale) / scale)
    high = 1.0 if passed == total else min(1.0, math.ceil((centre + half) * scale) / scale)
    return low, high


def percentile(values: Sequence[float], percent: int) -> float | None:
    """The nearest-rank percentile: the smallest value with at least `percent` % of the
    values at or below it (always one of the values, never interpolated); None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, share_of(Fraction(percent, 100), len(ordered)))
    return ordered[rank - 1]
