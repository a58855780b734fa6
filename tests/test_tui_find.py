"""Find, fork and export chats from the chats pane, in the real app.

Chats are written to the real store before the app starts; each test drives the keys a
person presses and checks what opened or what was written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scripted_server import ScriptedServer
from textual.pilot import Pilot
from textual.widgets import Input, OptionList
from tui_helpers import SIZE, make_app, ready, until

from tuibot.store.chats import ChatStore
from tuibot.system.paths import DataPaths
from tuibot.tui.app import TuibotApp
from tuibot.tui.screens.confirm import ConfirmScreen
from tuibot.tui.screens.prompt import PromptScreen
from tuibot.tui.screens.search import SearchScreen
from tuibot.tui.widgets.chat_list import ChatList


def store() -> ChatStore:
    return ChatStore(DataPaths.default().chats)


def seed() -> dict[str, str]:
    """Three chats; one mentions "pelican" only deep in an answer."""
    chats = store()
    ids = {}
    for title, answer in [
        ("Groceries", "Buy milk and eggs."),
        ("Birds", "Line one.\nThe brown pelican dives for fish."),
        ("Taxes", "File by April."),
    ]:
        meta = chats.create(title=title)
        chats.append(
            meta.id,
            [
                {"role": "user", "content": f"About {title}"},
                {"role": "assistant", "content": answer},
            ],
        )
        ids[title] = meta.id
    return ids


async def on_chats(pilot: Pilot[Any], app: TuibotApp, chat: str) -> None:
    await pilot.press("f2")
    rows = app.query_one(ChatList)
    rows.highlighted = rows.get_option_index(chat)
    await pilot.pause()


async def test_slash_searches_text_and_enter_opens_the_match(server: ScriptedServer) -> None:
    ids = seed()
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f2", "slash")
        await until(pilot, lambda: isinstance(app.screen, SearchScreen))
        await pilot.press(*"PELICAN dives")
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        await until(pilot, lambda: [h.meta.id for h in screen.hits] == [ids["Birds"]])
        assert screen.hits[0].snippet == "The brown pelican dives for fish."
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, SearchScreen))
        assert app.current_chat == ids["Birds"]


async def test_search_finds_titles_and_says_when_nothing_matches(server: ScriptedServer) -> None:
    ids = seed()
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f2", "slash", *"taxes")
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        await until(pilot, lambda: [h.meta.id for h in screen.hits] == [ids["Taxes"]])
        screen.query_one(Input).value = "zebra"
        await until(pilot, lambda: screen.hits == [])
        results = screen.query_one(OptionList)
        assert results.option_count == 1
        assert "No chat matches" in str(results.get_option_at_index(0).prompt)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, SearchScreen))


async def test_f_forks_after_a_message_and_opens_the_fork(server: ScriptedServer) -> None:
    ids = seed()
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await on_chats(pilot, app, ids["Birds"])
        await pilot.press("f")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press("1", "enter")
        await until(pilot, lambda: app.current_chat not in (None, *ids.values()))
        assert app.current_chat is not None
        fork = store().load(app.current_chat)
        assert fork.meta.title == "Birds (fork)"
        assert [m["content"] for m in fork.messages] == ["About Birds"]
        assert len(store().load(ids["Birds"]).messages) == 2


async def test_e_exports_markdown_and_asks_before_replacing(
    server: ScriptedServer, tmp_path: Path
) -> None:
    ids = seed()
    target = tmp_path / "birds.md"
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for replace in (False, True):
            await on_chats(pilot, app, ids["Birds"])
            await pilot.press("e")
            await until(pilot, lambda: isinstance(app.screen, PromptScreen))
            app.screen.query_one(Input).value = str(target)
            await pilot.press("enter")
            if replace:
                await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
                await pilot.press("y")
            await until(pilot, lambda: target.exists() and "pelican" in target.read_text())
            await until(pilot, lambda: app.screen is app.screen_stack[0])
            target.write_text("old") if not replace else None
        text = target.read_text(encoding="utf-8")
        assert text.startswith("# Birds\n") and "The brown pelican dives for fish." in text


def visible_text(app: TuibotApp) -> str:
    """The stored history's lines inside the conversation's view now."""
    conversation = app.conversation
    history = conversation.history
    top = round(conversation.scroll_y) - history.virtual_region.y
    return "\n".join(history.text_of_rows(top, top + conversation.size.height))


async def test_a_search_result_opens_at_the_message_it_was_found_in(
    server: ScriptedServer,
) -> None:
    chats = store()
    meta = chats.create(title="Long talk")
    messages = []
    for n in range(120):
        messages.append({"role": "user", "content": f"Question {n}?"})
        answer = "The albatross glides for days." if n == 10 else f"Answer {n}."
        messages.append({"role": "assistant", "content": answer})
    chats.append(meta.id, messages)
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f2", "slash", *"albatross")
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        await until(pilot, lambda: [h.message for h in screen.hits] == [21])
        await pilot.press("enter")
        await until(pilot, lambda: app.current_chat == meta.id)
        await until(pilot, lambda: "albatross glides" in visible_text(app), 30)
        assert not app.conversation.following, "new text must not pull the view away"
        history = app.conversation.history
        assert history.cursor is not None
        assert history.entries[history.cursor].text == "The albatross glides for days."
