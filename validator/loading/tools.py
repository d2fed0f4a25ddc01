"""Tool names written in cases, and the tools a suite declares.

Which case values are tool names is said by the specs, not by a list of keys here: a spec
input whose JSON Schema (or a part of it: `items`, a property, an `anyOf` branch) carries
`x-tool-names: true` holds tool names in every text at that place, in lists too; with
`x-tool-names: glob` the check it feeds also takes globs (`mysql_*`: `sequence`, `only`,
`call-matches`), while `true` says it compares names exactly, so a glob written there could
never match (`required_tools: [mysql_*]` under `contains-all`) and is an error. The diagnosis
pack marks `required_tools`; any pack marks its own inputs the same way.

The tools a suite has are declared by the suite config's `tools:`, else by the trace-fields
spec's `tools:` (the config wins when both say, as the config is the suite's own). A name
is declared when it is in the list or matches a glob of it (`mcp_*`); a glob written in a
case (`mysql_*`) is declared when it is in the list or matches a declared name. Names are
compared exactly (tool names are case-sensitive); a name that differs only in case, or is
spelt close to a declared one, gets a did-you-mean.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from fnmatch import fnmatchcase
from typing import Any

from .. import codes
from ..dataclass import dataclass
from ..display import shorten
from ..problems import ERROR, Problem, closest
from .yamlfile import PathKey, YamlDocument

TOOL_MARK = "x-tool-names"
_MARKS = (True, "glob")  # names only, or names and globs
_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True, fast_init=True)
class ToolName:
    """One tool name written in a case file, and where."""

    file: str
    line: int
    column: int
    key: str  # the case key it is written under (required_tools)
    name: str
    globs: bool = True  # the check it feeds takes globs (x-tool-names: glob)


def is_glob(name: str) -> bool:
    return not _GLOB_CHARS.isdisjoint(name)


def marked_inputs(inputs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The inputs (name -> schema) whose schema marks tool names somewhere."""
    return {name: schema for name, schema in inputs.items() if _has_mark(schema)}


def _has_mark(schema: Any) -> bool:
    if isinstance(schema, dict):
        return schema.get(TOOL_MARK) in _MARKS or any(_has_mark(v) for v in schema.values())
    if isinstance(schema, list):
        return any(_has_mark(v) for v in schema)
    return False


def tool_names(doc: YamlDocument, marked: dict[str, dict[str, Any]]) -> list[ToolName]:
    """Every tool name a case file writes under a marked input, in file order."""
    out: dict[PathKey, ToolName] = {}
    for key, schema in marked.items():
        if key not in doc.data:
            continue
        for path, name, globs in _walk(schema, doc.data[key], (key,)):
            at = doc.value_at(path)
            out.setdefault(path, ToolName(doc.file, at.line, at.column, key, name, globs))
    return sorted(out.values(), key=lambda t: (t.line, t.column))


def _walk(schema: Any, value: Any, path: PathKey) -> Iterator[tuple[PathKey, str, bool]]:
    if not isinstance(schema, dict):
        return
    mark = schema.get(TOOL_MARK)
    if mark in _MARKS:
        for at, name in _texts(value, path):
            yield at, name, mark == "glob"
        return
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, dict):
        for i, entry in enumerate(value):
            yield from _walk(items, entry, (*path, i))
    properties = schema.get("properties")
    if isinstance(value, dict) and isinstance(properties, dict):
        for name, sub in properties.items():
            if name in value:
                yield from _walk(sub, value[name], (*path, name))
    for branch_key in ("anyOf", "oneOf"):
        for branch in schema.get(branch_key) or ():
            yield from _walk(branch, value, path)


def _texts(value: Any, path: PathKey) -> Iterator[tuple[PathKey, str]]:
    if isinstance(value, str) and value.strip():
        yield path, value
    elif isinstance(value, list):
        for i, entry in enumerate(value):
            yield from _texts(entry, (*path, i))


def is_known(name: str, known: Collection[str]) -> bool:
    """Whether a written tool name (or glob) is one of `known` (names or globs)."""
    if name in known:
        return True
    if is_glob(name):
        return any(not is_glob(k) and fnmatchcase(k, name) for k in known)
    return any(is_glob(k) and fnmatchcase(name, k) for k in known)


def suggestion(name: str, known: Iterable[str]) -> str:
    """` (did you mean 'X'? tool names are case-sensitive)` or ` (did you mean 'X'?)`."""
    names = sorted({k for k in known if not is_glob(k)})
    same_case = [k for k in names if k.casefold() == name.casefold()]
    if same_case:
        return f" (did you mean '{same_case[0]}'? tool names are case-sensitive)"
    close = closest(name, names)
    return f" (did you mean '{close}'?)" if close is not None else ""


def remembered_suggestion(hints: dict[str, str], name: str, known: Iterable[str]) -> str:
    """`suggestion(name, known)`, kept in `hints` by name: a suite's cases often repeat one
    wrong name, whose suggestion is then made once."""
    hint = hints.get(name)
    if hint is None:
        hint = hints[name] = suggestion(name, known)
    return hint


def listing(names: Iterable[str], limit: int = 8) -> str:
    """`a, b, c and 4 more` (a name a trace gave, of any length, cut short)."""
    shown = sorted(set(names))
    text = ", ".join(shorten(name) for name in shown[:limit])
    return text + (f" and {len(shown) - limit} more" if len(shown) > limit else "")


def exact_name_problems(names: Iterable[ToolName]) -> list[Problem]:
    """An error for every glob written where the check compares tool names exactly."""
    return [
        Problem(
            tool.file,
            tool.line,
            tool.column,
            ERROR,
            codes.TOOL_GLOB,
            f"{tool.key}: '{tool.name}' is a pattern, but {tool.key} compares tool names"
            " exactly, so it could never match: write each tool's full name",
        )
        for tool in names
        if not tool.globs and is_glob(tool.name)
    ]


def undeclared_tools(
    names: Iterable[ToolName], declared: tuple[str, ...], where: str
) -> list[Problem]:
    """An error for every written tool name the declaration does not have. `where`: the
    declaration, as a message names it (`tools: in validator.yaml`)."""
    out = []
    hints: dict[str, str] = {}
    for tool in names:
        if is_known(tool.name, declared) or (not tool.globs and is_glob(tool.name)):
            continue  # known, or a glob where none may stand (exact_name_problems says so)
        what = (
            f"the pattern '{tool.name}' matches none of the agent's tools"
            if is_glob(tool.name)
            else f"'{tool.name}' is not one of the agent's tools"
        )
        have = f"lists {listing(declared)}" if declared else "lists no tool"
        hint = remembered_suggestion(hints, tool.name, declared)
        message = f"{tool.key}: {what}{hint}: {where} {have}; fix the name, or add the tool there"
        out.append(
            Problem(tool.file, tool.line, tool.column, ERROR, codes.UNDECLARED_TOOL, message)
        )
    return out


__all__ = [
    "TOOL_MARK",
    "ToolName",
    "exact_name_problems",
    "is_glob",
    "is_known",
    "listing",
    "marked_inputs",
    "remembered_suggestion",
    "suggestion",
    "tool_names",
    "undeclared_tools",
]
