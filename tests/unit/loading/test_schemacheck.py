"""The check compiled from a JSON Schema must agree with jsonschema: True only for documents
jsonschema finds nothing wrong with, and on the shipped schemas False only for the ones it
rejects (a wrong False is only slower, but would mean a keyword is compiled wrongly)."""

from __future__ import annotations

import copy
import math
import subprocess
import sys
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import GOOD_CASE, REPO
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from validator.loading.schema import (
    _validator,
    build_validator,
    is_valid_fast,
    load_schema,
    schema_problems,
)
from validator.loading.schemacheck import DRAFT, KEYWORDS, compile_schema
from validator.loading.yamlfile import load_yaml, load_yaml_text
from validator.problems import ProblemsFound

NAN, INF = float("nan"), float("inf")
CASE_KEYS = sorted(load_schema("case")["properties"])
CASE_REQUIRED = load_schema("case")["required"]


def schema_valid(name: str, doc: Any) -> bool:
    """The reference answer: the project's own jsonschema validator finds no error."""
    return next(iter(_validator(name).iter_errors(doc)), None) is None


def assert_agrees(name: str, doc: Any) -> None:
    fast, slow = is_valid_fast(name, doc), schema_valid(name, doc)
    assert slow or not fast, f"the fast check accepted a {name} jsonschema rejects: {doc!r}"
    assert fast == slow, f"the fast check rejected a valid {name} (out of step): {doc!r}"


# --------------------------------------------------------------------------------------------
# Every case and spec file in the repository


def _files(kind: str) -> list[Path]:
    folders = [
        REPO / f"{kind}s",
        *REPO.glob(f"examples/*/{kind}s"),
        REPO / "tests/lint" / f"{kind}s",
    ]
    return sorted(path for folder in folders for path in folder.glob("*.yaml"))


def _loaded(kind: str) -> list[tuple[Path, Any]]:
    out = []
    for path in _files(kind):
        try:
            out.append((path, load_yaml(path).data))
        except ProblemsFound:  # not YAML we can read (syntax, encoding): nothing to validate
            continue
    return out


FILES = [(kind, path, data) for kind in ("case", "spec") for path, data in _loaded(kind)]
SHIPPED_SPECS = [data for kind, path, data in FILES if kind == "spec" and "lint" not in path.parts]


def test_the_repository_has_files_of_both_kinds_and_invalid_ones_too() -> None:
    for kind in ("case", "spec"):
        docs = [data for k, _, data in FILES if k == kind]
        assert len(docs) > 10
        assert any(not schema_valid(kind, d) for d in docs), "tests/lint has invalid files"


@pytest.mark.parametrize(
    ("kind", "path", "data"), FILES, ids=[str(p.relative_to(REPO)) for _, p, _ in FILES]
)
def test_every_case_and_spec_file_in_the_repository(kind: str, path: Path, data: Any) -> None:
    assert_agrees(kind, data)
    # An example's cases are written for its suite (`packs: []`, its specs' `inputs:`): the
    # base case schema does not describe them; `lint` in the example's folder checks them
    # (tests/acceptance/test_examples.py).
    standalone = kind == "spec" or "examples" not in path.parts
    if ("lint" not in path.parts and standalone) or path.stem == "valid":
        assert is_valid_fast(kind, data), f"{path.name} is valid but missed the fast path"


# --------------------------------------------------------------------------------------------
# Valid files never import jsonschema


def _python(code: str) -> str:
    # a fresh interpreter: this one has imported jsonschema long ago
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_valid_files_get_no_problems_without_importing_jsonschema() -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from validator.loading.schema import schema_problems\n"
        "from validator.loading.yamlfile import load_yaml\n"
        "for kind in ('case', 'spec'):\n"
        "    for path in sorted(Path(kind + 's').glob('*.yaml')):\n"
        "        assert schema_problems(load_yaml(path), kind) == [], path\n"
        "print('jsonschema' in sys.modules)\n"
    )
    assert _python(code) == "False"


def test_lint_of_the_shipped_files_does_not_import_jsonschema() -> None:
    code = (
        "import sys\n"
        "from validator.cli import main\n"
        "assert main(['lint', 'cases', 'specs']) == 0\n"
        "print('jsonschema' in sys.modules)\n"
    )
    assert _python(code).splitlines()[-1] == "False"


