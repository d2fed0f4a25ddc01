"""The README's tables are made from the registries they describe, and kept in step."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_readme_tables_are_generated_from_the_registries() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "update_readme.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_registered_code_and_predicate_has_a_readme_row() -> None:
    from validator.codes import CODES
    from validator.evaluation.predicates import PREDICATES

    readme = (REPO / "README.md").read_text("utf-8")
    for name in [*CODES, *PREDICATES]:
        assert f"| `{name}`" in readme, name


def test_the_shipped_case_schema_is_the_one_the_standard_specs_make(tmp_path: Path) -> None:
    # Editors read validator/schemas/case.schema.json; `schema case` makes it from the specs'
    # inputs. Regenerate with: python -m validator schema case > validator/schemas/case.schema.json
    import json

    from validator.api import case_schema

    shipped = json.loads((REPO / "validator" / "schemas" / "case.schema.json").read_text("utf-8"))
    assert case_schema([]) == shipped


def test_the_shipped_schemas_list_the_adapters_the_registry_holds() -> None:
    # The adapter names in config.schema.json and view.schema.json (and the view's unread
    # kinds) are made from the registries: python scripts/update_readme.py rewrites them.
    import json

    from validator.evaluation.view import DERIVED_ENUMS, with_derived_enums

    for name in dict.fromkeys(file for file, _, _ in DERIVED_ENUMS):
        path = REPO / "validator" / "schemas" / f"{name}.schema.json"
        shipped = json.loads(path.read_text("utf-8"))
        assert with_derived_enums(name, shipped) == shipped, f"{path.name}: run update_readme.py"


def test_a_drifted_adapter_enum_is_found_and_rewritten_in_place(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import update_readme
    finally:
        sys.path.remove(str(REPO / "scripts"))
    text = (REPO / "validator" / "schemas" / "config.schema.json").read_text("utf-8")
    drifted = text.replace('"otel-genai", ', "")
    assert drifted != text
    assert update_readme.render_schema("config", drifted) == text
