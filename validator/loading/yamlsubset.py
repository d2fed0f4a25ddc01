"""The YAML people write by hand, read without a YAML parser.

Case files, and most spec and config files, use a small part of YAML: `key: value` lines,
lists written with `- ` or in `[ ]`, `{ }` on one line, text quoted on one line, `>` and `|`
blocks, comments. `read` reads exactly that part, line by line in Python, in about half the
time of composing libyaml's node tree and building data from it (`yamlfile`; ~55 us against
~120 us for a 15-line case file) and without importing ruamel.yaml, and gives the same data
and the same position for every key and value. For anything else it answers
None and `yamlfile` reads the file the full way, with every problem and hint it finds: an
anchor or alias, a tag, text or a list spread over lines, a tab or a control character, a
duplicate or quoted key, an empty value, a backslash in double quotes, a number or date
written any way but `12`, `-3` or `0.25`, a `---` after the first document marker.

So which path reads a file never changes what it means: the tests compare the two on every
YAML file in the repository and in the test data, and on thousands of edits of them
(tests/unit/loading/test_yamlsubset.py). The rules of YAML 1.2 that matter here, as libyaml
and ruamel apply them: a plain value is text unless it is exactly a boolean (`true`,
`False`, ...), a null (`null`, `~`, ...) or a number; a comment starts at a `#` after a
space; a key is followed by `: ` or by `:` at the end of its line; the entries of one block
start at one column, and a list may stand at its key's column (`key:` then `- entry`).
"""

from __future__ import annotations

import re
from typing import Any

# A file larger than this is read the full way (whose node count bounds hostile files).
MAX_TEXT = 32 * 1024
MAX_DEPTH = 40

# Characters the fast path leaves to the full one: a tab, a carriage return, the line breaks
# editors do not count (NEL, U+2028, U+2029), characters YAML does not allow (C0 and C1
# controls, surrogates, U+FEFF inside a text, U+FFFE, U+FFFF).
_UNSURE = re.compile(
    "[\t\r\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufeff\ufffe\uffff\u2028\u2029]"
)

# A plain key at the start of an entry, and the `: ` (or `:` at the end of the line) after
# it. No quote, bracket, comment sign or other YAML indicator in or before it.
_KEY = re.compile(r"((?:[^\s#'\"\[\]{}&*!|>%@`,?:\-]|-[^\s#])(?:[^#:]|:(?! |$))*?)(?<! ):(?: +|$)")
# The common key (letters, digits, `_`, `-`, `.`), found faster than by `_KEY`.
_WORD_KEY = re.compile(r"([A-Za-z_][\w.\-]*):(?: +|$)", re.ASCII)
# The same in a `{ }` mapping, where a key also stops at a bracket or a comma (and libyaml
# refuses a `?` inside one).
_FLOW_KEY = re.compile(r"([^\s#'\"\[\]{}&*!|>%@`,?:\-][^#,\[\]{}:?]*?)(?<! ): +")
# A plain value inside `[ ]` or `{ }`: up to the next comma or bracket.
_FLOW_PLAIN = re.compile(r"(?:[^\s#'\"\[\]{}&*!|>%@`,?:\-]|-[^\s#,\[\]{}:?])[^#,\[\]{}:?]*")
# The same followed by spaces, then the `,` or `]` after it, and the spaces after a comma.
_FLOW_ITEM = re.compile(
    r"((?:[^\s#'\"\[\]{}&*!|>%@`,?:\-]|-[^\s#,\[\]{}:?])(?:[^#,\[\]{}:?]*[^ #,\[\]{}:?])?) *([,\]]) *"
)
# Characters that cannot start a plain value in a block (`-` only before a space).
_NOT_PLAIN = frozenset("?:,[]{}#&*!|>'\"%@`")
# A block scalar's header: `|` or `>`, `-` (strip) or nothing (clip), then a comment at most.
_HEADER = re.compile(r"([|>])(-?)(?: +#.*| *)$")

_BOOLEANS = {
    "true": True,
    "True": True,
    "TRUE": True,
    "false": False,
    "False": False,
    "FALSE": False,
}
_NULLS = frozenset(("~", "null", "Null", "NULL"))
_NUMBER_START = frozenset("-+.0123456789")
# The first characters of a plain value that may not be text (see `_scalar`).
_RESOLVED = _NUMBER_START | frozenset("tTfFnN~<=")
_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})\Z")
_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})\.[0-9]{1,17}\Z")
# Every character a YAML number or date can hold (`1_000`, `0x1F`, `0o17`, `1e3`, `.inf`,
# `.NaN`, `2024-01-31 10:00:00Z`): a value starting like a number and made only of these
# may be one and is left to the full path; any other character (`30s`, `70%`, `3分钟`)
# makes it text.
_NUMBERISH = re.compile(r"[0-9a-fA-FxobinINtTZ_.+\-: ]*\Z")