def test_an_invalid_file_does_import_jsonschema_for_its_messages() -> None:
    # the check above could not fail if the import went unseen
    code = (
        "import sys\n"
        "from validator.loading.schema import schema_problems\n"
        "from validator.loading.yamlfile import load_yaml_text\n"
        "doc = load_yaml_text('id: Bad Id\\n', 'x.yaml')\n"
        "assert schema_problems(doc, 'case')\n"
        "print('jsonschema' in sys.modules)\n"
    )
    assert _python(code) == "True"


def test_the_compiler_imports_neither_schema_py_nor_jsonschema() -> None:
    code = (
        "import sys\n"
        "import validator.loading.schemacheck\n"
        "print(sorted({'validator.loading.schema', 'jsonschema'} & set(sys.modules)))\n"
    )
    assert _python(code) == "[]"


# --------------------------------------------------------------------------------------------
# Case files: YAML scalars and ids


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("min_keyword_coverage: 2", True),
        ("min_keyword_coverage: 2.0", False),  # a decimal above 1: neither count nor share
        ("min_keyword_coverage: 1.0", True),
        ("min_keyword_coverage: 0.5", True),
        ("min_keyword_coverage: 0", False),
        ("min_keyword_coverage: 0.0", False),
        ("min_keyword_coverage: true", False),
        ("min_keyword_coverage: .nan", False),  # read as the text '.nan'
        ("min_keyword_coverage: '1'", False),
        ("min_keyword_coverage: null", False),
        ("description: ''", True),
        ("tags: []", True),
        ("checks: []", False),
        ("degraded_markers: ['']", False),
        ("forbidden_keywords: [1]", False),
        ("extra: 1", False),
    ],
)
def test_yaml_scalars_are_judged_as_jsonschema_judges_them(text: str, valid: bool) -> None:
    base = "id: db-slow\nquestion: Why?\nroot_cause_keywords: [a, [b, c]]\nrequired_tools: []\nallowed_verdicts: [PASS]\n"
    doc = load_yaml_text(base + text + "\n", "case.yaml")
    assert schema_valid("case", doc.data) is valid
    assert is_valid_fast("case", doc.data) is valid


@pytest.mark.parametrize("bad_id", ["Bad", "a b", "-x", "x\n", "", "é", "a/b", "db-slow\n"])
def test_bad_ids_are_never_fast(bad_id: str) -> None:
    doc = {**GOOD_CASE, "id": bad_id}
    assert not schema_valid("case", doc)
    assert not is_valid_fast("case", doc)


def test_invalid_files_still_get_every_jsonschema_message(tmp_path: Path) -> None:
    path = tmp_path / "db-slow.yaml"
    path.write_text(
        "id: db-slow\nquestion: ''\nroot_cause_keywords: []\nrequired_tools: [x]\n"
        "allowed_verdicts: [PASS]\nextra_key: 1\n",
        "utf-8",
    )
    doc = load_yaml(path)
    assert not is_valid_fast("case", doc.data)
    codes = {p.code for p in schema_problems(doc, "case")}
    assert {"empty-value", "empty-list", "unknown-key"} <= codes


# --------------------------------------------------------------------------------------------
# Case files: random near-valid documents

TRICKY: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    2,
    -1,
    0.0,
    -0.0,
    0.5,
    1.0,
    1.5,
    2.0,
    1e-300,
    NAN,
    INF,
    -INF,
    "",
    "x",
    "X",
    "a b",
    "a\n",
    "\n",
    "é",
    "1",
    [],
    [""],
    ["a"],
    ["a", ""],
    [1],
    [None],
    [[]],
    [["a"]],
    [["a", ""]],
    [["a", 1]],
    [["a"], "b"],
    [[["a"]]],
    {},
    {"a": 1},
]

