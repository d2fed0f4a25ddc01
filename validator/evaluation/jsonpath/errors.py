"""What goes wrong with a query: at compile time (QueryError, with the column) and on one
document (QueryEvaluationError, with the reason in plain words)."""

from __future__ import annotations

import re
from typing import Any


class Unevaluable(Exception):
    """Raised inside an evaluation with the plain reason for QueryEvaluationError."""


class QueryError(ValueError):
    """A JSONPath expression that does not compile.

    Carries the failing column so spec loaders can point at the exact character in
    the YAML file instead of echoing jsonpath-ng's parser-internal message.
    """

    expression: str
    column: int
    message: str

    def __init__(self, expression: str, column: int, message: str) -> None:
        self.expression = expression
        self.column = column
        self.message = message
        super().__init__(f"invalid JSONPath {expression!r}: {message} (column {column})")

    def __reduce__(self) -> tuple[Any, ...]:
        # The default reduce would call __init__ with the formatted string only.
        return (type(self), (self.expression, self.column, self.message))

    def caret_lines(self, indent: str = "  ") -> list[str]:
        """The expression and a caret under the failing column, ready to print.

        Newlines and tabs are shown as spaces so that one character of the
        expression is one column of output and the caret stays aligned.
        """
        shown = self.expression.translate(_ONE_COLUMN)
        return [indent + shown, indent + " " * (max(self.column, 1) - 1) + "^"]


_ONE_COLUMN = str.maketrans({"\n": " ", "\r": " ", "\t": " ", "\f": " ", "\v": " "})


class QueryEvaluationError(Exception):
    """A compiled query that could not be evaluated on one document.

    Never to be read as "no match": a check that cannot evaluate its query must fail (an
    `absent` check would otherwise pass on a trace it could not look at). `reason` says
    what went wrong in plain words.
    """

    expression: str
    reason: str

    def __init__(self, expression: str, reason: str) -> None:
        self.expression = expression
        self.reason = reason
        super().__init__(f"cannot evaluate the JSONPath {expression} on this trace: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.expression, self.reason))


def reason(exc: BaseException) -> str:
    """What went wrong, in plain words, for QueryEvaluationError."""
    if isinstance(exc, Unevaluable):
        return str(exc)
    if isinstance(exc, RecursionError):
        return "the trace is nested too deeply for this expression (deeper than Python's recursion limit)"
    if isinstance(exc, MemoryError):
        return "it needs more memory than is available"
    if isinstance(exc, ZeroDivisionError):
        return "it divides by zero"
    if isinstance(exc, AssertionError):  # jsonpath-ng's Parent on the document root
        return "`parent` was applied to the document itself, which has no parent"
    if isinstance(exc, TypeError):
        return f"it compares or combines values of different types ({exc})"
    return f"{type(exc).__name__}: {exc}" if not isinstance(exc, ValueError) else str(exc)


# --------------------------------------------------------------------------- parse errors

_AT_LINE_COL = re.compile(r"at (\d+):(\d+)")
_LEXER_LINE_COL = re.compile(r"line (\d+), col (\d+)")
_NEAR_TOKEN = re.compile(r"near token (.*) \((\S+)\)$", re.DOTALL)
_UNEXPECTED_CHAR = re.compile(r"Unexpected character: (.)", re.DOTALL)


def _absolute_column(expression: str, line: int, col: int) -> int:
    """Turn jsonpath-ng's (line, col) into a 1-based column of the whole string.

    jsonpath-ng's lexer reports ``col`` as ``lexpos - latest_newline``, where
    ``latest_newline`` is the index of the last newline itself (0 on line 1), so the
    0-based offset is ``newline_index + col`` on later lines and ``col`` on line 1.
    """
    offset = col
    if line > 1:
        newline_index = -1
        for _ in range(line - 1):
            newline_index = expression.find("\n", newline_index + 1)
            if newline_index < 0:
                return len(expression) + 1
        offset = newline_index + col
    return min(max(offset, 0), len(expression)) + 1


def query_error(expression: str, exc: BaseException) -> QueryError:
    """Translate a jsonpath-ng exception into a QueryError with a column."""
    text = str(exc).strip()
    end = len(expression) + 1
    if "near the end of string" in text:
        return QueryError(expression, end, "unexpected end of expression: is a ']' or ')' missing?")
    if "Unexpected EOF in string literal" in text:
        return QueryError(
            expression, end, "unterminated quoted name or `operator`: a closing quote is missing"
        )
    lexer_pos = _LEXER_LINE_COL.search(text)
    if lexer_pos:
        column = _absolute_column(expression, int(lexer_pos[1]), int(lexer_pos[2]))
        char = _UNEXPECTED_CHAR.search(text)
        message = f"unexpected character {char[1]!r}" if char else text
        return QueryError(expression, column, message)
    parser_pos = _AT_LINE_COL.search(text)
    if parser_pos:
        column = _absolute_column(expression, int(parser_pos[1]), int(parser_pos[2]))
        token = _NEAR_TOKEN.search(text)
        if token and token[2] in ("WHERE", "WHERENOT"):
            message = f"unexpected reserved word {token[1]!r}: quote it as ['{token[1]}']"
        elif token:
            message = f"unexpected {token[1]!r}"
        elif text.startswith("Unknown named operator"):
            message = text.split(" at ")[0].replace("Unknown", "unknown")
            # jsonpath-ng reports the closing backquote; point at the opening one.
            opening = expression.rfind("`", 0, column - 1)
            if expression[column - 1 : column] == "`" and opening >= 0:
                column = opening + 1
        else:
            message = text
        return QueryError(expression, column, message)
    # Semantic errors raised by grammar actions (e.g. a regex against a query,
    # a bad `sub()` pattern) carry no position: point at the start.
    message = text[:1].lower() + text[1:] if text else type(exc).__name__
    return QueryError(expression, 1, message)
