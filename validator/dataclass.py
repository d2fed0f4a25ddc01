"""`dataclass`: the house's dataclass decorator, the standard one made at a lower cost.

`dataclasses.dataclass` writes each class's methods as Python source and compiles it when
the class is made: ~0.2 ms a method on a development machine, about a fifth of what a `run`
spent importing its ~75 classes (~170 methods), paid by every command before it does
anything. This `dataclass` makes the same dataclass and compiles nothing for most classes,
giving them generic methods that read the fields' table instead:

- `repr(x)` is `Name(a=1, b='x')`, the fields with `repr=True` in order, `...` for an
  instance met again inside its own repr (as dataclasses write it);
- `x == y` compares the fields with `compare=True` as this Python's dataclasses do (as a
  tuple up to 3.12, field by field from 3.13), only between instances of the very same
  class (else `NotImplemented`);
- a frozen class hashes the tuple of the fields `hash` picks (or `compare` when `hash` is
  unset): the same value as dataclasses'; a class that is not frozen and has `__eq__` is
  unhashable; `eq=False` keeps identity;
- `__init__` takes the fields with `init=True` as dataclasses' does (in order, by position
  or by name, defaults and `default_factory` filled in, `init=False` fields set to their
  default, then `__post_init__`), each stored in field order through
  `object.__setattr__`, as dataclasses' frozen classes store them; the same `TypeError` for
  a missing, unknown or repeated argument;
- a frozen class's `__setattr__` and `__delattr__` raise `FrozenInstanceError` as
  dataclasses' do.

A class made for every trace or check (a result, a job, a parsed trace) passes
`fast_init=True`: dataclasses' own compiled `__init__` (and, frozen, its `__setattr__` and
`__delattr__`), ~1.5 us faster per instance than the generic one, for ~0.5 ms when the class
is made. So do classes with `slots=True`, `kw_only`, an `InitVar` or a `ClassVar`
annotation, and `order=True` is left to dataclasses whole.

Everything else is dataclasses' own (`slots`, `fields()`, `replace()`, `asdict()`,
pickling), so it is a dataclass for every tool that asks (`dataclasses.is_dataclass`, mypy
through `dataclass_transform`); only `__dataclass_params__` says `init=False` (and
`frozen=False`) for a class whose methods are the generic ones. A method the class body
writes itself is kept. Every dataclass of the package is made here (tests/project/
test_layout.py); tests/unit/core/test_dataclass.py holds the two decorators to the same
behaviour.
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
    fast_init: bool = False,
) -> Any:
    """A dataclass: `@dataclass`, `@dataclass(frozen=True)`, ... (dataclasses' options).
    `fast_init`: dataclasses' own compiled `__init__`, for a class made per trace or check."""

    def wrap(cls: type) -> Any:
        if order:  # ordering needs dataclasses' own comparison methods
            return dataclasses.dataclass(
                cls, init=init, repr=repr, eq=eq, order=True, frozen=frozen, slots=slots,
                kw_only=kw_only,
            )  # fmt: skip
        own = dict(cls.__dict__)  # what the class body wrote, before dataclasses adds to it
        generic = not (fast_init or slots or kw_only or _pseudo_fields(cls, own))
        if generic and frozen and ("__setattr__" in own or "__delattr__" in own):
            name = "__setattr__" if "__setattr__" in own else "__delattr__"
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        made: Any = dataclasses.dataclass(
            cls, init=init and not generic, repr=False, eq=False,
            frozen=frozen and not generic, slots=slots, kw_only=kw_only,
        )  # fmt: skip
        fields = dataclasses.fields(made)
        if generic and init:
            _set(made, "__init__", _init_of(made, fields))
        if generic and frozen:
            _set_frozen(made, fields)
        if repr and "__repr__" not in own:
            _set(made, "__repr__", _repr_of(tuple(f.name for f in fields if f.repr)))
        if eq:
            _set_eq_and_hash(made, own, fields, frozen)
        return made

    return wrap if cls is None else wrap(cls)


def _pseudo_fields(cls: type, own: dict[str, Any]) -> bool:
    """Whether the class body annotates an `InitVar`, a `ClassVar` or `KW_ONLY` (by name:
    annotations are text here), or a dataclass it derives from has such a pseudo-field (its
    table holds more than its fields): dataclasses' own `__init__` then, which knows them."""
    annotations = own.get("__annotations__") or {}
    if any(marker in str(hint) for hint in annotations.values() for marker in _PSEUDO_MARKERS):
        return True
    return any(
        len(vars(base).get("__dataclass_fields__", ())) > len(dataclasses.fields(base))
        for base in cls.__mro__[1:]
        if "__dataclass_fields__" in vars(base)
    )


_PSEUDO_MARKERS = ("InitVar", "ClassVar", "KW_ONLY")
_MISSING = dataclasses.MISSING


def _init_of(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> Callable[..., None]:
    """dataclasses' `__init__` for `fields`, without compiling one: the arguments bound as
    Python binds them, each field stored in field order."""
    taken = [f for f in fields if f.init]
    names = tuple(f.name for f in taken)
    count = len(names)
    default: dict[str, Any] = {f.name: f.default for f in taken if f.default is not _MISSING}
    made = {f.name: f.default_factory for f in taken if f.default_factory is not _MISSING}
    _check_order(cls, taken)
    rest = tuple(
        (f.name, f.default, f.default_factory)
        for f in fields
        if not f.init and (f.default is not _MISSING or f.default_factory is not _MISSING)
    )
    post_init = hasattr(cls, "__post_init__")
    every = frozenset(names)
    least = count - len(default) - len(made)  # the arguments without a default

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        values = dict(zip(names, args, strict=False))  # fewer arguments than names: a default
        for name, value in kwargs.items():
            if name not in every:
                raise TypeError(f"{_called(__init__)} got an unexpected keyword argument {name!r}")
            if name in values:
                raise TypeError(f"{_called(__init__)} got multiple values for argument {name!r}")
            values[name] = value
        if len(args) > count:  # after the names, as Python checks them
            raise TypeError(_too_many(__init__, least, count, len(args)))
        if len(values) < count:
            _fill(__init__, values, names, default, made)
        for name in names:
            _store(self, name, values[name])
        for name, value, factory in rest:
            _store(self, name, value if factory is _MISSING else factory())
        if post_init:
            self.__post_init__()

    return __init__


# Each field is stored as `self.name = value` would store it (a frozen class's own
# __setattr__ passed by, as dataclasses' frozen __init__ does): the instance keeps the
# layout attribute reads are fastest on, which filling its `__dict__` at once would give up
# (every later read of a field would cost more).
_store = object.__setattr__


def _fill(
    init: Callable[..., None],
    values: dict[str, Any],
    names: tuple[str, ...],
    default: dict[str, Any],
    made: dict[str, Callable[[], Any]],
) -> None:
    """The arguments not given: their defaults, else Python's TypeError naming those
    missing."""
    missing = []
    for name in names:
        if name in values:
            continue
        if name in default:
            values[name] = default[name]
        elif name in made:
            values[name] = made[name]()
        else:
            missing.append(repr(name))
    if missing:
        if len(missing) == 1:
            listed = missing[0]
        elif len(missing) == 2:
            listed = f"{missing[0]} and {missing[1]}"
        else:
            listed = f"{', '.join(missing[:-1])}, and {missing[-1]}"
        plural = "s" if len(missing) > 1 else ""
        raise TypeError(
            f"{_called(init)} missing {len(missing)} required positional argument{plural}: {listed}"
        )


def _called(init: Callable[..., None]) -> str:
    """How Python names a method in its errors: `Case.__init__()`."""
    return f"{init.__qualname__}()"


def _too_many(init: Callable[..., None], least: int, most: int, given: int) -> str:
    """Python's words for too many positional arguments (`self` counted, as it counts it)."""
    takes = f"from {least + 1} to {most + 1}" if least < most else f"{most + 1}"
    plural = "" if takes == "1" else "s"
    return f"{_called(init)} takes {takes} positional argument{plural} but {given + 1} were given"


def _check_order(cls: type, taken: list[dataclasses.Field[Any]]) -> None:
    """dataclasses' rule: a field without a default never follows one with a default."""
    seen_default = False
    for f in taken:
        has_default = f.default is not _MISSING or f.default_factory is not _MISSING
        if seen_default and not has_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
        seen_default = seen_default or has_default


def _set_frozen(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> None:
    """dataclasses' frozen `__setattr__` and `__delattr__`: assigning or deleting a field,
    or any attribute of an instance of the class itself, raises FrozenInstanceError."""
    names = frozenset(f.name for f in fields)
    owner: Any = cls  # a subclass that is not frozen may set what is not a field

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is owner or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(owner, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is owner or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(owner, self).__delattr__(name)

    _set(cls, "__setattr__", __setattr__, replace=True)
    _set(cls, "__delattr__", __delattr__, replace=True)


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
