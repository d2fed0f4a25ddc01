"""The house's `dataclass` behaves as the standard library's: the same construction (and
the same errors for a wrong call), repr, equality, hashing, immutability, fields, `replace`
and pickling, for every option the package uses.

Each shape is made three times, by the house's decorator (its generic methods, and with
`fast_init=True` dataclasses' compiled ones) and by `dataclasses.dataclass`, and instances
of all three are put through the same operations."""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle
import sys
from collections import Counter
from pathlib import Path
from typing import Any, ClassVar

import pytest

from validator import dataclass as house
from validator.dataclass import dataclass

Maker = Any


def _shapes(make: Maker) -> dict[str, type]:
    """One class of each shape the package declares, made by `make`."""

    @make
    class Plain:
        a: int
        b: str = "x"
        c: list[int] = dataclasses.field(default_factory=list)

    @make(frozen=True)
    class Frozen:
        a: int
        b: Any = None
        hidden: str = dataclasses.field(default="h", repr=False)
        ignored: int = dataclasses.field(default=0, compare=False)
        unhashed: Any = dataclasses.field(default=1, hash=False)

    @make(frozen=True, eq=False)
    class Identity:
        a: int

    @make(eq=False)
    class MutableIdentity:
        a: int

    @make(slots=True)
    class Slotted:
        a: int
        b: int = 2

    @make(frozen=True)
    class One:
        value: float

    @make(frozen=True)
    class Empty:
        pass

    @make(frozen=True, order=True)
    class Ordered:
        a: int
        b: str = dataclasses.field(default="", compare=False)

    @make
    class Own:
        a: int

        def __repr__(self) -> str:
            return "mine"

        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = object.__hash__

    @make
    class Nested:
        child: Any = None

    @make(frozen=True)
    class Derived:
        a: int
        b: list[int] = dataclasses.field(default_factory=list)
        total: int = dataclasses.field(init=False, default=0)
        seen: list[int] = dataclasses.field(init=False, default_factory=list, compare=False)

        def __post_init__(self) -> None:
            object.__setattr__(self, "total", self.a + len(self.b))

    @make
    class Three:
        a: int
        b: str
        c: float

    shapes = (Plain, Frozen, Identity, MutableIdentity, Slotted, One, Empty, Ordered, Own)
    for cls in (*shapes, Nested, Derived, Three):
        cls.__qualname__ = cls.__name__  # the same repr and messages for every maker's class
    return {cls.__name__: cls for cls in (*shapes, Nested, Derived, Three)}


def _fast(cls: type | None = None, /, **options: Any) -> Any:
    return dataclass(cls, fast_init=True, **options)


HOUSE, FAST, STANDARD = _shapes(dataclass), _shapes(_fast), _shapes(dataclasses.dataclass)

ARGS: dict[str, list[tuple[Any, ...]]] = {
    "Plain": [(1,), (1, "y"), (2, "x", [3])],
    "Frozen": [(1,), (1, [2]), (1, None, "other", 5, 9), (2, "b")],
    "Identity": [(1,), (1,)],
    "MutableIdentity": [(1,)],
    "Slotted": [(1,), (1, 3)],
    "One": [(1.0,), (math.nan,), (-0.0,)],
    "Empty": [()],
    "Ordered": [(1, "a"), (0, "b")],
    "Own": [(1,)],
    "Nested": [()],
    "Derived": [(1,), (1, [2, 3])],
    "Three": [(1, "b", 2.5)],
}

# Calls right and wrong: by name, twice the same argument, an unknown name, too many or
# too few arguments.
CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((), {}),
    ((1,), {}),
    ((), {"a": 1}),
    ((1,), {"a": 2}),
    ((), {"zzz": 1}),
    ((1, "x"), {"b": "y"}),
    ((1, 2, 3, 4, 5, 6, 7), {}),
    ((), {"b": "x"}),
    ((), {"a": 1, "b": "x", "c": 0.5}),
]


def _outcome(fn: Any) -> Any:
    try:
        return ("value", fn())
    except Exception as exc:  # the same kind of error from both
        return ("raises", type(exc).__name__)


