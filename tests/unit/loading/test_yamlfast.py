"""The YAML loader's fast composing path (validator.loading.yamlfast): the same nodes as
ruamel's own compose, a self-check at first use, and the portable path when it fails."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from validator.loading import yamlfast
from validator.loading.yamlfast import composer
from validator.loading.yamlfile import load_yaml_text

YAML_SCALARS = """\
a: [0, 1, -1, +1, 0o17, 0x1F, 017, 1_000, 1.5, .5, -.5, 1e3, 1E-3, .inf, -.Inf, .nan, 2.0]
b: [true, True, TRUE, false, yes, no, on, off, y, n, ~, null, Null, NULL, '', "", 2001-12-14]
ts: 2001-12-14t21:59:43.10-05:00
c: [=, "<<", "1", "true", !!str 1, !!int "3", 0b101, 1__0, 0.1.2, ., 1e, 0x, -0, +.5]
g: 12:30
h: 1:20:30
"": empty
d: |
  text
f: {x: 1, ? y : 2}
"""


def _shape(node: Any) -> Any:
    if node.id == "scalar":
        return (node.tag, node.value, node.style)
    if node.id == "sequence":
        return (node.tag, [_shape(n) for n in node.value])
    return (node.tag, [(_shape(k), _shape(v)) for k, v in node.value])


@pytest.mark.parametrize(
    "text",
    [
        YAML_SCALARS,
        "%YAML 1.1\n---\nx: [yes, 017]\ny: 1:20\n",
        *[p.read_text("utf-8") for p in sorted((REPO / "cases").glob("*.yaml"))],
        *[p.read_text("utf-8") for p in sorted((REPO / "specs").rglob("*.yaml"))],
    ],
)
def test_the_c_parser_resolver_tags_every_scalar_as_ruamel_does(text: str) -> None:
    from ruamel.yaml import YAML

    reference = YAML(typ="safe", pure=False)
    assert _shape(composer().compose(text)) == _shape(reference.compose(text))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["yes", "No", "0x1", "1e5", "~", "-", ".NaN", "0o7", "1_0", "+1"]),
            st.text(alphabet=st.sampled_from("01x.e+-_:oNnTtrufalsy~ "), min_size=1, max_size=6),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_the_c_parser_resolver_on_generated_plain_scalars(words: list[str]) -> None:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    text = "".join(f"k{i}: {w.strip()}\n" for i, w in enumerate(words) if w.strip()) or "k: x\n"
    try:
        expected = _shape(YAML(typ="safe", pure=False).compose(text))
    except YAMLError:
        return
    assert _shape(composer().compose(text)) == expected


def test_the_fast_path_is_in_use_where_libyaml_is_installed() -> None:
    pytest.importorskip("_ruamel_yaml")
    assert composer().fast, "the canary check failed on this ruamel release: see yamlfast"


def _loads_right() -> None:
    doc = load_yaml_text("id: x\nlist: [1, two]\nid: y\n", "x.yaml")
    assert doc.data == {"id": "x", "list": [1, "two"]}
    assert doc.value_at(("list", 1)).column == 11
    assert [p.code for p in doc.problems] == ["duplicate-key"]


def test_a_loader_class_that_cannot_be_built_means_the_portable_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The one-class libyaml loader leans on ruamel internals; if a ruamel release changes
    # them, files must still load (through YAML.compose), not fail as an internal error.
    class Changed:
        def __init__(self, *args: object) -> None:
            raise TypeError("__init__() takes 1 positional argument but 2 were given")

    monkeypatch.setattr(yamlfast, "_loader_class", lambda yaml, parser: Changed)
    monkeypatch.setattr(yamlfast, "composer", yamlfast.Composer)  # a new one, not the cached
    monkeypatch.setattr("validator.loading.yamlfile.composer", yamlfast.Composer)
    assert not yamlfast.Composer().fast
    _loads_right()


def test_a_resolver_that_tags_differently_fails_the_canary(monkeypatch: pytest.MonkeyPatch) -> None:
    from ruamel.yaml.resolver import VersionedResolver
    from ruamel.yaml.tag import Tag

    class Everything(VersionedResolver):  # type: ignore[misc]
        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
            return Tag(suffix="tag:yaml.org,2002:str")

    monkeypatch.setattr(yamlfast, "_one_table_resolver", lambda: Everything)
    monkeypatch.setattr("validator.loading.yamlfile.composer", yamlfast.Composer)
    assert not yamlfast.Composer().fast
    _loads_right()


POSITIONS = """\
id: x
tags: [a, b]
nested:
  list:
    - one
    - {k: v, k2: [1, 2]}
  anchor: &shared
    deep: 1
  again: *shared
