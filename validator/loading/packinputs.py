"""Which standard pack declares a case key: so that a key a suite's packs do not load is told
as such (`allowed_verdicts` belongs to the diagnosis pack), never offered a look-alike key of
another meaning (`allowed_tools`)."""

from __future__ import annotations

from functools import cache

from ..problems import ProblemsFound
from .yamlfile import load_yaml


@cache
def pack_inputs() -> dict[str, str]:
    """Each case key a standard pack's specs declare -> the first pack (by name) declaring it."""
    from ..inputs import available_packs, standard_specs_dir  # inputs imports the loaders

    out: dict[str, str] = {}
    base = standard_specs_dir()
    for pack in available_packs():
        for path in sorted((base / pack).glob("*.y*ml")):
            try:
                doc = load_yaml(path)
            except ProblemsFound:
                continue  # lint reports a broken standard spec where it is loaded
            inputs = doc.data.get("inputs") if isinstance(doc.data, dict) else None
            for name in inputs if isinstance(inputs, dict) else ():
                out.setdefault(str(name), pack)
    return out


def pack_of(key: str) -> str | None:
    """The standard pack that declares case key `key`, if one does."""
    return pack_inputs().get(key)
