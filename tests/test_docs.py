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
