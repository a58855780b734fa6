"""Audio attachments: transcribed through the provider's ``/audio/transcriptions`` endpoint.

The real ``openai`` SDK posts the multipart form to the scripted server, which records the
form and answers with a queued transcript; the transcript is what the chat model reads.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from attach_helpers import chat_requests, stored_user, write
from engine_helpers import ask, make_engine, sent_messages
from scripted_server import ScriptedServer, error, text

OGG = b"OggS\x00\x02" + bytes(range(64))
"""The start of an Ogg stream: what a voice note's file begins with."""


def form_of(server: ScriptedServer) -> dict[str, object]:
    [request] = [r for r in server.requests if r.path.endswith("/transcriptions/form")]
    assert request.body is not None
    return request.body


async def test_an_audio_note_is_sent_as_its_transcript(server: ScriptedServer) -> None:
    write(Path("voice/note.ogg"), OGG)
    server.transcripts.append("Please water the plants on Friday.")
    server.enqueue(text("noted"))
    engine = make_engine(
        server, transcription__provider="local", transcription__model="whisper-small"
    )
    chat = engine.new_chat().id
    try:
        outcome = await ask(engine, chat, "what does @voice/note.ogg ask?")
    finally:
        await engine.close()
    assert outcome.status == "completed"
    form = form_of(server)
    assert form["model"] == "whisper-small"
    assert form["file"] == {
        "filename": "note.ogg",
        "type": "audio/ogg",
        "size": len(OGG),
        "sha256": hashlib.sha256(OGG).hexdigest(),
    }
    content = [m for m in sent_messages(server) if m["role"] == "user"][-1]["content"]
    assert "Transcript of the attached audio voice/note.ogg:\n```\n" in content
    assert "Please water the plants on Friday." in content
    [ref] = stored_user(engine, chat)[-1]["attachments"]
    assert ref["kind"] == "audio" and ref["mime"] == "audio/ogg"
    assert ref["text"] == "Please water the plants on Friday."


async def test_audio_without_transcription_is_refused_with_what_to_do(
    server: ScriptedServer,
) -> None:
    write(Path("note.wav"), b"RIFF\x24\x00\x00\x00WAVEfmt ")
    engine = make_engine(server)
    chat = engine.new_chat().id
    try:
        outcome = await ask(engine, chat, "listen to @note.wav")
    finally:
        await engine.close()
    assert outcome.error_kind == "attachment"
    assert "no transcription is set up" in (outcome.error or "")
    assert "[transcription] provider" in (outcome.error or "")
    assert server.requests == [] and stored_user(engine, chat) == []


async def test_a_failed_transcription_is_a_clear_refusal(server: ScriptedServer) -> None:
    write(Path("note.mp3"), b"ID3\x03\x00" + bytes(32))
    server.transcripts.append(error(400, message="unsupported audio codec"))
    engine = make_engine(server, transcription__provider="local")
    chat = engine.new_chat().id
    try:
        outcome = await ask(engine, chat, "listen to @note.mp3")
    finally:
        await engine.close()
    assert outcome.error_kind == "attachment"
    assert "cannot attach note.mp3: transcription at" in (outcome.error or "")
    assert "unsupported audio codec" in (outcome.error or "")
    assert chat_requests(server) == [] and stored_user(engine, chat) == []


async def test_an_audio_file_over_its_cap_is_not_uploaded(server: ScriptedServer) -> None:
    write(Path("long.m4a"), b"\x00\x00\x00\x18ftypM4A " + bytes(4096))
    engine = make_engine(server, transcription__provider="local", attachments__max_audio_bytes=1024)
    try:
        outcome = await ask(engine, engine.new_chat().id, "listen to @long.m4a")
    finally:
        await engine.close()
    assert "larger than 1 KiB (attachments.max_audio_bytes)" in (outcome.error or "")
    assert server.requests == []
