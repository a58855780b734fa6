"""Attaching files with ``@path``: text, images, refusals — through the real engine and SDK.

Every test drives the engine against the scripted server on loopback, so what is checked
is the request body the ``openai`` SDK really sent and the chat file really written.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path

from attach_helpers import chat_requests, png_bytes, stored_user, vision_engine, write
from engine_helpers import Recorder, ask, make_engine, sent_messages
from scripted_server import ScriptedServer, text

from tuibot.approvals import Decision
from tuibot.events import ApprovalRequested, Notice


def user_content(server: ScriptedServer) -> object:
    """The content of the last user message of the last chat request."""
    return [m for m in sent_messages(server) if m["role"] == "user"][-1]["content"]


async def test_a_text_file_goes_in_as_a_fenced_block_with_its_name(server: ScriptedServer) -> None:
    write(Path("notes/todo.md"), "- buy milk\n- ``` fences inside\n")
    server.enqueue(text("ok"))
    engine = make_engine(server)
    chat = engine.new_chat().id
    try:
        outcome = await ask(engine, chat, "what is on @notes/todo.md?")
    finally:
        await engine.close()
    assert outcome.status == "completed"
    content = user_content(server)
    assert isinstance(content, str)
    assert content.startswith(
        "what is on @notes/todo.md?\n\nAttached file notes/todo.md:\n````md\n"
    )
    assert "- buy milk\n- ``` fences inside\n````" in content  # the fence outgrows the file's
    stored = stored_user(engine, chat)[-1]
    assert stored["content"] == "what is on @notes/todo.md?"  # the chat keeps what was typed
    [ref] = stored["attachments"]
    assert ref["kind"] == "text" and ref["name"] == "notes/todo.md"
    assert ref["path"] == str(Path("notes/todo.md").resolve())
    assert ref["text"] == "- buy milk\n- ``` fences inside\n"


async def test_the_file_is_read_when_the_message_is_sent_and_kept(server: ScriptedServer) -> None:
    """A later change to the file does not rewrite what the model read before."""
    path = write(Path("a.txt"), "first version")
    server.enqueue(text("one"), text("two"))
    engine = make_engine(server)
    chat = engine.new_chat().id
    try:
        await ask(engine, chat, "read @a.txt")
        path.write_text("second version", encoding="utf-8")
        await ask(engine, chat, "and now?")
    finally:
        await engine.close()
    replayed = next(m for m in sent_messages(server) if m["role"] == "user")["content"]
    assert "first version" in replayed and "second version" not in replayed


async def test_an_image_is_an_image_url_part_and_a_reference_in_the_chat(
    server: ScriptedServer,
) -> None:
    image = png_bytes(200)
    write(Path("photo.png"), image)
    server.enqueue(text("a grey dot"))
    engine = vision_engine(server)
    chat = engine.new_chat().id
    try:
        await ask(engine, chat, "describe @photo.png")
    finally:
        await engine.close()
    content = user_content(server)
    assert isinstance(content, list)
    assert content[0] == {"type": "text", "text": "describe @photo.png"}
    uri = content[1]["image_url"]["url"]
    assert content[1]["type"] == "image_url"
    assert uri == "data:image/png;base64," + base64.b64encode(image).decode()
    [ref] = stored_user(engine, chat)[-1]["attachments"]
    assert ref == {
        "kind": "image",
        "name": "photo.png",
        "path": str(Path("photo.png").resolve()),
        "size": len(image),
        "sha256": hashlib.sha256(image).hexdigest(),
        "mime": "image/png",
    }
    raw = engine.chats.path(chat).read_text(encoding="utf-8")
    assert base64.b64encode(image).decode() not in raw  # by reference, never as base64
    assert json.dumps(ref["sha256"]) in raw


async def test_a_changed_or_missing_image_is_told_to_the_model_on_replay(
    server: ScriptedServer,
) -> None:
    photo = write(Path("photo.png"), png_bytes(1))
    write(Path("chart.png"), png_bytes(2))
    server.enqueue(text("one"), text("two"))
    engine = vision_engine(server)
    chat = engine.new_chat().id
    try:
        await ask(engine, chat, "look at @photo.png and @chart.png")
        photo.write_bytes(png_bytes(3))
        Path("chart.png").unlink()
        outcome = await ask(engine, chat, "again")
    finally:
        await engine.close()
    assert outcome.status == "completed"
    replayed = next(m for m in sent_messages(server) if m["role"] == "user")["content"]
    assert isinstance(replayed, str)  # no image is left to send
    assert "the image photo.png has changed since it was attached" in replayed
    assert "the image chart.png attached earlier cannot be shown" in replayed


async def test_an_image_for_a_model_without_vision_is_refused_and_nothing_is_sent(
    server: ScriptedServer,
) -> None:
    write(Path("photo.png"), png_bytes())
    engine = make_engine(server)
    seen = Recorder(engine)
    chat = engine.new_chat().id
    try:
        outcome = await ask(engine, chat, "describe @photo.png")
    finally:
        await engine.close()
    assert outcome.status == "failed" and outcome.error_kind == "attachment"
    assert "model 'test-model' takes no images" in (outcome.error or "")
    assert "vision = true" in (outcome.error or "")
    assert chat_requests(server) == []
    assert stored_user(engine, chat) == []  # nothing stored: it can be sent again
    assert any("takes no images" in n.message for n in seen.of(Notice))


async def test_vision_models_names_the_models_that_take_images(server: ScriptedServer) -> None:
    write(Path("photo.png"), png_bytes())
    server.enqueue(text("seen"))
    engine = make_engine(server, providers__local__vision_models=["llava*", "test-*"])
    try:
        outcome = await ask(engine, engine.new_chat().id, "describe @photo.png")
    finally:
        await engine.close()
    assert outcome.status == "completed"
    assert user_content(server)[1]["type"] == "image_url"  # type: ignore[index]


async def test_a_replayed_image_to_a_model_without_vision_becomes_a_note(
    server: ScriptedServer,
) -> None:
    write(Path("photo.png"), png_bytes())
    server.enqueue(text("seen"), text("later"))
    engine = vision_engine(server)
    chat = engine.new_chat().id
    try:
        await ask(engine, chat, "describe @photo.png")
        engine.with_provider_override("test", vision=False)
        outcome = await ask(engine, chat, "and now")
    finally:
        await engine.close()
    assert outcome.status == "completed"
    replayed = next(m for m in sent_messages(server) if m["role"] == "user")["content"]
    assert "the image photo.png is not shown: model 'test-model' takes no images" in replayed


# -- attacks: the workspace rules of the file tools hold for attachments ---------------


async def refused(server: ScriptedServer, message: str) -> str:
    """Send ``message``; assert it was refused before any request; return the reason."""
    server.enqueue(text("the model saw it"))
    engine = make_engine(server)
    chat = engine.new_chat().id
    try:
        outcome = await ask(engine, chat, message)
    finally:
        await engine.close()
    assert outcome.status == "failed", outcome
    assert outcome.error_kind == "attachment"
    assert chat_requests(server) == []
    assert stored_user(engine, chat) == []
    return outcome.error or ""


async def test_dotdot_out_of_the_workspace_is_refused(server: ScriptedServer) -> None:
    write(Path.cwd().parent / "outside.txt", "SECRET-OUTSIDE")
    reason = await refused(server, "read @../outside.txt")
    assert "cannot attach ../outside.txt" in reason and "outside the workspace" in reason


async def test_an_absolute_path_elsewhere_is_refused(server: ScriptedServer) -> None:
    outside = write(Path.cwd().parent / "outside.txt", "SECRET-OUTSIDE")
    reason = await refused(server, f"read @{outside}")
    assert "outside the workspace" in reason


async def test_a_symlink_that_leads_out_is_refused(server: ScriptedServer) -> None:
    outside = write(Path.cwd().parent / "outside.txt", "SECRET-OUTSIDE")
    os.symlink(outside, "inside.txt")
    reason = await refused(server, "read @inside.txt")
    assert "a symlink leads to" in reason


async def test_a_symlinked_folder_out_is_refused(server: ScriptedServer) -> None:
    write(Path.cwd().parent / "elsewhere" / "keys.txt", "SECRET-OUTSIDE")
    os.symlink(Path.cwd().parent / "elsewhere", "docs")
    reason = await refused(server, "read @docs/keys.txt")
    assert "outside the workspace" in reason


async def test_a_quoted_home_path_is_refused(server: ScriptedServer) -> None:
    reason = await refused(server, 'read @"~/.bashrc"')
    assert "outside the workspace" in reason


async def test_a_fifo_is_refused_without_hanging(server: ScriptedServer) -> None:
    os.mkfifo("pipe.txt")
    reason = await refused(server, "read @pipe.txt")
    assert "not a regular file" in reason


async def test_a_file_over_the_cap_is_refused(server: ScriptedServer) -> None:
    write(Path("big.log"), "x" * 2049)
    engine = make_engine(server, attachments__max_text_bytes=2048)
    chat = engine.new_chat().id
    try:
        outcome = await ask(engine, chat, "read @big.log")
    finally:
        await engine.close()
    assert outcome.error_kind == "attachment"
    assert "larger than 2 KiB (attachments.max_text_bytes)" in (outcome.error or "")
    assert chat_requests(server) == [] and stored_user(engine, chat) == []


async def test_a_binary_file_that_is_no_image_is_refused(server: ScriptedServer) -> None:
    write(Path("tool.bin"), b"\x7fELF\x02\x01\x01\x00\x00\x00")
    reason = await refused(server, "run @tool.bin")
    assert "looks like a binary file" in reason


async def test_a_secret_looking_file_asks_first_and_a_denial_refuses(
    server: ScriptedServer,
) -> None:
    write(Path(".env"), "API_KEY=sk-do-not-send\n")
    engine = make_engine(server)
    asked: list[ApprovalRequested] = []

    def answer(event: object) -> None:
        if isinstance(event, ApprovalRequested):
            asked.append(event)
            engine.decide(event.request_id, Decision(False, reason="no"))

    engine.events.listen(answer)
    chat = engine.new_chat().id
    try:
        outcome = await ask(engine, chat, "check @.env")
    finally:
        await engine.close()
    [request] = asked
    permission = request.details["permission"]
    assert permission["kind"] == "read_secret"
    assert permission["grantKey"] == f"read-secret:{Path('.env').resolve()}"
    assert outcome.error_kind == "attachment" and "denied" in (outcome.error or "")
    assert chat_requests(server) == []


async def test_an_allowed_secret_file_is_attached(server: ScriptedServer) -> None:
    write(Path(".env"), "API_KEY=fine-to-send\n")
    server.enqueue(text("ok"))
    engine = make_engine(server)
    engine.events.listen(
        lambda e: (
            engine.decide(e.request_id, Decision(True))
            if isinstance(e, ApprovalRequested)
            else None
        )
    )
    try:
        outcome = await ask(engine, engine.new_chat().id, "check @.env")
    finally:
        await engine.close()
    assert outcome.status == "completed"
    assert "API_KEY=fine-to-send" in str(user_content(server))


async def test_words_that_are_no_files_stay_text(server: ScriptedServer) -> None:
    """``@alice``, ``@pytest.fixture`` and a missing ``@types/node`` are sent as typed."""
    server.enqueue(text("ok"))
    engine = make_engine(server)
    seen = Recorder(engine)
    typed = "ask @alice about @pytest.fixture and @types/node, mail me@example.com"
    try:
        outcome = await ask(engine, engine.new_chat().id, typed)
    finally:
        await engine.close()
    assert outcome.status == "completed"
    assert user_content(server) == typed
    notes = [n.message for n in seen.of(Notice)]
    assert "@types/node names no file; it was sent as text" in notes


async def test_a_task_notice_attaches_nothing(server: ScriptedServer) -> None:
    """Input from tuibot (a delegated task a model wrote) never reads files."""
    write(Path("data.txt"), "FILE-CONTENT")
    server.enqueue(text("ok"))
    engine = make_engine(server)
    chat = engine.new_chat().id
    try:
        outcome = await engine.post(chat, "[tuibot] task: summarise @data.txt", notice=True)
    finally:
        await engine.close()
    assert outcome.status == "completed"  # type: ignore[union-attr]
    assert "FILE-CONTENT" not in str(user_content(server))
