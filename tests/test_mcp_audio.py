"""An MCP tool's audio: kept by hash, and its transcript in the result the model reads.

Real engine, a real MCP server process (tests/mcp_audio_server.py: the SDK's own
``AudioContent``), the real openai
SDK posting the kept clip to the scripted server's ``/audio/transcriptions``. Only bytes
that are audio by their magic are kept as audio (a server's MIME type is not trusted);
without ``[transcription]`` the model gets a one-line note instead of a transcript.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import sys
import wave
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import ask, sent_messages
from scripted_server import ScriptedServer, error, text, tool_calls

from tuibot.attachments.kept import keep
from tuibot.engine import Engine
from tuibot.settings import load_settings
from tuibot.settings.mcp import McpServerSettings, McpSettings

SERVER = Path(__file__).with_name("mcp_audio_server.py")
WAV = (  # what tests/mcp_audio_server.py's ``sound`` returns
    b"RIFF" + (36 + 8).to_bytes(4, "little") + b"WAVEfmt " + (16).to_bytes(4, "little")
    + bytes.fromhex("0100 0100 401f0000 401f0000 0100 0800") + b"data"
    + (8).to_bytes(4, "little") + b"\x80" * 8
)  # fmt: skip


def _engine(server: ScriptedServer, transcription: bool) -> Engine:
    overrides: dict[str, tuple[Any, str]] = {
        "providers.local.base_url": (server.url, "test"),
        "providers.local.max_retries": (0, "test"),
        "agent.model": ("test-model", "test"),
    }
    if transcription:
        overrides["transcription.provider"] = ("local", "test")
        overrides["transcription.model"] = ("whisper-small", "test")
    settings = load_settings(None, overrides=overrides)
    sounds = McpServerSettings(
        name="sounds", command=sys.executable, args=[str(SERVER)], startup_timeout=60.0
    )
    mcp = McpSettings(servers={"sounds": sounds})
    engine = Engine(dataclasses.replace(settings, mcp=mcp))
    engine.load_tools()
    return engine


async def _tool_text(engine: Engine, server: ScriptedServer, tool: str) -> str:
    """The tool result the model read after calling ``sounds__<tool>``."""
    for _ in range(600):  # the server process imports the SDK first
        if f"sounds__{tool}" in engine.tools:
            break
        await asyncio.sleep(0.1)
    server.enqueue(tool_calls([(f"sounds__{tool}", "{}")]), text("heard"))
    try:
        outcome = await ask(engine, engine.new_chat().id, f"call {tool}")
    finally:
        await engine.close()
    assert outcome.status == "completed", outcome.error
    [result] = [m for m in sent_messages(server, -1) if m["role"] == "tool"]
    return str(result["content"])


def _forms(server: ScriptedServer) -> list[dict[str, Any]]:
    return [r.body for r in server.requests if r.path.endswith("/transcriptions/form") and r.body]


async def test_a_tools_audio_reaches_the_model_as_its_transcript(
    server: ScriptedServer, hermetic: Path
) -> None:
    server.transcripts.append("Meet me at the north gate at noon.")
    content = await _tool_text(_engine(server, transcription=True), server, "sound")
    [form] = _forms(server)
    assert form["model"] == "whisper-small"
    file = form["file"]
    assert isinstance(file, dict) and file["type"] == "audio/wav"
    assert file["size"] == len(WAV) and file["sha256"] == hashlib.sha256(WAV).hexdigest()
    assert "the recording:" in content
    assert "Transcript of the audio sounds__sound returned" in content
    assert "Meet me at the north gate at noon." in content
    kept = [p for p in hermetic.rglob("*.wav") if p.read_bytes() == WAV]
    assert len(kept) == 1 and str(kept[0]) in content
    with wave.open(str(kept[0])) as clip:  # the kept file is the clip, byte for byte
        assert clip.getnframes() == 8


async def test_without_transcription_the_model_gets_one_line(server: ScriptedServer) -> None:
    content = await _tool_text(_engine(server, transcription=False), server, "sound")
    assert _forms(server) == []
    [note] = [line for line in content.splitlines() if "not transcribed" in line]
    assert "[transcription]" in note and "docs/attachments.md" in note


async def test_a_failed_transcription_is_a_note_not_a_failed_call(server: ScriptedServer) -> None:
    server.transcripts.append(error(400, message="unsupported audio codec"))
    content = await _tool_text(_engine(server, transcription=True), server, "sound")
    assert len(_forms(server)) == 1
    assert "could not be transcribed" in content and "unsupported audio codec" in content
    assert not content.startswith("Error:")


async def test_bytes_that_are_no_audio_are_never_transcribed(server: ScriptedServer) -> None:
    server.transcripts.append("should not be asked for")
    content = await _tool_text(_engine(server, transcription=True), server, "static")
    assert _forms(server) == []
    assert "Transcript" not in content and "audio/wav" in content
    assert "not audio" in content


@pytest.mark.parametrize(
    ("data", "mime"),
    [
        (WAV, "audio/wav"),
        (b"OggS\x00\x02" + bytes(40), "audio/ogg"),
        (b"ID3\x04\x00\x00" + bytes(40), "audio/mpeg"),
        (b"\xff\xfb\x90\x64" + bytes(40), "audio/mpeg"),  # an MPEG-1 layer III frame
        (b"fLaC\x00\x00\x00\x22" + bytes(40), "audio/flac"),
    ],
    ids=["wav", "ogg", "mp3-id3", "mp3-frame", "flac"],
)
def test_audio_is_kept_as_audio_by_its_magic(tmp_path: Path, data: bytes, mime: str) -> None:
    path, ref = keep(tmp_path, data, "audio/x-whatever", "t audio")
    assert ref is not None and ref["kind"] == "audio" and ref["mime"] == mime
    assert ref["sha256"] == hashlib.sha256(data).hexdigest() and path.read_bytes() == data


@pytest.mark.parametrize(
    "data",
    [
        b"RIFF\x24\x00\x00\x00WEBPVP8 " + bytes(20),  # RIFF, but a WebP image
        b"\xff\xf1\x50\x80" + bytes(20),  # AAC's ADTS sync, not MPEG layer III
        b"\xff\xd8\xff\xe0" + bytes(20),  # a JPEG
        json.dumps({"audio": "RIFF"}).encode(),
    ],
    ids=["webp", "aac-adts", "jpeg", "text"],
)
def test_other_bytes_are_not_audio(tmp_path: Path, data: bytes) -> None:
    _, ref = keep(tmp_path, data, "audio/wav", "t audio")
    assert ref is None or ref["kind"] == "image"
