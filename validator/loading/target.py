"""The suite config's `target:`: the agent `capture` asks for traces, as templates.

A target is an HTTP endpoint (`url`, `method`, `headers`, `body`, ...) or a program
(`command`). Its texts are templates:

- `{name}` is a placeholder: `question`, `case_id`, `run` (1, 2, ...) or any case key;
- `${NAME}` is an environment variable, read when capture starts (a secret: it is sent,
  never written anywhere);
- `{{` and `}}` are a literal `{` and `}`; any other `{` or `}` is a mistake.

A placeholder's value is always inserted as text: into a JSON string of the body (never
parsed as JSON, so a question with quotes stays one valid string), percent-encoded into the
URL, as one argument of the command. This module reads and checks the templates; filling
them in is `capture`'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from .. import codes
from ..dataclass import dataclass
from ..evaluation.query import QueryError, compile_query
from ..evaluation.tracefile import TemplateError
from ..problems import ERROR, WARNING, Problem, did_you_mean, has_errors, show
from .yamlfile import YamlDocument

# The placeholders every case has, besides its own keys.
BUILTIN_PLACEHOLDERS = ("question", "case_id", "run")
METHODS = ("POST", "GET", "PUT", "PATCH")
DEFAULT_TIMEOUT = 120.0
DEFAULT_CONCURRENCY = 4
DEFAULT_RETRIES = 3
HTTP_ONLY = ("method", "headers", "body", "retries", "verify")

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

TEXT, ENV, KEY = "text", "env", "key"
PathKey = tuple[str | int, ...]


@dataclass(frozen=True)
class Template:
    """A text with placeholders: (kind, value) parts, kind TEXT, ENV or KEY, and where
    each placeholder starts (1-based character)."""

    text: str
    parts: tuple[tuple[str, str], ...]
    columns: tuple[int, ...] = ()  # one per part

    @property
    def placeholders(self) -> list[tuple[str, int]]:
        return [(v, c) for (k, v), c in zip(self.parts, self.columns, strict=True) if k == KEY]

    @property
    def env_names(self) -> list[str]:
        return [v for k, v in self.parts if k == ENV]

    def render(
        self,
        values: Mapping[str, str],
        env: Mapping[str, str],
        quote: Callable[[str], str] | None = None,
    ) -> str:
        """The text with every placeholder filled in (KeyError: a value is missing).
        `quote` encodes placeholder values (the URL's percent-encoding), not env values."""
        out = []
        for kind, value in self.parts:
            if kind == TEXT:
                out.append(value)
            elif kind == ENV:
                out.append(env[value])
            else:
                text = values[value]
                out.append(quote(text) if quote else text)
        return "".join(out)


def parse_template(text: str) -> Template:
    """Read a template. Raises TemplateError at the first mistake."""
    parts: list[tuple[str, str]] = []
    columns: list[int] = []
    literal: list[str] = []
    i = 0

    def flush() -> None:
        if literal:
            parts.append((TEXT, "".join(literal)))
            columns.append(0)
            literal.clear()

    while i < len(text):
        char = text[i]
        if text.startswith("{{", i) or text.startswith("}}", i):
            literal.append(char)
            i += 2
            continue
        if char == "}":
            raise TemplateError(
                text, i + 1, "a '}' that closes no placeholder: write '}}' for a literal '}'"
            )
        env = text.startswith("${", i) and not text.startswith("${{", i)
        if char != "{" and not env:
            literal.append(char)
            i += 1
            continue
        start = i + (2 if env else 1)
        end = text.find("}", start)
        name = text[start:end] if end >= 0 else ""
        if end < 0 or not _NAME.fullmatch(name):
            raise TemplateError(text, i + 1, _bad_placeholder(text, i, env, end))
        flush()
        parts.append((ENV if env else KEY, name))
        columns.append(i + 1)
        i = end + 1
    flush()
    return Template(text, tuple(parts), tuple(columns))


def _bad_placeholder(text: str, at: int, env: bool, end: int) -> str:
    what = "an environment variable '${NAME}'" if env else "a placeholder '{name}'"
    if end < 0:
        return f"{what} is not closed with '}}' (write '{{{{' for a literal '{{')"
    inside = text[at + (2 if env else 1) : end]
    return (
        f"{what} needs a name of letters, digits and '_', found {inside!r}"
        " (write '{{' and '}}' for literal braces, e.g. in JSON text)"
    )


@dataclass(frozen=True)
class Placed:
    """A template and where it is written in the config (`is_key`: a body key)."""

    path: PathKey
    template: Template
    is_key: bool = False


@dataclass(frozen=True)
class Body:
    """A JSON template: the body as written, strings (and keys) made Templates."""

    value: Any

    def render(self, values: Mapping[str, str], env: Mapping[str, str]) -> Any:
        return _render_value(self.value, values, env)

    def templates(self) -> Iterator[Placed]:
        yield from _templates_in(self.value, ("body",))


def _render_value(node: Any, values: Mapping[str, str], env: Mapping[str, str]) -> Any:
    if isinstance(node, Template):
        return node.render(values, env)
    if isinstance(node, list):
        return [_render_value(v, values, env) for v in node]
    if isinstance(node, tuple):  # an object: ((key template, value), ...)
        return {k.render(values, env): _render_value(v, values, env) for k, v in node}
    return node


def _templates_in(node: Any, path: PathKey) -> Iterator[Placed]:
    if isinstance(node, Template):
        yield Placed(path, node)
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _templates_in(item, (*path, i))
    elif isinstance(node, tuple):
        for key, item in node:
            yield Placed((*path, key.text), key, is_key=True)
            yield from _templates_in(item, (*path, key.text))


def compile_body(value: Any, path: PathKey, errors: list[tuple[Placed, Any]]) -> Any:
    """The body with each string (and key) a Template; each mistake is appended to
    `errors` as (where, TemplateError), its text kept as it is."""
    if isinstance(value, str):
        return _compiled(value, Placed(path, _plain(value)), errors)
    if isinstance(value, list):
        return [compile_body(v, (*path, i), errors) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return tuple(
            (
                _compiled(str(key), Placed((*path, key), _plain(str(key)), True), errors),
                compile_body(item, (*path, key), errors),
            )
            for key, item in value.items()
        )
    return value


def _plain(text: str) -> Template:
    return Template(text, ((TEXT, text),), (0,))


def _compiled(text: str, where: Placed, errors: list[tuple[Placed, Any]]) -> Template:
    try:
        return parse_template(text)
    except TemplateError as exc:
        errors.append((where, exc))
        return _plain(text)


@dataclass(frozen=True)
class Target:
    """A checked `target:`. Everything capture needs to ask the agent for one run."""

    file: str  # the config file, as shown
    folder: Path  # a command runs in the config file's folder
    url: Template | None = None
    method: str = "POST"
    headers: tuple[tuple[str, Template], ...] = ()
    body: Body | None = None
    command: tuple[Template, ...] = ()
    trace: str | None = None  # a JSONPath into the answer; None: the whole answer
    timeout: float = DEFAULT_TIMEOUT
    concurrency: int = DEFAULT_CONCURRENCY
    retries: int = DEFAULT_RETRIES
    rate: float | None = None  # requests per second
    verify: bool = True
    verify_at: tuple[int, int] = (1, 1)  # where `verify: false` is written, for the warning
    # Every template written, with where (for the checks that need the suite's case keys).
    templates: tuple[Placed, ...] = field(default=())

    @property
    def kind(self) -> str:
        return "http" if self.url is not None else "command"

    def env_names(self) -> list[str]:
        """Every environment variable the target reads, in order, once each."""
        names = [n for placed in self.templates for n in placed.template.env_names]
        return list(dict.fromkeys(names))

    def shown(self) -> str:
        """The target as written (templates unfilled, so no secret), for logs."""
        if self.url is not None:
            return f"{self.method} {self.url.text}"
        return " ".join(t.text for t in self.command)


# --------------------------------------------------------------------------------------------
# Reading `target:` from the config (the schema has checked the types already)

_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


class _TargetReader:
    def __init__(self, doc: YamlDocument, folder: Path) -> None:
        self.doc = doc
        self.folder = folder
        self.data: dict[str, Any] = doc.data["target"]
        self.problems: list[Problem] = []
        self.placed: list[Placed] = []

    def problem(self, path: PathKey, code: str, message: str, **kw: Any) -> None:
        at = self.doc.key_at(path) if kw.get("key") else self.doc.value_at(path)
        severity = kw.get("severity", ERROR)
        detail = tuple(kw.get("detail", ()))
        self.problems.append(
            Problem(self.doc.file, at.line, at.column, severity, code, message, detail)
        )

    def template(self, path: PathKey, text: str) -> Template | None:
        try:
            made = parse_template(text)
        except TemplateError as exc:
            self._syntax(Placed(path, _plain(text)), exc)
            return None
        self.placed.append(Placed(path, made))
        return made

    def _syntax(self, where: Placed, exc: TemplateError) -> None:
        name = _dotted(where.path)
        what = " (a key)" if where.is_key else ""
        self.problem(
            where.path,
            codes.BAD_TEMPLATE,
            f"{name}{what}: {exc.message} (at character {exc.column})",
            key=where.is_key,
            detail=exc.caret_lines(),
        )

    def read(self) -> Target | None:
        shape_ok = self._shape()
        url = self._url()
        command = self._command()
        headers = self._headers()
        body = self._body()
        trace = self._trace()
        if not shape_ok or (url is None and not command) or has_errors(self.problems):
            return None
        data = self.data
        return Target(
            file=self.doc.file,
            folder=self.folder,
            url=url,
            method=str(data.get("method", "POST")).upper(),
            headers=headers,
            body=body,
            command=command,
            trace=trace,
            timeout=float(data.get("timeout", DEFAULT_TIMEOUT)),
            concurrency=int(data.get("concurrency", DEFAULT_CONCURRENCY)),
            retries=int(data.get("retries", DEFAULT_RETRIES)),
            rate=float(data["rate"]) if data.get("rate") is not None else None,
            verify=data.get("verify", True) is not False,
            verify_at=tuple(self.doc.value_at(("target", "verify"))),  # type: ignore[arg-type]
            templates=tuple(self.placed),
        )

    def _shape(self) -> bool:
        data = self.data
        has_url, has_command = "url" in data, "command" in data
        if has_url and has_command:
            self.problem(
                ("target", "command"),
                codes.TARGET_SHAPE,
                "target has both url and command: capture asks one agent, either over HTTP"
                " (url) or by running a program (command); remove one",
                key=True,
            )
            return False
        if not has_url and not has_command:
            self.problem(
                ("target",),
                codes.TARGET_SHAPE,
                "target names no agent: write `url: https://...` (an HTTP endpoint) or"
                " `command: [python, agent.py, --question, '{question}']` (a program)",
                key=True,
            )
            return False
        good = True
        if has_command:
            for key in (k for k in HTTP_ONLY if k in data):
                good = False
                self.problem(
                    ("target", key),
                    codes.TARGET_SHAPE,
                    f"target.{key} applies to an HTTP target (url) only: a command target"
                    " gets its input from its arguments; remove it",
                    key=True,
                )
        method = data.get("method")
        if isinstance(method, str) and method.upper() not in METHODS:
            good = False
            self.problem(
                ("target", "method"),
                codes.BAD_VALUE,
                f"target.method {show(method)} is not one of {', '.join(METHODS)}"
                f"{did_you_mean(method.upper(), METHODS)}",
            )
        if data.get("verify") is False:
            self.problem(
                ("target", "verify"),
                codes.TLS_UNVERIFIED,
                "target.verify is false: the agent's TLS certificate is not checked, so"
                " anyone on the network path can answer in its place; remove it once the"
                " agent has a valid certificate",
                severity=WARNING,
            )
        return good

    def _url(self) -> Template | None:
        text = self.data.get("url")
        if not isinstance(text, str):
            return None
        made = self.template(("target", "url"), text)
        if made is None:
            return None
        head = made.parts[0] if made.parts else (TEXT, "")
        scheme_given = head[0] != TEXT or head[1].lower().startswith(("http://", "https://"))
        if not scheme_given:
            self.problem(
                ("target", "url"),
                codes.BAD_VALUE,
                f"target.url {show(text)} must start with http:// or https://",
            )
            return None
        return made

    def _command(self) -> tuple[Template, ...]:
        items = self.data.get("command")
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            return ()
        made = [self.template(("target", "command", i), item) for i, item in enumerate(items)]
        return tuple(m for m in made if m is not None) if all(made) else ()

    def _headers(self) -> tuple[tuple[str, Template], ...]:
        headers = self.data.get("headers")
        if not isinstance(headers, dict):
            return ()
        out = []
        for name, value in headers.items():
            path: PathKey = ("target", "headers", name)
            if not _HEADER_NAME.fullmatch(str(name)):
                self.problem(
                    path,
                    codes.BAD_VALUE,
                    f"target.headers: {show(name)} is not a header name (letters, digits"
                    " and - only, e.g. Authorization, X-Request-Id)",
                    key=True,
                )
                continue
            if isinstance(value, str):
                made = self.template(path, value)
                if made is not None:
                    out.append((str(name), made))
        return tuple(out)

    def _body(self) -> Body | None:
        if "body" not in self.data:
            return None
        errors: list[tuple[Placed, Any]] = []
        compiled = compile_body(self.data["body"], ("target", "body"), errors)
        for where, exc in errors:
            self._syntax(where, exc)
        body = Body(compiled)
        self.placed.extend(body.templates())
        return body

    def _trace(self) -> str | None:
        text = self.data.get("trace")
        if not isinstance(text, str):
            return None
        try:
            compile_query(text)
        except QueryError as exc:
            self.problem(
                ("target", "trace"),
                codes.BAD_JSONPATH,
                f"target.trace: JSONPath does not compile at character {exc.column}: {exc.message}",
                detail=exc.caret_lines(),
            )
            return None
        return text


@dataclass(frozen=True)
class ReadTarget:
    """The config's `target:` read: the target (None with an error), its templates, problems."""

    target: Target | None  # None when it has an error
    templates: tuple[Placed, ...]  # every template that could be read
    problems: list[Problem]


def read_target(doc: YamlDocument, folder: Path) -> ReadTarget:
    """The config's `target:`, its templates and its problems."""
    reader = _TargetReader(doc, folder)
    target = reader.read()
    return ReadTarget(target, tuple(reader.placed), reader.problems)


def placeholder_problems(
    doc: YamlDocument, templates: tuple[Placed, ...], keys: list[str]
) -> list[Problem]:
    """A placeholder that names neither a built-in (question, case_id, run) nor a case key
    of the suite (core keys and the specs' inputs) is an error, at its template."""
    known = [*BUILTIN_PLACEHOLDERS, *keys]
    problems = []
    for placed in templates:
        for name, column in placed.template.placeholders:
            if name in known:
                continue
            hint = did_you_mean(name, known) or f"; placeholders: {', '.join(known)}"
            at = doc.key_at(placed.path) if placed.is_key else doc.value_at(placed.path)
            caret = TemplateError(placed.template.text, column, "")
            problems.append(
                Problem(
                    doc.file,
                    at.line,
                    at.column,
                    ERROR,
                    codes.UNKNOWN_PLACEHOLDER,
                    f"{_dotted(placed.path)}: {{{name}}} names no case key{hint} (at"
                    f" character {column}; write {{{{ and }}}} for literal braces)",
                    tuple(caret.caret_lines()),
                )
            )
    return problems


def _dotted(path: PathKey) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
