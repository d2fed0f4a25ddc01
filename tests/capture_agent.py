"""A small diagnosis agent over HTTP, for the capture tests: 127.0.0.1, a free port.

It answers a POST whose JSON body has `question` and `session` ("eval-<case>-<run>") with
`{"trace": <the trace>}`, the trace being the shipped fixture whose question it was asked
(so `run` passes on it). What it does per case can be scripted (`modes`), to be slow, to
answer 500 or 429 with Retry-After, to drop the connection, to send invalid JSON or a 50 MB
body, or to give another verdict one run in three.
"""

from __future__ import annotations

import copy
import gzip
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
HUGE = 50 * 1024 * 1024


class Agent:
    def __init__(self) -> None:
        self.traces: dict[str, dict[str, Any]] = {}
        for path in sorted((REPO / "fixtures").glob("*.json")):
            trace = json.loads(path.read_text("utf-8"))
            self.traces[trace["question"]] = trace
        self.modes: dict[str, str] = {}  # case id -> mode; default "ok"
        self.requests: list[dict[str, Any]] = []  # every request: case, run, headers, body
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Agent:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def attempts(self, case_id: str, run: int | None = None) -> int:
        with self.lock:
            return sum(
                r["case"] == case_id and (run is None or r["run"] == run) for r in self.requests
            )

    def answer(self, body: dict[str, Any]) -> dict[str, Any] | None:
        trace = self.traces.get(body.get("question", ""))
        return None if trace is None else {"trace": copy.deepcopy(trace), "agent": "test"}


def _handler(agent: Agent) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw)
            except ValueError:
                self._send(400, b'{"error": "the body is not JSON"}')
                return
            session = str(body.get("session", ""))
            case, _, run = session.removeprefix("eval-").rpartition("-")
            with agent.lock:
                agent.requests.append(
                    {
                        "case": case,
                        "run": int(run or 0),
                        "headers": dict(self.headers),
                        "body": body,
                    }
                )
                attempt = sum(r["case"] == case and r["run"] == int(run or 0)
                              for r in agent.requests)  # fmt: skip
            self._behave(agent.modes.get(case, "ok"), body, attempt, int(run or 0))

        def _behave(self, mode: str, body: dict[str, Any], attempt: int, run: int) -> None:
            if mode == "slow":
                time.sleep(3)
            elif mode == "500" or (mode == "500-once" and attempt == 1):
                self._send(503 if mode == "500-once" else 500, b'{"error": "overloaded"}')
                return
            elif mode == "429-once" and attempt == 1:
                self._send(429, b'{"error": "slow down"}', {"Retry-After": "1"})
                return
            elif mode == "drop-once" and attempt == 1:
                self.close_connection = True
                self.connection.shutdown(2)
                return
            elif mode == "invalid":
                self._send(200, b'{"trace": {"caseId": "x", ')
                return
            elif mode == "huge":
                self._huge(declared=True)
                return
            elif mode == "huge-stream":
                self._huge(declared=False)
                return
            elif mode == "drip":  # headers at once, then one byte every 0.3 s, for a minute
                self._drip()
                return
            elif mode == "gzip-bomb":  # 20 KB on the wire, 20 MB decoded
                data = gzip.compress(b'{"trace": {"pad": "' + b" " * (20 * 1024 * 1024), 9)
                self._send(200, data, {"Content-Encoding": "gzip"})
                return
            elif mode == "brotli":
                self._send(200, b"\x0b\x02\x80{}\x03", {"Content-Encoding": "br"})
                return
            elif mode == "notrace":
                self._send(200, b'{"result": "no trace here", "token": "' + self._token() + b'"}')
                return
            answer = agent.answer(body)
            if answer is None:
                self._send(404, b'{"error": "unknown question"}')
                return
            if mode == "flip" and run % 3 == 0:
                answer["trace"]["selfEvaluation"]["verifier_evaluation"]["verdict"] = "REJECT"
            if mode == "leak":
                answer["trace"]["debug"] = {"auth": self.headers.get("Authorization", "")}
            data = json.dumps(answer, ensure_ascii=False).encode("utf-8")
            if mode == "gzip":
                self._send(200, gzip.compress(data), {"Content-Encoding": "gzip"})
                return
            self._send(200, data)

        def _drip(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "200")
            self.end_headers()
            try:
                for _ in range(200):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.3)
            except OSError:
                pass  # the client gave up: what it should do

        def _token(self) -> bytes:
            return self.headers.get("Authorization", "").encode("latin-1")

        def _send(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _huge(self, declared: bool) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if declared:
                self.send_header("Content-Length", str(HUGE))
            else:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            piece = b" " * (1024 * 1024)
            try:
                self.wfile.write(b'{"trace": {"pad": "')
                for _ in range(HUGE // len(piece)):
                    self.wfile.write(piece)
            except OSError:
                pass  # the client stopped reading: what it should do

    return Handler
