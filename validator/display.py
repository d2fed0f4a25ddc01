"""Text from traces and case files, made safe to show: on a terminal, in a CI log, in Markdown.

A trace is written by the agent under test, so any text in it may try to rewrite the
terminal (ESC sequences), forge a CI log line (a newline, then `::error ...` or
`::add-mask::`), reverse what a reader sees (bidi controls), crash an encoder (a lone
surrogate), or, in Markdown on GitHub, link a URL or notify an @mention. Every such text goes
through one of these functions before it is printed or written into report.md.
"""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, bidi embeddings/overrides/isolates, the line and paragraph
# separators, and lone surrogates: shown as visible escapes, never passed through.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ud800-\udfff]"
)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char == "\n":
        return "\\n"
    if char == "\r":
        return "\\r"
    if char == "\t":
        return "\\t"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def one_line(text: object) -> str:
    """`text` as one line of plain characters: every control, separator, bidi control and
    lone surrogate written as a visible escape (`\\x1b`, `\\n`, `\\u202e`, `\\udc80`), so
    no text can start a line of its own, move the cursor or fail to encode."""
    value = str(text)
    if value.isprintable() and value.isascii():  # the common case, kept cheap
        return value
    return _UNSAFE.sub(_escape, value)


ECHO_CHARS = 200  # of a value from a trace or a file echoed in a message (a case id, a name)


def shorten(text: str, limit: int = ECHO_CHARS) -> str:
    """`text` cut to about `limit` characters, with a marker that says how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


# What GitHub's Markdown turns into a link or a notification: URLs with a scheme, bare
# www. hosts, e-mail addresses and @mentions. A zero-width space after the first character
# of each keeps it readable and inert.
_LIVE = re.compile(r"(?i)\b(?:https?|ftp|file|mailto|javascript|data):|\bwww\.|@(?=\w)")


def inert(text: str) -> str:
    """`text` with URLs, www. hosts, e-mail addresses and @mentions made inert for Markdown."""
    return _LIVE.sub(lambda m: m.group()[0] + "\u200b" + m.group()[1:], text)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_command(
    level: str,
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    col: int | None = None,
    title: str | None = None,
) -> str:
    """A GitHub Actions workflow command, `::error file=F,line=L,col=C,title=T::message`.

    Every part is made one safe line first (`one_line`), then escaped as the runner reads
    it (`%`, CR and LF in the message; also `:` and `,` in properties), so no text from a
    trace can end the command early or start another. `message` may hold line breaks: they
    are kept, as the runner's %0A."""
    props = [
        f"{name}={value}"
        for name, value in (
            ("file", _escape_property(one_line(file)) if file else None),
            ("line", str(line) if line else None),
            ("col", str(col) if col else None),
            ("title", _escape_property(one_line(title)) if title else None),
        )
        if value is not None
    ]
    text = "\n".join(one_line(part) for part in message.split("\n"))
    return (
        f"::{level} {','.join(props)}::{_escape_data(text)}"
        if props
        else f"::{level}::{_escape_data(text)}"
    )
