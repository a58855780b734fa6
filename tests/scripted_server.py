"""A scripted OpenAI-compatible chat server on loopback, for engine tests and benchmarks.

Engine tests must drive the real ``openai`` SDK (and ``litellm``) over real HTTP, so bugs in
stream parsing, retries, timeouts and dropped connections show up as they would against
Ollama or vLLM. A test queues the replies it wants (``text``, ``tool_calls``, ``cut``,
``error`` …), one per chat request, and reads back what the client sent. The server runs in
its own daemon threads, independent of the test's event loop, and ``stop`` never hangs, even
with a silent reply in flight.

The reply builders live in :mod:`scripted_replies` and are re-exported here, so tests import
everything from this one module.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from scripted_forms import parse_form
from scripted_replies import (
    REASONING_FIELDS,
    TOOL_CALL_MODES,
    Ending,
    Reply,
    as_chunk,
    cut,
    error,
    length,
    raw,
    silent,
    text,
    tool_calls,
    usage_fields,
    whole_message,
)

__all__ = [
    "REASONING_FIELDS",
    "TOOL_CALL_MODES",
    "Ending",
    "RecordedRequest",
    "Reply",
    "ScriptedServer",
    "cut",
    "error",
    "length",
    "raw",
    "silent",
    "text",
    "tool_calls",
]


@dataclass(frozen=True)
class RecordedRequest:
    """What a client sent, as the server saw it."""

    path: str
    """The request path without the query string, e.g. ``/v1/chat/completions``."""
    headers: dict[str, str]
    """Request headers, names in lower case."""
    body: dict[str, Any] | None
    """The JSON body, or None when there was none or it was not a JSON object."""
    method: str = "POST"
    """The HTTP method."""


class _HTTPServer(ThreadingHTTPServer):
    """Threads are daemons and never joined, so a stuck reply cannot block ``stop``."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 256
    """Room for many clients connecting at once (delegation benchmarks), not the default 5."""

    def __init__(self, scripted: ScriptedServer) -> None:
        super().__init__(("127.0.0.1", scripted.port), _Handler)
        self.scripted = scripted


