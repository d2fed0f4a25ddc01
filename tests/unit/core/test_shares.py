"""`share_of`: a share of a count, rounded up, exact on the decimal as written."""

from __future__ import annotations

from fractions import Fraction

from validator.shares import share_of


def test_a_float_is_read_as_written_not_as_its_binary_value() -> None:
    assert share_of(0.7, 10) == 7  # 0.7 * 10 in floating point is 7.000000000000001
    assert share_of(0.1, 10) == 1


def test_equal_numbers_of_other_types_keep_their_own_answers() -> None:
    # The Fraction equal to the float 0.1's binary value is a little over 1/10: of 10 items
    # it asks for 2. Remembered answers must not mix the two, in either order.
    binary = Fraction(0.1)
    assert binary == 0.1
    assert (share_of(binary, 10), share_of(0.1, 10)) == (2, 1)
    assert (share_of(0.1, 20), share_of(binary, 20)) == (2, 3)


def test_whole_shares_and_percentiles() -> None:
    assert share_of(1, 3) == 3 and share_of(0, 3) == 0
    assert share_of(Fraction(95, 100), 20) == 19