text = st.text(alphabet=st.sampled_from("ab -_.Z\n\u00e9\u6162"), max_size=4)
good_text = st.text(alphabet=st.sampled_from("abc xyz"), min_size=1, max_size=6)
good_id = st.from_regex(r"[a-z0-9][a-z0-9._-]{0,6}", fullmatch=True)
scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 5),
    st.floats(-2, 3, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, 1.0, 2.0, 0.5, 1e-300, -0.0, NAN, INF, -INF]),
    text,
)
value = st.recursive(
    scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "id", "b"]), inner, max_size=2),
    ),
    max_leaves=6,
)
text_list = st.lists(st.one_of(good_text, good_text, scalar), max_size=3)
keyword_entry = st.one_of(good_text, st.lists(st.one_of(good_text, scalar), max_size=3), scalar)

FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "id": st.one_of(good_id, good_id, text, scalar),
    "question": st.one_of(good_text, text, scalar),
    "root_cause_keywords": st.one_of(st.lists(keyword_entry, max_size=3), value),
    "min_keyword_coverage": st.one_of(
        st.integers(-2, 6),
        st.floats(-1, 2.5),  # NaN and infinities too
        st.sampled_from([0, 1, 2, 0.0, 1.0, 2.0, 0.5, 0.75, True, False, None, "1", "0.5"]),
    ),
    "required_tools": st.one_of(text_list, value),
    "allowed_verdicts": st.one_of(text_list, value),
    "forbidden_keywords": st.one_of(text_list, value),
    "forbidden_verdicts": st.one_of(text_list, value),
    "degraded_markers": st.one_of(text_list, value),
    "checks": st.one_of(text_list, value),
    "tags": st.one_of(text_list, value),
    "description": st.one_of(text, scalar),
    "fixture": st.one_of(good_text, text, scalar),
    "min_pass_rate": st.one_of(
        st.floats(-1, 2),  # NaN and infinities too
        st.sampled_from([0, 1, 0.5, 0.8, True, None, "0.5"]),
    ),
    "min_passes": st.one_of(st.integers(-2, 12), st.sampled_from([1.0, 2.5, True, None, "3"])),
    "severity_overrides": st.one_of(
        st.dictionaries(
            st.sampled_from(["verdict-present", "x"]),
            st.sampled_from(["error", "warning", "info", "warn", None, 1]),
            max_size=2,
        ),
        value,
    ),
    "forbidden_tools": st.one_of(text_list, value),
    "tool_order": st.one_of(text_list, value),
    "max_tool_calls": st.one_of(
        st.integers(-2, 5), st.sampled_from([0, 0.0, 1.5, True, None, "3"])
    ),
    "max_duration_ms": st.one_of(
        st.floats(-1, 2e3), st.sampled_from([0, 0.0, 1.5, True, None, "3"])
    ),
    "whole_words": st.one_of(st.booleans(), value),
}
assert sorted(FIELD_VALUES) == CASE_KEYS

VALID_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "min_keyword_coverage": st.one_of(
        st.integers(1, 4), st.floats(0, 1, exclude_min=True), st.sampled_from([1, 1.0, 0.5])
    ),
    "forbidden_keywords": st.lists(good_text, max_size=2),
    "forbidden_verdicts": st.lists(good_text, max_size=2),
    "degraded_markers": st.lists(good_text, min_size=1, max_size=2),
    "checks": st.lists(good_id, min_size=1, max_size=2),
    "tags": st.lists(good_text, max_size=2),
    "description": st.one_of(text, good_text),
}


def one_in(n: int) -> st.SearchStrategy[bool]:
    return st.sampled_from([False] * (n - 1) + [True])


@st.composite
def near_valid_cases(draw: st.DrawFn) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": draw(good_id),
        "question": draw(good_text),
        "root_cause_keywords": draw(
            st.lists(
                st.one_of(good_text, st.lists(good_text, min_size=1, max_size=2)),
                min_size=1,
                max_size=3,
            )
        ),
        "required_tools": draw(st.lists(good_text, max_size=2)),
        "allowed_verdicts": draw(
            st.lists(st.sampled_from(["PASS", "REVISE", "REJECT"]), min_size=1, max_size=2)
        ),
    }
    for key in draw(st.lists(st.sampled_from(sorted(VALID_VALUES)), max_size=4, unique=True)):
        doc[key] = draw(VALID_VALUES[key])  # optional keys
    if not draw(one_in(4)):
        key = draw(st.sampled_from(CASE_KEYS))
        # any value, often a wrong one, for any key
        doc[key] = draw(st.one_of(st.sampled_from(TRICKY), FIELD_VALUES[key]))
    if draw(one_in(4)):
        doc.pop(draw(st.sampled_from(CASE_REQUIRED)), None)  # a missing required key
    if draw(one_in(8)):
        doc[draw(st.sampled_from(["extra", "Tags", "min_keywords", "check"]))] = draw(value)
    return doc


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_valid_cases())
def test_fast_case_answer_equals_jsonschema(doc: dict[str, Any]) -> None:
    assert_agrees("case", doc)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_valid_cases(), st.sampled_from(CASE_KEYS))
