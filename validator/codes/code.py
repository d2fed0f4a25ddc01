"""A problem code: the class every entry of the registry is, and the two severities."""

from __future__ import annotations

ERROR = "error"
WARNING = "warning"


class Code(str):
    """One problem code: the code itself (a str, as reports and users' tooling see it), its
    usual severity, a one-line title, and a bad and a fixed example for the docs' table.

    Call sites name the constant (`codes.MISSING_KEY`), never the string, so a typo is a mypy
    error before any run; a test fails on a code string written outside this module.
    """

    severity: str
    what: str  # what is wrong, in a line (str.title is a method)
    bad: str  # Markdown, for the docs' table
    fixed: str
    when: str  # the flag it needs, when lint reports it only with one
    also_warning: bool  # reported as a warning in the cases its message explains

    def __new__(
        cls,
        code: str,
        severity: str,
        title: str,
        bad: str,
        fixed: str,
        when: str = "",
        also_warning: bool = False,
    ) -> Code:
        self = super().__new__(cls, code)
        self.severity = severity
        self.what = title
        self.bad = bad
        self.fixed = fixed
        self.when = when
        self.also_warning = also_warning
        _MADE[code] = self
        return self

    @property
    def code(self) -> str:
        return str(self)

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # Problems cross process boundaries: a code unpickles as the registered constant.
        return (registered, (str(self),))


_MADE: dict[str, Code] = {}  # every code made, by name: what a pickled code is read back as


def registered(code: str) -> Code:
    """The Code named `code`, as declared (how a code crossing processes is read back)."""
    return _MADE[code]
