"""Composing YAML quickly: ruamel's libyaml path without its per-file and per-scalar costs.

Case and spec files are small and many, so two costs of ruamel's `YAML.compose` dominate:
it defines a new loader class for every document (a third of composing), and its resolver
looks up the YAML version's tag table for every plain scalar. `Composer` builds the loader
class once and resolves scalars from a table made once. Both lean on ruamel internals, so
the first use checks itself on a canary document (tags, positions, duplicate keys) against
ruamel's own `YAML.compose`; if anything differs, or a ruamel release changed what it
relies on, every file is composed the portable way. Results are the same either way; only
the speed differs, and `Composer.portable_reason` says why (naming the installed ruamel.yaml
when its internals differ from the releases in `dependencies.SUPPORTED`, which
pyproject.toml pins). ruamel's internals are read in this module only; its self-check and
the differential tests against ruamel's own compose are in tests/unit/loading/test_yamlfast.py.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..dependencies import SUPPORTED, installed_version

# Every kind of plain scalar the resolver tags, a duplicate key, a flow mapping and an
# explicit key: what the fast path must give exactly as ruamel's own compose gives it.
CANARY = """\
id: canary
n: [1, -2, 0x1F, 0o17, 1_000, +3]
f: [1.5, -0.5, 1e3, .inf, -.Inf, .nan]
b: [true, False, yes, no, on, off]
z: [~, null, Null, '']
t: 2024-01-31
c: 1:20
s: [text, "quoted", 'single', 中文, '123']
dup: 1
dup: 2
nested: {a: [x, {b: c}], ? k : v}
"""


class Composer:
    """Composes YAML text into ruamel's node tree (safe rules, YAML 1.2), fast when it can."""

    def __init__(self) -> None:
        from ruamel.yaml import YAML

        try:
            self._yaml = YAML(typ="safe", pure=False)
        except Exception:  # pragma: no cover - only without ruamel.yaml.clib
            self._yaml = YAML(typ="safe", pure=True)
        self._loader: Any = None
        self.fast = False
        self.tag_of: Any = _portable_tag
        fast = _fast_yaml()
        # Why the portable path composes (None on the fast path).
        self.portable_reason: str | None = fast if isinstance(fast, str) else None
        if isinstance(fast, str):
            return
        if _same_nodes(fast, self._yaml):
            self._yaml, self._loader, self.fast = fast[0], fast[1], True
            self.tag_of = _shared_tag
        else:
            self.portable_reason = _differs("composes the self-check document differently")

    @property
    def scalars(self) -> Any:
        """ruamel's constructor, for its rules on YAML 1.2 ints, floats and booleans."""
        return self._yaml.constructor

    def compose(self, text: str) -> Any:
        """The node tree of one document, or None for no document.

        Raises ruamel's YAMLError (or ValueError) for text that is not YAML."""
        if self._loader is not None:
            return _compose_with(self._loader, text)
        # ruamel keeps one entry per document composed on the shared instance; a long-lived
        # process (the library API) loading suites again and again must not grow with it.
        if getattr(self._yaml, "doc_infos", None):
            self._yaml.doc_infos.clear()
        return self._yaml.compose(text)


@cache
def composer() -> Composer:
    return Composer()


