"""Consolidation folds in what the model saw: an attached file's text, not just ``@path``.

The chat file keeps the typed ``@notes.md`` and the attachment beside it; memory written
from the typed text alone would never learn what the file said. Driven through the real
engine and SDK: the file is attached by a real send, and the consolidation request is what
the scripted server received.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from attach_helpers import chat_requests, png_bytes, vision_engine, write
from engine_helpers import ask
from scripted_replies import text
from scripted_server import ScriptedServer

from tuibot.agent.consolidate import transcript


async def test_the_consolidation_request_carries_the_attached_text(
    server: ScriptedServer, hermetic: Path
) -> None:
    write(Path("notes.md"), "The launch code word is PELICAN-42.\n")
    write(Path("shot.png"), png_bytes())
    engine = vision_engine(server, agent__consolidate_after=2, agent__consolidate_keep=2)
    chat = engine.new_chat().id
    try:
        server.enqueue(text("noted"), text("answer 1"), text("## Notes\n- code word"))
        await ask(engine, chat, "remember @notes.md and @shot.png")
        await ask(engine, chat, "go on")
        for _ in range(100):  # consolidation runs in the background after the turn
            if (hermetic / "data" / "memory" / "Assistant.md").exists():
                break
            await asyncio.sleep(0.05)
    finally:
        await engine.close()
    bodies = [r.body for r in chat_requests(server) if r.body]
    [fold] = [b for b in bodies if "Conversation to fold in" in str(b["messages"][-1]["content"])]
    sent = fold["messages"][-1]["content"]
    assert "remember @notes.md and @shot.png" in sent
    assert "Attached file notes.md:\n```md\nThe launch code word is PELICAN-42.\n```" in sent
    assert "[attached image shot.png]" in sent  # named, never sent as base64
    assert "base64" not in sent


def test_a_transcript_is_folded_in_as_the_model_read_it() -> None:
    ref = {"kind": "audio", "name": "note.ogg", "text": "buy oat milk"}
    said = transcript([{"role": "user", "content": "hear this", "attachments": [ref]}])
    assert said.startswith("[user] hear this\n\nTranscript of the attached audio note.ogg:")
    assert "```\nbuy oat milk\n```" in said
