"""Trace files -> parsed JSON documents, or a reason saying what is wrong and where.

Traces come from a live agent, so every way a file can be broken is expected here and turned
into a reason; nothing in this module raises for bad input.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .problems import kind_of

DEFAULT_MAX_TRACE_BYTES = 64 * 1024 * 1024


class TraceError(Exception):
    """A trace that cannot be evaluated; the message is the reason shown in the report."""


@dataclass
class ParsedTrace:
    document: dict[str, Any]
    notes: list[str] = field(default_factory=list)


class _Invalid:
    """Stands for NaN, Infinity and -Infinity while parsing; removed before evaluation."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def parse_trace(data: bytes | str, where: str = "") -> ParsedTrace:
    """Parse one trace document. Raises TraceError with a precise reason."""
    prefix = f"{where}: " if where else ""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")  # Windows tools write a byte-order mark
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
            raise TraceError(
                f"{prefix}not UTF-8 text: invalid byte 0x{data[exc.start]:02x} at line {line}"
                f" column {col}; save the trace as UTF-8"
            ) from None
    else:
        text = data[1:] if data.startswith("\ufeff") else data
    invalid: list[_Invalid] = []

    def constant(name: str) -> _Invalid:
        marker = _Invalid(name)
        invalid.append(marker)
        return marker

    try:
        document = json.loads(text, parse_constant=constant)
    except json.JSONDecodeError as exc:
        if not text.strip():
            raise TraceError(
                f"{prefix}the file is empty"
                if not text
                else f"{prefix}the file holds only whitespace"
            ) from None
        raise TraceError(
            f"{prefix}invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise TraceError(
            f"{prefix}the JSON nests too deeply to read (more than Python's recursion limit)"
        ) from None
    if not isinstance(document, dict):
        raise TraceError(
            f"{prefix}the top level must be a JSON object {{...}}, found {kind_of(document)}"
        )
    notes = _drop_invalid(document) if invalid else []
    return ParsedTrace(document, notes)


def _drop_invalid(document: dict[str, Any]) -> list[str]:
    """Remove NaN/Infinity values as if they were absent, saying where each was."""
    notes: list[str] = []
    stack: list[tuple[Any, str]] = [(document, "$")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key in [k for k, v in node.items() if isinstance(v, _Invalid)]:
                notes.append(f"non-standard JSON value {node[key].text} at {path}.{key} ignored")
                del node[key]
            stack.extend((v, f"{path}.{k}") for k, v in node.items() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            bad = [i for i, v in enumerate(node) if isinstance(v, _Invalid)]
            for i in bad:
                notes.append(f"non-standard JSON value {node[i].text} at {path}[{i}] ignored")
            if bad:
                node[:] = [v for v in node if not isinstance(v, _Invalid)]
            stack.extend(
                (v, f"{path}[{i}]") for i, v in enumerate(node) if isinstance(v, (dict, list))
            )
    return sorted(notes)


def read_trace_file(
    path: str | Path, root: Path | None, max_bytes: int = DEFAULT_MAX_TRACE_BYTES
) -> ParsedTrace:
    """Read and parse one trace file, refusing what must not be read. Raises TraceError."""
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            target = Path(path).resolve()
            if root is not None and not target.is_relative_to(root.resolve()):
                raise TraceError(
                    f"a symbolic link to {target}, outside the fixtures folder: refused; copy"
                    " the file in instead, or pass --follow-symlinks to read it"
                )
            info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise TraceError("a directory, not a trace file")
        if not stat.S_ISREG(info.st_mode):
            raise TraceError("not a regular file (a device, pipe or socket): refused")
        if info.st_size > max_bytes:
            raise TraceError(
                f"the file is {info.st_size} bytes, over the limit of {max_bytes} bytes;"
                " raise --max-trace-bytes to evaluate it"
            )
        with open(path, "rb") as handle:
            # Ask for the size stat() saw plus one byte (asking for max_bytes would allocate
            # 64 MiB for every trace); a file that grew since is caught below.
            data = handle.read(min(info.st_size, max_bytes) + 1)
            if len(data) > info.st_size:
                data += handle.read(max_bytes + 1 - len(data))
    except TraceError:
        raise
    except OSError as exc:
        raise TraceError(f"cannot read the file: {exc.strerror or exc}") from None
    if len(data) > max_bytes:  # it grew while we looked
        raise TraceError(
            f"the file is over the limit of {max_bytes} bytes; raise --max-trace-bytes"
        )
    return parse_trace(data)
