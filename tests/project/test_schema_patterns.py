"""Every regular expression in the shipped JSON Schemas means the same in Python and in
ECMAScript (what editors run: VS Code's YAML extension, check-jsonschema's default engine),
and the tool still refuses an id with a trailing line break, as an editor does."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, run_cli

from validator.loading.schemacheck import schema_regex

SCHEMAS = sorted((REPO / "validator" / "schemas").glob("*.schema.json"))
# Keywords whose value maps names (not keywords) to subschemas; patternProperties' names are
# regular expressions themselves.
NAMED = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


def _patterns(node: Any, names: bool = False) -> Iterator[str]:
    if isinstance(node, list):
        for item in node:
            yield from _patterns(item)
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if names:
            yield from _patterns(value)
        elif key == "pattern" and isinstance(value, str):
            yield value
        elif key == "patternProperties" and isinstance(value, dict):
            yield from value
            yield from _patterns(value, names=True)
        else:
            yield from _patterns(value, names=key in NAMED)


PATTERNS = sorted({p for path in SCHEMAS for p in _patterns(json.loads(path.read_text("utf-8")))})


def test_the_shipped_schemas_have_patterns_to_check() -> None:
    assert any("[a-z0-9._-]" in p for p in PATTERNS), PATTERNS


@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_pattern_uses_only_what_both_engines_read_alike(pattern: str) -> None:
    re.compile(pattern)
    # What Python's re reads and ECMAScript does not (or reads otherwise): \Z and \A (an
    # error with the u flag, a literal letter without it), named groups written (?P<...>),
    # inline flags, atomic groups and possessive quantifiers.
    for python_only in ("\\Z", "\\A", "(?P", "(?i", "(?s", "(?m", "(?x", "(?>", "*+", "++"):
        assert python_only not in pattern, (pattern, python_only)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_every_pattern_compiles_as_a_javascript_regexp_with_the_u_flag() -> None:
    script = (
        "const ps = JSON.parse(require('fs').readFileSync(0, 'utf8')); const bad = [];"
        "for (const p of ps) { try { new RegExp(p, 'u'); } catch (e) { bad.push([p, String(e)]); } }"
        "process.stdout.write(JSON.stringify(bad));"
    )
    result = subprocess.run(
        ["node", "-e", script], input=json.dumps(PATTERNS), capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_python_and_javascript_agree_on_ids() -> None:
    """The tool reads `$` as ECMAScript does: the end of the text, not before a final \\n."""
    texts = ["abc", "abc\n", "a.b_c-1", "Abc", "-abc", "abc\nd", "", "9z", "abc\r"]
    pairs = [[p, t] for p in PATTERNS for t in texts]
    script = (
        "const ps = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(ps.map(([p, t]) => new RegExp(p, 'u').test(t))));"
    )
    result = subprocess.run(
        ["node", "-e", script], input=json.dumps(pairs), capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    python = [schema_regex(p).search(t) is not None for p, t in pairs]
    assert python == json.loads(result.stdout)


@pytest.mark.parametrize("kind", ["case", "spec"])
def test_lint_refuses_an_id_with_a_trailing_line_break(kind: str, tmp_path: Path) -> None:
    folder = tmp_path / f"{kind}s"
    folder.mkdir()
    body = (
        "question: q\nroot_cause_keywords: [x]\nrequired_tools: []\nallowed_verdicts: [PASS]\n"
        if kind == "case"
        else "description: d\nquery: $.finalAnswer\npredicate: exists\n"
    )
    (folder / "abc.yaml").write_text('id: "abc\\n"\n' + body, "utf-8")
    result = run_cli("lint", str(folder), cwd=tmp_path)
    assert result.code == 1, result.out + result.err
    assert f'{kind}s/abc.yaml:1:5: error: id "abc\\n" may use only' in result.out, result.out
    assert "[bad-id]" in result.out
    (folder / "abc.yaml").write_text("id: abc\n" + body, "utf-8")
    assert run_cli("lint", str(folder), cwd=tmp_path).code == 0
