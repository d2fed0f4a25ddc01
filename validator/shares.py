"""A share of a count, rounded up to whole items, computed exactly: the one rule behind
`min_pass_rate` (of a case's runs), a decimal `min` of keywords, and nearest-rank
percentiles."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache


# Asked per trace (a decimal `min` of keywords) with the few values a suite writes; `typed`:
# the float 0.1 (read as written, 1/10) and the Fraction equal to its binary value differ.
@lru_cache(maxsize=1024, typed=True)
def share_of(share: int | float | Fraction, count: int) -> int:
    """How many of `count` items `share` (a number in [0, 1]) asks for: ``share * count``
    rounded up, computed exactly on the decimal as written (a float is read through its
    repr), so 0.7 of 10 is 7, never 8 as binary floating point would give."""
    if isinstance(share, float):
        share = Fraction(repr(share))
    return math.ceil(share * count)
