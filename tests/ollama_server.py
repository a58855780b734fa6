"""A scripted Ollama server on loopback: ``/api/chat`` NDJSON, ``/api/show``, ``/api/ps``,
``/api/tags``, ``/api/version``.

Written from Ollama's API docs (docs/api.md): a streamed chat answer is one JSON object a
line, ``message.content`` / ``message.thinking`` / ``message.tool_calls`` (arguments as
objects), and a last line with ``done: true``, ``done_reason``, ``prompt_eval_count`` and
``eval_count``; ``/api/show`` has ``model_info`` and ``capabilities``; an error is
``{"error": "..."}`` with an HTTP status, or such a line in the middle of a stream. Like
the real server, a prompt longer than the request's ``options.num_ctx`` (default 4096) is
cut silently, and the count it reports is the cut one.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_NUM_CTX = 4096
CHARS_PER_TOKEN = 4


@dataclass
class OllamaReply:
    """One ``/api/chat`` answer: the lines to stream, or an error status."""

    lines: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    error: str = ""
    cut: bool = False
    """Drop the connection after the lines, before the ``done`` line."""


def answer(text: str, thinking: str = "", pieces: int = 3) -> OllamaReply:
    """A streamed text answer in ``pieces`` lines (thinking first), then ``done``."""
    size = max(1, len(text) // pieces)
    lines = [{"message": {"role": "assistant", "content": "", "thinking": thinking}}]
    lines = lines if thinking else []
    lines += [
        {"message": {"role": "assistant", "content": text[i : i + size]}}
        for i in range(0, len(text), size)
    ]
    return OllamaReply(lines)


def calls(*called: tuple[str, dict[str, Any]]) -> OllamaReply:
    """An answer that calls tools, each call whole on one line, as Ollama sends them."""
    lines = [
        {"message": {"role": "assistant", "content": "", "tool_calls": [{"function": f}]}}
        for f in ({"name": name, "arguments": arguments} for name, arguments in called)
    ]
    return OllamaReply(lines)


def failure(status: int, message: str) -> OllamaReply:
    """An HTTP error with Ollama's ``{"error": ...}`` body."""
    return OllamaReply(status=status, error=message)


class OllamaServer:
    """Answers Ollama's API from a reply queue and records every request."""

    def __init__(self, models: dict[str, int] | None = None) -> None:
        self.models = dict(models if models is not None else {"qwen3:0.6b": 40960})
        """Model names and their trained context length (``/api/show``)."""
        self.loaded: dict[str, int] = {}
        """Models ``/api/ps`` lists as loaded, with their ``context_length``."""
        self.show_length = True
        """Whether ``/api/show`` has ``model_info["<arch>.context_length"]`` (older
        servers and some models leave it out)."""
        self.capabilities: dict[str, list[str]] = {}
        """``/api/show``'s ``capabilities`` per model (``["completion", "vision"]``);
        a model not named here has ``["completion", "tools"]``."""
        self.requests: list[tuple[str, dict[str, Any] | None]] = []
        self.replies: deque[OllamaReply] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    def start(self) -> OllamaServer:
        """Serve on a free loopback port in a daemon thread."""
        handler = type("Handler", (_Handler,), {"scripted": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop serving."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> OllamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The server's root address (no ``/v1``)."""
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def chats(self) -> list[dict[str, Any]]:
        """The bodies of every ``/api/chat`` request, in order."""
        return [body or {} for path, body in self.requests if path == "/api/chat"]

    def enqueue(self, *replies: OllamaReply) -> None:
        """Queue answers; each chat request takes the oldest."""
        self.replies.extend(replies)


class _Handler(BaseHTTPRequestHandler):
    scripted: OllamaServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        self._route(None)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        self._route(body if isinstance(body, dict) else None)

    def _route(self, body: dict[str, Any] | None) -> None:
        scripted = self.scripted
        with scripted._lock:
            scripted.requests.append((self.path, body))
        if self.path == "/api/version":
            self._json(200, {"version": "0.12.6"})
        elif self.path == "/api/tags":
            self._json(200, {"models": [{"name": name} for name in scripted.models]})
        elif self.path == "/api/ps":
            loaded = scripted.loaded.items()
            self._json(200, {"models": [{"name": n, "context_length": c} for n, c in loaded]})
        elif self.path == "/api/show":
            self._show(body or {})
        elif self.path == "/api/chat" and body is not None:
            with scripted._lock:
                reply = scripted.replies.popleft() if scripted.replies else None
            if reply is None:
                self._json(500, {"error": "scripted server: no reply queued"})
            else:
                self._chat(reply, body)
        else:
            self._json(404, {"error": f"no route {self.path}"})

    def _show(self, body: dict[str, Any]) -> None:
        name = str(body.get("model") or body.get("name") or "")
        length = self.scripted.models.get(name) or self.scripted.models.get(f"{name}:latest")
        if length is None:
            self._json(404, {"error": f"model '{name}' not found"})
            return
        info: dict[str, Any] = {"general.architecture": "qwen3"}
        if self.scripted.show_length:
            info["qwen3.context_length"] = length
        capabilities = self.scripted.capabilities.get(name, ["completion", "tools"])
        show = {"parameters": "temperature 0.6", "model_info": info, "capabilities": capabilities}
        self._json(200, show)

    def _json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _chat(self, reply: OllamaReply, body: dict[str, Any]) -> None:
        if reply.status != 200:
            self._json(reply.status, {"error": reply.error})
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for line in reply.lines:
            self._chunk(line)
        if reply.cut:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        self._chunk(_done(body, reply))
        self.wfile.write(b"0\r\n\r\n")

    def _chunk(self, line: dict[str, Any]) -> None:
        data = json.dumps({"model": "scripted", "done": False, **line}).encode() + b"\n"
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))


def _done(body: dict[str, Any], reply: OllamaReply) -> dict[str, Any]:
    """The last line: the prompt's count, cut to ``num_ctx`` as Ollama cuts it."""
    prompt = len(json.dumps(body.get("messages"))) + len(json.dumps(body.get("tools") or []))
    num_ctx = (body.get("options") or {}).get("num_ctx") or DEFAULT_NUM_CTX
    return {
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": min(prompt // CHARS_PER_TOKEN, num_ctx),
        "eval_count": 7,
    }