_Path = tuple[str | int, ...]  # keys and list indexes (yamlfile's PathKey)
# A path into the data -> (line, column), both 1-based.
Places = dict[_Path, tuple[int, int]]
Read = tuple[Any, Places, Places]


class _Unsure(Exception):
    """The text uses YAML this reader leaves to the full one."""


def read(text: str) -> Read | None:
    """The data of a YAML text with where each value and each key starts (1-based lines and
    columns, by path), or None when the text is not in the part of YAML read here."""
    if len(text) > MAX_TEXT or _UNSURE.search(text):
        return None
    reader = _Reader(text)
    try:
        data = reader.document()
    except (_Unsure, IndexError, RecursionError):
        return None
    return data, reader.values, reader.keys


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _dash(line: str, at: int) -> bool:
    """Whether a list entry's `-` stands at column `at` of `line`."""
    return line.startswith("-", at) and (len(line) == at + 1 or line[at + 1] == " ")


def _key(line: str, at: int) -> re.Match[str] | None:
    """A plain key written from column `at`, with its `: ` (group 1: the key)."""
    return _WORD_KEY.match(line, at) or _KEY.match(line, at)


def _comment_or_nothing(rest: str) -> bool:
    """What may follow a value on its line: spaces, then a comment after a space."""
    tail = rest.lstrip(" ")
    return not tail or (tail[0] == "#" and rest[0] == " ")


def _scalar(text: str) -> Any:
    """A plain value as YAML 1.2 (ruamel's resolver) reads it; _Unsure for a value that may
    be a number or a date written another way than this reader knows."""
    first = text[0]
    if first in _NUMBER_START:
        if _INT.match(text):
            return int(text)
        if _FLOAT.match(text):
            return float(text)
        if _NUMBERISH.match(text):
            raise _Unsure
        return text
    if first in "tTfF":
        return _BOOLEANS.get(text, text)
    if first in "nN~":
        return None if text in _NULLS else text
    if text in ("<<", "="):  # a merge key, YAML 1.1's value key
        raise _Unsure
    return text


