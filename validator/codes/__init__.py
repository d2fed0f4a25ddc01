"""Problem codes: the one registry of every problem lint and run can report.

Each code is a named constant (`codes.MISSING_KEY`) declared once, in the module of its
family (`files`, `cases`, `specs`, `suite`): its stable name (users' tooling and the tests
rely on it), its usual severity, a one-line title, and a bad and a fixed example for the
docs' table (`markdown_table`, rendered into docs/lint-codes.md by scripts/update_docs.py).
Call sites name the constant, so a typo is a mypy error before any run, and a test fails on
a code written as a string outside this package. Adding a code means an entry in its
family's module and the place that detects it.
"""

from __future__ import annotations

from . import cases, files, specs, suite
from .cases import *  # noqa: F403
from .code import ERROR as ERROR
from .code import WARNING as WARNING
from .code import Code as Code
from .files import *  # noqa: F403
from .specs import *  # noqa: F403
from .suite import *  # noqa: F403

# Every code, family by family, in the order the docs' table lists them.
CODES: dict[str, Code] = {
    code: code
    for family in (files, cases, specs, suite)
    for code in (getattr(family, name) for name in family.__all__)
}


def lookup(code: str) -> Code:
    """The registered Code named `code` (KeyError for an unknown one)."""
    return CODES[code]


def severity_allowed(code: str, severity: str) -> bool:
    entry = CODES.get(code)
    if entry is None:
        return False
    return severity == entry.severity or (entry.also_warning and severity == WARNING)


def markdown_table() -> str:
    """The README's table of problem codes."""
    lines = ["| code | what is wrong | bad | fixed |", "|---|---|---|---|"]
    for entry in CODES.values():
        flags = ", ".join(f for f in ("w" if entry.severity == WARNING else "", entry.when) if f)
        if entry.also_warning:
            flags = "w in some cases"
        name = f"`{entry.code}`" + (f" ({flags})" if flags else "")
        lines.append(f"| {name} | {entry.what} | {entry.bad} | {entry.fixed} |")
    return "\n".join(lines) + "\n"
