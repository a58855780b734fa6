"""Files and engines for the attachment tests: a tiny real PNG, a scripted vision provider."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

from engine_helpers import make_engine
from scripted_server import ScriptedServer

from tuibot.engine import Engine
from tuibot.store.chat_message import ChatMessage


def png_bytes(shade: int = 0) -> bytes:
    """A valid 1×1 PNG (grey ``shade``), so the bytes are what a real image file holds."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    pixels = zlib.compress(bytes([0, shade]))
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def vision_engine(server: ScriptedServer, **overrides: Any) -> Engine:
    """An engine whose scripted provider says every model takes images."""
    return make_engine(server, providers__local__vision=True, **overrides)


def stored_user(engine: Engine, chat: str) -> list[ChatMessage]:
    """The user messages stored in ``chat``."""
    return [m for m in engine.chats.load(chat).messages if m.get("role") == "user"]


def chat_requests(server: ScriptedServer) -> list[Any]:
    """The chat completion requests the server received."""
    return [r for r in server.requests if r.path.endswith("/chat/completions")]


def write(path: Path, data: bytes | str) -> Path:
    """Write ``data`` (text as UTF-8) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path