class _Handler(BaseHTTPRequestHandler):
    """Routes one connection's requests; HTTP/1.1 so the SDK keeps connections alive."""

    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        self.server.scripted._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.scripted._track(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output clean."""

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    do_PUT = do_DELETE = do_PATCH = do_POST

    def _dispatch(self) -> None:
        try:
            self._route()
        except (BrokenPipeError, ConnectionError, OSError):
            self.close_connection = True  # the client went away; nothing to answer

    def _route(self) -> None:
        raw_body = self._read_body()
        path = urlsplit(self.path).path
        try:
            body = json.loads(raw_body) if raw_body else None
        except ValueError:
            body = None
        scripted = self.server.scripted
        headers = {k.lower(): v for k, v in self.headers.items()}
        recorded = RecordedRequest(
            path, headers, body if isinstance(body, dict) else None, self.command
        )
        if path == "/api/version":  # tuibot's is-it-Ollama probe: kept apart from requests
            with scripted._cond:
                scripted.probes.append(recorded)
        else:
            scripted._record(recorded)
        if path in scripted.routes and isinstance(scripted.routes[path], bytes):
            self._send_raw(scripted.routes[path])  # garbage a broken server sends
        elif path in scripted.routes:  # a server's own endpoints (window probes: /props …)
            self._send_json(200, scripted.routes[path])
        elif self.command == "POST" and path == "/v1/audio/transcriptions":
            self._transcribe(raw_body, headers)
        elif self.command == "GET" and path == "/v1/models":
            self._send_json(200, scripted._models_payload())
        elif self.command == "POST" and path == "/v1/chat/completions":
            if not isinstance(body, dict):
                self._send_json(
                    400, error(400, message="scripted server: body is not a JSON object").error_body
                )
                return
            reply = scripted._next_reply(body)
            if reply is None:
                message = "scripted server: no reply queued"
                self._send_json(500, {"error": {"message": message, "type": "server_error"}})
                return
            self._answer(reply, body)
        else:
            message = f"scripted server: no route for {self.command} {path}"
            self._send_json(404, error(404, message=message).error_body)

    def _transcribe(self, raw_body: bytes, headers: dict[str, str]) -> None:
        """Answer a transcription with the next queued transcript (or an error reply)."""
        scripted = self.server.scripted
        form = parse_form(headers.get("content-type", ""), raw_body)
        scripted._record(RecordedRequest("/v1/audio/transcriptions/form", headers, form))
        with scripted._cond:
            answer = scripted.transcripts.popleft() if scripted.transcripts else None
        if isinstance(answer, Reply):
            self._send_json(answer.status, answer.error_body, answer.headers)
        elif answer is None:
            self._send_json(500, {"error": {"message": "scripted server: no transcript queued"}})
        else:
            self._send_json(200, {"text": answer})

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts = []
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass
            return b"".join(parts)
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", f"req_{uuid.uuid4().hex[:16]}")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_raw(self, data: bytes) -> None:
        """``data`` as it is, labelled JSON, with status 200."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _answer(self, reply: Reply, body: dict[str, Any]) -> None:
        base = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "system_fingerprint": None,
        }
        if reply.status != 200:
            self._send_json(reply.status, reply.error_body, reply.headers)
        elif reply.ending == "hangup":  # the request was read; no status line is ever sent
            self._abort()
        elif reply.ending == "silent":
            self._start_stream(reply)
            self.server.scripted._stopping.wait(reply.silence)
            self._abort()
        elif body.get("stream"):
            self._stream(reply, base, bool((body.get("stream_options") or {}).get("include_usage")))
        else:
            self._complete(reply, base)

    def _start_stream(self, reply: Reply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("x-request-id", f"req_{uuid.uuid4().hex[:16]}")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _stream(self, reply: Reply, base: dict[str, Any], include_usage: bool) -> None:
        self._start_stream(reply)
        frames = [as_chunk(base, item) for item in reply.items]
        if include_usage:
            frames = [{**frame, "usage": frame.get("usage")} for frame in frames]
            if reply.usage and reply.ending != "cut":
                frames.append({**base, "choices": [], "usage": usage_fields(reply.usage)})
        for i, frame in enumerate(frames):
            if i and reply.delay and self.server.scripted._stopping.wait(reply.delay):
                break
            self._write_chunk(b"data: %s\n\n" % json.dumps(frame).encode())
        if reply.ending == "cut":
            self._abort()
            return
        if reply.ending == "done":
            self._write_chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")

    def _complete(self, reply: Reply, base: dict[str, Any]) -> None:
        message, finish = whole_message(reply)
        choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
        payload = {**base, "object": "chat.completion", "choices": [choice]}
        payload["usage"] = usage_fields(reply.usage) if reply.usage else None
        if reply.ending != "cut":
            self._send_json(200, payload, reply.headers)
            return
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2])
        self._abort()

    def _abort(self) -> None:
        """Drop the connection without finishing the body, as a crashed server would."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


class ScriptedServer:
    """An OpenAI-compatible server on 127.0.0.1 answering chat requests from a reply queue."""

    def __init__(self, models: list[str] | None = None, port: int = 0) -> None:
        self.models: list[str] = list(models) if models is not None else ["test-model"]
        """The ids ``GET /v1/models`` lists."""
        self.port = port
        """The port to bind; 0 picks a free one (a set port lets a test start it late)."""
        self.requests: list[RecordedRequest] = []
        """Every request received, in order (appended under a lock)."""
        self._replies: deque[Reply] = deque()
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        """Answers a request when no reply is queued, from its body: for concurrent work,
        where the order requests arrive in is not fixed."""
        self.transcripts: deque[str | Reply] = deque()
        """What ``POST /v1/audio/transcriptions`` answers, oldest first (an ``error`` reply
        answers with that error); its form is recorded under ``…/transcriptions/form``."""
        self.routes: dict[str, Any] = {}
        self.probes: list[RecordedRequest] = []
        """``/api/version`` requests (tuibot asks once per address whether it is Ollama);
        they are not in ``requests``, which tests count as model calls."""
        """Extra paths answered with a fixed JSON body (``/props``, ``/api/show`` …); a
        ``bytes`` body is sent as it is (a broken ``/v1/models``)."""
        self._cond = threading.Condition()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> ScriptedServer:
        """Bind a free loopback port and serve in a daemon thread."""
        if self._httpd is None:
            self._stopping.clear()
            self._httpd = _HTTPServer(self)
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.05},
                name="scripted-server",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and drop open connections, even one in the middle of a reply."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        with self._cond:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=2)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The base URL to give a client, e.g. ``http://127.0.0.1:PORT/v1``."""
        if self._httpd is None:
            raise RuntimeError("ScriptedServer is not started")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def pending(self) -> int:
        """How many queued replies no request has taken yet."""
        with self._cond:
            return len(self._replies)

    def enqueue(self, *replies: Reply) -> None:
        """Queue replies; each chat request takes the oldest one."""
        with self._cond:
            self._replies.extend(replies)

    def drain(self) -> None:
        """Drop the queued replies no request took (a client that failed before asking)."""
        with self._cond:
            self._replies.clear()

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> None:
        """Block until at least ``n`` requests arrived; AssertionError after ``timeout``."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.requests) >= n, timeout):
                raise AssertionError(f"expected {n} requests, got {len(self.requests)}")

    def _record(self, request: RecordedRequest) -> None:
        with self._cond:
            self.requests.append(request)
            self._cond.notify_all()

    def _next_reply(self, body: dict[str, Any]) -> Reply | None:
        with self._cond:
            if self._replies:
                return self._replies.popleft()
            responder = self.responder
        return responder(body) if responder is not None else None

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._cond:
            if add:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)

    def _models_payload(self) -> dict[str, Any]:
        created = int(time.time())
        data = [
            {"id": m, "object": "model", "created": created, "owned_by": "scripted"}
            for m in self.models
        ]
        return {"object": "list", "data": data}
