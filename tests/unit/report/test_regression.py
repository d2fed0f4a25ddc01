"""--max-regression messages say the change in the unit the limit was given in, and the
gate table's figures add up (the change is the difference of the figures shown)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from validator.report.regression import check_limit, parse_limit, shown_figures


@pytest.mark.parametrize(
    ("limit", "before", "now", "message"),
    [
        # an absolute limit: the change as an absolute figure, never a percent beside it
        (
            "pass_rate:-0.02",
            1.0,
            6 / 7,
            "pass_rate fell from 1 to 0.8571 (-0.1429): more than the -0.02 allowed",
        ),
        # a limit in percent of the baseline: the change in percent
        (
            "avg_duration_ms:+20%",
            1000,
            1150,
            "avg_duration_ms rose from 1000 to 1150 (+15.0%): within the +20% allowed",
        ),
        (
            "avg_tool_calls:+1",
            2.74,
            2.56,
            "avg_tool_calls fell from 2.74 to 2.56 (-0.18): within the +1 allowed",
        ),
        # a failed gate whose change rounds onto the limit shows the digits that tell them apart
        (
            "pass_rate:-0.02",
            1.0,
            float(Fraction(98, 100) - Fraction(1, 10**7)),
            "pass_rate fell from 1 to 0.98 (-0.0200001): more than the -0.02 allowed",
        ),
    ],
)
def test_the_change_is_said_in_the_limit_s_unit(
    limit: str, before: float, now: float, message: str
) -> None:
    gate = check_limit(
        parse_limit(limit), {limit.split(":")[0]: before}, {limit.split(":")[0]: now}
    )
    assert gate["message"] == message


def test_the_gate_table_figures_add_up() -> None:
    gate = check_limit(
        parse_limit("avg_tool_calls:+0.1"), {"avg_tool_calls": 2.74444}, {"avg_tool_calls": 2.85556}
    )
    assert shown_figures(gate) == ("2.7444", "2.8556", "0.1112")
    assert shown_figures({"baseline": None, "now": 3}) == ("—", "3", "—")
