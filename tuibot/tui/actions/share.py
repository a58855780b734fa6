"""The app's find, fork and export commands for the chats pane.

A mixin of :class:`~tuibot.tui.app.TuibotApp` (see :mod:`tuibot.tui.actions.chat_commands` for why
handlers are plain methods). Searching goes through ``engine.view.search``, whose one
index of chat files makes the next search fast; forking and exporting use the same store
functions as ``tuibot chats fork|export`` (through ``engine.fork_chat`` and
``engine.view.markdown``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work

from tuibot.tui.widgets.chat_list import ChatList

if TYPE_CHECKING:
    from textual.app import App

    from tuibot.engine import Engine
    from tuibot.tui.widgets.conversation import Conversation

    _AppBase = App[int]
else:
    _AppBase = object


class ShareCommands(_AppBase):
    """Search, fork and export for the app; expects the attributes declared below."""

    if TYPE_CHECKING:
        engine: Engine | None
        current_chat: str | None

        def open_chat(self, chat: str, *, whole: bool = False) -> None: ...
        @property
        def conversation(self) -> Conversation: ...

    def on_chat_list_search_requested(self, message: ChatList.SearchRequested) -> None:
        self.search_chats()

    def on_chat_list_fork_requested(self, message: ChatList.ForkRequested) -> None:
        self.fork_chat(message.chat)

    def on_chat_list_export_requested(self, message: ChatList.ExportRequested) -> None:
        self.export_chat(message.chat, message.title)

    @work(group="dialogs", exclusive=True, exit_on_error=False)
    async def search_chats(self) -> None:
        """Ask for words, open the chat picked from the results."""
        from tuibot.tui.screens.search import SearchScreen

        engine = self.engine
        if engine is None:
            return
        hit = await self.push_screen_wait(SearchScreen(engine.view))
        if hit is None:
            return
        self.open_chat(hit.meta.id, whole=hit.message is not None)  # the hit may be anywhere
        if hit.message is not None and self.current_chat == hit.meta.id:
            self.conversation.show_message(hit.message)

    @work(group="dialogs", exclusive=True, exit_on_error=False)
    async def fork_chat(self, chat: str) -> None:
        """Copy the chat's first N messages (all by default) to a new chat and open it."""
        from tuibot.store.chats import ChatNotFound
        from tuibot.store.jsonl import StorageError
        from tuibot.tui.screens.prompt import PromptScreen

        engine = self.engine
        if engine is None:
            return
        try:
            count = len(engine.view.transcript(chat).messages)
        except (ChatNotFound, StorageError) as error:
            self.notify(f"Cannot fork the chat: {error}", severity="error", markup=False)
            return
        question = f"Fork after which message? (1–{count}; empty: the whole chat)"
        answer = await self.push_screen_wait(PromptScreen(question))
        if answer is None:
            return
        try:
            at = int(answer) if answer.strip() else None
            meta = engine.fork_chat(chat, at)
        except ValueError:
            self.notify(f"Give a number from 1 to {count}.", severity="error", markup=False)
            return
        except (ChatNotFound, StorageError) as error:
            self.notify(f"Cannot fork the chat: {error}", severity="error", markup=False)
            return
        self.query_one(ChatList).load(engine)
        self.open_chat(meta.id)
        self.notify(f"Forked into {meta.title!r}.", markup=False, timeout=3)

    @work(group="dialogs", exclusive=True, exit_on_error=False)
    async def export_chat(self, chat: str, title: str) -> None:
        """Write the chat as Markdown to a file the person names (asks before replacing)."""
        from tuibot.store.chats import ChatNotFound
        from tuibot.store.jsonl import StorageError
        from tuibot.tui.screens.confirm import ConfirmScreen
        from tuibot.tui.screens.prompt import PromptScreen

        engine = self.engine
        if engine is None:
            return
        offered = str(Path.cwd() / f"{file_stem(title)}.md")
        answer = await self.push_screen_wait(PromptScreen("Export to file:", value=offered))
        if answer is None or not answer.strip():
            return
        target = Path(answer.strip()).expanduser()
        if target.exists():
            question = f"{target} exists. Replace it?"
            if not await self.push_screen_wait(ConfirmScreen(question, yes="Replace")):
                return
        try:
            target.write_text(engine.view.markdown(chat), "utf-8")
        except (ChatNotFound, StorageError, OSError) as error:
            self.notify(f"Cannot export the chat: {error}", severity="error", markup=False)
            return
        self.notify(f"Exported to {target}", markup=False, timeout=5)


def file_stem(title: str) -> str:
    """A file name from a chat title: letters, digits and dashes, never empty."""
    stem = re.sub(r"[^\w]+", "-", title.casefold()).strip("-_")[:60]
    return stem or "chat"
