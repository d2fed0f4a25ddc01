"""How a predicate declares itself: its parameters (`Param`), its registry entry
(`Predicate`, made by the `predicate` decorator), what it returns (`Outcome`, or
`BRIEF_PASS` for a pass nobody will read), and `show`, the quoting every message uses.

The decorator records each predicate by the module that declares it; the package's
`__init__` puts the families together into `PREDICATES`, in the order of its `FAMILIES`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ...dataclass import dataclass
from ...problems import closest, cut_shown, did_you_mean
from ...problems import show as _show_any
from ..context import TraceContext
from ..params import PARAM_TYPES, type_error


def show(value: Any, limit: int = 60) -> str:
    """`problems.show`, without json.dumps for the common case: text that needs no escape.

    JSON (ensure_ascii off) escapes only quotes, backslashes and control characters, and
    `isprintable()` is false for every control character, so such text renders as itself
    in quotes, exactly as `problems.show` renders it; a list of such texts likewise (JSON's
    separator is ", "). Messages are built for every check of every trace, so this is on
    the hot path.
    """
    if type(value) is str and _plain(value):
        text = f'"{value}"'
    elif type(value) is list and all(type(v) is str and _plain(v) for v in value):
        # json.dumps of a list of such texts: each quoted as itself, joined by ", "
        text = "[" + ", ".join(f'"{v}"' for v in value) + "]"
    else:
        return _show_any(value, limit)
    return cut_shown(text, limit)


def _plain(text: str) -> bool:
    """Whether JSON writes `text` as itself between quotes (nothing to escape)."""
    return '"' not in text and "\\" not in text and text.isprintable()


@dataclass(slots=True)
class Outcome:
    """What a predicate found: pass or fail, a message for people, and structured details."""

    passed: bool
    message: str = ""
    details: dict[str, Any] | None = None
    # For a failure the predicate judged (not a value of the wrong type, not a parameter
    # error): the values a `message:` template may show, by placeholder name. None: the
    # failure is of another kind, and the predicate's own message is the one shown.
    facts: dict[str, Any] | None = None


# A pass with no message and no details, which a predicate may return when `ctx.brief`: the
# run will be compacted, which keeps nothing of a check that passes (the interpreter then
# makes no result for it), so what a pass would say is never read. One shared object:
# return it as it is, never change it. A failure is always made in full.
BRIEF_PASS = Outcome(True, "")


@dataclass(frozen=True)
class Param:
    """One parameter a predicate declares: its type, whether it is required, its default."""

    type: str
    required: bool = False
    default: Any = None
    doc: str = ""
    choices: tuple[str, ...] = ()  # the only values allowed (a mode), when any


PredicateFn = Callable[[list[Any], dict[str, Any], TraceContext], Outcome]


@dataclass(frozen=True)
class Predicate:
    """A registered predicate: its function, parameters and documentation."""

    name: str
    fn: PredicateFn
    params: dict[str, Param]
    doc: str  # the docstring: user documentation, first line "Passes when ..."
    zero: str  # what zero matches give, in a few words (the README's table shows it)
    gives: tuple[str, ...] = ()  # the placeholders its failures fill (evaluation.messages)
    # Its outcome is a function of the values and the arguments alone: it never reads the
    # trace context (normalized texts, the view), so equal values give an equal outcome: a
    # check made of such predicates shares one result between a case's runs that find the
    # same texts, and a guard of one whose arguments are literal is decided once per text
    # it reads (`evaluation.sharing`). Marked where that pays: predicates of a value runs
    # repeat (a verdict, a status), not of lists that differ from run to run (the tool
    # names `contains-all` reads), where the lookup would cost and never find.
    pure: bool = False

    @property
    def passes_when(self) -> str:
        first = self.doc.split("\n\n", 1)[0].replace("\n", " ")
        return first.removeprefix("Passes when ").rstrip(".")


# Each module's predicates, in the order it declares them (the package's __init__ reads them).
_DECLARED: dict[str, list[Predicate]] = {}


def predicate(
    name: str, /, *, zero: str, gives: tuple[str, ...] = (), pure: bool = False, **params: Param
) -> Callable[[PredicateFn], PredicateFn]:
    """Declare a predicate under the name spec files use; `zero`: what zero matches give;
    `gives`: the placeholders (`found`, `expected`, ...) its failures fill for a template;
    `pure`: it never reads the trace context (see `Predicate.pure`)."""

    def register(fn: PredicateFn) -> PredicateFn:
        for p in params.values():
            assert p.type in PARAM_TYPES, f"{name}: unknown parameter type {p.type}"
        doc = inspect.cleandoc(fn.__doc__ or "")
        assert doc.startswith("Passes when "), f"{name}: the docstring says when it passes"
        entry = Predicate(name, fn, dict(params), doc, zero, tuple(gives), pure)
        _DECLARED.setdefault(fn.__module__, []).append(entry)
        return fn

    return register


def param_type_error(param: Param, value: Any, name: str | None = None) -> str | None:
    """Why `value` does not fit `param`, in words, or None when it fits; with the
    parameter's `name`, a value that is none of its choices gets the line to write."""
    problem = type_error(param.type, value)
    unset = value is None and param.default is None  # an optional choice left unset
    if problem is None and param.choices and value not in param.choices and not unset:
        hint = did_you_mean(str(value), param.choices)
        fix = f": write {name}: {closest(str(value), param.choices) or param.choices[0]}"
        return f"must be one of {', '.join(param.choices)}, found {show(value)}{hint}" + (
            fix if name else ""
        )
    return problem


def declared_in(module: str) -> list[Predicate]:
    """The predicates module `module` declares, in its order."""
    return list(_DECLARED.get(module, ()))


def declared_count() -> int:
    """How many predicates all modules declare (the registry checks it holds every one)."""
    return sum(map(len, _DECLARED.values()))
