"""The app's side of attachments: ``@path`` completes from the workspace, chips show files.

Driven through the real app over the scripted server with key presses; what is checked
is what the composer holds, the request the engine sent, and the chips on screen.
"""

from __future__ import annotations

import os
from pathlib import Path

from scripted_server import ScriptedServer, text
from tui_helpers import SIZE, make_app, ready, until

from tuibot.tui.text.path_completion import candidates
from tuibot.tui.widgets.chips import AttachmentChips
from tuibot.tui.widgets.conversation import Conversation


async def test_at_completes_a_path_and_the_file_is_attached(server: ScriptedServer) -> None:
    Path("docs").mkdir()
    Path("docs/guide.md").write_text("# Guide\nstep one\n", encoding="utf-8")
    server.enqueue(text("read it"))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        completion = app.composer.completion
        await pilot.press(*"see @do")
        await until(pilot, lambda: completion.is_open)
        assert [o.id for o in completion.options] == ["docs/"]
        await pilot.press("tab")  # a folder: the list opens on what is inside
        assert app.composer.text == "see @docs/"
        await until(pilot, lambda: [o.id for o in completion.options] == ["docs/guide.md"])
        await pilot.press("enter")  # Enter completes the highlighted path, it does not send
        assert app.composer.text == "see @docs/guide.md "
        assert not completion.is_open
        await pilot.press("enter")
        await until(pilot, lambda: bool(list(app.query(AttachmentChips))))
        [chips] = list(app.query(AttachmentChips))
        assert chips.labels == ("📎 docs/guide.md · text · 17 B",)
    bodies = [r.body or {} for r in server.requests if r.path.endswith("/chat/completions")]
    assert "Attached file docs/guide.md:\n```md\n# Guide\nstep one\n```" in str(
        bodies[-1]["messages"][-1]["content"]
    )


async def test_a_reopened_chat_shows_its_chips(server: ScriptedServer) -> None:
    Path("a.txt").write_text("hello", encoding="utf-8")
    server.enqueue(text("ok"))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press(*"read @a.txt", "escape", "enter")
        await until(pilot, lambda: bool(list(app.query(AttachmentChips))))
        chat = app.current_chat
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.current_chat == chat
        history = app.query_one(Conversation).history
        await until(pilot, lambda: any(e.kind == "attachments" for e in history.entries))
        kinds = [e.kind for e in history.entries]
        assert kinds[:3] == ["user", "attachments", "answer"]
        await until(pilot, lambda: "📎 a.txt · text · 5 B" in "".join(_drawn(history)))


def test_completion_never_lists_outside_the_workspace(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("x", encoding="utf-8")
    os.symlink(tmp_path / "outside", root / "out")
    (root / ".env").write_text("x", encoding="utf-8")
    (root / "note.md").write_text("x", encoding="utf-8")
    assert candidates(root, "") == [("note.md", "file"), ("out/", "folder")]  # dotfiles hidden
    assert candidates(root, ".e") == [(".env", "file")]
    for partial in ("out/", "../", "/", "~/", "../outside/s"):
        assert candidates(root, partial) == [], partial


def _drawn(history: object) -> list[str]:
    """The rows the history has drawn, as text."""
    total = history.rows.total  # type: ignore[attr-defined]
    return history.text_of_rows(0, total)  # type: ignore[attr-defined, no-any-return]
