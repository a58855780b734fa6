"""A pasted path to an image attaches it, as ``@path`` does; any other paste stays text.

Terminals paste a dragged file as its path (bracketed paste), often quoted or escaped.
Textual delivers the paste as one :class:`~textual.events.Paste` to the focused widget,
where every class in its MRO that has a paste handler runs unless one prevents the
default; these tests post the event to the app, as the driver does, and check that it
lands exactly once.
"""

from __future__ import annotations

from pathlib import Path

from attach_helpers import chat_requests, png_bytes, write
from scripted_server import ScriptedServer, text
from textual import events
from tui_helpers import SIZE, make_app, ready, until

from tuibot.attachments.pasted import pasted_images
from tuibot.events import TurnFinished
from tuibot.tui.app import TuibotApp
from tuibot.tui.widgets.chips import AttachmentChips


def test_a_pasted_image_path_is_found_as_terminals_paste_it(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root / "shot.png", png_bytes())
    write(root / "my shot.PNG", png_bytes())
    write(root / "notes.md", "# notes")
    write(tmp_path / "out.png", png_bytes())
    assert pasted_images("shot.png", root) == ["shot.png"]
    assert pasted_images("  shot.png\n", root) == ["shot.png"]
    assert pasted_images(f"{root}/shot.png", root) == ["shot.png"]  # inside: made relative
    assert pasted_images(f"'{root}/my shot.PNG'", root) == ["my shot.PNG"]  # GNOME, Konsole
    assert pasted_images(f"{root}/my\\ shot.PNG ", root) == ["my shot.PNG"]  # iTerm2, kitty
    assert pasted_images(f"file://{root}/my%20shot.PNG", root) == ["my shot.PNG"]
    assert pasted_images(f"{tmp_path}/out.png", root) == [f"{tmp_path}/out.png"]  # refused later
    two = f"'{root}/shot.png' '{root}/my shot.PNG' "  # two files dragged at once
    assert pasted_images(two, root) == ["shot.png", "my shot.PNG"]
    for plain in ("notes.md", "hello world", "missing.png", "shot.png\nshot.png", "", "@x"):
        assert pasted_images(plain, root) == [], plain
    assert pasted_images("shot.png notes.md", root) == []  # all images, or it is text
    assert pasted_images("it's shot.png", root) == []  # an open quote: text
    assert pasted_images("file://elsewhere/shot.png", root) == []  # another host's file
    assert pasted_images("a" * 5000 + ".png", root) == []  # too long a name: no OSError
    assert pasted_images('"a\\"b.png"', root) == []  # a name a mention cannot hold


async def test_a_pasted_image_path_is_attached_once(server: ScriptedServer) -> None:
    write(Path("shots/a b.png"), png_bytes())
    write(Path("shots/c.png"), png_bytes(9))
    server.enqueue(text("grey pixels"))
    app = make_app(server, providers__local__vision=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press(*"what is")
        app.post_message(events.Paste(f"{Path.cwd()}/shots/a\\ b.png"))
        await until(pilot, lambda: "png" in app.composer.text)
        await pilot.pause()
        assert app.composer.text == 'what is @"shots/a b.png" '
        app.post_message(events.Paste(f"'{Path.cwd()}/shots/a b.png' shots/c.png"))
        await until(pilot, lambda: "c.png" in app.composer.text)
        assert app.composer.text == 'what is @"shots/a b.png" @"shots/a b.png" @"shots/c.png" '
        await pilot.press("enter")
        await until(pilot, lambda: bool(list(app.query(AttachmentChips))))
        [chips] = list(app.query(AttachmentChips))
        assert chips.labels == (  # the same file twice is attached once
            "📎 shots/a b.png · image · 67 B",
            "📎 shots/c.png · image · 67 B",
        )
    [body] = [r.body or {} for r in chat_requests(server)]
    parts = body["messages"][-1]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url", "image_url"]
    assert parts[0]["text"] == 'what is @"shots/a b.png" @"shots/a b.png" @"shots/c.png"'


async def test_other_pastes_stay_text_unchanged(server: ScriptedServer) -> None:
    write(Path("notes.md"), "# notes")
    write(Path("shot.png"), png_bytes())
    app = make_app(server, providers__local__vision=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for pasted in ("notes.md", "  hello\n  world ", "shot.png and more", "gone.png"):
            app.composer.clear()
            app.post_message(events.Paste(pasted))
            await until(pilot, lambda p=pasted: app.composer.text == p)  # type: ignore[misc]
            await pilot.pause()
            assert app.composer.text == pasted  # once, as pasted
    assert chat_requests(server) == []


async def test_a_pasted_image_outside_the_workspace_is_refused(
    server: ScriptedServer, tmp_path: Path
) -> None:
    outside = write(tmp_path / "elsewhere" / "x.png", png_bytes())
    app = make_app(server, providers__local__vision=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.engine is not None
        ended: list[TurnFinished] = []
        app.engine.events.listen(lambda e: ended.append(e) if isinstance(e, TurnFinished) else None)
        app.post_message(events.Paste(str(outside)))
        await until(pilot, lambda: "x.png" in app.composer.text)
        assert app.composer.text == f'@"{outside}" '
        await pilot.press("enter")
        await until(pilot, lambda: bool(ended))
        assert ended[0].error_kind == "attachment"
        assert "is outside the workspace" in (ended[0].error or "")
        assert _stored_users(app) == []
    assert chat_requests(server) == []


def _stored_users(app: TuibotApp) -> list[object]:
    assert app.engine is not None and app.current_chat is not None
    messages = app.engine.chats.load(app.current_chat, readonly=True).messages
    return [m for m in messages if m.get("role") == "user"]