def _compose_with(loader_class: Any, text: str) -> Any:
    loader = loader_class(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()
        # The loader refers to itself (as parser, composer, constructor and resolver):
        # without this, each one (with libyaml's buffers) would wait for the cyclic GC.
        loader.__dict__.clear()


def _portable_tag(node: Any) -> str:
    """A node's tag as text (ruamel builds the text anew on every read)."""
    return node.tag or ""


# The text of each Tag that many nodes share (ruamel's default tags, the resolver's shared
# ones), by the Tag's id; the Tags are kept alive here, so no other object can take an id.
_TAG_TEXTS: dict[int, str] = {}
_SHARED_TAGS: list[Any] = []


def _share(tag: Any) -> Any:
    if id(tag) not in _TAG_TEXTS:
        _SHARED_TAGS.append(tag)
        _TAG_TEXTS[id(tag)] = str(tag)
    return tag


def _shared_tag(node: Any) -> str:
    """`_portable_tag`, read from a table for the shared Tags (the fast path only)."""
    text = _TAG_TEXTS.get(id(node.ctag))
    return (node.tag or "") if text is None else text


def _shape(node: Any) -> Any:
    """What a node tree means to the loader: tags, values, styles and where each starts."""
    at = (node.start_mark.line, node.start_mark.column)
    if _shared_tag(node) != _portable_tag(node):
        raise ValueError("a shared tag reads differently")
    if node.id == "scalar":
        return (node.tag, node.value, node.style, at)
    if node.id == "sequence":
        return (node.tag, [_shape(n) for n in node.value], at)
    return (node.tag, [(_shape(k), _shape(v)) for k, v in node.value], at)


def _same_nodes(fast: tuple[Any, Any], portable: Any) -> bool:
    """The self-check: the fast path composes the canary exactly as ruamel does."""
    try:
        return _shape(_compose_with(fast[1], CANARY)) == _shape(portable.compose(CANARY))
    except Exception:  # any change in ruamel's internals: not the fast path
        return False


def _fast_yaml() -> tuple[Any, Any] | str:
    """A YAML instance with the one-table resolver and its loader class, made once; else why
    not: libyaml is not in use (no ruamel.yaml.clib), or ruamel's internals changed."""
    try:
        from ruamel.yaml import YAML
        from ruamel.yaml.main import CParser

        yaml = YAML(typ="safe", pure=False)
        if CParser is None or yaml.Parser is not CParser:
            return "libyaml is not in use (ruamel.yaml.clib is not installed)"
        yaml.Resolver = _one_table_resolver()
        return yaml, _loader_class(yaml, CParser)
    except Exception as exc:
        return _differs(f"lacks what the fast path reads ({type(exc).__name__}: {exc})")


def _differs(what: str) -> str:
    """Why the fast path is off when ruamel's internals are not the ones it reads."""
    version = installed_version("ruamel.yaml") or "(version unknown)"
    wanted = SUPPORTED["ruamel.yaml"]
    return f"ruamel.yaml {version} {what}; the fast path was checked with ruamel.yaml {wanted}"


def _one_table_resolver() -> Any:
    """ruamel's VersionedResolver without its per-scalar overhead, for the C parser only.

    ruamel resolves each plain scalar's tag (str, int, float, bool, null...) in Python, and
    its `resolve` finds the YAML version's table anew for every scalar, through attribute
    lookups that fail (two exceptions per call): half the cost of composing a case file.
    With the C parser a new resolver is made for every file and its version never comes
    from the document (ruamel resolves with its default, YAML 1.2), so the version is
    looked up once per file and the table once per process; the tags are the same.

    A plain scalar's tag depends only on its text (and the version), and case files repeat
    the same keys and words, so each text's tag is remembered (a bounded memo) and every
    node of one tag shares one `Tag`, as ruamel's own default tags are shared. Quoted
    scalars, sequences and mappings get ruamel's default tags directly.
    """
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
    from ruamel.yaml.resolver import VersionedResolver
    from ruamel.yaml.tag import Tag

    # version -> ({first character or None: ((tag, regexp), ...)}, {text: Tag})
    tables: dict[Any, tuple[dict[Any, tuple[tuple[Any, Any], ...]], dict[str, Any]]] = {}
    shared: dict[str, Any] = {}  # tag suffix -> the one Tag of that suffix
    for default in (
        VersionedResolver.DEFAULT_SCALAR_TAG,
        VersionedResolver.DEFAULT_SEQUENCE_TAG,
        VersionedResolver.DEFAULT_MAPPING_TAG,
    ):
        _share(default)

    class Resolver(VersionedResolver):
        _version: Any = None

        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
            if self.yaml_path_resolvers:
                return super().resolve(kind, value, implicit)
            if kind is not ScalarNode:
                if kind is MappingNode:
                    return self.DEFAULT_MAPPING_TAG
                if kind is SequenceNode:
                    return self.DEFAULT_SEQUENCE_TAG
                return super().resolve(kind, value, implicit)
            if not implicit[0]:  # quoted, or a tag of its own: ruamel's default
                return self.DEFAULT_SCALAR_TAG
            version = self._version
            if version is None:
                version = self._version = self.processing_version
            found = tables.get(version)
            if found is None:
                found = tables[version] = (self._table(), {})
            table, memo = found
            tag = memo.get(value)
            if tag is None:
                tag = self._plain_tag(table, value)
                if len(memo) < _MEMO_MAX:
                    memo[value] = tag
            return tag

        def _table(self) -> dict[Any, tuple[tuple[Any, Any], ...]]:
            found = self.versioned_resolver  # {first character or None: [(tag, regexp)]}
            rest = tuple(found.get(None, ()))
            table = {k: (*v, *rest) for k, v in found.items() if k is not None}
            table[None] = rest
            return table

        def _plain_tag(self, table: dict[Any, tuple[tuple[Any, Any], ...]], value: str) -> Any:
            for suffix, regexp in table.get(value[:1], table[None]):
                if regexp.match(value):
                    tag = shared.get(suffix)
                    if tag is None:
                        tag = shared[suffix] = _share(Tag(suffix=suffix))
                    return tag
            return self.DEFAULT_SCALAR_TAG

    return Resolver


# Plain scalar texts whose tag is remembered, per process: case files hold a few thousand
# distinct words; the bound only stops a stream of distinct files from growing it forever.
_MEMO_MAX = 50_000


def _loader_class(yaml: Any, parser: Any) -> Any:
    """The loader class `YAML.compose` builds for the C parser on every call, built once."""
    constructor, resolver = yaml.Constructor, yaml.Resolver

    class Loader(parser, constructor, resolver):  # type: ignore[misc, valid-type]
        def __init__(self, stream: str) -> None:
            parser.__init__(self, stream)
            self._parser = self._composer = self
            constructor.__init__(self, loader=self)
            self.allow_duplicate_keys = yaml.allow_duplicate_keys
            resolver.__init__(self, version=yaml.version, loadumper=self)

    return Loader
