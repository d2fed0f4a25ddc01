"""Report formats declare what they need; run and merge ask the registry, never a name."""

from __future__ import annotations

import re

from conftest import REPO

from validator.report import EXTRAS, REPORTERS, SOURCES, TIMES, needed

COMMANDS = REPO / "validator" / "commands"


def test_each_format_declares_only_known_needs() -> None:
    for reporter in REPORTERS.values():
        assert reporter.needs <= {EXTRAS, SOURCES, TIMES}, reporter.name
    assert needed(["json", "html"], EXTRAS) and not needed(["json", "md"], EXTRAS)
    assert needed(["sarif"], SOURCES) and not needed(["junit"], SOURCES)
    assert needed(["md", "junit"], TIMES) and not needed(["json", "md", "html", "sarif"], TIMES)


def test_no_command_tests_a_format_by_its_name() -> None:
    # `"html" in formats` is how a new format's needs get forgotten: ask `needed` instead.
    names = "|".join(REPORTERS)
    by_name = re.compile(rf'"(?:{names})" in ')
    found = [
        f"{path.name}:{number}"
        for path in sorted(COMMANDS.glob("*.py"))
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if by_name.search(line)
    ]
    assert not found, found
