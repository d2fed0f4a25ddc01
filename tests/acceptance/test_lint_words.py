"""Messages in the user's words: across the whole lint corpus (tests/lint/), no message shows
only a YAML parser's or a schema validator's wording. Where the parser's own words are kept
(for a search engine), they stand in "(YAML's own words: ...)" beside a plain explanation."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import TESTS, run_cli

LINT_DATA = TESTS / "lint"
JARGON = ("mapping", "block collection", "indicator", "is not of type", "scalar")
QUOTED = re.compile(r"\(YAML's own words: [^)]*\)")


def _messages(tmp_path: Path) -> list[dict]:
    files = sorted(p for kind in ("cases", "specs") for p in (LINT_DATA / kind).glob("*.y*ml"))
    result = run_cli("lint", "--format", "json", *(str(p) for p in files), cwd=tmp_path)
    problems = list(json.loads(result.out)["problems"])
    for suite in sorted(p for p in (LINT_DATA / "suites").iterdir() if p.is_dir()):
        args = ["--fixtures", "fixtures"] if (suite / "fixtures").is_dir() else []
        result = run_cli("lint", "--format", "json", *args, cwd=suite)
        problems += json.loads(result.out)["problems"]
    return problems


def test_no_message_speaks_only_the_parsers_or_the_schemas_words(tmp_path: Path) -> None:
    problems = _messages(tmp_path)
    assert len(problems) > 100, "the whole corpus is linted"
    bad = []
    for p in problems:
        own = QUOTED.search(p["message"])
        plain = QUOTED.sub("", p["message"])
        if any(word in plain.lower() for word in JARGON):
            bad.append(f"{p['file']}:{p['line']}: {p['message']}")
        if own is not None and len(plain.strip()) < 30:  # the explanation, not the words alone
            bad.append(f"{p['file']}:{p['line']}: only the parser's words: {p['message']}")
    assert not bad, "\n".join(bad)


def test_the_parsers_words_never_stand_alone(tmp_path: Path) -> None:
    problems = [p for p in _messages(tmp_path) if p["code"] == "yaml-syntax"]
    assert problems
    for p in problems:
        assert not p["message"].startswith("YAML syntax error: while"), p["message"]


def test_json_gives_the_fix_as_its_own_field(tmp_path: Path) -> None:
    """An editor shows the fix: `lint --format json` gives line, column, code and fix apart."""
    files = [
        LINT_DATA / "cases" / f"{n}.yaml"
        for n in ("colon-in-entry", "list-dash-space", "over-indented-key", "tools-not-a-list")
    ]
    result = run_cli("lint", "--format", "json", *(str(p) for p in files), cwd=tmp_path)
    fixes = {
        (Path(p["file"]).stem, p["line"], p["column"], p["code"]): p.get("fix")
        for p in json.loads(result.out)["problems"]
    }
    assert fixes == {
        ("colon-in-entry", 5, 5, "wrong-type"): '- "poll timeout: max.poll.interval.ms"',
        ("list-dash-space", 5, 3, "yaml-syntax"): "  - payments-consumer",
        ("over-indented-key", 7, 3, "yaml-syntax"): "allowed_verdicts: [PASS]",
        ("tools-not-a-list", 4, 17, "wrong-type"): "required_tools: [mysql_slow_log, log_search]",
    }