def test_fast_case_answer_equals_jsonschema_with_each_tricky_value(
    doc: dict[str, Any], key: str
) -> None:
    for tricky in TRICKY:
        assert_agrees("case", {**doc, key: tricky})


@pytest.mark.parametrize("key", CASE_KEYS)
def test_fast_case_answer_equals_jsonschema_for_each_key_and_tricky_value(key: str) -> None:
    for tricky in TRICKY:
        assert_agrees("case", {**GOOD_CASE, key: tricky})
    for required in CASE_REQUIRED:
        doc = {k: v for k, v in GOOD_CASE.items() if k != required}
        assert not is_valid_fast("case", doc) and not schema_valid("case", doc)


@settings(max_examples=200, deadline=None)
@given(st.one_of(value, st.dictionaries(st.sampled_from(CASE_KEYS), value, max_size=6)))
def test_fast_case_answer_equals_jsonschema_on_arbitrary_values(doc: Any) -> None:
    assert_agrees("case", doc)


# --------------------------------------------------------------------------------------------
# Spec files: shipped specs edited, and specs built from random clauses and conditions

ODD_VALUES: list[Any] = [
    None,
    "",
    "x",
    "$.a",
    0,
    1,
    2.0,
    1.5,
    NAN,
    INF,
    True,
    False,
    [],
    [""],
    ["$.a"],
    ["$.a", 3],
    {},
    {"x": 1},
    "PASS",
    "keyword_coverage",
    "Bad Id",
]
ODD = st.sampled_from(ODD_VALUES)
SPEC_KEYS = sorted(load_schema("spec")["properties"])
KEYS = st.sampled_from(
    [*SPEC_KEYS, "name", "case_id", "verdict", "tool_calls", "querry", "predicat", "extra"]
)


def _containers(node: Any) -> list[Any]:
    """Every mapping and list in a document, the document first."""
    out = [node]
    children = node.values() if isinstance(node, dict) else node
    for child in children:
        if isinstance(child, (dict, list)):
            out += _containers(child)
    return out


def _edit(draw: st.DrawFn, doc: Any) -> None:
    """One random edit of a mapping or list somewhere in `doc`."""
    node = draw(st.sampled_from(_containers(doc)))
    action = draw(st.sampled_from(["set", "set", "drop", "empty"]))
    if isinstance(node, dict):
        if action == "drop" and node:
            node.pop(draw(st.sampled_from(sorted(node))))
        elif action == "empty":
            node.clear()
        else:  # mostly an existing key (a wrong type), sometimes any key
            key = draw(st.sampled_from(sorted(node)) | KEYS) if node else draw(KEYS)
            node[key] = copy.deepcopy(draw(ODD))
    elif action == "drop" and node:
        node.pop(draw(st.integers(0, len(node) - 1)))
    elif action == "empty":
        node.clear()
    else:
        node.append(copy.deepcopy(draw(ODD)))


@st.composite
def mutated(draw: st.DrawFn) -> Any:
    """A shipped spec with a few random edits anywhere in it: near-valid documents."""
    doc = copy.deepcopy(draw(st.sampled_from(SHIPPED_SPECS)))
    for _ in range(draw(st.integers(0, 2))):
        _edit(draw, doc)
    return doc


