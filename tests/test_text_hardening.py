"""validator.text against hostile answers: regular expressions that must stay linear in the
size of the answer."""

from __future__ import annotations

import time

import pytest

from validator import text as text_mod

# ---------------------------------------------------------------------------
# Linear-time regular expressions.  CPU time of 4x the input, best of several runs, against
# a wide margin: linear code measures ~4, quadratic ~16 (no wall-clock thresholds).
# ---------------------------------------------------------------------------


def _best_cpu_time(fn, repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


HTML_BLOCK_ATTACKS = {
    "declarations": "<!A",  # took ~248 s for 990 KB before the fix
    "declarations and tags": "<!A <b>",
    "comment opens": "<!--",
    "processing instructions": "<?x",
    "cdata": "<![CDATA[",
    "unterminated quoted attributes": '<a x="',
    "unterminated single quotes": "<a x='",
    "attributes without end": "<a b c ",
    "closing tags without end": "</a ",
}


@pytest.mark.parametrize("unit", HTML_BLOCK_ATTACKS.values(), ids=HTML_BLOCK_ATTACKS.keys())
def test_html_block_text_is_linear(unit: str) -> None:
    small = unit * (50_000 // len(unit))
    large = unit * (200_000 // len(unit))
    t1 = _best_cpu_time(lambda: text_mod._html_block_text(small))
    t2 = _best_cpu_time(lambda: text_mod._html_block_text(large))
    assert t2 / max(t1, 1e-4) < 10.0, (t1, t2)


def test_unterminated_declaration_keeps_its_text_and_later_pieces() -> None:
    # The linear scan must find exactly what the old (quadratic) pattern found.
    assert text_mod._html_block_text("<!A x &amp; y <b") == "<!A x & y <b"
    assert text_mod._html_block_text("<!A x <!-- z") == "<!A x "  # comments run to the end
    assert text_mod._html_block_text("<!A<!A x <b>y</b>") == "y"  # "<b>" ends the first one
    assert text_mod._html_block_text("<!DOCTYPE html><p>x") == " x"
