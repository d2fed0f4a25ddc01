"""Which runs a capture does, each run's request, and the trace taken out of an answer.

Where a trace goes is where `run` finds it: `FIXTURES/<id>.json` for one run, or
`FIXTURES/<id>/run-1.json ... run-K.json` with `--repeat K` (K > 1), or whenever the case
already has a folder `FIXTURES/<id>/`. A saved `FIXTURES/<id>.json` that `--repeat K` would
leave beside a folder (which `run` calls ambiguous) is moved to `FIXTURES/<id>/run-1.json`
first: it is the case's first run.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..dataclass import dataclass
from ..evaluation.query import QueryError, compile_query
from ..inputs import display_path
from ..loading.target import Target
from ..model import Case
from ..problems import counted, kind_of
from ..traces import TraceError, parse_document
from .transport import CommandRequest, HttpRequest, Redactor, Request


@dataclass
class Slot:
    """One run of one case: where its trace goes, and whether one is saved there."""

    case_id: str
    run: int
    path: Path
    shown: str  # the fixture as `run` names it: FIXTURES/<id>.json, FIXTURES/<id>/run-2.json
    saved: bool


@dataclass
class Move:
    """A single-trace fixture moved into its case's folder as run 1."""

    source: Path
    target: Path


def plan_slots(case_ids: list[str], fixtures: Path, repeat: int) -> tuple[list[Slot], list[Move]]:
    """Every run of every case, in order, and the moves the layout needs first."""
    shown = display_path(fixtures)
    slots: list[Slot] = []
    moves: list[Move] = []
    for case_id in case_ids:
        single = fixtures / f"{case_id}.json"
        folder = fixtures / case_id
        if repeat == 1 and not folder.is_dir():
            slots.append(Slot(case_id, 1, single, f"{shown}/{case_id}.json", single.exists()))
            continue
        first = folder / "run-1.json"
        if single.is_file() and not os.path.lexists(first):
            moves.append(Move(single, first))
        for run in range(1, repeat + 1):
            path = folder / f"run-{run}.json"
            saved = path.exists() or (run == 1 and bool(moves) and moves[-1].target == path)
            slots.append(Slot(case_id, run, path, f"{shown}/{case_id}/run-{run}.json", saved))
    return slots, moves


# --------------------------------------------------------------------------------------------
# A run's request


class RenderError(ValueError):
    """A run whose request cannot be made (a case key it needs is not set...)."""


def values_of(case: Case, run: int, defaults: Mapping[str, Any]) -> dict[str, str]:
    """The placeholder values of one run: every case key (the specs' defaults for the
    inputs it does not set), its id and the run number, each as text."""
    values = {name: _text(value) for name, value in defaults.items()}
    values.update({name: _text(value) for name, value in case.fields.items()})
    values["case_id"] = case.id
    values["run"] = str(run)
    return values


def _text(value: Any) -> str:
    """A value as the text inserted: text as it is, anything else as its JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def make_request(
    target: Target, case: Case, values: Mapping[str, str], env: Mapping[str, str]
) -> Request:
    """The run's request, every template filled in. Raises RenderError."""
    try:
        if target.url is None:
            argv = [t.render(values, env) for t in target.command]
            return CommandRequest(argv, target.folder)
        url = target.url.render(values, env, quote=lambda v: urllib.parse.quote(v, safe=""))
        headers = {name: _header(name, t.render(values, env)) for name, t in target.headers}
        body = None
        if target.body is not None:
            data = target.body.render(values, env)
            body = json.dumps(data, ensure_ascii=False).encode("utf-8", "surrogatepass")
        return HttpRequest(url, target.method, headers, body)
    except KeyError as exc:
        name = exc.args[0]
        raise RenderError(
            f"case '{case.id}' does not set {name}, which the target's {{{name}}} needs: set"
            f" it in {case.file}"
        ) from None


def _header(name: str, value: str) -> str:
    if "\r" in value or "\n" in value:
        raise RenderError(f"header {name}: its value would hold a line break")
    try:
        value.encode("latin-1")
    except UnicodeEncodeError:
        raise RenderError(
            f"header {name}: HTTP headers hold Latin-1 text only, and its value does not (put"
            " such a placeholder in the body, or the URL, instead)"
        ) from None
    return value


# --------------------------------------------------------------------------------------------
# The trace in an answer


@dataclass
class Trace:
    """The trace file an agent's answer holds (its text), or why there is none."""

    text: str | None = None  # the trace file's content
    error: str | None = None
    note: str | None = None


def trace_of(body: bytes, path: str | None, redact: Redactor, what: str = "the answer") -> Trace:
    """The trace an answer holds (the whole answer, or the one value `path` finds), as the
    text of its file; or why there is none. Secrets in it are redacted. `what`: the answer's
    name in reasons (a command's is its output)."""
    if not body.strip():
        return Trace(error=f"{what} is empty" if not body else f"{what} is only whitespace")
    try:
        document = parse_document(body)
    except TraceError as exc:
        return Trace(
            error=f"{what} is not a JSON trace: {redact(str(exc))}; it begins:"
            f" {redact.snippet(body)}"
        )
    value = document.value
    if path is not None:
        try:
            found = compile_query(path).find(value)
        except QueryError as exc:
            return Trace(error=f"target.trace {path} cannot be evaluated: {exc.message}")
        if len(found) != 1:
            found_what = "finds nothing" if not found else f"finds {len(found)} values, not one"
            return Trace(
                error=f"target.trace {path} {found_what} in {what}; it begins: {redact.snippet(body)}"
            )
        value = found[0]
    if not isinstance(value, (dict, list)):
        where = f"target.trace {path} finds" if path else f"{what} is"
        return Trace(
            error=f"{where} {kind_of(value)}, not a trace (a JSON object or list); it begins:"
            f" {redact.snippet(body)}"
        )
    invalid: list[str] = []
    text = json.dumps(value, ensure_ascii=False, indent=2, default=lambda v: invalid.append(v))
    note = None
    if invalid:
        held = counted(len(invalid), "value")
        note = f"{held} JSON cannot hold (NaN, Infinity, ...) written as null"
    cleaned = redact(text)
    if cleaned != text:
        note = (note + "; " if note else "") + "a secret in the trace was redacted"
    return Trace(text=cleaned + "\n", note=note)