def mostly(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(valid, valid, valid, ODD)


@st.composite
def mapping(
    draw: st.DrawFn,
    required: dict[str, st.SearchStrategy[Any]],
    optional: dict[str, st.SearchStrategy[Any]],
) -> dict[str, Any]:
    """A mapping with its required keys (one sometimes missing), some optional ones and
    sometimes an unknown one."""
    out = {key: draw(strategy) for key, strategy in required.items()}
    if required and draw(one_in(8)):
        out.pop(draw(st.sampled_from(sorted(required))))
    for key in draw(st.lists(st.sampled_from(sorted(optional)), max_size=3, unique=True)):
        out[key] = draw(optional[key])
    if draw(one_in(10)):
        out[draw(KEYS)] = draw(ODD)
    return out


PATH = st.sampled_from(["$.a", "$.toolInvocations[*].toolName", "$.x.y"])
QUERY = mostly(st.one_of(PATH, st.lists(mostly(PATH), max_size=3)))
PREDICATE = mostly(st.sampled_from(["exists", "in", "contains-all"]))
PARAMS = mostly(
    st.dictionaries(
        st.sampled_from(["items", "values"]), st.one_of(ODD, st.just({"case": "tags"})), max_size=2
    )
)
TEXT = mostly(good_text)
GUARD = {"query": QUERY, "predicate": PREDICATE}
CONDITION = mostly(mapping(GUARD, {"params": PARAMS}))
CHECK = {
    "params": PARAMS,
    "pick": mostly(st.sampled_from(["first", "last", "lats"])),
    "when": CONDITION,
    "unless": CONDITION,
    "skip_reason": TEXT,
    "message": TEXT,
    "allow_empty": mostly(st.booleans()),
}
CLAUSE = mostly(mapping(GUARD, {**CHECK, "name": TEXT}))
FIELDS = ("case_id", "verdict", "tool_calls", "tool_call_matches", "duration_ms")
SPEC_REQUIRED = {"id": mostly(good_id), "description": TEXT}
SPEC_OPTIONAL = {
    **CHECK,
    **GUARD,
    "default": mostly(st.booleans()),
    "report_as": mostly(st.sampled_from(["evidence_coverage", "keyword_coverage"])),
    "clauses": mostly(st.lists(CLAUSE, max_size=3)),
    "fields": mostly(mapping({}, {name: mostly(PATH) for name in FIELDS})),
    "verdicts": mostly(st.lists(TEXT, max_size=3)),
    "severity": mostly(st.sampled_from(["error", "warning", "info", "warn"])),
    "when_input": mostly(st.sampled_from(["max_turns", "tools", "Bad Name"])),
    "tools": mostly(st.lists(TEXT, max_size=3)),
    "inputs": mostly(
        st.dictionaries(
            st.sampled_from(["max_turns", "tools", "Bad Name"]),
            st.one_of(ODD, st.just({"type": "integer", "default": 3})),
            max_size=2,
        )
    ),
}
assert sorted({**SPEC_REQUIRED, **SPEC_OPTIONAL}) == SPEC_KEYS
SPEC = mapping(SPEC_REQUIRED, SPEC_OPTIONAL)


@pytest.mark.parametrize(
    ("name", "strategy"), [("spec", mutated()), ("spec", SPEC), ("case", near_valid_cases())]
)
def test_the_generators_make_valid_and_invalid_documents(
    name: str, strategy: st.SearchStrategy[Any]
) -> None:
    # the first example found will do: no shrinking, no example database
    quiet = settings(
        database=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck)
    )
    find(strategy, lambda doc: schema_valid(name, doc), settings=quiet)
    find(strategy, lambda doc: not schema_valid(name, doc), settings=quiet)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=mutated())
def test_fast_spec_answer_equals_jsonschema_on_edited_shipped_specs(doc: Any) -> None:
    assert_agrees("spec", doc)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=SPEC)
def test_fast_spec_answer_equals_jsonschema_on_generated_specs(doc: Any) -> None:
    assert_agrees("spec", doc)


def _paths(node: Any, path: tuple = ()) -> list[tuple]:
    """The path of every mapping and list in a document."""
    out = [path]
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, child in items:
        if isinstance(child, (dict, list)):
            out += _paths(child, (*path, key))
    return out


