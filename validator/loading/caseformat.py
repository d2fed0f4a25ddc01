"""The case format of a suite: the core keys plus the inputs its check specs declare.

A spec says which case keys it reads (`inputs:`, each with a JSON Schema and an optional
default). A case may write the core keys (`case-core.schema.json`) and every input some
loaded spec declares; it must write the inputs without a default of the specs it applies
(its `checks`, or the default plan). The JSON Schema a case is validated against is made
here, per plan, and cached: a suite has a handful of distinct plans.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable
from dataclasses import field
from typing import Any

from ..dataclass import dataclass
from ..evaluation.userschema import breaks_rules, rebased
from ..model import Spec
from ..units import UNIT_KINDS, UNIT_MARK, pattern
from .schema import CompiledSchema, load_schema
from .tools import TOOL_MARK, is_glob

CORE_KEYS = tuple(load_schema("case-core")["properties"])
INPUT_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_ANNOTATIONS = (
    "description",
    "default",
    "title",
    "examples",
    "$comment",
    "x-tool-names",
    UNIT_MARK,
)


def validation_part(schema: dict[str, Any]) -> str:
    """What of an input's schema decides validity (annotations left out), as comparable text."""
    rules = {k: v for k, v in schema.items() if k not in _ANNOTATIONS}
    return json.dumps(rules, sort_keys=True, ensure_ascii=False)


@dataclass
class CaseFormat:
    """The keys a case file may write, as the suite's specs declare them, and their schemas."""

    inputs: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> its schema
    declared_by: dict[str, list[str]] = field(default_factory=dict)  # name -> spec ids
    # The suite's declared tools (validator.yaml's or the trace-fields spec's `tools:`): a
    # list of tool names written as something else is shown these as its example.
    declared_tools: tuple[str, ...] = ()
    _schemas: dict[tuple[str, ...], CompiledSchema] = field(default_factory=dict, repr=False)

    @property
    def keys(self) -> list[str]:
        """Every key a case may write: the core keys, then the inputs."""
        return [*CORE_KEYS, *(k for k in self.inputs if k not in CORE_KEYS)]

    def types_of(self, name: str) -> set[str]:
        """The JSON Schema types a key's value may have (for checking a binding's type)."""
        schema = self.inputs.get(name) or load_schema("case-core")["properties"].get(name, {})
        out: set[str] = set()
        for branch in schema.get("anyOf", [schema]):
            kind = branch.get("type")
            out.update([kind] if isinstance(kind, str) else kind or [])
        return out

    def schema(self, plan: Iterable[Spec]) -> CompiledSchema:
        """The JSON Schema of a case that applies `plan`, compiled once per plan."""
        specs = tuple(plan)
        key = tuple(s.id for s in specs)
        made = self._schemas.get(key)
        if made is None:
            made = self._schemas[key] = CompiledSchema(self.full(specs))
        return made

    def full(self, plan: tuple[Spec, ...]) -> dict[str, Any]:
        """The case schema: the core keys and every input, requiring those `plan` needs."""
        schema = copy.deepcopy(load_schema("case-core"))
        for name, input_schema in self.inputs.items():
            if name not in CORE_KEYS:
                # its `$ref`s name its own parts, wherever it is placed
                # (one that reaches outside itself is an error in its spec file: unused here)
                usable = {} if breaks_rules(input_schema) else input_schema
                placed = rebased(usable, f"#/properties/{name}")
                kind = usable.get(UNIT_MARK)
                if kind in UNIT_KINDS:  # `20s` as well as 20000 (units.py)
                    text = {"type": "string", "pattern": pattern(kind)}
                    placed = {"anyOf": [placed, text], "description": usable.get("description", "")}
                schema["properties"][name] = self._with_tool_example(placed)
        required = list(schema["required"])
        for spec in plan:
            for name, input_schema in spec.inputs.items():
                if "default" not in input_schema and name not in required:
                    required.append(name)
        schema["required"] = required
        return schema

    def declare_tools(self, tools: tuple[str, ...]) -> None:
        """The suite's declared tools, for the examples of tool-name lists (see above)."""
        if tools != self.declared_tools:
            self.declared_tools = tools
            self._schemas.clear()

    def _with_tool_example(self, placed: dict[str, Any]) -> dict[str, Any]:
        """A list of tool names (`x-tool-names`) gets the suite's own tools as its example,
        ahead of the spec's: `required_tools: 2` is told `e.g. [mysql_slow_log, log_search]`
        in the words of the agent at hand."""
        names = [t for t in self.declared_tools if not is_glob(t)][:2]
        if not names or placed.get("type") != "array" or not placed.get(TOOL_MARK):
            return placed
        return {**placed, "examples": [names]}

    def unit_of(self, name: str) -> str | None:
        """The unit kind (`duration`, `share`, `size`) input `name` declares, if any."""
        kind = self.inputs.get(name, {}).get(UNIT_MARK)
        return kind if kind in UNIT_KINDS else None

    def requirers(self, name: str, plan: Iterable[Spec]) -> list[str]:
        """The specs of a plan that need `name` (declare it without a default)."""
        return [s.id for s in plan if name in s.inputs and "default" not in s.inputs[name]]

    def readers(self, name: str, specs: Iterable[Spec]) -> list[str]:
        return [s.id for s in specs if name in s.inputs or name in s.reads]
