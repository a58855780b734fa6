"""An MCP tool's image result reaches a vision model as an image, by reference on disk.

Real engine, real fault-server process (the SDK's own server returns an ``ImageContent``),
real openai SDK against the scripted model server. The chat file keeps a reference (path
in tuibot's kept folder, sha256, MIME type), never base64; each request re-reads and
hash-checks the file. The references come from the result's image blocks only: a server
whose text names a file gets nothing attached.
"""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import scripted_replies as reply
from attach_helpers import png_bytes, write
from engine_helpers import ask, sent_messages
from mcp_helpers import fault_engine
from scripted_server import ScriptedServer

from tuibot.agent.messages import sanitize
from tuibot.attachments.kept import keep
from tuibot.attachments.request import resolve_images
from tuibot.engine import Engine
from tuibot.llm.ollama_wire import ollama_messages

PNG = bytes.fromhex(  # what tests/mcp_fault_server.py's ``picture`` returns
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)


async def _call(engine: Engine, server: ScriptedServer, tool: str, **arguments: Any) -> str:
    """One turn in which the model calls ``faults__<tool>``; the chat's id."""
    for _ in range(600):  # the server process imports the SDK first (seconds when loaded)
        if f"faults__{tool}" in engine.tools:
            break
        await asyncio.sleep(0.1)
    chat = engine.new_chat().id
    call = reply.tool_calls([(f"faults__{tool}", json.dumps(arguments))])
    server.enqueue(call, reply.text("seen"))
    finished = await ask(engine, chat, f"call {tool}")
    assert finished.status == "completed", finished.error
    return chat


def _images(messages: list[dict[str, Any]]) -> list[bytes]:
    """The bytes of every image part in a request's messages."""
    found = []
    for message in messages:
        for part in message["content"] if isinstance(message.get("content"), list) else ():
            if part.get("type") == "image_url":
                found.append(base64.b64decode(part["image_url"]["url"].partition(",")[2]))
    return found


async def test_a_vision_model_sees_the_image_after_the_tool_result(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = fault_engine(server, vision=True)
    try:
        chat = await _call(engine, server, "picture")
        raw = engine.chats.path(chat).read_text()
        [tool] = [m for m in engine.chats.load(chat).messages if m.get("role") == "tool"]
    finally:
        await engine.close()
    sent = sent_messages(server, -1)
    roles = [m["role"] for m in sent]
    assert roles[-3:] == ["assistant", "tool", "user"]  # the image follows the results
    assert isinstance(sent[-2]["content"], str) and "image/png" in sent[-2]["content"]
    assert _images(sent) == [PNG]
    assert "faults__picture" in sent[-1]["content"][0]["text"]
    [ref] = tool["attachments"]
    assert ref["kind"] == "image" and ref["mime"] == "image/png" and ref["size"] == len(PNG)
    assert Path(ref["path"]).read_bytes() == PNG and Path(ref["path"]).is_relative_to(hermetic)
    assert base64.b64encode(PNG).decode()[:24] not in raw  # a reference, not base64


async def test_a_model_without_vision_gets_a_note(server: ScriptedServer) -> None:
    engine = fault_engine(server, vision=False)
    try:
        await _call(engine, server, "picture")
    finally:
        await engine.close()
    sent = sent_messages(server, -1)
    assert _images(sent) == [] and sent[-1]["role"] == "tool"
    assert "is not shown: model 'test-model' takes no images" in sent[-1]["content"]


async def test_a_changed_kept_image_is_not_sent(server: ScriptedServer) -> None:
    engine = fault_engine(server, vision=True)
    try:
        chat = await _call(engine, server, "picture")
        [tool] = [m for m in engine.chats.load(chat).messages if m.get("role") == "tool"]
        Path(tool["attachments"][0]["path"]).write_bytes(png_bytes(200))
        server.enqueue(reply.text("again"))
        await ask(engine, chat, "look again")
    finally:
        await engine.close()
    sent = sent_messages(server, -1)
    assert _images(sent) == []
    assert "has changed since" in json.dumps(sent)


async def test_a_path_named_in_the_servers_text_is_never_attached(
    server: ScriptedServer, hermetic: Path
) -> None:
    secret = write(Path("private.png").resolve(), png_bytes(99))
    engine = fault_engine(server, vision=True)
    try:
        chat = await _call(engine, server, "pointer", path=str(secret))
        [tool] = [m for m in engine.chats.load(chat).messages if m.get("role") == "tool"]
    finally:
        await engine.close()
    sent = sent_messages(server, -1)
    assert _images(sent) == [] and sent[-1]["role"] == "tool"
    assert "attachments" not in tool
    assert base64.b64encode(png_bytes(99)).decode()[:24] not in json.dumps(sent)


def _tool_history(ref: dict[str, Any]) -> list[dict[str, Any]]:
    """A request's messages: one call of ``faults__picture`` and its result with ``ref``."""
    call = {"id": "c1", "type": "function",
            "function": {"name": "faults__picture", "arguments": "{}"}}  # fmt: skip
    stored = [
        {"role": "user", "content": "show me"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "name": "faults__picture",
         "content": "[image]", "attachments": [ref]},
    ]  # fmt: skip
    return [sanitize(m) for m in stored]  # type: ignore[arg-type]


def test_a_reference_outside_the_kept_folder_is_not_read(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    _, ref = keep(kept, PNG, "image/png", "faults__picture image")
    assert ref is not None
    elsewhere = write(tmp_path / "work" / "same.png", PNG)  # same bytes, same hash
    moved = {**ref, "path": str(elsewhere)}
    sent = resolve_images(_tool_history(moved), tmp_path / "work", True, "m", kept)
    assert _images(sent) == [] and "not in tuibot's kept folder" in sent[-1]["content"]
    linked = kept / "link.png"
    linked.symlink_to(elsewhere)
    sent = resolve_images(_tool_history({**ref, "path": str(linked)}), tmp_path, True, "m", kept)
    assert _images(sent) == [] and "not a plain kept file" in sent[-1]["content"]


def test_ollama_gets_the_kept_image_as_images_on_the_message_after_the_results(
    tmp_path: Path,
) -> None:
    _, ref = keep(tmp_path, PNG, "image/png", "faults__picture image")
    sent = resolve_images(_tool_history(dict(ref or {})), tmp_path, True, "llava", tmp_path)
    native = ollama_messages(sent)
    assert [m["role"] for m in native] == ["user", "assistant", "tool", "user"]
    assert native[-1]["images"] == [base64.b64encode(PNG).decode()]
    assert "images" not in native[-2] and native[-2]["tool_name"] == "faults__picture"


async def test_a_model_its_server_says_sees_gets_the_image(server: ScriptedServer) -> None:
    server.routes["/api/v0/models"] = {"data": [{"id": "test-model", "type": "vlm"}]}
    engine = fault_engine(server, vision=False)  # LM Studio's word, no setting
    try:
        await _call(engine, server, "picture")
    finally:
        await engine.close()
    assert _images(sent_messages(server, -1)) == [PNG]
    assert len([r for r in server.requests if r.path == "/api/v0/models"]) == 1