def _at(doc: Any, path: tuple) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def test_every_single_edit_of_a_shipped_spec_gets_the_same_answer() -> None:
    """Exhaustive: each key of each mapping (and each list item) of each shipped spec replaced
    by each odd value, or removed; the fast answer must be jsonschema's."""
    checked = 0
    for original in SHIPPED_SPECS:
        for path in _paths(original):
            node = _at(original, path)
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            for key in keys:
                for odd in [*ODD_VALUES, "<drop>"]:
                    doc = copy.deepcopy(original)
                    target = _at(doc, path)
                    if odd == "<drop>":
                        del target[key]
                    else:
                        target[key] = copy.deepcopy(odd)
                    assert_agrees("spec", doc)
                    checked += 1
    assert checked > 1000


# --------------------------------------------------------------------------------------------
# Any schema: each supported keyword on its own and combined

SYNTHETIC: list[Any] = [
    True,
    False,
    {},
    {"type": "integer"},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "null"},
    {"type": "object"},
    {"type": "array"},
    {"type": ["string", "null"]},
    {"type": ["integer", "boolean"]},
    {"enum": ["a", "b"]},
    {"enum": [1, True, None, [1], {"a": 1}, 1.5, "a"]},
    {"enum": [0, [False]]},
    {"const": 1},
    {"const": True},
    {"const": "a"},
    {"const": [1, {"a": False}]},
    {"const": {"a": 1}},
    {"minLength": 2},
    {"maxLength": 2},
    {"type": "string", "minLength": 1, "maxLength": 3},
    {"pattern": "b"},  # re.search: anywhere in the text
    {"pattern": "^a[b-z]*\\Z"},
    {"minimum": 1},
    {"maximum": 1.5},
    {"exclusiveMinimum": 0},
    {"exclusiveMaximum": 1},
    {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "not": {"type": "integer"}},
    {"minimum": INF},
    {"exclusiveMaximum": INF},
    {"minItems": 1},
    {"maxItems": 1},
    {"type": "array", "items": {"type": "string"}, "x-tool-names": True},  # an annotation
    {"type": "number", "x-unit": "duration"},  # an annotation (units.py)
    {"items": {"type": "integer"}},
    {"items": False},
    {"items": True},
    {"type": "array", "minItems": 1, "items": {"anyOf": [{"type": "string"}, {"items": {}}]}},
    # a keyword for another type than the schema's own is ignored, as jsonschema ignores it
    {"type": "string", "minItems": 1, "maxItems": 0, "required": ["a"], "items": False},
    {"type": "array", "minLength": 1, "pattern": "a", "properties": {"a": False}},
    {"type": ["string", "array"], "minLength": 2, "minItems": 2},
    {"required": ["a"]},
    {"required": ["a", "b"], "type": "object"},
    {"properties": {"a": {"type": "string"}, "b": {"minimum": 2}}},
    {"properties": {"a": {"type": "string"}}, "additionalProperties": False},
    {"properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}},
    {"properties": {"a": True}, "additionalProperties": True},
    {"additionalProperties": False},
    {"additionalProperties": {"type": "boolean"}},
    {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    {"anyOf": [{"type": "string"}, {"minimum": 2}, {"type": "array", "maxItems": 1}]},
    {"anyOf": []},
    {"oneOf": [{"type": "integer"}, {"minimum": 2}]},
    {"oneOf": [{"type": "integer"}, {"type": "number"}, {"type": "string"}]},
    {"oneOf": []},
    {"not": {"type": "string"}},
    {"not": {"not": {"minimum": 1}}},
    {"not": {"properties": {"a": {"const": 1}}}},
    {"$defs": {"id": {"type": "string", "pattern": "^[a-z]"}}, "$ref": "#/$defs/id"},
    {"$defs": {"a/b~c": {"type": "integer"}}, "items": {"$ref": "#/$defs/a~1b~0c"}},
    {"$defs": {"x y": {"type": "integer"}}, "items": {"$ref": "#/$defs/x%20y"}},
    {"properties": {"a": {"type": "integer"}}, "items": {"$ref": "#/properties/a"}},
    {"anyOf": [{"type": "null"}, {"minimum": 3}], "items": {"$ref": "#/anyOf/1"}},
    {"anyOf": [{"type": "null"}, {"minimum": 3}], "items": {"$ref": "#/anyOf/-1"}},
    {"$defs": {"a": {"b": {"type": "integer"}}}, "items": {"$ref": "#/$defs/a%2Fb"}},
    {"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "minLength": 2},  # both apply
    {
        "$defs": {"tree": {"type": "array", "items": {"$ref": "#/$defs/tree"}}},
        "$ref": "#/$defs/tree",
    },
    {
        "type": "object",
        "properties": {"a": {"type": "string"}, "child": {"$ref": "#"}},
        "additionalProperties": False,
    },
    {
        "$schema": DRAFT,
        "$id": "https://example.invalid/x.schema.json",
        "$comment": "annotations only",
        "title": "t",
        "description": "d",
        "examples": [1],
        "default": 1,
        "type": "string",
    },
]

VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    2,
    3,
    -1,
    -0.0,
    0.0,
    0.5,
    1.0,
    1.5,
    2.0,
    3.5,
    NAN,
    INF,
    -INF,
    "",
    "a",
    "ab",
    "abc",
    "abcd",
    "b",
    "Ab",
    "a\n",
    [],
    [1],
    [1, 2],
    [True],
    [False],
    ["a"],
    ["a", 2],
    [[]],
    [[[]]],
    [[1]],
    [1.5],
    [3, 4.5],
    [1, {"a": False}],
    {},
    {"a": "x"},
    {"a": 1},
    {"b": 1},
    {"b": True},
    {"a": "x", "b": 2},
    {"a": "x", "b": 1},
    {"child": {}},
    {"child": {"a": "x", "child": {"a": 1}}},
    {"child": {"child": {}}},
]

json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-2, 4),
        st.floats(-1, 4),  # NaN and infinities too
        st.sampled_from([0.0, 1.0, 2.0, -0.0]),
        st.text(alphabet="abAz\n", max_size=4),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "child"]), inner, max_size=3),
    ),
    max_leaves=8,
)

