"""The leak check: does the answer share a run of a given length with the rejected draft."""

from __future__ import annotations

import os
from typing import Any

# A sampled k-gram occurring at more than this many sampled positions is checked through a
# set of candidate windows instead of position by position (see shared_run).
_DIRECT_LIMIT = 4


# complexity: one linear-time search (sampled k-grams, then a verified extension) whose
# branches are its cases; split up, its invariants would be spread over several functions.
def shared_run(a: str, b: str, min_len: int) -> str | None:
    """Return a substring of length exactly ``min_len`` occurring in both ``a`` and ``b``,
    or ``None`` if they share no run that long.

    This is the leak check: if the normalized final answer and the normalized rejected
    draft share a ``min_len``-character run, the answer copied the draft.  Only existence
    matters, so the first shared run found is returned (not the longest).

    ``min_len < 1`` raises ``ValueError`` (every string "shares" the empty run, so the
    question is meaningless).  If either string is shorter than ``min_len`` -- in
    particular if it is empty -- the result is ``None``.

    Method (exact: no false positives, no misses), practically linear in
    ``len(a) + len(b)`` so two multi-megabyte answers take about a second, where a
    quadratic longest-common-substring would take hours:

    * let ``s = max(1, min_len // 2)`` and ``k = min_len - s + 1``; index the k-grams of
      the longer string ``A`` that start at multiples of ``s``.  Every window of length
      ``min_len`` in ``A`` fully contains one of these sampled k-grams (a multiple of
      ``s`` lies in any ``s`` consecutive start positions);
    * slide over every k-gram of the other string ``B``; on a hit (``A[p:p+k] ==
      B[q:q+k]``) check whether the aligned match extends to ``min_len`` characters, i.e.
      ``A[p-t:p-t+min_len] == B[q-t:q-t+min_len]`` for some ``t`` in ``0..s-1``.  The
      check uses slice comparisons and ``os.path.commonprefix`` on ``s-1``-character
      slices, so it is cheap, and the scan returns at the first real match;
    * a k-gram sampled at many positions of ``A`` (repetitive text: log lines, tables)
      would make per-position checks quadratic, so for such a gram the set of all
      ``min_len`` windows of ``A`` containing one of its sampled occurrences is built once,
      and each hit costs at most ``s`` set lookups.  Total work is bounded by
      ``O(len(A) + s * len(B))`` slice operations even on adversarial input.
    """
    if min_len < 1:
        raise ValueError(f"min_len must be >= 1, got {min_len!r}")
    if len(a) < min_len or len(b) < min_len:
        return None
    # Index the longer string (only 1/s of its positions) and slide over the shorter one:
    # the slide is the per-character Python loop, so it should run over fewer characters.
    big, small = (a, b) if len(a) >= len(b) else (b, a)
    s = max(1, min_len // 2)
    k = min_len - s + 1
    ext = s - 1  # characters the k-gram must still grow by, on the left and right together

    index: dict[str, Any] = {}  # k-gram -> int position, or list of positions
    for p in range(0, len(big) - k + 1, s):
        gram = big[p : p + k]
        prev = index.get(gram)
        if prev is None:
            index[gram] = p
        elif type(prev) is int:
            index[gram] = [prev, p]
        else:
            prev.append(p)

    windows: dict[str, frozenset[str]] = {}  # heavy k-gram -> all min_len windows around it
    n_big, n_small = len(big), len(small)
    get = index.get
    commonprefix = os.path.commonprefix
    for q in range(n_small - k + 1):
        gram = small[q : q + k]
        hit = get(gram)
        if hit is None:
            continue
        if ext == 0:
            return gram  # k == min_len: the k-gram itself is the shared run
        positions = (hit,) if type(hit) is int else hit
        if len(positions) <= _DIRECT_LIMIT:
            right_small = small[q + k : q + k + ext]
            for p in positions:
                # Grow right as far as possible (<= ext), then check the rest on the left.
                right = len(commonprefix([big[p + k : p + k + ext], right_small]))
                need = ext - right
                if need == 0 or (
                    p >= need and q >= need and big[p - need : p] == small[q - need : q]
                ):
                    return big[p - need : p - need + min_len]
            continue
        wins = windows.get(gram)
        if wins is None:
            wins = frozenset(
                big[p - t : p - t + min_len]
                for p in positions
                for t in range(s)
                if p - t >= 0 and p - t + min_len <= n_big
            )
            windows[gram] = wins
        for t in range(s):
            start = q - t
            if start < 0:
                break
            if start + min_len > n_small:
                continue
            cand = small[start : start + min_len]
            if cand in wins:
                return cand
    return None