dup: 1
dup: 2
"""


def test_positions_are_read_from_the_nodes_where_asked() -> None:
    doc = load_yaml_text(POSITIONS, "p.yaml")
    assert doc.value_at(("id",)) == (1, 5)
    assert doc.key_at(("id",)) == (1, 1)
    assert doc.value_at(("tags", 1)) == (2, 11)
    assert doc.value_at(("nested", "list", 1, "k2", 0)) == (6, 19)
    assert doc.key_at(("nested", "list", 1, "k2")) == (6, 14)
    # A list item has no key: its key is where the item is.
    assert doc.key_at(("nested", "list", 0)) == (5, 7)
    # An alias is where its anchor's value is written.
    assert doc.value_at(("nested", "again", "deep")) == (8, 11)
    # A duplicate key: the first one is the data and its place; the second is a problem.
    assert doc.value_at(("dup",)) == (10, 6)
    [problem] = doc.problems
    assert (problem.code, problem.line, problem.column) == ("duplicate-key", 11, 1)
    assert "first written at line 10" in problem.message
    # A path that is not written falls back to its nearest written ancestor.
    assert doc.value_at(("nested", "list", 7)) == doc.value_at(("nested", "list"))
    assert doc.value_at(("tags", "a")) == doc.value_at(("tags",))
    assert doc.key_at(("nested", "nope")) == doc.value_at(("nested",))
    assert doc.value_at(("nested", "list", -1)) == doc.value_at(("nested", "list"))
    assert doc.value_at(()) == (1, 1)
    # The tables of every position say the same.
    for path, at in doc.values.items():
        assert doc.value_at(path) == at, path
    for path, at in doc.keys.items():
        assert doc.key_at(path) == at, path
    assert len(doc.values) == 18 and ("dup",) in doc.keys


def test_positions_count_editor_lines_in_a_file_with_odd_line_breaks() -> None:
    doc = load_yaml_text('a: "x\u2028y"\nb: [1, 2]\n', "odd.yaml")
    assert doc.value_at(("b", 1)) == (2, 8)
    assert doc.key_at(("b",)) == (2, 1)


def test_ruamel_internals_missing_mean_the_portable_path_and_say_which_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A ruamel release without a name the fast path reads: files still load, and the
    # composer says why it is slow, naming the installed release and the checked range.
    from importlib.metadata import version

    import ruamel.yaml.tag

    # The fast resolver makes its shared tags with ruamel.yaml.tag.Tag; ruamel's own modules
    # hold the class already, so only the fast path misses it.
    monkeypatch.delattr(ruamel.yaml.tag, "Tag")
    monkeypatch.setattr("validator.loading.yamlfile.composer", yamlfast.Composer)
    composer = yamlfast.Composer()
    assert not composer.fast
    assert composer.portable_reason is not None
    assert f"ruamel.yaml {version('ruamel.yaml')} lacks what the fast path reads" in (
        composer.portable_reason
    )
    assert "Tag" in composer.portable_reason
    _loads_right()


def test_the_fast_path_gives_no_reason_to_be_portable() -> None:
    assert composer().portable_reason is None