SCHEMA_IDS = [str(s)[:60] for s in SYNTHETIC]


@cache
def _both(index: int) -> tuple[Any, Any]:
    """The compiled check and the jsonschema validator of SYNTHETIC[index], made once."""
    return compile_schema(SYNTHETIC[index]), build_validator(SYNTHETIC[index])


def _agrees_on(schema: Any, values: list[Any]) -> list[bool]:
    fast, slow = compile_schema(schema), build_validator(schema)
    return [_agrees(fast, slow, schema, item) for item in values]


def _agrees(fast: Any, slow: Any, schema: Any, item: Any) -> bool:
    expected = slow.is_valid(item)
    assert fast(item) == expected, (schema, item, expected)
    return expected


# every value passes these, or none does
ALL_OR_NOTHING = [True, False, {}, {"items": True}, {"anyOf": []}, {"oneOf": []}]
ALL_OR_NOTHING.append({"properties": {"a": True}, "additionalProperties": True})


@pytest.mark.parametrize("schema", SYNTHETIC, ids=SCHEMA_IDS)
def test_each_keyword_answers_as_jsonschema(schema: Any) -> None:
    answers = _agrees_on(schema, VALUES)
    if schema not in ALL_OR_NOTHING:
        assert True in answers and False in answers, "pick values this schema tells apart"


@settings(max_examples=200, deadline=None)
@given(st.lists(json_values, min_size=1, max_size=4))
def test_each_keyword_answers_as_jsonschema_on_generated_values(values: list[Any]) -> None:
    for index, schema in enumerate(SYNTHETIC):
        fast, slow = _both(index)
        for item in values:
            _agrees(fast, slow, schema, item)


def test_every_keyword_is_exercised() -> None:
    def keywords(node: Any) -> set[str]:
        if isinstance(node, list):
            return set().union(*map(keywords, node))
        if not isinstance(node, dict):
            return set()
        found = set(node)
        for name, sub in node.items():
            if name in ("properties", "$defs"):
                found |= set().union(*map(keywords, sub.values()))
            elif name not in ("enum", "const", "examples", "default"):
                found |= keywords(sub)
        return found

    assert set(KEYWORDS) <= keywords(SYNTHETIC), "add a SYNTHETIC schema for the new keyword"


