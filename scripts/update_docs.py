"""Rewrite the documentation's generated tables and the schemas' registry-made enums.

    python scripts/update_docs.py          # rewrite the pages under docs/ in place
    python scripts/update_docs.py --check  # exit 1 when a page is out of date

Each table sits in a page of docs/ between `<!-- NAME: ... -->` and `<!-- /NAME -->` (a
block may appear in any page, and in several); every table of TABLES must appear in at least
one page. tests/project/test_docs.py runs the check, so a registry change without a docs change fails
CI.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"


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


def placeholder_table() -> str:
    from validator.evaluation.messages import GENERIC, PLACEHOLDERS
    from validator.evaluation.predicates import PREDICATES

    lines = ["| placeholder | holds | given by |", "|---|---|---|"]
    for name, doc in PLACEHOLDERS.items():
        if name in GENERIC or "." in name:
            given = "every predicate"
        else:
            given = ", ".join(f"`{p.name}`" for p in PREDICATES.values() if name in p.gives)
        lines.append(f"| `{{{name}}}` | {doc} | {given or '—'} |")
    return "\n".join(lines) + "\n"


def _queries(node: object, guard: bool = False) -> list[tuple[str, bool]]:
    """Every JSONPath a spec reads ((expression, read only by a when/unless guard))."""
    found: list[tuple[str, bool]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            inner = guard or key in ("when", "unless")
            if key in ("query", "trace"):
                for expr in [value] if isinstance(value, str) else list(value):
                    found.append((str(expr), inner))
            else:
                found.extend(_queries(value, inner))
    elif isinstance(node, list):
        for value in node:
            found.extend(_queries(value, guard))
    return found


def fields_table() -> str:
    """Each standard check and the trace fields it reads, from specs/diagnosis/."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    lines = ["| check | trace fields it reads | read only to decide whether it applies |"]
    lines.append("|---|---|---|")
    for path in sorted((REPO / "specs" / "diagnosis").glob("*.yaml")):
        spec = yaml.load(path.read_text("utf-8"))
        reads = _queries(spec)
        checked = list(dict.fromkeys(e for e, guard in reads if not guard))
        guards = [e for e in dict.fromkeys(e for e, guard in reads if guard) if e not in checked]
        lines.append(
            f"| `{spec['id']}` | {', '.join(f'`{e}`' for e in checked)}"
            f" | {', '.join(f'`{e}`' for e in guards) or '—'} |"
        )
    return "\n".join(lines) + "\n"


def adapter_table() -> str:
    """docs/VIEW.md: the view adapters in detection order, from each adapter's record."""
    from validator.evaluation.view import ADAPTERS

    lines = ["| order | adapter | recognized by | reads |", "|---|---|---|---|"]
    for order, adapter in enumerate(ADAPTERS.values(), start=1):
        lines.append(f"| {order} | `{adapter.name}` | {adapter.recognized} | {adapter.doc} |")
    return "\n".join(lines) + "\n"


def unread_table() -> str:
    """docs/VIEW.md: the kinds of content `$.view.unread` names."""
    from validator.evaluation.view import UNREAD_KINDS

    lines = ["| what | covers |", "|---|---|"]
    lines.extend(f"| `{what}` | {covers} |" for what, covers in UNREAD_KINDS.items())
    return "\n".join(lines) + "\n"


