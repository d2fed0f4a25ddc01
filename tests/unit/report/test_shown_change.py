"""The comparison tables show figures that add up: the change is the difference of the
figures as shown (rounded), never the unrounded change rounded on its own."""

from __future__ import annotations

import pytest

from validator.report.markdown import shown_change


@pytest.mark.parametrize(
    ("before", "now", "key", "shown"),
    [
        (2.74, 2.56, "avg_tool_calls", "-0.1"),  # shown as 2.7 -> 2.6, not -0.2
        (2.66, 2.64, "avg_tool_calls", "-0.1"),  # 2.7 -> 2.6, not -0.0
        (2.0, 2.0, "avg_tool_calls", "no change"),
        (1.0, 6 / 7, "pass_rate", "-14.3 points"),
        (None, 2.0, "avg_tool_calls", "—"),
    ],
)
def test_the_change_is_the_difference_of_the_shown_figures(
    before: float | None, now: float, key: str, shown: str
) -> None:
    delta = None if before is None else now - before
    assert shown_change(before, now, delta, key) == shown
