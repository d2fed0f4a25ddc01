"""One run's request to the agent: over HTTP (the standard library's urllib) or as a command.

Why the standard library and not httpx: capture needs TLS verification (on by default),
proxies from the environment, a per-request deadline, a body read in pieces under a size
limit, and retries with backoff that honour Retry-After. urllib does the first two; the rest
is a few lines of our own with any client (httpx's timeouts are per operation too, and its
retries cover connection errors only), so a new dependency would not earn its place.

Every loop here is bounded: attempts by `retries`, each attempt by `timeout`, each wait by
`MAX_RETRY_AFTER`, the answer by `max_bytes`; a stop event (Ctrl-C) ends any wait at once.
"""

from __future__ import annotations

import email.utils
import http.client
import os
import random
import re
import selectors
import signal
import socket
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..dataclass import dataclass
from ..display import one_line, shorten
from ..version import __version__

MAX_RETRY_AFTER = 60.0  # seconds: an agent asking for a longer pause fails the run instead
BACKOFF_BASE = 0.25  # seconds before the first retry; doubled each time, with jitter
BACKOFF_CAP = 8.0
SNIPPET_CHARS = 200  # of an answer shown in a reason
STDERR_LINES = 5  # of a failed command's standard error shown in a reason
STDERR_LINE_CHARS = 300  # of each of those lines
_CHUNK = 256 * 1024
REDACTED = "[redacted]"


# A shorter value is no secret worth the name, and replacing it would garble ordinary text
# (a token "x" is in every other word): capture warns about it instead.
MIN_SECRET = 8