class _Reader:
    """One text's lines, read top-down; `values` and `keys` fill as the data is made."""

    __slots__ = ("keys", "lines", "values")

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.values: Places = {}
        self.keys: Places = {}

    def _ahead(self, i: int) -> tuple[int, int, bool]:
        """The first line from `i` on that holds more than a comment: its index (the number
        of lines when there is none), its indentation, and whether it is a list entry."""
        lines = self.lines
        while i < len(lines):
            content = lines[i].lstrip(" ")
            if content and content[0] != "#":
                dash = content[0] == "-" and content[1:2] in ("", " ")  # `_dash`, inlined
                return i, len(lines[i]) - len(content), dash
            i += 1
        return i, 0, False

    def document(self) -> Any:
        lines = self.lines
        i, indent, dash = self._ahead(0)
        if i < len(lines) and lines[i].startswith("---"):
            if lines[i].rstrip(" ") != "---":
                raise _Unsure  # a value or a comment on the marker's line
            i, indent, dash = self._ahead(i + 1)
        if i == len(lines) or indent:
            raise _Unsure  # no document, or one that starts indented
        if dash:
            data, i = self._sequence(i, 0, (), 0)
        else:
            data, i = self._mapping(i, 0, 0, (), 0)
        if self._ahead(i)[0] != len(lines):
            raise _Unsure  # something after the document: a marker, a stray line
        return data

    def _mapping(self, i: int, n: int, col: int, path: _Path, depth: int) -> tuple[Any, int]:
        """The block mapping whose keys start at column `n`, its first key at column `col`
        of line `i` (after a list entry's `- `, `col` is past the dash); and the index of
        the line after it."""
        if depth > MAX_DEPTH:
            raise _Unsure
        lines, keys = self.lines, self.keys
        out: dict[str, Any] = {}
        self.values[path] = (i + 1, col + 1)
        at = col
        while True:
            line = lines[i]
            found = _key(line, at)
            if found is None:
                raise _Unsure
            key = found.group(1)
            if key in out or key == "<<" or len(key) > 1000:
                raise _Unsure  # a duplicate key, a merge key: the full path says what to do
            entry = (*path, key)
            keys[entry] = (i + 1, at + 1)
            out[key], i = self._value(line, found.end(), i, n, entry, depth + 1)
            i, indent, dash = self._ahead(i)
            if i == len(lines) or indent < n or (indent == n and dash):
                return out, i  # a list at the mapping's column belongs to the one above
            if indent > n:
                raise _Unsure
            at = n

    def _sequence(self, i: int, m: int, path: _Path, depth: int) -> tuple[Any, int]:
        """The block list whose entries' dashes stand at column `m`, from line `i`."""
        if depth > MAX_DEPTH:
            raise _Unsure
        lines = self.lines
        out: list[Any] = []
        self.values[path] = (i + 1, m + 1)
        while True:
            line = lines[i]
            c = len(line) - len(line[m + 1 :].lstrip(" "))
            if c == len(line) or line[c] == "#" or _dash(line, c):
                raise _Unsure  # an empty entry, or a list in a list's entry
            item = (*path, len(out))
            if _key(line, c):
                value, i = self._mapping(i, c, c, item, depth + 1)
            else:
                value, i = self._value(line, c, i, m, item, depth + 1)
            out.append(value)
            i, indent, dash = self._ahead(i)
            if i == len(lines) or indent < m or (indent == m and not dash):
                return out, i
            if indent > m:
                raise _Unsure

    def _value(
        self, line: str, at: int, i: int, n: int, path: _Path, depth: int
    ) -> tuple[Any, int]:
        """The value written from column `at` of line `i`, in a block at column `n`, and the
        index of the line after it."""
        if at == len(line) or line[at] == "#":  # the block below
            return self._below(i + 1, n, path, depth)
        first = line[at]
        if first == "|" or first == ">":
            return self._block_text(line, at, i, n, path)
        if first == "[" or first == "{":
            value, end = self._flow(line, at, i, path, depth)
        elif first == '"' or first == "'":
            self.values[path] = (i + 1, at + 1)
            value, end = _quoted(line, at)
        else:
            self.values[path] = (i + 1, at + 1)
            return _plain(line, at), i + 1
        if not _comment_or_nothing(line[end:]):
            raise _Unsure
        return value, i + 1

    def _below(self, i: int, n: int, path: _Path, depth: int) -> tuple[Any, int]:
        """The value of a key at column `n` that ends its line: the block from line `i` on
        (an empty list entry never comes here)."""
        i, indent, dash = self._ahead(i)
        if i == len(self.lines):
            raise _Unsure  # an empty value: null, or one a comment emptied
        if indent == n and dash:
            return self._sequence(i, n, path, depth)
        if indent <= n:
            raise _Unsure
        if dash:
            return self._sequence(i, indent, path, depth)
        return self._mapping(i, indent, indent, path, depth)

    def _flow(self, line: str, k: int, i: int, path: _Path, depth: int) -> tuple[Any, int]:
        """A `[ ]` or `{ }` value opened at column `k` and closed on the same line, and the
        column after it."""
        if depth > MAX_DEPTH:
            raise _Unsure
        self.values[path] = (i + 1, k + 1)
        if line[k] == "[":
            return self._flow_list(line, _skip(line, k + 1), i, path, depth)
        return self._flow_mapping(line, _skip(line, k + 1), i, path, depth)

    def _flow_list(self, line: str, k: int, i: int, path: _Path, depth: int) -> tuple[Any, int]:
        out: list[Any] = []
        if line[k] == "]":
            return out, k + 1
        while True:
            item = _FLOW_ITEM.match(line, k)
            if item is not None:  # a plain value and what follows it: the common case
                text, follows = item.groups()
                self.values[(*path, len(out))] = (i + 1, k + 1)
                out.append(_scalar(text) if text[0] in _RESOLVED else text)
                k = item.end()
                if follows == "]":
                    return out, k
                if line[k] == "]":
                    raise _Unsure  # a trailing comma
                continue
            value, k = self._flow_value(line, k, i, (*path, len(out)), depth + 1)
            out.append(value)
            k, closed = _separator(line, k, "]")
            if closed:
                return out, k

    def _flow_mapping(self, line: str, k: int, i: int, path: _Path, depth: int) -> tuple[Any, int]:
        out: dict[str, Any] = {}
        if line[k] == "}":
            return out, k + 1
        while True:
            found = _FLOW_KEY.match(line, k)
            if found is None or found.group(1) in out or found.group(1) == "<<":
                raise _Unsure
            key = found.group(1)
            self.keys[(*path, key)] = (i + 1, k + 1)
            out[key], k = self._flow_value(line, found.end(), i, (*path, key), depth + 1)
            k, closed = _separator(line, k, "}")
            if closed:
                return out, k

    def _flow_value(self, line: str, k: int, i: int, path: _Path, depth: int) -> tuple[Any, int]:
        first = line[k]
        if first == "[" or first == "{":
            return self._flow(line, k, i, path, depth)
        self.values[path] = (i + 1, k + 1)
        if first == '"' or first == "'":
            return _quoted(line, k)
        found = _FLOW_PLAIN.match(line, k)
        if found is None:
            raise _Unsure
        text = found.group().rstrip(" ")
        return _scalar(text), k + len(text)

    def _block_text(self, line: str, at: int, i: int, n: int, path: _Path) -> tuple[str, int]:
        """A `|` (literal) or `>` (folded) text whose header is at column `at` of line `i`,
        clipped (one final line break) or stripped (`-`, none), in a block at column `n`."""
        header = _HEADER.match(line, at)
        if header is None:
            raise _Unsure  # `+` (keep) or an indentation digit
        self.values[path] = (i + 1, at + 1)
        literal = header.group(1) == "|"
        body, j = self._block_lines(i + 1, n, literal)
        value = "\n".join(body) if literal else _folded(body)
        return value if header.group(2) else value + "\n", j

    def _block_lines(self, j: int, n: int, literal: bool) -> tuple[list[str], int]:
        """The lines of a block text from line `j`, its indentation taken away (blank lines
        as empty ones, none at the end), and the index of the line after it."""
        lines = self.lines
        indent = _indent(lines[j])
        if indent == len(lines[j]) or indent <= n:
            raise _Unsure  # a blank first line, or no text at all
        body: list[str] = []
        while j < len(lines):
            text = lines[j]
            spaces = _indent(text)
            if spaces == len(text):
                if spaces > indent:
                    raise _Unsure  # spaces beyond the indentation: text in a literal
                body.append("")
            elif spaces < indent:
                break
            else:
                text = text[indent:]
                if not literal and (text[0] == " " or text[-1] == " "):
                    raise _Unsure  # a more-indented or space-ended line: folded its own way
                body.append(text)
            j += 1
        if j == len(lines) and lines[-1] != "":
            raise _Unsure  # the text ends without a line break
        while body[-1] == "":
            body.pop()
        return body, j


