"""Rewrite the README's generated tables from the registries they describe.

    python scripts/update_readme.py          # rewrite README.md in place
    python scripts/update_readme.py --check  # exit 1 when README.md is out of date

Each table sits between `<!-- NAME: ... -->` and `<!-- /NAME -->`; tests/test_docs.py runs
the check, so a registry change without a README change fails CI.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def predicate_table() -> str:
    from validator.evaluation.predicates import PREDICATES

    def params(pred: object) -> str:
        out = []
        for name, param in pred.params.items():  # type: ignore[attr-defined]
            default = param.default
            shown = str(default).lower() if isinstance(default, bool) else default
            text = f"`{name}`" + (" (required)" if param.required else "")
            if default is not None:
                text += f" (default {shown})"
            out.append(f"{text}: {param.doc}" if param.doc else text)
        return "; ".join(out) or "—"

    lines = ["| predicate | parameters | passes when | zero matches |", "|---|---|---|---|"]
    for pred in PREDICATES.values():
        lines.append(f"| `{pred.name}` | {params(pred)} | {pred.passes_when} | {pred.zero} |")
    return "\n".join(lines) + "\n"


def code_table() -> str:
    from validator.codes import markdown_table

    return markdown_table()


TABLES: dict[str, Callable[[], str]] = {"codes": code_table, "predicates": predicate_table}


def render(text: str) -> str:
    for name, make in TABLES.items():
        pattern = re.compile(rf"(<!-- {name}:[^\n]*-->\n)(.*?)(<!-- /{name} -->)", re.DOTALL)
        if not pattern.search(text):
            raise SystemExit(f"README.md has no <!-- {name}: ... --> block")
        text = pattern.sub(lambda m, make=make: m.group(1) + make() + m.group(3), text)
    return text


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(README.parent))
    current = README.read_text("utf-8")
    wanted = render(current)
    if "--check" in argv:
        if wanted != current:
            print("README.md is out of date: run python scripts/update_readme.py")
            return 1
        return 0
    README.write_text(wanted, "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