class Redactor:
    """Replaces every secret (the environment values a target reads, of MIN_SECRET
    characters or more) in a text, in every form an answer or a message may carry it (see
    `secret_forms`)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        forms: set[str] = set()
        for secret in secrets:
            if len(secret) >= MIN_SECRET:
                forms |= secret_forms(secret)
        self.secrets = sorted(forms, key=len, reverse=True)
        self.longest = len(self.secrets[0]) if self.secrets else 0

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def snippet(self, data: bytes, limit: int = SNIPPET_CHARS) -> str:
        """The first `limit` characters of an answer, on one line, secrets redacted (on a
        wider window first, so no secret is cut in two and half shown)."""
        text = data[: (limit + self.longest) * 4].decode("utf-8", errors="replace")
        shown = self(text[: limit + self.longest])[:limit]
        more = "..." if len(text) > limit else ""
        return one_line(shown) + more if shown else "(empty)"


def secret_forms(secret: str) -> set[str]:
    """The texts that carry `secret`: as it is; inside a JSON string, escaped once or twice
    (a JSON text inside a JSON string), with or without `\\uXXXX` escapes (either case of hex)
    and `\\/` for `/`; percent-encoded as a URL carries it (`%2F` or `/`, `+` or `%20` for a
    space, either case of hex); in base64 (standard and URL-safe, at each of the three byte
    alignments it can have inside a longer encoded text: the characters that only the secret
    decides)."""
    import json

    forms = {secret}
    escaped: set[str] = set()
    for ascii_only in (False, True):
        once = json.dumps(secret, ensure_ascii=ascii_only)[1:-1]
        escaped |= {once, once.replace("/", "\\/")}
    escaped |= {
        _UNICODE_ESCAPE.sub(lambda m: m.group().upper().replace("\\U", "\\u"), e) for e in escaped
    }
    forms |= escaped
    forms |= {json.dumps(e, ensure_ascii=False)[1:-1] for e in escaped}
    for quoted in (
        urllib.parse.quote(secret, safe=""),
        urllib.parse.quote(secret),
        urllib.parse.quote_plus(secret, safe=""),
    ):
        forms |= {quoted, _PERCENT.sub(lambda m: m.group().lower(), quoted)}
    forms |= _base64_forms(secret.encode("utf-8", "surrogatepass"))
    return {f for f in forms if len(f) >= MIN_SECRET}


_UNICODE_ESCAPE = re.compile(r"\\u[0-9a-f]{4}")
_PERCENT = re.compile(r"%[0-9A-F]{2}")


def _base64_forms(data: bytes) -> set[str]:
    import base64

    out: set[str] = set()
    for lead in range(3):  # bytes before the secret in its 3-byte group
        encoded = base64.b64encode(b"\0" * lead + data).decode("ascii").rstrip("=")
        # the first group's characters that hold a byte before the secret, and the last
        # group's that hold a byte after it, depend on what surrounds it: left out
        start = (0, 2, 3)[lead]
        tail = (lead + len(data)) % 3
        end = len(encoded) - ((0, 1, 1)[tail] if tail else 0)
        # a secret at the very end of the encoded text: its padding decides nothing more
        inner = encoded[start:end]
        if inner:
            out |= {inner, inner.replace("+", "-").replace("/", "_")}
    return out


class RateLimiter:
    """At most `rate` starts a second, shared by every worker thread."""

    def __init__(self, rate: float | None) -> None:
        self.interval = 1.0 / rate if rate else 0.0
        self.next = 0.0
        self.lock = threading.Lock()

    def wait(self, stop: threading.Event) -> bool:
        """Wait for the next slot; False when stopped meanwhile."""
        if not self.interval:
            return not stop.is_set()
        with self.lock:
            now = time.monotonic()
            at = max(now, self.next)
            self.next = at + self.interval
        return not stop.wait(at - now) if at > now else not stop.is_set()


@dataclass
class Limits:
    """What bounds every attempt of every run, shared by the workers."""

    timeout: float
    max_bytes: int
    retries: int = 0
    verify: bool = True
    limiter: RateLimiter = field(default_factory=lambda: RateLimiter(None))
    stop: threading.Event = field(default_factory=threading.Event)
    redact: Redactor = field(default_factory=Redactor)
    children: set[subprocess.Popen[bytes]] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    _opener: urllib.request.OpenerDirector | None = None

    def opener(self) -> urllib.request.OpenerDirector:
        """One opener for every request: loading the CA certificates takes ~40 ms."""
        with self.lock:
            if self._opener is None:
                self._opener = _opener(self.verify)
            return self._opener

    def kill_children(self) -> None:
        with self.lock:
            for child in list(self.children):
                _kill(child)


@dataclass(frozen=True)
class HttpRequest:
    """One HTTP request to the agent, as the config's target and a case make it."""

    url: str
    method: str
    headers: dict[str, str]
    body: bytes | None


@dataclass(frozen=True)
class CommandRequest:
    """One command to run for the agent's answer: its arguments and working folder."""

    argv: list[str]
    cwd: Path


Request = HttpRequest | CommandRequest


@dataclass
class Answer:
    """What one run got: the answer's bytes, or why there are none."""

    body: bytes | None = None
    error: str | None = None
    http_status: int | None = None
    attempts: int = 0
    interrupted: bool = False
    stderr: str = ""  # a command's: the last lines of its standard error, as a reason says them


def fetch(request: Request, limits: Limits) -> Answer:
    """The agent's answer to one run's request, retried as the target allows."""
    if isinstance(request, CommandRequest):
        if not limits.limiter.wait(limits.stop):
            return Answer(error="interrupted", interrupted=True)
        answer = run_command(request, limits)
        answer.attempts = 1
        return answer
    return _fetch_http(request, limits)


# --------------------------------------------------------------------------------------------
# HTTP


@dataclass
class _Attempt:
    """What one try at a request gave: the answer's body, or an error and whether to retry."""

    body: bytes | None = None
    status: int | None = None
    error: str | None = None
    retryable: bool = False
    retry_after: float | None = None


