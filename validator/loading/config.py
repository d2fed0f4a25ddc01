"""The suite config, `validator.yaml`: a team's layout written once.

It is read like a case file: the project's YAML loader (every key and value positioned),
the shipped `config` JSON Schema (unknown keys with "did you mean", wrong types at their
line and column), then what a schema cannot say: paths that must exist (relative to the
config file's folder), pack names, JSONPaths and `case_id` templates that must compile.
Every problem is a located `Problem`; a key with a problem is left unset, so `lint` can go
on checking the rest of the suite while `run` refuses to start.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from .. import codes
from ..dataclass import dataclass
from ..evaluation.query import QueryError, compile_query
from ..evaluation.tracefile import GROUP_WORDS, TemplateError, compile_case_id
from ..files import read_file
from ..globs import glob_regex
from ..inputs import available_packs, display_path
from ..model import TraceSettings
from ..problems import ERROR, Problem, ProblemsFound, UsageError, did_you_mean, show
from ..repository import folders_up_to_root
from .schema import schema_problems
from .yamlfile import MAX_FILE_BYTES, PathKey, YamlDocument, load_yaml

if TYPE_CHECKING:  # `target:` is read only when a config has one
    from .target import Placed, Target

CONFIG_NAME = "validator.yaml"


@dataclass
class Config:
    """A loaded suite config: what it sets (None: not set, or set wrongly) and its problems."""

    file: str  # as shown in messages
    folder: Path  # relative paths in the file are relative to this folder
    doc: YamlDocument | None = None
    problems: list[Problem] = field(default_factory=list)
    cases: Path | None = None
    specs: list[Path] | None = None
    fixtures: Path | None = None
    packs: tuple[str, ...] | None = None
    checks: tuple[str, ...] | None = None
    tools: tuple[str, ...] | None = None  # the agent's tools (names or globs); None: not said
    traces: TraceSettings = field(default_factory=TraceSettings)
    target: Target | None = None  # the agent `capture` asks (None: not set, or set wrongly)
    # Every template `target:` has that could be read, for the placeholder check (which
    # needs the specs' case keys), even when another part of the target is wrong.
    target_templates: tuple[Placed, ...] = ()
    # The path keys (cases, fixtures) whose folder or file does not exist: their problems,
    # which a command given that path by a flag does not raise (it never reads the key).
    missing: dict[str, Problem] = field(default_factory=dict)

    @property
    def has_target(self) -> bool:
        """`target:` is written (rightly or not): capture makes the fixtures folder."""
        return self.doc is not None and isinstance(self.doc.data.get("target"), dict)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]

    def errors_besides(self, overridden: Iterable[str]) -> list[Problem]:
        """The errors, less those of path keys a command-line flag replaces (`--fixtures`
        given: a `fixtures:` that does not exist is not read, so it stops nothing; lint
        still reports it)."""
        moot = {id(self.missing[key]) for key in overridden if key in self.missing}
        return [p for p in self.errors if id(p) not in moot]


def find_config(explicit: str | None) -> Path | None:
    """The config file to read: `--config FILE` (which must exist), else the validator.yaml
    of the working folder or of its nearest parent up to the repository root (the top of
    the git work tree; the working folder alone outside one). Raises UsageError."""
    if explicit is None:
        return search_config()
    path = Path(explicit)
    if path.is_dir() and (path / CONFIG_NAME).is_file():
        return path / CONFIG_NAME
    if not path.is_file():
        hint = (
            f"pass --config with a {CONFIG_NAME} file, or create one with"
            " `python -m validator init`"
        )
        if path.exists():  # a pipe, a device: refused (FileRefused) with the shared message
            read_file(path, MAX_FILE_BYTES, "the config file", explicit, hint)
        raise UsageError(f"config file {explicit} does not exist", hint)
    return path


def search_config() -> Path | None:
    """The validator.yaml of the working folder, else of the nearest parent holding one up to
    the repository root: `validator.yaml`, `../validator.yaml`, ... (relative, as shown)."""
    for up, folder in enumerate(folders_up_to_root()):
        if (folder / CONFIG_NAME).is_file():
            return Path(*([".."] * up), CONFIG_NAME)
    return None


def load_config(path: Path) -> Config:
    """Read and check a config file. Never raises for its content: see `Config.problems`."""
    config = Config(display_path(path), path.parent)
    try:
        doc = load_yaml(path, config.file)
    except ProblemsFound as exc:
        config.problems = list(exc.problems)
        return config
    config.doc = doc
    config.problems = [*doc.problems, *schema_problems(doc, "config")]
    _Reader(config, doc).read()
    config.problems = sorted(set(config.problems))
    return config


class _Reader:
    """Fills a Config from a document the schema has checked, adding the problems only this
    module can see. A value of the wrong type was reported by the schema: it is skipped."""

    def __init__(self, config: Config, doc: YamlDocument) -> None:
        self.config = config
        self.doc = doc
        self.data: dict[str, Any] = doc.data

    def problem(self, path: PathKey, code: str, message: str, detail: tuple[str, ...] = ()) -> None:
        at = self.doc.value_at(path)
        self.config.problems.append(
            Problem(self.config.file, at.line, at.column, ERROR, code, message, detail)
        )

    def read(self) -> None:
        self.config.cases = self._path(("cases",), want_folder=False)
        # With a target, capture makes the fixtures folder: it need not exist yet.
        may_be_new = isinstance(self.data.get("target"), dict)
        self.config.fixtures = self._path(("fixtures",), want_folder=False, may_be_new=may_be_new)
        specs = self.data.get("specs")
        if _texts(specs):
            found = [self._path(("specs", i), want_folder=True) for i in range(len(specs))]
            self.config.specs = [p for p in found if p is not None]
        self._packs()
        checks = self.data.get("checks")
        if _texts(checks) and checks:
            self.config.checks = tuple(checks)
        tools = self.data.get("tools")
        if _texts(tools):
            self.config.tools = tuple(tools)
        traces = self.data.get("traces")
        if isinstance(traces, dict):
            self.config.traces = self._traces(traces)
        if isinstance(self.data.get("target"), dict):
            from .target import read_target

            read = read_target(self.doc, self.config.folder)
            self.config.target, self.config.target_templates = read.target, read.templates
            self.config.problems.extend(read.problems)

    def _path(self, path: PathKey, want_folder: bool, may_be_new: bool = False) -> Path | None:
        value = _get(self.data, path)
        if not isinstance(value, str) or not value:
            return None
        resolved = Path(value) if Path(value).is_absolute() else self.config.folder / value
        if may_be_new and not resolved.exists():
            return resolved
        key = path[0]
        if want_folder and not resolved.is_dir():
            what = "is not a folder" if resolved.exists() else "does not exist"
            self.problem(
                path,
                codes.CONFIG_PATH,
                f"{key}: the folder {show(value)} {what}"
                f" (looked for {display_path(resolved)}; paths are relative to the"
                " config file's folder)",
            )
            self._missing(path)
            return None
        if not resolved.exists():
            self.problem(
                path,
                codes.CONFIG_PATH,
                f"{key}: {show(value)} does not exist (looked for"
                f" {display_path(resolved)}; paths are relative to the config file's"
                " folder)",
            )
            self._missing(path)
            return None
        return resolved

    def _missing(self, path: PathKey) -> None:
        """Remember the problem just made as that of a missing top-level path key."""
        if len(path) == 1 and isinstance(path[0], str):
            self.config.missing[path[0]] = self.config.problems[-1]

    def _packs(self) -> None:
        packs = self.data.get("packs")
        if not _texts(packs):
            return
        known = available_packs()
        good = []
        for i, pack in enumerate(packs):
            if pack in known:
                good.append(pack)
                continue
            hint = did_you_mean(pack, known)
            self.problem(
                ("packs", i),
                codes.BAD_VALUE,
                f"packs[{i}]: there is no standard spec pack {show(pack)}{hint}; packs:"
                f" {', '.join(known) or 'none'} (your own specs go in a `specs` folder)",
            )
        self.config.packs = tuple(good) if len(good) == len(packs) else None

    def _traces(self, traces: dict[str, Any]) -> TraceSettings:
        settings: dict[str, Any] = {}
        for key in ("pattern", "ignore"):
            given = traces.get(key)
            globs = [given] if isinstance(given, str) else given
            if _texts(globs) and globs and self._globs(key, globs, isinstance(given, str)):
                settings[key] = tuple(globs)
        if traces.get("format") in ("json", "jsonl", "otlp-json"):
            settings["format"] = traces["format"]
        settings.update(self._records(traces))
        if isinstance(traces.get("allow_unmatched"), bool):
            settings["allow_unmatched"] = traces["allow_unmatched"]
        if traces.get("view") is not None and traces["view"] in _adapters():
            settings["view"] = traces["view"]  # `auto` (the default): detected per trace
        if isinstance(traces.get("messages"), str) and self._jsonpath(
            ("traces", "messages"), traces["messages"]
        ):
            settings["messages"] = traces["messages"]
        return TraceSettings(**settings)

    def _records(self, traces: dict[str, Any]) -> dict[str, str]:
        """`split`, `group` and `case_id`: how a file's records become traces of cases."""
        out = {}
        if isinstance(traces.get("split"), str) and self._split(traces):
            out["split"] = traces["split"]
        if isinstance(traces.get("group"), str) and self._group(traces):
            out["group"] = traces["group"]
        case_id = traces.get("case_id")
        if isinstance(case_id, str) and self._case_id(case_id, "group" in traces):
            out["case_id"] = case_id
        return out

    def _globs(self, key: str, patterns: list[str], single: bool) -> bool:
        """Whether each of `traces.<key>`'s globs (`pattern`, `ignore`) compiles."""
        good = True
        example = "'*.json' or 'runs/**/*.json'" if key == "pattern" else "README.md or 'docs/**'"
        for i, pattern in enumerate(patterns):
            path: PathKey = ("traces", key) if single else ("traces", key, i)
            try:
                glob_regex(pattern)
            except re.error as exc:
                good = False
                self.problem(
                    path,
                    codes.BAD_VALUE,
                    f"traces.{key}: {show(pattern)} is not a glob ({exc}): write e.g. {example}",
                )
        return good

    def _split(self, traces: dict[str, Any]) -> bool:
        if traces.get("format") == "otlp-json":
            self.problem(
                ("traces", "split"),
                codes.BAD_VALUE,
                "traces.split does not apply to format otlp-json, whose traces are its spans"
                " grouped by traceId: remove split, or choose another format",
            )
            return False
        return self._jsonpath(("traces", "split"), traces["split"])

    def _group(self, traces: dict[str, Any]) -> bool:
        text = traces["group"]
        path: PathKey = ("traces", "group")
        if traces.get("format") == "otlp-json":
            self.problem(
                path,
                codes.BAD_VALUE,
                "traces.group does not apply to format otlp-json, whose traces are its spans"
                " grouped by traceId: remove group, or choose another format",
            )
            return False
        if text in GROUP_WORDS:
            return True
        if not text.startswith("$"):
            hint = did_you_mean(text, GROUP_WORDS)
            self.problem(
                path,
                codes.BAD_VALUE,
                f"traces.group: {show(text)} is neither file, folder nor a JSONPath{hint}:"
                " write `group: file` (each file's records are one trace), `group: folder`"
                " (each folder's files are one trace) or `group: $.sessionId`",
            )
            return False
        return self._jsonpath(path, text)

    def _jsonpath(self, path: PathKey, text: str) -> bool:
        try:
            compile_query(text)
        except QueryError as exc:
            self._bad_jsonpath(path, exc)
            return False
        return True

    def _bad_jsonpath(self, path: PathKey, exc: QueryError) -> None:
        name = ".".join(str(p) for p in path)
        self.problem(
            path,
            codes.BAD_JSONPATH,
            f"{name}: JSONPath does not compile at character {exc.column}: {exc.message}",
            tuple(exc.caret_lines()),
        )

    def _case_id(self, text: str, grouped: bool) -> bool:
        path: PathKey = ("traces", "case_id")
        try:
            parts = compile_case_id(text)
        except QueryError as exc:
            self._bad_jsonpath(path, exc)
            return False
        except TemplateError as exc:
            self.problem(
                path,
                codes.BAD_TEMPLATE,
                f"traces.case_id: {exc.message} (at character {exc.column})",
                tuple(exc.caret_lines()),
            )
            return False
        if not grouped and ("file", "group") in parts:
            column = text.index("{group}") + 1
            self.problem(
                path,
                codes.BAD_TEMPLATE,
                "traces.case_id: {group} is the value of traces.group, which is not set"
                f" (at character {column}): set traces.group, or use {{file_stem}}",
                tuple(TemplateError(text, column, "").caret_lines()),
            )
            return False
        return True


def _get(data: Any, path: PathKey) -> Any:
    for part in path:
        if isinstance(part, int):
            data = data[part] if isinstance(data, list) and part < len(data) else None
        else:
            data = data.get(part) if isinstance(data, dict) else None
    return data


def _texts(value: Any) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


def _adapters() -> Collection[str]:
    """The view's adapter names; the view (all its adapters) is imported only for a config
    that names one (a run whose checks do not read `$.view` never needs it)."""
    from ..evaluation.view import ADAPTERS

    return ADAPTERS
