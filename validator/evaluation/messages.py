"""Message templates: the sentence a spec author writes for a failed check (`message:`).

A template is text with placeholders in braces: `the answer does not mention: {missing}`.
`{{` and `}}` write a literal brace. The placeholders are the registry below: what a
predicate found (`found`, `expected`, `missing`, `count`, `total`: each predicate declares
which of them it gives), where it was read (`path`), which check and clause (`check`,
`clause`), and any case key (`case.NAME`). Lint reports a placeholder that is not one of
them, or that the clause's predicate does not give, at its line and column.

A template is used only for a failure the predicate judged (the verdict was another one,
keywords were missing); a failure of another kind (a value of the wrong type, a parameter
with no value) keeps the predicate's own message, and so does a failure that leaves one of
the template's placeholders without a value (`{found}` when nothing was found). The JSONPath
always follows the sentence: a template cannot hide where the values were read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..dataclass import dataclass
from ..display import one_line
from ..model import Template
from ..problems import closest, show

# name -> what it holds, for the docs' table (scripts/update_docs.py renders it).
PLACEHOLDERS: dict[str, str] = {
    "found": "what made the check fail: the value found, the forbidden keywords found, the"
    " shared text",
    "expected": "what the check wanted: the allowed values, the number of entries required",
    "missing": "the entries not found: keywords, tools, steps",
    "count": "the number the failure is about: matches, keyword entries found, characters shared",
    "total": "how many entries there are (keyword entries, required items)",
    "path": "the JSONPath(s) the values were read from",
    "check": "the check's id",
    "clause": "the clause's name",
    "case.NAME": "the value of the case key NAME (e.g. `{case.question}`)",
}
# Every predicate gives these, whatever it is.
GENERIC = ("path", "check", "clause")
CASE_PREFIX = "case."

_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|\{")
_NAME = re.compile(r"[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)?\Z")

TEXT_LIMIT = 80  # characters of one text value in a message
LIST_LIMIT = 200  # characters of a list of values


@dataclass(frozen=True)
class TemplateError:
    """Why a template cannot be read, and at which character of it (0-based)."""

    offset: int
    message: str


def parse_template(text: str) -> Template | TemplateError:
    """The template `text` as parts, or the first thing that cannot be read in it."""
    parts: list[tuple[str, str]] = []
    literal: list[str] = []
    at = 0
    for match in _FIELD.finditer(text):
        literal.append(text[at : match.start()])
        at = match.end()
        token = match.group()
        if token in ("{{", "}}"):
            literal.append(token[0])
            continue
        name = match.group(1)
        if name is None:
            return TemplateError(
                match.start(), "'{' opens a placeholder that is not closed: write {name}, or {{"
            )
        if not _NAME.match(name.strip()):
            return TemplateError(
                match.start(),
                f"'{token}' is not a placeholder: write a name such as {{found}} or"
                " {case.question}, or {{ and }} for literal braces",
            )
        parts.append(("text", "".join(literal)))
        literal = []
        parts.append(("field", name.strip()))
    literal.append(text[at:])
    parts.append(("text", "".join(literal)))
    # A folded or multi-line YAML text is one sentence: its line breaks are spaces.
    return Template(
        text, tuple((k, " ".join(v.split("\n"))) for k, v in parts if k == "field" or v)
    )


def placeholder_problem(
    name: str, gives: tuple[str, ...], predicate: str, case_keys: set[str]
) -> str | None:
    """Why `{name}` cannot be used with `predicate` (which gives `gives`), with a "did you
    mean" when a usable name is close; None when it can be used."""
    if name.startswith(CASE_PREFIX):
        key = name[len(CASE_PREFIX) :]
        if key in case_keys:
            return None
        near = closest(key, case_keys)
        hint = f" (did you mean {{{CASE_PREFIX}{near}}}?)" if near else ""
        return f"{{{name}}} names case key '{key}', which cases do not have{hint}"
    usable = (*gives, *GENERIC)
    if name in usable:
        return None
    words = ", ".join(f"{{{n}}}" for n in usable) + ", {case.NAME}"
    if name in PLACEHOLDERS:
        return f"predicate '{predicate}' gives no {{{name}}}; it gives {words}"
    near = closest(name, usable) or closest(name, [CASE_PREFIX + k for k in case_keys])
    hint = f" (did you mean {{{near}}}?)" if near else ""
    return f"unknown placeholder {{{name}}}{hint}; the placeholders are {words}"


def render(
    template: Template, facts: Mapping[str, Any], case_fields: Mapping[str, Any]
) -> str | None:
    """The sentence, or None when a placeholder has no value for this failure."""
    out: list[str] = []
    for kind, value in template.parts:
        if kind == "text":
            out.append(value)
            continue
        if value.startswith(CASE_PREFIX):
            shown = say(case_fields.get(value[len(CASE_PREFIX) :]))
        elif value in facts:
            shown = say(facts[value])
        else:
            return None
        out.append(shown)
    return one_line("".join(out).strip())


def say(value: Any) -> str:
    """A value as a sentence shows it: text as itself (quoted only when it is empty or has
    spaces at an end), a list as its items joined by commas ("none" when empty), anything
    else as JSON; bounded, and one line."""
    if isinstance(value, list):
        if not value:
            return "none"
        text = ", ".join(say(v) for v in value)
        return text if len(text) <= LIST_LIMIT else text[: LIST_LIMIT - 3] + "..."
    if value is None:
        return "(not set)"
    if isinstance(value, str):
        if not value or value != value.strip():
            return one_line(show(value, TEXT_LIMIT))
        text = one_line(value)
        return text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 3] + "..."
    return one_line(show(value, TEXT_LIMIT))
