"""Compaction summarises what the model saw: an attached file's text, not just ``@path``.

The chat file keeps what the person typed (``@notes.md``) and the attachment beside it;
the summariser must read the attachment as the model read it, or a summary of "what is
in @notes.md?" forgets the file's content. Driven through the real engine and SDK: the
file is attached by a real send, the summary request is what the scripted server got.
"""

from __future__ import annotations

from pathlib import Path

from attach_helpers import png_bytes, vision_engine, write
from engine_helpers import ask
from scripted_server import ScriptedServer
from window_server import is_summary, windowed

from tuibot.agent.compact import transcript

SETTINGS = {"providers__local__context_window": 8000, "agent__consolidate_after": 0}


async def test_the_summary_request_carries_the_attached_text(server: ScriptedServer) -> None:
    write(Path("notes.md"), "The launch code word is PELICAN-42.\n")
    write(Path("shot.png"), png_bytes())
    windowed(server, 100_000, "refuse")
    engine = vision_engine(server, **SETTINGS)
    chat = engine.new_chat().id
    try:
        await ask(engine, chat, "remember @notes.md and @shot.png")
        for n in range(2):
            await ask(engine, chat, f"go on {n}")
        output = await (await engine.send(chat, "/compact"))
        assert output.ok, output.text
    finally:
        await engine.close()
    bodies = [r.body for r in server.requests if r.path.endswith("/chat/completions") and r.body]
    [summary] = [b for b in bodies if is_summary(b)]
    sent = summary["messages"][1]["content"]
    assert "User: remember @notes.md and @shot.png" in sent
    assert "Attached file notes.md:\n```md\nThe launch code word is PELICAN-42.\n```" in sent
    assert "[attached image shot.png]" in sent  # named, never sent as base64
    assert "base64" not in sent


def test_a_long_attachment_is_cut_like_a_tool_result() -> None:
    body = "".join(f"line {i}\n" for i in range(2000))
    ref = {"kind": "text", "name": "big.txt", "text": body}
    said = transcript(
        [{"role": "user", "content": "see @big.txt", "attachments": [ref]}], "", 10**6
    )
    assert said.startswith("User: see @big.txt\n\nAttached file big.txt:\n```txt\nline 0\n")
    assert "line 1999" in said and "line 1000\n" not in said
    assert len(said) < 3000


def test_a_transcript_is_read_as_the_model_read_it() -> None:
    ref = {"kind": "audio", "name": "note.ogg", "text": "buy oat milk"}
    said = transcript([{"role": "user", "content": "", "attachments": [ref]}], "", 10**6)
    assert "Transcript of the attached audio note.ogg:\n```\nbuy oat milk\n```" in said
