"""No function in validator/ is more branchy than a reader can hold in mind (radon's
cyclomatic complexity 15), unless a comment `# complexity: <why>` right above its `def`
says why the algorithm needs it."""

from __future__ import annotations

import pytest
from conftest import REPO

radon = pytest.importorskip("radon.complexity", reason="radon is in the test extra")

PACKAGE = REPO / "validator"
LIMIT = 15


def test_no_function_is_too_complex() -> None:
    over = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text("utf-8")
        lines = source.splitlines()
        for block in radon.cc_visit(source):
            if block.complexity <= LIMIT:
                continue
            if "# complexity:" in _comment_above(lines, block.lineno):
                continue
            over.append(
                f"{path.relative_to(PACKAGE.parent)}:{block.lineno} {block.name} ({block.complexity})"
            )
    assert not over, "split these, or say why on the line above the def:\n" + "\n".join(over)


def _comment_above(lines: list[str], lineno: int) -> str:
    """The block of comment lines right above line `lineno` (1-based)."""
    out = []
    at = lineno - 2
    while at >= 0 and lines[at].lstrip().startswith("#"):
        out.append(lines[at])
        at -= 1
    return "\n".join(reversed(out))
