"""Rewrite the command line reference in docs/cli.md from the parsers.

    python scripts/update_cli_docs.py          # rewrite docs/cli.md in place
    python scripts/update_cli_docs.py --check  # exit 1 when docs/cli.md is out of date

The reference sits between `<!-- cli-reference -->` and `<!-- /cli-reference -->`;
tests/acceptance/test_cli.py runs the check, so a flag changed without the docs fails CI.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "cli.md"
START, END = "<!-- cli-reference -->", "<!-- /cli-reference -->"


def rewritten(text: str) -> str:
    from validator.cli import reference

    head, found, rest = text.partition(START)
    _, found_end, tail = rest.partition(END)
    if not (found and found_end):
        raise SystemExit(f"{PAGE} has no {START} ... {END} block")
    return f"{head}{START}\n\n{reference()}\n{END}{tail}"


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    text = PAGE.read_text("utf-8")
    new = rewritten(text)
    if "--check" in argv:
        if new != text:
            print(f"{PAGE} is out of date: run python scripts/update_cli_docs.py")
            return 1
        return 0
    PAGE.write_text(new, "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