def _fetch_http(request: HttpRequest, limits: Limits) -> Answer:
    attempt = 0
    while True:
        if not limits.limiter.wait(limits.stop):
            return Answer(error="interrupted", attempts=attempt, interrupted=True)
        attempt += 1
        got = _attempt(request, limits)
        if got.error is None:
            return Answer(got.body, None, got.status, attempt)
        error = limits.redact(got.error)
        if not got.retryable or attempt > limits.retries:
            tries = f" (after {attempt} attempts)" if attempt > 1 else ""
            return Answer(None, error + tries, got.status, attempt)
        delay = got.retry_after if got.retry_after is not None else backoff(attempt)
        if delay > MAX_RETRY_AFTER:
            return Answer(
                None,
                f"{error}; it asks to retry after {delay:.0f} s, more than the"
                f" {MAX_RETRY_AFTER:.0f} s capture waits: capture again later",
                got.status,
                attempt,
            )
        if limits.stop.wait(delay):
            return Answer(error="interrupted", attempts=attempt, interrupted=True)


def backoff(attempt: int) -> float:
    """Seconds before retry `attempt`: exponential, with jitter (half fixed, half random),
    so that workers failing together do not retry together."""
    delay = min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt - 1))
    return delay / 2 + random.uniform(0, delay / 2)


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Retry-After in seconds: a number of seconds or an HTTP date; None when absent or
    unreadable (the backoff applies)."""
    if not value:
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    now = time.time() if now is None else now
    return max(0.0, when.timestamp() - now)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer of its own: following it would resend the body (and the
    Authorization header) somewhere the config does not name."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _opener(verify: bool) -> urllib.request.OpenerDirector:
    context = ssl.create_default_context()
    if not verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return urllib.request.build_opener(_NoRedirect(), urllib.request.HTTPSHandler(context=context))


def _attempt(request: HttpRequest, limits: Limits) -> _Attempt:
    headers = {"User-Agent": f"trace-validator/{__version__} capture", **request.headers}
    if request.body is not None and not any(k.lower() == "content-type" for k in headers):
        headers["Content-Type"] = "application/json"
    prepared = urllib.request.Request(
        request.url, data=request.body, method=request.method, headers=headers
    )
    deadline = time.monotonic() + limits.timeout
    try:
        with limits.opener().open(prepared, timeout=limits.timeout) as response:
            body, problem = _read(response, limits, deadline)
            status = response.status
            if problem is None:
                body, problem = _decoded(body, response.headers, limits.max_bytes)
    except urllib.error.HTTPError as exc:
        return _http_error(exc, limits, deadline)
    except urllib.error.URLError as exc:
        return _connection_error(exc.reason, limits)
    except (OSError, http.client.HTTPException) as exc:
        return _connection_error(exc, limits)
    if problem is not None:
        return problem
    return _Attempt(body=body, status=status)


def _http_error(exc: urllib.error.HTTPError, limits: Limits, deadline: float) -> _Attempt:
    status = exc.code
    try:
        body, _ = _read(exc, limits, deadline, max_bytes=64 * 1024)
    except (OSError, http.client.HTTPException):
        body = b""
    with suppress(Exception):
        exc.close()
    reason = f"the agent answered HTTP {status} {exc.reason}"
    if 300 <= status < 400:
        where = exc.headers.get("Location", "")
        return _Attempt(
            status=status,
            error=f"{reason} (a redirect to {one_line(where)[:200]}): capture does not follow"
            " redirects; write the final address in target.url",
        )
    retryable = status == 429 or 500 <= status < 600
    return _Attempt(
        status=status,
        error=f"{reason}; the answer begins: {limits.redact.snippet(body or b'')}",
        retryable=retryable,
        retry_after=retry_after(exc.headers.get("Retry-After")) if retryable else None,
    )


def _connection_error(reason: object, limits: Limits) -> _Attempt:
    if isinstance(reason, (TimeoutError, socket.timeout)):
        # Not retried: a slow agent is slow again, and each try may take the whole timeout.
        return _Attempt(error=f"no answer within the timeout of {limits.timeout:g} s")
    if isinstance(reason, ssl.SSLError):
        return _Attempt(
            error=f"TLS failed: {one_line(reason)} (verify: false in target skips the"
            " certificate check, for a test agent only)"
        )
    text = one_line(reason) if str(reason) else type(reason).__name__
    return _Attempt(error=f"connection failed: {text}", retryable=True)


def _read(
    response: Any, limits: Limits, deadline: float, max_bytes: int | None = None
) -> tuple[bytes, _Attempt | None]:
    """The answer's body, read in pieces: never more than `max_bytes` (+1) in memory, and
    never past the deadline."""
    limit = limits.max_bytes if max_bytes is None else max_bytes
    declared = response.headers.get("Content-Length") if response.headers else None
    if max_bytes is None and declared and declared.isdigit() and int(declared) > limit:
        return b"", _too_large(f"declares {int(declared):,} bytes,", limit, response)
    pieces: list[bytes] = []
    size = 0
    # read1: what has arrived, at most one receive; read() would wait for a whole chunk
    # and never look at the deadline while an agent drips a byte at a time
    read = getattr(response, "read1", response.read)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return b"", _Attempt(
                    error=f"the answer took longer than the timeout of {limits.timeout:g} s"
                    f" ({size:,} bytes read): the timeout is for the whole answer"
                )
            _wait_at_most(response, left)
            piece = read(min(_CHUNK, limit + 1 - size))
            if not piece:
                break
            pieces.append(piece)
            size += len(piece)
            if size > limit:
                if max_bytes is not None:
                    break  # an error answer: its beginning is all a reason shows
                return b"", _too_large("is", limit, response)
    except TimeoutError:  # a receive waited for the time left: the deadline has come
        return b"", _Attempt(
            error=f"the answer took longer than the timeout of {limits.timeout:g} s"
            f" ({size:,} bytes read): the timeout is for the whole answer"
        )
    except (OSError, http.client.HTTPException) as exc:
        return b"", _Attempt(
            error=f"the connection was dropped after {size:,} bytes of the answer"
            f" ({type(exc).__name__})",
            retryable=True,
        )
    return b"".join(pieces), None


def _wait_at_most(response: Any, seconds: float) -> None:
    """Let the next receive wait no longer than the time left (the connection's timeout is
    the whole timeout, set when it was opened)."""
    sock = getattr(getattr(getattr(response, "fp", None), "raw", None), "_sock", None)
    if isinstance(sock, socket.socket):
        with suppress(OSError):
            sock.settimeout(max(seconds, 0.001))


# Content-Encoding -> zlib's wbits for it (gzip and zlib-wrapped deflate)
_ENCODINGS = {"gzip": 31, "x-gzip": 31, "deflate": 15}


def _decoded(body: bytes, headers: Any, limit: int) -> tuple[bytes, _Attempt | None]:
    """The answer's body without its Content-Encoding (gzip, deflate), decoded up to the
    trace size limit; an encoding capture does not decode, or a broken one, is a reason."""
    import zlib

    encoding = (headers.get("Content-Encoding") or "").strip().lower() if headers else ""
    if encoding in ("", "identity"):
        return body, None
    wbits = _ENCODINGS.get(encoding)
    if wbits is None:
        return b"", _Attempt(
            error=f"the agent answered with Content-Encoding: {one_line(encoding)[:40]}, which"
            " capture does not decode (it decodes gzip and deflate): have the agent answer"
            " uncompressed or with gzip"
        )
    decoder = zlib.decompressobj(wbits)
    try:
        data = decoder.decompress(body, limit + 1)
    except zlib.error as exc:
        return b"", _Attempt(
            error=f"the agent's {encoding}-encoded answer cannot be decoded ({exc}):"
            " its HTTP answer is damaged or not the encoding its Content-Encoding names"
        )
    if len(data) > limit:
        return b"", _Attempt(
            error=f"the agent's {encoding}-encoded answer decodes to more than the"
            f" {limit:,}-byte limit for a trace (raise it with --max-trace-bytes N)"
        )
    return data, None


def _too_large(how: str, limit: int, response: Any) -> _Attempt:
    with suppress(Exception):
        response.close()
    return _Attempt(
        error=f"the answer {how} more than the {limit:,}-byte limit for a trace (raise it"
        " with --max-trace-bytes N)"
    )


# --------------------------------------------------------------------------------------------
# A command


def run_command(request: CommandRequest, limits: Limits) -> Answer:
    """Run the program; its standard output is the answer. A non-zero exit, a timeout or
    too much output is a failure, with the last lines of its standard error."""
    try:
        child = subprocess.Popen(
            request.argv,
            cwd=request.cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: killed whole on a timeout
        )
    except OSError as exc:
        what = "no such program" if isinstance(exc, FileNotFoundError) else exc.strerror
        return Answer(
            error=limits.redact(
                f"cannot run {one_line(request.argv[0])}: {what} (target.command's first"
                " entry is the program: a name on PATH, or a path relative to the config"
                " file's folder)"
            )
        )
    with limits.lock:
        limits.children.add(child)
    try:
        return _collect(child, limits)
    finally:
        with limits.lock:
            limits.children.discard(child)


def _collect(child: subprocess.Popen[bytes], limits: Limits) -> Answer:
    assert child.stdout is not None and child.stderr is not None
    deadline = time.monotonic() + limits.timeout
    out: list[bytes] = []
    size = 0
    err = bytearray()
    err_cut = False  # its beginning was dropped (only its end is shown)
    problem: str | None = None
    with selectors.DefaultSelector() as selector:
        selector.register(child.stdout, selectors.EVENT_READ, "out")
        selector.register(child.stderr, selectors.EVENT_READ, "err")
        while selector.get_map() and problem is None:
            left = deadline - time.monotonic()
            if limits.stop.is_set():
                problem = "interrupted"
            elif left <= 0:
                problem = f"the command took longer than the timeout of {limits.timeout:g} s"
            for key, _ in selector.select(min(max(left, 0), 0.2)) if problem is None else ():
                data = os.read(key.fd, _CHUNK)
                if not data:
                    selector.unregister(key.fileobj)
                elif key.data == "out":
                    out.append(data)
                    size += len(data)
                    if size > limits.max_bytes:
                        problem = (
                            f"the command printed more than the {limits.max_bytes:,}-byte limit"
                            " for a trace (raise it with --max-trace-bytes N)"
                        )
                else:
                    err += data
                    err_cut |= _keep_end(err)
    if problem is not None:
        _kill(child)
    code = child.wait()
    child.stdout.close()
    child.stderr.close()
    if problem is not None:
        return Answer(error=limits.redact(problem), interrupted=problem == "interrupted")
    tail = _stderr_tail(bytes(err), limits.redact, err_cut)
    if code != 0:
        how = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
        return Answer(error=limits.redact(f"the command {how}") + tail)
    return Answer(body=b"".join(out), stderr=tail)


def _keep_end(err: bytearray, size: int = 64 * 1024) -> bool:
    """Keep the last `size` bytes of a command's standard error (only its end is shown);
    True when bytes were dropped."""
    if len(err) <= size:
        return False
    del err[: len(err) - size]
    return True


def _stderr_tail(data: bytes, redact: Redactor, cut: bool = False) -> str:
    """The last lines of a command's standard error, each redacted whole and then cut to
    STDERR_LINE_CHARS (`cut`: the text starts mid-line, so its first line, where a secret
    may have been cut in two, is left out)."""
    text = data.decode("utf-8", errors="replace")
    if cut:
        text = text.partition("\n")[2]
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return " (nothing on its standard error)"
    shown = (shorten(one_line(redact(ln)), STDERR_LINE_CHARS) for ln in lines[-STDERR_LINES:])
    return "; its standard error ends: " + " | ".join(shown)


def _kill(child: subprocess.Popen[bytes]) -> None:
    with suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(child.pid, signal.SIGKILL)
    with suppress(OSError):
        child.kill()


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
