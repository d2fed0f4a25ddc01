"""YAML loading fast paths, each equal to the slower path it replaces: the libyaml loader
class resolves every scalar's tag as ruamel does, and loading still works without it."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

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
        *[p.read_text("utf-8") for p in sorted((REPO / "specs").glob("*.yaml"))],
    ],
)
def test_the_c_parser_resolver_tags_every_scalar_as_ruamel_does(text: str) -> None:
    from ruamel.yaml import YAML

    from validator.loading.yamlfile import compose_text

    reference = YAML(typ="safe", pure=False)
    assert _shape(compose_text(text)) == _shape(reference.compose(text))


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

    from validator.loading.yamlfile import compose_text

    text = "".join(f"k{i}: {w.strip()}\n" for i, w in enumerate(words) if w.strip()) or "k: x\n"
    try:
        expected = _shape(YAML(typ="safe", pure=False).compose(text))
    except YAMLError:
        return
    assert _shape(compose_text(text)) == expected


def test_loading_falls_back_to_ruamel_when_its_loader_class_cannot_be_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The one-class libyaml loader leans on ruamel internals; if a ruamel release changes
    # them, files must still load (through YAML.compose), not fail as an internal error.
    from validator.loading import yamlfile

    yamlfile.compose_text("a: 1\n")  # the shared instance and loader class exist now

    class Changed:
        def __init__(self, *args: object) -> None:
            raise TypeError("__init__() takes 1 positional argument but 2 were given")

    monkeypatch.setattr(yamlfile, "_LOADER", Changed)
    doc = yamlfile.load_yaml_text("id: x\nlist: [1, two]\n", "x.yaml")
    assert doc.data == {"id": "x", "list": [1, "two"]}
    assert doc.value_at(("list", 1)).column == 11
    assert yamlfile._LOADER is None
