"""The documentation: generated tables kept in step with the registries, a short README for
the people who write cases, and a docs site whose pages and links hold together."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO

DOCS = REPO / "docs"
README = REPO / "README.md"
SETUP = [
    "python3 -m venv .venv && . .venv/bin/activate && pip install . && python -m validator run",
    "python3 -m venv .venv && . .venv/bin/activate && pip install '.[test]' && python -m pytest -n auto --dist loadfile",
]


def test_the_docs_tables_are_generated_from_the_registries() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "update_docs.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_registered_code_and_predicate_has_a_docs_row() -> None:
    from validator.codes import CODES
    from validator.evaluation.predicates import PREDICATES

    codes = (DOCS / "lint-codes.md").read_text("utf-8")
    for name in CODES:
        assert f"| `{name}`" in codes, name
    specs = (DOCS / "writing-specs.md").read_text("utf-8")
    for name in PREDICATES:
        assert f"| `{name}`" in specs, name


def test_the_readme_is_short_and_starts_with_the_two_setup_commands() -> None:
    text = README.read_text("utf-8")
    assert len(text.splitlines()) <= 250
    first_screen = "\n".join(text.splitlines()[:30])
    for command in SETUP:
        assert command in first_screen, command
    assert 'python -m pytest -n auto -m "not slow"' in text


def test_ci_runs_what_the_readme_runs_and_builds_the_docs() -> None:
    ci = (REPO / ".ci" / "run").read_text("utf-8")
    assert "pip install --quiet '.[test,docs]'" in ci
    assert "\npython -m pytest -n auto --dist loadfile\n" in ci
    assert "mkdocs build --strict" in ci


def _links(text: str) -> list[str]:
    return re.findall(r"\]\(([^)\s]+)\)", text)


def test_every_relative_link_of_the_readme_and_contributing_leads_to_a_file() -> None:
    for page in (README, REPO / "CONTRIBUTING.md", REPO / "bench" / "RESULTS.md"):
        for target in _links(page.read_text("utf-8")):
            if target.startswith(("http://", "https://", "#")):
                continue
            path = target.split("#", 1)[0]
            assert (page.parent / path).exists(), f"{page.name}: {target}"


def test_no_link_points_into_the_readme_sections_that_moved() -> None:
    """Every README section except the short guide moved to docs/: nothing links to one."""
    anchors = {
        re.sub(r"[^\w\s-]", "", h.strip().lower()).replace(" ", "-")
        for h in re.findall(r"^#+ (.*)$", README.read_text("utf-8"), flags=re.M)
    }
    for path in [*REPO.glob("*.md"), *DOCS.glob("*.md"), *REPO.glob("validator/**/*.py")]:
        for anchor in re.findall(r"README\.md#([\w-]+)", path.read_text("utf-8")):
            assert anchor in anchors, f"{path.relative_to(REPO)}: README.md#{anchor}"


def test_the_user_docs_speak_to_users() -> None:
    """Users never read about the work's own bookkeeping in the README or the docs site."""
    for page in [README, *sorted(DOCS.glob("*.md"))]:
        text = page.read_text("utf-8")
        # A Claude Code session or a GitHub issue is the user's own vocabulary; the work's
        # numbered issues, its sessions and rounds, and a target "MISSED" are not.
        for pattern in (
            r"(?i)\bissues? \d",
            r"(?i)\b(?:sessions?|rounds?) \d",
            r"(?i)\b(?:this|previous|earlier|last|next|a later) (?:session|round)\b",
            r"\bMISSED\b",
        ):
            found = re.search(pattern, text)
            assert not found, (
                f"{page.relative_to(REPO)}: {found and found.group()!r} at {found and found.start()}"
            )


def _nav_files(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [f for value in node.values() for f in _nav_files(value)]
    if isinstance(node, list):
        return [f for value in node for f in _nav_files(value)]
    return []


def test_every_docs_page_is_in_the_site_nav() -> None:
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text("utf-8"))
    assert config["docs_dir"] == "docs"
    assert config["theme"]["name"] == "material"
    nav = _nav_files(config["nav"])
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert sorted(nav) == pages


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None, reason="pip install '.[docs]' for mkdocs"
)
def test_the_docs_site_builds_strictly(tmp_path: Path) -> None:
    """What CI runs: a broken link or anchor, or a page left out of the nav, fails it."""
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "writing-cases" / "index.html").is_file()


def test_the_shipped_case_schema_is_the_one_the_standard_specs_make(tmp_path: Path) -> None:
    # Editors read validator/schemas/case.schema.json; `schema case` makes it from the specs'
    # inputs. Regenerate with: python -m validator schema case > validator/schemas/case.schema.json
    import json

    from validator.api import case_schema

    shipped = json.loads((REPO / "validator" / "schemas" / "case.schema.json").read_text("utf-8"))
    assert case_schema([]) == shipped


def test_the_shipped_schemas_list_the_adapters_the_registry_holds() -> None:
    # The adapter names in config.schema.json and view.schema.json (and the view's unread
    # kinds) are made from the registries: python scripts/update_docs.py rewrites them.
    import json

    from validator.evaluation.view import DERIVED_ENUMS, with_derived_enums

    for name in dict.fromkeys(file for file, _, _ in DERIVED_ENUMS):
        path = REPO / "validator" / "schemas" / f"{name}.schema.json"
        shipped = json.loads(path.read_text("utf-8"))
        assert with_derived_enums(name, shipped) == shipped, f"{path.name}: run update_docs.py"


def test_a_drifted_adapter_enum_is_found_and_rewritten_in_place(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import update_docs
    finally:
        sys.path.remove(str(REPO / "scripts"))
    text = (REPO / "validator" / "schemas" / "config.schema.json").read_text("utf-8")
    drifted = text.replace('"otel-genai", ', "")
    assert drifted != text
    assert update_docs.render_schema("config", drifted) == text
