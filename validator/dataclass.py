"""`dataclass`: the house's dataclass decorator, the standard one made at a lower cost.

`dataclasses.dataclass` writes a `__repr__`, an `__eq__` and (frozen) a `__hash__` as
Python source for each class and compiles it when the class is made: ~0.3 ms a class on
a development machine, ~22 ms of the ~130 ms a `run` spent importing its ~80 classes,
paid by every command before it does anything. This `dataclass` makes the same
dataclass without those three and gives it generic ones that read the fields' table:

- `repr(x)` is `Name(a=1, b='x')`, the fields with `repr=True` in order, `...` for an
  instance met again inside its own repr (as dataclasses write it);
- `x == y` compares the fields with `compare=True` as this Python's dataclasses do (as a
  tuple up to 3.12, field by field from 3.13), only between instances of the very same
  class (else `NotImplemented`);
- a frozen class hashes the tuple of the fields `hash` picks (or `compare` when `hash` is
  unset): the same value as dataclasses'; a class that is not frozen and has `__eq__` is
  unhashable; `eq=False` keeps identity.

Everything else is dataclasses' own (`__init__`, `frozen`, `slots`, `fields()`,
`replace()`, `asdict()`, pickling), so it is a dataclass for every tool that asks
(`dataclasses.is_dataclass`, mypy through `dataclass_transform`). A method the class body
writes itself is kept. `order=True` is left to dataclasses whole. Every dataclass of the
package is made here (tests/project/test_layout.py); tests/unit/core/test_dataclass.py
holds the two decorators to the same behaviour.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, dataclass_transform

__all__ = ["dataclass"]


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def dataclass(
    cls: type | None = None,
    /,
    *,
    init: bool = True,
    repr: bool = True,
    eq: bool = True,
    order: bool = False,
    frozen: bool = False,
    slots: bool = False,
    kw_only: bool = False,
) -> Any:
    """A dataclass: `@dataclass`, `@dataclass(frozen=True)`, ... (dataclasses' options)."""

    def wrap(cls: type) -> Any:
        if order:  # ordering needs dataclasses' own comparison methods
            return dataclasses.dataclass(
                cls, init=init, repr=repr, eq=eq, order=True, frozen=frozen, slots=slots,
                kw_only=kw_only,
            )  # fmt: skip
        own = dict(cls.__dict__)  # what the class body wrote, before dataclasses adds to it
        made: Any = dataclasses.dataclass(
            cls, init=init, repr=False, eq=False, frozen=frozen, slots=slots, kw_only=kw_only
        )
        fields = dataclasses.fields(made)
        if repr and "__repr__" not in own:
            _set(made, "__repr__", _repr_of(tuple(f.name for f in fields if f.repr)))
        if eq:
            _set_eq_and_hash(made, own, fields, frozen)
        return made

    return wrap if cls is None else wrap(cls)


def _set_eq_and_hash(
    cls: type, own: dict[str, Any], fields: tuple[dataclasses.Field[Any], ...], frozen: bool
) -> None:
    """dataclasses' `__eq__`, and its rule for `__hash__` (unsafe_hash=False)."""
    if "__eq__" not in own:
        _set(cls, "__eq__", _eq_of(tuple(f.name for f in fields if f.compare)))
    written = own.get("__hash__", dataclasses.MISSING)
    explicit = not (written is dataclasses.MISSING or (written is None and "__eq__" in own))
    if explicit:
        return
    if frozen:
        hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
        _set(cls, "__hash__", _hash_of(_key_of(hashed)), replace=True)
    else:
        cls.__hash__ = None  # type: ignore[assignment]  # mutable and comparable: unhashable


def _key_of(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of an instance's `names` (a tuple even for one name, as dataclasses hash
    and, up to Python 3.12, compare)."""
    if len(names) > 1:
        return attrgetter(*names)
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _repr_of(names: tuple[str, ...]) -> Callable[[Any], str]:
    @recursive_repr()
    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__qualname__}({shown})"

    return __repr__


def _tuple_eq(names: tuple[str, ...]) -> Callable[[Any, Any], Any]:
    """dataclasses' `__eq__` up to Python 3.12: the fields compared as tuples
    (`(nan,) == (nan,)` holds for the same object)."""
    key = _key_of(names)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    return __eq__


def _fieldwise_eq(names: tuple[str, ...]) -> Callable[[Any, Any], Any]:
    """dataclasses' `__eq__` from Python 3.13: an instance equals itself, else the fields
    are compared one by one and the first false result (or the last) is the answer
    (`nan == nan` never holds)."""
    getters = tuple(attrgetter(name) for name in names)

    def __eq__(self: Any, other: Any) -> Any:
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        result: Any = True
        for get in getters:
            result = get(self) == get(other)
            if not result:
                return result
        return result

    return __eq__


# The running Python's rule, so that a record compares as its dataclasses would.
_eq_of = _tuple_eq if sys.version_info < (3, 13) else _fieldwise_eq


def _hash_of(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __hash__


def _set(cls: type, name: str, fn: Callable[..., Any], replace: bool = False) -> None:
    if name in cls.__dict__ and not replace:
        return
    fn.__qualname__ = f"{cls.__qualname__}.{fn.__name__}"
    setattr(cls, name, fn)
