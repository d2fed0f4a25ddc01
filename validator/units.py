"""Values written with a unit, in case files as on the command line: one registry of unit
kinds, each with the units it reads and the base unit a check compares in.

A spec input declares its kind with `x-unit:` (`duration`, `share` or `size`); a case value
of that input may then be a number in the base unit, or text with a unit:

- duration, in milliseconds: `20s`, `1.5 min`, `800 ms`, `2h`;
- share, a decimal between 0 and 1: `80%`, `0.8`;
- size, in bytes: `512 KB`, `4 MiB`, `1.5 GB`.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from .dataclass import dataclass


@dataclass(frozen=True)
class UnitKind:
    """A kind of amount with units (a duration): its units and what a plain number is in."""

    name: str
    base: str  # the unit a plain number is in
    units: dict[str, Decimal]  # unit as written (lower case) -> how many base units
    examples: str  # for messages and the docs

    def read(self, text: str) -> float | None:
        """The value of `text` (`20s`, `1.5 min`) in the base unit, else None."""
        match = _AMOUNT.match(text)
        if match is None:
            return None
        factor = self.units.get(match.group(2).lower())
        if factor is None:
            return None
        try:
            value = Decimal(match.group(1)) * factor
        except InvalidOperation:
            return None
        return int(value) if value == value.to_integral_value() else float(value)


_AMOUNT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z%]+)\s*\Z")
_S, _M, _H = Decimal(1000), Decimal(60_000), Decimal(3_600_000)

UNIT_KINDS: dict[str, UnitKind] = {
    k.name: k
    for k in (
        UnitKind(
            "duration",
            "milliseconds",
            {
                "ms": Decimal(1),
                "s": _S,
                "sec": _S,
                "secs": _S,
                "second": _S,
                "seconds": _S,
                "m": _M,
                "min": _M,
                "mins": _M,
                "minute": _M,
                "minutes": _M,
                "h": _H,
                "hour": _H,
                "hours": _H,
            },
            "20s, 1.5 min, 800 ms, 2h",
        ),
        UnitKind("share", "a decimal between 0 and 1", {"%": Decimal("0.01")}, "80%"),
        UnitKind(
            "size",
            "bytes",
            {
                "b": Decimal(1),
                "kb": Decimal(1000),
                "mb": Decimal(1000**2),
                "gb": Decimal(1000**3),
                "kib": Decimal(1024),
                "mib": Decimal(1024**2),
                "gib": Decimal(1024**3),
            },
            "512 KB, 4 MiB, 1.5 GB",
        ),
    )
}

UNIT_MARK = "x-unit"  # the key of a spec input's schema that names its kind


def read_value(kind: str, value: object) -> float | None:
    """A case value of an input of unit kind `kind`, in the base unit; None when it is text
    no unit of the kind reads (a number is returned as it is)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    unit = UNIT_KINDS.get(kind)
    return unit.read(value) if unit is not None and isinstance(value, str) else None


def explained(kind: str, text: str) -> str:
    """`20s = 20000 milliseconds`: what a value with a unit was read as."""
    value = read_value(kind, text)
    unit = UNIT_KINDS[kind]
    return f"{text} = {value} {unit.base}" if kind != "share" else f"{text} = {value}"


def guess_ms(key: str, value: object) -> float | None:
    """For a `*_ms` key that takes a plain number: the milliseconds `20s` means (the number
    a message tells the author to write), else None."""
    if not key.endswith("_ms") or not isinstance(value, str):
        return None
    return UNIT_KINDS["duration"].read(value)


def pattern(kind: str) -> str:
    """A regular expression (for a case schema) of the text values of kind `kind`."""
    units = sorted(UNIT_KINDS[kind].units, key=len, reverse=True)
    alternatives = "|".join(
        "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in u)
        for u in units
    )
    return rf"^\s*\d+(\.\d+)?\s*({alternatives})\s*$"
