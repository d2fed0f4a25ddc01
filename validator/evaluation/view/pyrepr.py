"""Python `repr` text read as data, safely: some frameworks write their records with `str()`
(smolagents' memory steps, `ActionStep(tool_calls=[ToolCall(name=...)], ...)`, and its tool
call lists, `[{'id': ..., 'function': {...}}]`), not as JSON.

Nothing is evaluated: the text is parsed (`ast.parse`, which only builds a syntax tree) and
the tree is read node by node. Literals (text, numbers, None/True/False, lists, tuples,
dicts, sets) become their values; a call `Name(a, k=v)` becomes `{"__class__": "Name",
"__args__": [a], "k": v}`; a bare name becomes its text. Anything else (operators, lambdas,
comprehensions, attribute access on values) makes the whole text unreadable. Text longer
than MAX_CHARS is not parsed, nor is text nested deeper than the parser allows.
"""

from __future__ import annotations

import ast
from typing import Any

MAX_CHARS = 2_000_000  # a bound on the parser's time and memory for one repr
CLASS_KEY = "__class__"
ARGS_KEY = "__args__"


class _Unreadable(Exception):
    pass


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    raise _Unreadable(type(node).__name__)


def _constant(node: ast.Constant) -> Any:
    value = node.value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, complex) or value is Ellipsis:
        return repr(value)
    return value


def _dict(node: ast.Dict, depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in zip(node.keys, node.values, strict=True):
        if key is None:
            raise _Unreadable("** in a dict")
        k = _value(key, depth + 1)
        out[k if isinstance(k, str) else repr(k)] = _value(item, depth + 1)
    return out


def _signed(node: ast.UnaryOp, depth: int) -> Any:
    inner = _value(node.operand, depth + 1)
    if not isinstance(inner, (int, float)) or isinstance(inner, bool):
        raise _Unreadable("sign on a non-number")
    return -inner if isinstance(node.op, ast.USub) else inner


def _call(node: ast.Call, depth: int) -> dict[str, Any]:
    call: dict[str, Any] = {CLASS_KEY: _name(node.func)}
    if node.args:
        call[ARGS_KEY] = [_value(arg, depth + 1) for arg in node.args]
    for keyword in node.keywords:
        if keyword.arg is None:
            raise _Unreadable("** in a call")
        call[keyword.arg] = _value(keyword.value, depth + 1)
    return call


def _value(node: ast.expr, depth: int) -> Any:
    if depth > 200:
        raise _Unreadable("too deep")
    if isinstance(node, ast.Constant):
        return _constant(node)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [_value(item, depth + 1) for item in node.elts]
    if isinstance(node, ast.Dict):
        return _dict(node, depth)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _signed(node, depth)
    if isinstance(node, ast.Call):
        return _call(node, depth)
    if isinstance(node, (ast.Name, ast.Attribute)):
        return _name(node)  # e.g. an enum member written as MessageRole.USER
    raise _Unreadable(type(node).__name__)


def read_repr(text: str) -> tuple[bool, Any]:
    """(True, the value) when `text` is a Python repr this module reads, else (False, why)."""
    if len(text) > MAX_CHARS:
        return False, f"longer than {MAX_CHARS} characters"
    try:
        tree = ast.parse(text.strip(), mode="eval")
        return True, _value(tree.body, 0)
    except _Unreadable as exc:
        return False, f"not a Python literal or call (found {exc})"
    except SyntaxError as exc:
        return False, f"not Python syntax: {exc.msg}"
    except (ValueError, RecursionError, MemoryError) as exc:
        return False, f"{type(exc).__name__}: {exc}"


def balanced_prefix(text: str, start: int) -> str | None:
    """The bracketed Python value that starts at `text[start]` (`{`, `[` or `(`), quotes
    respected, or None when it does not close. Linear in the text."""
    closers = {"{": "}", "[": "]", "(": ")"}
    if not 0 <= start < len(text) or text[start] not in closers:
        return None
    stack: list[str] = []
    quote: str | None = None
    index = start
    while index < len(text):
        char = text[index]
        if quote is not None:
            if char == "\\":
                index += 2
                continue
            if text.startswith(quote, index):
                index += len(quote)
                quote = None
                continue
        elif char in "'\"":
            quote = char * 3 if text.startswith(char * 3, index) else char
            index += len(quote)
            continue
        elif char in closers:
            stack.append(closers[char])
        elif stack and char == stack[-1]:
            stack.pop()
            if not stack:
                return text[start : index + 1]
        index += 1
    return None