def mistakes_table() -> str:
    """The lint corpus's case files (tests/lint/cases/): each mistake's line as written, what
    lint says about it, and the fix to paste where lint gives one, as lint says it today."""
    import subprocess
    import tempfile

    corpus = REPO / "tests" / "lint" / "cases"
    files = sorted(p for p in corpus.glob("*.yaml") if p.stem not in ("valid", "not-utf8"))
    with tempfile.TemporaryDirectory() as empty:  # only the standard specs
        done = subprocess.run(
            [sys.executable, "-m", "validator", "lint", "--format", "json", *map(str, files)],
            capture_output=True,
            text=True,
            cwd=empty,
            env={**__import__("os").environ, "PYTHONPATH": str(REPO)},
            check=False,
        )
    problems = json.loads(done.stdout)["problems"]

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| mistake | what lint says | fix |", "|---|---|---|"]
    for path in files:
        mine = [p for p in problems if Path(p["file"]).name == path.name]
        if not mine:
            continue
        first = min(mine, key=lambda p: (p["severity"] != "error", p["line"], p["column"]))
        written = path.read_text("utf-8", errors="replace").split("\n")
        line = written[first["line"] - 1].strip() if first["line"] <= len(written) else ""
        shown = f"`{cell(line)}`" if line and "`" not in line else cell(line) or "(empty file)"
        fix = first.get("fix", "")
        fix_cell = f"`{cell(fix)}`" if fix and "`" not in fix else cell(fix) or "see the message"
        message = f"{first['severity']}: {cell(first['message'])} `[{first['code']}]`"
        lines.append(f"| {shown} | {message} | {fix_cell} |")
    return "\n".join(lines) + "\n"


TABLES: dict[str, Callable[[], str]] = {
    "mistakes": mistakes_table,
    "adapters": adapter_table,
    "unread": unread_table,
    "codes": code_table,
    "predicates": predicate_table,
    "placeholders": placeholder_table,
    "fields": fields_table,
}


def _block(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- {name}:[^\n]*-->\n)(.*?)(<!-- /{name} -->)", re.DOTALL)


def render(text: str) -> str:
    """The page with every generated block it holds made afresh."""
    for name, make in TABLES.items():
        pattern = _block(name)
        if pattern.search(text):
            text = pattern.sub(lambda m, make=make: m.group(1) + make() + m.group(3), text)
    return text


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def missing_blocks() -> list[str]:
    """The tables no page holds (each must be shown somewhere)."""
    texts = [page.read_text("utf-8") for page in pages()]
    return [name for name in TABLES if not any(_block(name).search(t) for t in texts)]


def render_schema(name: str, text: str) -> str:
    """The schema file `name` with its registry-made enums rewritten in place (the rest of
    the file, its layout included, is kept as written)."""
    from validator.evaluation.view import DERIVED_ENUMS

    schema = json.loads(text)
    for file, path, values in DERIVED_ENUMS:
        if file != name:
            continue
        node = schema
        for step in path:
            node = node[step]
        old, new = json.dumps(node, ensure_ascii=False), json.dumps(list(values))
        if text.count(old) != 1:
            raise SystemExit(
                f"schemas/{name}.schema.json: the enum at {'.'.join(path)} is not written as"
                f" {old} exactly once: write it so, then run this script again"
            )
        text = text.replace(old, new)
    return text


def schema_outputs() -> list[tuple[Path, str, str]]:
    """(schema file, its text, the text it should have) for every registry-made enum."""
    from validator.evaluation.view import DERIVED_ENUMS

    out = []
    for name in dict.fromkeys(file for file, _, _ in DERIVED_ENUMS):
        path = REPO / "validator" / "schemas" / f"{name}.schema.json"
        current = path.read_text("utf-8")
        out.append((path, current, render_schema(name, current)))
    return out


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(REPO))
    missing = missing_blocks()
    if missing:
        print(f"no page under docs/ has a <!-- NAME: ... --> block for: {', '.join(missing)}")
        return 1
    stale = []
    for page in pages():
        current = page.read_text("utf-8")
        wanted = render(current)
        if wanted == current:
            continue
        if "--check" in argv:
            stale.append(str(page.relative_to(REPO)))
        else:
            page.write_text(wanted, "utf-8")
    for path, current, wanted in schema_outputs():
        if wanted == current:
            continue
        if "--check" in argv:
            stale.append(str(path.relative_to(REPO)))
        else:
            path.write_text(wanted, "utf-8")
    if stale:
        print(f"out of date: {', '.join(stale)}: run python scripts/update_docs.py")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