def test_a_schema_compiled_once_answers_many_times_and_ignores_later_edits() -> None:
    schema = {"type": "object", "required": ["a"]}
    check = compile_schema(schema)
    schema["required"] = ["b"]
    assert check({"a": 1}) and not check({"b": 1})


# --------------------------------------------------------------------------------------------
# "Not sure": anything it does not understand sends the document to jsonschema

NOT_SURE: list[Any] = [
    {"type": "string", "frobnicate": 1},  # unknown to everyone
    {"uniqueItems": True},  # known to jsonschema, not compiled here
    {"format": "email"},
    {"patternProperties": {"^a": {"type": "string"}}, "additionalProperties": False},
    {"prefixItems": [{"type": "string"}], "items": False},
    {"if": {"type": "string"}, "then": {"minLength": 1}},
    {"not": {"frobnicate": 1}},  # "not" must not turn "not sure" into yes
    {"not": {"uniqueItems": True}},
    {"oneOf": [{"type": "string"}, {"frobnicate": 1}]},
    {"anyOf": [{"frobnicate": 1}, {"type": "string"}]},
    {"$ref": "https://example.invalid/other.schema.json"},
    {"$ref": "#anchor"},
    {"$ref": "#/$defs/missing"},
    {"anyOf": [{}], "$ref": "#/anyOf/x"},
    {"anyOf": [{}], "$ref": "#/anyOf/1"},
    {"$ref": "#/type/0", "type": "string"},
    {"$defs": {"x": {"$id": "x.json", "type": "string"}}, "$ref": "#/$defs/x"},
    # through another resource: refs inside the target would resolve against x.json
    {"$defs": {"x": {"$id": "x.json", "$defs": {"y": {}}}}, "$ref": "#/$defs/x/$defs/y"},
    {"type": "array", "minItems": 1, "items": {"$id": "item.json"}},
    {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"},
    {"type": "strin"},
    {"type": 3},
    {"minLength": "2"},
    {"minLength": -1},
    {"minimum": True},
    {"pattern": "("},
    {"required": "a"},
    {"items": [{"type": "string"}]},  # the array form of older drafts
    {"properties": []},
    {"additionalProperties": "no"},
    {"enum": "ab"},
    {"anyOf": {"type": "string"}},
    "not a schema",
]


@pytest.mark.parametrize("schema", NOT_SURE, ids=[str(s)[:60] for s in NOT_SURE])
def test_an_unknown_keyword_or_value_means_not_sure(schema: Any) -> None:
    check = compile_schema(schema)
    assert not any(check(item) for item in VALUES)


def test_an_unknown_keyword_answers_not_sure_only_where_it_applies() -> None:
    # a document that never reaches the unknown keyword is judged by the rest, exactly
    check = compile_schema({"type": "object", "properties": {"a": {"uniqueItems": True}}})
    assert check({}) and check({"b": [1, 1]})
    assert not check({"a": [1, 2]}) and not check({"a": [1, 1]}) and not check([])


def test_a_number_python_compares_its_own_way_is_left_to_jsonschema() -> None:
    assert compile_schema({"type": "number"})(Decimal("0.5"))  # only the type: exact
    assert not compile_schema({"minimum": 0})(Decimal("0.5"))
    assert not compile_schema({"not": {"minimum": 1}})(Decimal("0.5"))
    assert not compile_schema({"type": "integer"})(Decimal("1"))


def test_nan_and_infinities_are_judged_as_jsonschema_judges_them() -> None:
    schema = load_schema("case")["properties"]["min_keyword_coverage"]
    for number in (NAN, INF, -INF, math.nextafter(0.0, 1.0), 1.0, 1.0000000000000002):
        _agrees_on(schema, [number])
        _agrees_on({"enum": [number]}, [number, NAN, float(number)])


def test_a_ref_loop_or_a_schema_too_deep_to_compile_is_not_sure() -> None:
    loop = {"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}
    assert not compile_schema(loop)(1)
    deep: dict[str, Any] = {}
    for _ in range(5000):
        deep = {"items": deep}
    assert not compile_schema(deep)([])
