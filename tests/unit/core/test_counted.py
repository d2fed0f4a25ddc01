"""Counts in messages agree with their nouns (problems.counted): one rule for every message."""

from __future__ import annotations

import pytest

from validator.problems import counted


@pytest.mark.parametrize(
    ("count", "noun", "said"),
    [
        (1, "check", "1 check"),
        (0, "trace", "0 traces"),
        (2, "flaky case", "2 flaky cases"),
        (1, "fix", "1 fix"),
        (2, "fix", "2 fixes"),
        (3, "match", "3 matches"),
        (2, "attributes", "2 attributes"),
    ],
)
def test_a_count_and_its_noun_agree(count: int, noun: str, said: str) -> None:
    assert counted(count, noun) == said
