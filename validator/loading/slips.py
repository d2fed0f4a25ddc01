"""Authoring slips: what a person typed meaning YAML syntax or a list, that YAML reads
as something else, so a check could never be met. Each is found at the character at fault.

- Full-width punctuation from a Chinese input method where YAML syntax was meant: `id：x`
  (a full-width colon after a key), `－ item` (a full-width dash as a list marker).
- A list written as one entry: `- rebalance storm, consumer lag, offset reset`.
- Typographic quotes around a value: `- “payments-consumer”` (YAML keeps the quotes).
- An unquoted value cut short by ` #` where the rest does not look like a comment.
- A value left empty by ` #` right after `:` or `- `: `order_id: #W5362037` is null, and
  so is the entry `- #kafka_delete_topic` (an error: the value a check was meant to compare
  is gone).
- Layout the parser reports late or in its own words: `-payments-consumer` among `- `
  entries (a dash without its space), and a key indented deeper than the key above it
  (`dash_slips`, `deeper_key`: used when the parser fails, at the line at fault).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from itertools import pairwise

from .. import codes
from ..dataclass import dataclass

# A key (or a list entry's key) followed by a full-width colon, at the start of a line.
_FULL_COLON = re.compile(r"^(\s*(?:-\s+)?)([A-Za-z_][\w.-]*)\s*(：)")
_FULL_DASH = re.compile(r"^(\s*)(－|—|–)(\s*)")


@dataclass(frozen=True)
class Slip:
    """A slip of the pen in a YAML file (full-width punctuation), at its line and column."""

    line: int  # 1-based
    column: int  # 1-based
    code: str
    message: str
    fix: str = ""  # the line to paste, when there is one


def syntax_slips(text: str) -> list[Slip]:
    """Full-width punctuation where YAML syntax was meant, each at its character."""
    if not any(mark in text for mark in ("：", "－", "—", "–")):
        return []  # the common case: nothing to look for
    return list(_line_slips(text))


def _line_slips(text: str) -> Iterator[Slip]:
    block_indent: int | None = None  # inside a | or > block: text, not syntax
    for number, line in enumerate(text.split("\n"), start=1):
        indent = len(line) - len(line.lstrip(" "))
        if block_indent is not None and (not line.strip() or indent > block_indent):
            continue
        block_indent = None
        if line.rstrip().endswith(("|", ">", "|-", ">-", "|+", ">+")):
            block_indent = indent
        colon = _FULL_COLON.match(line)
        if colon:
            column = colon.start(3) + 1
            key = colon.group(2)
            yield Slip(
                number,
                column,
                codes.FULL_WIDTH_SYNTAX,
                f"'：' after '{key}' is a full-width colon (a Chinese input method types it):"
                f" YAML needs the ASCII ':' followed by a space, '{key}: ...'",
            )
            continue
        dash = _FULL_DASH.match(line)
        if dash and line.strip() not in ("—", "–"):
            yield Slip(
                number,
                dash.start(2) + 1,
                codes.FULL_WIDTH_SYNTAX,
                f"'{dash.group(2)}' is not a list dash: YAML lists start with the ASCII '-'"
                " followed by a space, '- item'",
            )


# --------------------------------------------------------------------------------------------
# Values

_SEPARATORS = re.compile(r",\s+|，\s*|、\s*|;\s+|；\s*")


@cache
def _cjk() -> re.Pattern[str]:
    # Compiled on first use (2 ms: its ranges are large); most values never get here.
    return re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")


_QUOTES = (("“", "”"), ("‘", "’"), ("„", "“"), ("«", "»"), ("「", "」"), ("『", "』"), ("〝", "〞"))


def _short(part: str) -> bool:
    """A part that reads as a keyword of its own: a few words (or a few Chinese
    characters), not a clause of a sentence."""
    part = part.strip()
    if not part:
        return False
    cjk = len(_cjk().findall(part))
    return cjk <= 6 if cjk else len(part.split()) <= 3


SEPARATOR_CHAR = re.compile("[,，、;；]")  # one cheap search before the careful one


def looks_like_list(value: str) -> list[str] | None:
    """The entries `value` seems to list (`a, b, c`), or None when it reads as one phrase.

    A phrase such as `1,000 connections` (no space after the comma) or `Lock wait timeout
    exceeded; try restarting transaction` (a clause of several words on a side) is not a list:
    every part must be short for the value to read as several keywords."""
    if not SEPARATOR_CHAR.search(value) or not _SEPARATORS.search(value):
        return None
    parts = [p.strip() for p in _SEPARATORS.split(value)]
    if len(parts) >= 2 and all(_short(p) for p in parts):
        return parts
    return None


_OPENINGS = frozenset(opening for opening, _ in _QUOTES)


def typographic_quotes(value: str) -> tuple[str, str] | None:
    """The quote pair wrapping `value`, when it is wrapped in typographic quotes."""
    first = value[:1]
    if first not in _OPENINGS and not (first.isspace() and value.lstrip()[:1] in _OPENINGS):
        return None  # the common case, kept cheap: every list entry of every case comes here
    text = value.strip()
    for opening, closing in _QUOTES:
        if len(text) >= 2 and text.startswith(opening) and text.endswith(closing):
            return opening, closing
    return None


@cache
def _cut() -> re.Pattern[str]:
    # Compiled on first use (4 ms); only a file with ' #' in it needs it.
    return re.compile(
        r"^\s*(?:-\s+(?:[A-Za-z_][\w.-]*:\s+)?|[A-Za-z_][\w.-]*:\s+)"
        r"([^\s'\"\[{|>&*!#][^#]*?)\s#(\S.*)$"
    )


def comment_cuts(text: str) -> list[Slip]:
    """Unquoted values (of a key, or a list entry) cut by ` #` where the text after it does
    not read as a comment: `question: why did build #42 fail?` means the question, but YAML
    reads `why did build`. Lines inside a `|` or `>` block are text, not values."""
    if " #" not in text:
        return []
    out = []
    block_indent: int | None = None  # inside a | or > block: text, not values
    for number, line in enumerate(text.split("\n"), start=1):
        indent = len(line) - len(line.lstrip(" "))
        if block_indent is not None and (not line.strip() or indent > block_indent):
            continue
        block_indent = None
        if line.rstrip().endswith(("|", ">", "|-", ">-", "|+", ">+")):
            block_indent = indent
        match = _cut().match(line)
        if match is None or match.group(2).startswith("#"):
            continue
        kept = match.group(1)
        cut = "#" + match.group(2)
        out.append(
            Slip(
                number,
                match.start(2),
                codes.COMMENT_IN_VALUE,
                f"YAML reads ' {cut}' as a comment, so the value is only '{kept}':"
                " put the whole value in quotes if the '#' belongs to it",
            )
        )
    return out


# --------------------------------------------------------------------------------------------
# Values emptied by a comment

_TOKEN = re.compile(r"#[^\s,\]}]*")
_KEY_BEFORE = re.compile(r"""((?:[^\s{\[,:'"]|:(?=\S))+|'[^']*'|"[^"]*")\s*:\s*$""")


def emptied_by_comment(line: str, number: int, hash_at: int) -> Slip:
    """The slip of a value that ` #` at `hash_at` (0-based) left empty on line `number`:
    at the `#`, with the line to paste (the key, or a list dash, and the value quoted)."""
    token = _TOKEN.match(line, hash_at)
    value = token.group(0) if token else "#"
    before = line[:hash_at].rstrip()
    key = _KEY_BEFORE.search(before)
    if key:
        fix = f'{key.group(1)}: "{value}"'
    elif before.endswith("-"):
        fix = f'- "{value}"'
    else:
        fix = f'"{value}"'
    message = f"`#` starts a comment in YAML, so this value is empty: quote it: {fix}"
    return Slip(number, hash_at + 1, codes.COMMENT_IN_VALUE, message)


_FLOW_HASH = re.compile(r"\s#(?=[^\s#])")


def flow_comment_slips(text: str) -> list[Slip]:
    """Values inside a flow mapping or list (`{order_id: #W5362037}`, `[build, issue #42]`)
    that ` #` empties or cuts: the comment swallows the closing bracket too, so YAML reports
    a syntax error lines later; this says where and why."""
    if " #" not in text:
        return []
    out = []
    for number, line in enumerate(text.split("\n"), start=1):
        for match in _FLOW_HASH.finditer(line):
            before = line[: match.start() + 1]
            if before.count("{") + before.count("[") <= before.count("}") + before.count("]"):
                continue  # not inside brackets: the block rules apply
            hash_at = match.end() - 1
            if before.rstrip()[-1:] in (":", ",", "[", "{"):
                out.append(emptied_by_comment(line, number, hash_at))
            else:
                start = max(before.rfind(c) for c in ",[{:") + 1
                end = re.compile(r"[,\]}]|$").search(line, hash_at)
                value = line[start : end.start() if end else len(line)].strip()
                message = (
                    f"YAML reads '{line[hash_at:].rstrip()}' as a comment, closing bracket"
                    f' included, so the value is cut: quote it: "{value}"'
                )
                out.append(Slip(number, hash_at + 1, codes.COMMENT_IN_VALUE, message))
            break
    return out


# --------------------------------------------------------------------------------------------
# Layout: what the parser reports a line or two late, or in its own words

_DASH_NO_SPACE = re.compile(r"^( *)-([^\s\-].*)$")
_KEY_LINE = re.compile(r"^( *)([A-Za-z_][\w.-]*)\s*:(\s|$)")


def _content_lines(text: str) -> list[tuple[int, str]]:
    """(1-based number, line) of each line that is neither blank nor only a comment."""
    return [
        (n, ln)
        for n, ln in enumerate(text.split("\n"), start=1)
        if ln.strip() and not ln.lstrip().startswith("#")
    ]


def dash_slips(text: str) -> list[Slip]:
    """`-payments-consumer` among `- ` entries: a list dash without its space (YAML reads
    a key-less line there and reports it on the next line)."""
    found = []
    lines = _content_lines(text)
    for (_, before), (number, line) in pairwise(lines):
        match = _DASH_NO_SPACE.match(line)
        if not match or ": " in line:
            continue
        indent = match.group(1)
        if before.startswith(indent + "- ") or before.rstrip().endswith(":"):
            value = match.group(2).strip()
            found.append(
                Slip(
                    number,
                    len(indent) + 1,
                    codes.YAML_SYNTAX,
                    f"put a space after '-': '-{value}' is not a list entry without it;"
                    f" write `- {value}`",
                    f"{indent}- {value}",
                )
            )
    return found


def deeper_key(text: str, near: int) -> Slip | None:
    """A `key:` line at or just before line `near` indented deeper than the key above it
    that it lines up with none of (the parser's words: 'did not find expected key')."""
    lines = _content_lines(text)
    for index, (number, _) in enumerate(lines):
        if number > near:
            break
        if number < near - 2 or index == 0:
            continue
        found = _deeper(lines, index)
        if found is not None:
            return found
    return None


def _deeper(lines: list[tuple[int, str]], index: int) -> Slip | None:
    """The slip of line `index` when it is a key indented deeper than any key written
    before it at its column, under no block opened just above."""
    number, line = lines[index]
    match = _KEY_LINE.match(line)
    if not match or not match.group(1):
        return None
    indent = len(match.group(1))
    previous = lines[index - 1][1]
    if previous.rstrip().endswith(":") and not previous.lstrip().startswith("- "):
        return None  # the first key of a block opened just above
    keys = [m for _, ln in lines[:index] if (m := _KEY_LINE.match(ln))]
    if any(len(m.group(1)) == indent for m in keys):
        return None  # lines up with a key written before: not this mistake
    above = [m for m in keys if len(m.group(1)) < indent]
    if not above:
        return None
    parent = above[-1]
    column = len(parent.group(1)) + 1
    who = "keys of one case" if column == 1 else "keys of one block"
    return Slip(
        number,
        indent + 1,
        codes.YAML_SYNTAX,
        f"line {number} is indented deeper than the key above it"
        f" (`{parent.group(2)}:` at column {column}); {who} start at the same column:"
        f" move `{match.group(2)}:` to column {column}",
        " " * (column - 1) + line.strip(),
    )