def _folded(body: list[str]) -> str:
    """Folded lines: one line break between two lines is a space, and each blank line
    between them a line break."""
    value, blanks = body[0], 0
    for text in body[1:]:
        if not text:
            blanks += 1
            continue
        value += ("\n" * blanks if blanks else " ") + text
        blanks = 0
    return value


def _plain(line: str, at: int) -> Any:
    """The plain value written from column `at` to the end of the line or a comment."""
    rest = line[at:]
    cut = rest.find(" #")
    text = (rest if cut < 0 else rest[:cut]).rstrip(" ")
    first = text[0]
    if first in _NOT_PLAIN or (first == "-" and (len(text) == 1 or text[1] == " ")):
        raise _Unsure
    if ": " in text or text[-1] == ":":
        raise _Unsure  # a key in a value: the full path explains
    return _scalar(text) if first in _RESOLVED else text


def _separator(line: str, k: int, closing: str) -> tuple[int, bool]:
    """After an entry of a `[ ]` or `{ }`: the column of the next entry, or the column after
    the closing bracket and True when it closes there (_Unsure for anything else, a
    trailing comma included)."""
    k = _skip(line, k)
    if line[k] == closing:
        return k + 1, True
    if line[k] != ",":
        raise _Unsure
    k = _skip(line, k + 1)
    if line[k] == closing:
        raise _Unsure  # a trailing comma
    return k, False


def _skip(line: str, k: int) -> int:
    """The column of the next character that is not a space (IndexError at the line's end:
    a `[ ]` or `{ }` not closed on its line)."""
    while line[k] == " ":
        k += 1
    return k


def _quoted(line: str, k: int) -> tuple[str, int]:
    """The text quoted from column `k` to its closing quote on the same line, and the
    column after that quote."""
    if line[k] == '"':
        end = line.find('"', k + 1)
        if end < 0:
            raise _Unsure  # over several lines
        if "\\" not in line[k + 1 : end]:
            return line[k + 1 : end], end + 1
        found = _ESCAPED.match(line, k)
        if found is None:
            raise _Unsure  # a backslash at the end of the line: text over several lines
        return _UNESCAPE.sub(_unescaped, found.group(1)), found.end()
    parts, start = [], k + 1
    while True:
        end = line.find("'", start)
        if end < 0:
            raise _Unsure
        if line.startswith("'", end + 1):  # '' is one quote
            parts.append(line[start : end + 1])
            start = end + 2
            continue
        parts.append(line[start:end])
        return "".join(parts), end + 1


# Text in double quotes, escapes and all, closed on its line.
_ESCAPED = re.compile(r'"((?:[^"\\]|\\.)*)"')
_UNESCAPE = re.compile(r"\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))")
# YAML's one-character escapes (`\t`, `\n`, `\"`, ...) and what each stands for.
_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}


def _unescaped(escape: re.Match[str]) -> str:
    """The character an escape stands for; _Unsure for one YAML does not know, or for half
    of a character pair (`\\ud800`), which the full path reports."""
    code = escape.group(1) or escape.group(2) or escape.group(3)
    if code is None:
        found = _ESCAPES.get(escape.group(4))
        if found is None:
            raise _Unsure
        return found
    number = int(code, 16)
    if 0xD800 <= number <= 0xDFFF or number > 0x10FFFF:
        raise _Unsure
    return chr(number)