def _call(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        return ("value", repr(cls(*args, **kwargs)))
    except TypeError as exc:  # the same words as Python's for the compiled __init__
        return ("raises", str(exc))


def _deleted(x: Any, name: str) -> str:
    delattr(x, name)  # a frozen record refuses
    return repr(x)


def _added(x: Any) -> Any:
    x.extra = 1  # a frozen record refuses any attribute
    return x.extra


def _assigned(x: Any) -> str:
    x.a = 5  # a frozen record refuses
    return repr(x)


def _behaviour(classes: dict[str, type], name: str) -> list[Any]:
    cls = classes[name]
    seen: list[Any] = []
    made = [cls(*args) for args in ARGS[name]]
    twins = [cls(*args) for args in ARGS[name]]
    for x, twin in zip(made, twins, strict=True):
        seen.append(repr(x))
        seen.append(_outcome(lambda x=x, twin=twin: x == twin))
        seen.append(_outcome(lambda x=x: x == x))
        seen.append(_outcome(lambda x=x: x == (1,)))
        seen.append(_outcome(lambda x=x, twin=twin: hash(x) == hash(twin)))
        seen.append(_outcome(lambda x=x: _assigned(x)))
        seen.append([f.name for f in dataclasses.fields(x)])
        seen.append(dataclasses.is_dataclass(x))
        seen.append(_outcome(lambda x=x: repr(pickle.loads(pickle.dumps(x)))))
        seen.append(_outcome(lambda x=x: repr(copy.deepcopy(x))))
        seen.append(_outcome(lambda x=x: _added(x)))
        seen.append(_outcome(lambda x=x: _deleted(x, "zzz")))
        seen.append(_outcome(lambda x=x: _deleted(x, "a")))
    for x in made:
        for y in made:
            seen.append(_outcome(lambda x=x, y=y: x == y))
            seen.append(_outcome(lambda x=x, y=y: x != y))
    return seen


@pytest.mark.parametrize("name", sorted(ARGS))
def test_each_shape_behaves_as_the_standard_dataclass(name: str) -> None:
    assert _behaviour(HOUSE, name) == _behaviour(STANDARD, name)
    assert _behaviour(FAST, name) == _behaviour(STANDARD, name)


@pytest.mark.parametrize("name", sorted(ARGS))
def test_each_shape_is_called_as_the_standard_dataclass(name: str) -> None:
    expected = [_call(STANDARD[name], args, kwargs) for args, kwargs in CALLS]
    assert [_call(HOUSE[name], args, kwargs) for args, kwargs in CALLS] == expected
    assert [_call(FAST[name], args, kwargs) for args, kwargs in CALLS] == expected


def test_a_default_before_a_field_without_one_is_refused_as_dataclasses_do() -> None:
    for make in (dataclass, dataclasses.dataclass):
        with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

            @make
            class Wrong:
                a: int = 0
                b: int


def test_instances_of_another_class_with_the_same_fields_are_not_equal() -> None:
    assert HOUSE["Plain"](1) != STANDARD["Plain"](1)
    assert HOUSE["Plain"](1).__eq__(STANDARD["Plain"](1)) is NotImplemented


def test_a_repr_that_meets_itself_says_so_as_the_standard_one() -> None:
    for classes in (HOUSE, STANDARD):
        loop = classes["Nested"]()
        loop.child = [loop]
        assert repr(loop) == "Nested(child=[...])"


def test_replace_and_the_frozen_error_are_the_standard_ones() -> None:
    frozen = HOUSE["Frozen"](1, "b")
    changed = dataclasses.replace(frozen, a=2)
    assert repr(changed) == "Frozen(a=2, b='b', ignored=0, unhashed=1)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        frozen.a = 3


def test_comparing_ignores_what_the_field_table_leaves_out() -> None:
    frozen = HOUSE["Frozen"]
    assert frozen(1, hidden="p") != frozen(1, hidden="q")  # left out of repr only
    assert frozen(1, ignored=1) == frozen(1, ignored=2)
    assert hash(frozen(1, unhashed=1)) == hash(frozen(1, unhashed=2))
    assert frozen(1, unhashed=1) != frozen(1, unhashed=2)  # compared, not hashed


def test_the_package_s_records_survive_pickling_as_they_are() -> None:
    # Worker processes receive cases and send runs back pickled.
    from validator.model import Binding
    from validator.results import CheckResult, RunResult

    run = RunResult("c1", "fail", "why", "c1.json")
    run.checks = [CheckResult("verdict-allowed", "fail", "found 'REJECT'")]
    binding = Binding(case="allowed_verdicts", default="PASS")
    for value in (run, binding):
        again = pickle.loads(pickle.dumps(value))
        assert again == value and repr(again) == repr(value)
    assert hash(pickle.loads(pickle.dumps(binding))) == hash(binding)


def test_only_the_classes_that_ask_are_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    # What makes the decorator cheaper: dataclasses compiles no source for a class, except
    # one with order=True (left to dataclasses whole: Ordered, frozen) and the `__init__` of
    # one with slots=True (Slotted) or fast_init=True.
    compiled: list[str] = []

    def spy(source: str, *args: Any) -> None:
        compiled.append(source)
        exec(source, *args)

    monkeypatch.setattr(dataclasses, "exec", spy, raising=False)
    _shapes(house.dataclass)
    source = "\n".join(compiled)
    counts = {m: source.count(f"def {m}(") for m in ("__init__", "__repr__", "__setattr__")}
    assert counts == {"__init__": 2, "__repr__": 1, "__setattr__": 1}, counts
    compiled.clear()
    _shapes(_fast)
    assert "\n".join(compiled).count("def __init__(") == len(ARGS), "fast_init: every class"


def test_both_equality_rules_whatever_python_runs_them() -> None:
    # dataclasses changed its `__eq__` in Python 3.13; the decorator follows the running
    # Python's, so both rules are checked here on any version (CI runs one).
    class Box:
        def __init__(self, value: Any) -> None:
            self.value = value

    nan = math.nan
    tuple_eq, fieldwise_eq = house._tuple_eq(("value",)), house._fieldwise_eq(("value",))
    same, twin, other = Box(nan), Box(nan), Box(1.0)
    assert tuple_eq(same, twin) is True  # (nan,) == (nan,): the same object
    assert fieldwise_eq(same, twin) is False  # nan == nan
    assert fieldwise_eq(same, same) is True  # an instance equals itself
    assert tuple_eq(same, other) is False and fieldwise_eq(same, other) is False
    assert tuple_eq(same, 1) is NotImplemented and fieldwise_eq(same, 1) is NotImplemented
    assert house._fieldwise_eq(())(Box(1), Box(2)) is True  # no field to compare
    assert house._eq_of is (house._tuple_eq if sys.version_info < (3, 13) else house._fieldwise_eq)


def test_no_class_with_the_generic_init_is_made_per_case_or_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The generic __init__ is ~1.5 us slower per instance than a compiled one: a class made
    # for every case, trace or check passes fast_init=True. Counted, not timed: a run of 3
    # cases and one of 9 make each class with the generic __init__ equally often.
    import importlib

    from conftest import GOOD_CASE, Workspace, good_trace, set_verdict

    for name in ("validator.commands.run", "validator.report.json", "validator.report.markdown"):
        importlib.import_module(name)
    made: Counter[str] = Counter()
    for module in [m for n, m in sys.modules.items() if n.startswith("validator") and m]:
        for cls in list(vars(module).values()):
            init = vars(cls).get("__init__") if isinstance(cls, type) else None
            if getattr(init, "__module__", None) == "validator.dataclass":

                def counted(self: Any, *args: Any, _init: Any = init, _name: str = cls.__qualname__,
                            **kwargs: Any) -> None:  # fmt: skip
                    made[_name] += 1
                    _init(self, *args, **kwargs)

                monkeypatch.setattr(cls, "__init__", counted)
    assert len({n for n, m in sys.modules.items() if n.startswith("validator") and m}) > 50
    counts = []
    for size in (3, 9):
        (tmp_path / str(size)).mkdir()
        ws = Workspace(tmp_path / str(size))
        for i in range(size):
            ws.case(dict(GOOD_CASE, id=f"case-{i}"))
            trace = good_trace(f"case-{i}")
            ws.trace(f"case-{i}", set_verdict(trace, "REVISE") if i % 3 else trace)
        made.clear()
        assert ws.run().code in (0, 1)
        counts.append(dict(made))
    assert counts[0], "the counter sees the generic __init__ at work"
    assert counts[0] == counts[1]


def test_pseudo_fields_keep_dataclasses_own_init_in_a_derived_class_too() -> None:
    # An InitVar (here, or in a dataclass derived from) is passed to __post_init__, which
    # only dataclasses' own __init__ knows how to do; a ClassVar is no field.
    @dataclass
    class Base:
        x: int
        k: dataclasses.InitVar[int] = 0
        total: int = dataclasses.field(init=False, default=0)

        def __post_init__(self, k: int) -> None:
            self.total = self.x + k

    @dataclass
    class Derived(Base):
        z: int = 1

    @dataclass
    class Counted:
        a: int
        made: ClassVar[int] = 0

    assert (Base(1, 5).total, Derived(1, 5, 2).total, Derived(1, 5, 2).z) == (6, 6, 2)
    assert repr(Counted(3)).endswith(".Counted(a=3)") and Counted.made == 0
    with pytest.raises(TypeError, match="unexpected keyword argument 'made'"):
        Counted(3, made=1)  # type: ignore[call-arg]
