"""Reading a file a flag or the config names: refused at once when it cannot be one.

A path given to `--quarantine`, `--baseline`, `--config`, a case or spec file, a shard file
may be anything: a FIFO (reading it waits for a writer forever), `/dev/zero` (endless), a
folder, or a file far larger than such a file ever is. Every such read goes through
`read_file`, which opens without blocking, refuses anything but a regular file, reads at
most its limit (a file that grows while it is read is refused too), and says why in one
message shape: "cannot read the quarantine file q.yaml: it is not a regular file (...)".
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .problems import UsageError


class FileRefused(UsageError):
    """A file that cannot be read as `what` is read (exit 2); `why` is the reason alone."""

    def __init__(self, what: str, shown: str, why: str, hint: str | None = None) -> None:
        super().__init__(f"cannot read {what} {shown}: {why}", hint)
        self.why = why


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def read_file(
    path: Path | str, limit: int, what: str, shown: str | None = None, hint: str | None = None
) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them. Raises FileRefused
    (a UsageError): not a regular file, over `limit` bytes, or unreadable."""
    shown = shown if shown is not None else str(path)

    def refused(why: str) -> FileRefused:
        return FileRefused(what, shown, why, hint)

    try:
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except IsADirectoryError:
        raise refused("it is a folder, not a file") from None
    except OSError as exc:
        raise refused(exc.strerror or str(exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise refused(f"it is {_kind(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise refused(_too_large(info.st_size, limit))
        os.set_blocking(fd, True)
        data = read_within(fd, info.st_size, limit)
    except OSError as exc:
        raise refused(exc.strerror or str(exc)) from None
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > limit:
        raise refused(_too_large(len(data), limit))
    return data


def read_within(fd: int, size: int, limit: int) -> bytes:
    """An open file's bytes, up to one byte over `limit` (so a caller can tell it is over).

    It asks for the `size` fstat() saw plus one byte: asking for `limit + 1` at once would
    allocate the whole limit (megabytes) for every small file. A file that grew since is
    read on, up to one byte over the limit, as one read of `limit + 1` would."""
    data = _read_upto(fd, min(size, limit) + 1)
    if len(data) > size:
        data += _read_upto(fd, limit + 1 - len(data))
    return data


def _read_upto(fd: int, count: int) -> bytes:
    """Up to `count` bytes from an open file, fewer only at its end: what a buffered file's
    `read(count)` gives (a read may return less than asked, so it asks again until the end),
    without the file and buffer objects, which cost more than reading a small file."""
    chunks = []
    while count > 0:
        chunk = os.read(fd, count)
        if not chunk:
            break
        chunks.append(chunk)
        count -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _too_large(size: int, limit: int) -> str:
    more = "more than " if size == limit + 1 else ""
    return f"it is {more}{size:,} bytes, over the {limit:,}-byte limit for such a file"
