"""The app's chat commands: open, send, interrupt, new, rename, delete, pin a bot.

A mixin of :class:`~tuibot.tui.app.TuibotApp`, kept apart so the app module stays about
layout and event routing. Every engine call the chat panes need is made here.

Handlers are named ``on_<message>`` rather than decorated with ``@on``: Textual only
collects ``@on`` handlers from classes built by its metaclass, and a mixin is not one.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from textual import work

from tuibot.events import CommandOutput, Event, McpServerNotice, TurnFinished, TurnStarted
from tuibot.tui.actions.models import SWITCH_COMMANDS
from tuibot.tui.widgets.chat_list import ChatList
from tuibot.tui.widgets.composer import Composer

if TYPE_CHECKING:
    from tuibot.engine import Engine
    from tuibot.engine.view import Transcript
    from tuibot.store.chat_message import ChatMessage
    from tuibot.tui.sessions import SessionState
    from tuibot.tui.widgets.conversation import Conversation
    from tuibot.tui.widgets.history_blocks import Entry
    from tuibot.tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from textual.app import App

    _AppBase = App[int]
else:
    _AppBase = object

SECOND_ESCAPE_S = 3.0
"""A second Esc within this many seconds also cancels the chat's delegations."""


def shown_messages(loaded: Transcript, *, busy: bool) -> list[ChatMessage]:
    """The messages of ``loaded`` as the conversation shows them (``busy``: a turn of
    the chat runs now, so its unanswered calls show as running)."""
    messages = list(loaded.messages)
    if loaded.repaired and busy:
        from tuibot.tui.widgets.history_blocks import still_running

        messages = still_running(messages, loaded.repaired)
    return messages


class ChatCommands(_AppBase):
    """Chat actions for the app; expects the attributes declared below."""

    if TYPE_CHECKING:
        engine: Engine | None
        current_chat: str | None
        session: SessionState

        @property
        def conversation(self) -> Conversation: ...
        @property
        def composer(self) -> Composer: ...
        @property
        def status(self) -> StatusBar: ...
        def health_before_send(self) -> None: ...
        def show_chat_model(self) -> None: ...
        def draw_working(self) -> None: ...

    _last_escape: float = 0.0

    # -- opening and sending ---------------------------------------------------------

    def open_chat(self, chat: str, *, whole: bool = False) -> None:
        """Show ``chat``: its history, any answer streaming right now, its queue.

        A long chat shows its last messages first, read from the end of its file, and
        its start is put above them once they are on screen (:meth:`_load_start`);
        ``whole`` loads it all at once (a search result may be anywhere in it).
        """
        engine = self.engine
        if engine is None:
            return
        from tuibot.store.chats import ChatNotFound
        from tuibot.store.jsonl import StorageError

        try:
            tail = None if whole else engine.view.transcript_tail(chat)
            loaded = tail or engine.view.transcript(chat)
        except (ChatNotFound, StorageError) as error:
            self.notify(f"Cannot open that chat: {error}", severity="error")
            return
        self.current_chat = chat
        messages = shown_messages(loaded, busy=engine.busy(chat))
        self.conversation.show_chat(chat, messages, whole=loaded.complete)
        live = self.session.live.get(chat)
        if live is not None:
            self.conversation.resume_stream(live.turn, "".join(live.text), "".join(live.reasoning))
        for problem in loaded.problems:
            self.notify(f"Line {problem.line} set aside: {problem.reason}", severity="warning")
        self.query_one(ChatList).set_current(chat)
        self.status.bot = loaded.meta.bot
        self.show_chat_model()
        self.refresh_chat_status()
        if not loaded.complete:
            self._load_start(chat)

    @work(group="chat start", exclusive=True, exit_on_error=False)
    async def _load_start(self, chat: str) -> None:
        """Load the whole of ``chat``, opened with its end only, once that end is drawn
        (the view and around it: scrolling a little needs nothing more),
        and put its start above it (the parse runs in a thread: scrolling goes on)."""
        from tuibot.store.chats import ChatNotFound
        from tuibot.store.jsonl import StorageError
        from tuibot.tui.widgets.history_blocks import entries_of

        conversation = self.conversation
        shown = conversation.stored
        await conversation.history.settled()
        engine = self.engine
        if engine is None or conversation.stored is not shown:
            return
        busy = engine.busy(chat)

        def read() -> tuple[Transcript, list[ChatMessage], list[Entry]]:
            loaded = engine.view.transcript(chat)
            messages = shown_messages(loaded, busy=busy)
            return loaded, messages, entries_of(messages)

        try:
            loaded, messages, entries = await asyncio.to_thread(read)
        except (ChatNotFound, StorageError) as error:
            self.notify(f"Cannot read the start of that chat: {error}", severity="error")
            return
        if self.current_chat != chat or conversation.stored is not shown:
            return  # another chat was opened meanwhile
        if not conversation.complete_chat(messages, entries) and not engine.busy(chat):
            self.open_chat(chat, whole=True)  # it changed meanwhile: show it as it is now
            return
        for problem in loaded.problems:
            self.notify(f"Line {problem.line} set aside: {problem.reason}", severity="warning")

    def refresh_chat_status(self) -> None:
        """Queued input and usage of the chat shown."""
        chat = self.current_chat
        queued = self.engine.queued(chat) if self.engine is not None and chat else []
        self.composer.show_queued(queued)
        self.status.chat_usage = self.session.usage_of(chat)
        self.status.context = self.session.context.get(chat or "", (0, 0))
        self.draw_working()

    def on_composer_submitted(self, message: Composer.Submitted) -> None:
        self.conversation.follow()  # what was sent and its answer come into view
        self.submit(self.current_chat, message.text)

    def submit(self, chat: str | None, text: str) -> None:
        """Send input to ``chat`` (a new chat when there is none yet)."""
        engine = self.engine
        if engine is None:
            self.session.keep_early_input(chat, text)
            self.notify("Starting up; your message is sent in a moment.", timeout=2)
            return
        from tuibot.slash import is_command

        if not is_command(text):
            self.health_before_send()
        if chat is None and not is_command(text):
            chat = engine.new_chat().id
            self.query_one(ChatList).load(engine)
            self.open_chat(chat)
        if not is_command(text) and chat is not None and not engine.busy(chat):
            self.conversation.echo_user(text)
        self._send(chat or "", text)
        self.refresh_chat_status()

    @work(group="commands", description="send input", exit_on_error=False)
    async def _send(self, chat: str, text: str) -> None:
        engine = self.engine
        if engine is None:
            return
        await engine.send(chat, text)
        self.refresh_chat_status()

    def after_event(self, event: Event) -> None:
        """Follow-ups that need the app: /new switches chats, turns change the queue."""
        if isinstance(event, CommandOutput):
            if event.new_chat:
                if self.engine is not None:
                    self.query_one(ChatList).load(self.engine)
                self.open_chat(event.new_chat)
            elif not event.chat or event.chat == self.current_chat:
                self.conversation.show_command_output(event)
                if event.compose is not None:  # an MCP prompt: the person reads it first
                    self.composer.load_text(event.compose)
                if event.command in SWITCH_COMMANDS:
                    self.show_chat_model()
        elif isinstance(event, McpServerNotice) and event.state == "ready":
            self.composer.set_commands(self.command_names())  # its prompts complete now
        elif isinstance(event, TurnStarted | TurnFinished) and event.chat == self.current_chat:
            self.refresh_chat_status()

    def command_names(self) -> list[tuple[str, str]]:
        """Slash commands and tool names for the composer's completion."""
        from tuibot.slash import BUILTIN_HELP

        commands = [(name, help) for name, help in BUILTIN_HELP.items() if name.islower()]
        engine = self.engine
        if engine is not None:
            for spec in engine.view.tools():
                summary = spec.description.splitlines()[0] if spec.description else ""
                commands.append((f"/{spec.name}", summary))
            for usage, about in engine.view.mcp_prompts():
                name, _, takes = usage.partition(" ")
                commands.append((name, " — ".join(filter(None, [takes, about]))))
        return commands

    # -- interrupting ----------------------------------------------------------------

    def on_composer_interrupt(self, message: Composer.Interrupt) -> None:
        self.interrupt_current()

    def interrupt_current(self) -> bool:
        """Stop the shown chat's running turn; a second press also stops its delegations."""
        engine, chat = self.engine, self.current_chat
        if engine is None or chat is None:
            return False
        now = time.monotonic()
        live = engine.view.given_by(chat, open_only=True)
        if live and now - self._last_escape < SECOND_ESCAPE_S:
            self._last_escape = 0.0
            engine.cancel(chat, delegations=True)
            self.notify(f"Cancelling {len(live)} delegation(s) of this chat.", timeout=3)
            return True
        stopped = engine.cancel(chat)
        self._last_escape = now
        if live:
            self.notify(
                f"Press Esc again to also cancel the {len(live)} delegation(s) it gave.",
                timeout=SECOND_ESCAPE_S,
            )
            return True
        return stopped

    # -- chat list commands ----------------------------------------------------------

    def action_scroll_chat(self, pages: int) -> None:
        """Page the conversation up or down without leaving the composer."""
        if pages < 0:
            self.conversation.action_page_up()
        else:
            self.conversation.action_page_down()

    def action_new_chat(self) -> None:
        """A fresh direct chat with the default bot (routing on)."""
        engine = self.engine
        if engine is None:
            return
        chat = engine.new_chat().id
        self.query_one(ChatList).load(engine)
        self.open_chat(chat)
        self.composer.focus()

    def on_chat_list_rename_requested(self, message: ChatList.RenameRequested) -> None:
        self.rename_chat(message)

    def on_chat_list_delete_requested(self, message: ChatList.DeleteRequested) -> None:
        self.delete_chat(message)

    def on_chat_list_pin_requested(self, message: ChatList.PinRequested) -> None:
        self.pin_bot(message)

    @work(group="dialogs", exclusive=True, exit_on_error=False)
    async def rename_chat(self, message: ChatList.RenameRequested) -> None:
        from tuibot.tui.screens.prompt import PromptScreen

        engine = self.engine
        if engine is None:
            return
        title = await self.push_screen_wait(
            PromptScreen("New title for the chat:", value=message.title)
        )
        if title is None or not title.strip():
            return
        from tuibot.store.chats import ChatNotFound
        from tuibot.store.jsonl import StorageError

        try:
            engine.rename_chat(message.chat, title.strip())
        except (ChatNotFound, StorageError) as error:
            self.notify(f"Cannot rename the chat: {error}", severity="error")
            return
        self.query_one(ChatList).load(engine)

    @work(group="dialogs", exclusive=True, exit_on_error=False)
    async def delete_chat(self, message: ChatList.DeleteRequested) -> None:
        from tuibot.tui.screens.confirm import ConfirmScreen

        engine = self.engine
        if engine is None:
            return
        live = engine.view.given_by(message.chat, open_only=True)
        question = f"Delete the chat {message.title!r}?"
        if live:
            question += f" Its {len(live)} running delegation(s) are cancelled."
        if not await self.push_screen_wait(ConfirmScreen(question, yes="Delete")):
            return
        from tuibot.store.chats import ChatNotFound
        from tuibot.store.jsonl import StorageError

        try:
            await engine.delete_chat(message.chat)
        except (ChatNotFound, StorageError) as error:
            self.notify(f"Cannot delete the chat: {error}", severity="error")
        self.query_one(ChatList).load(engine)
        if self.current_chat == message.chat:
            self._open_another()

    def _open_another(self) -> None:
        """The chat shown is gone: show the most recent direct chat, or nothing."""
        engine = self.engine
        direct = [m.id for m in engine.view.chats() if m.kind == "direct"] if engine else []
        if direct:
            self.open_chat(direct[0])
            return
        self.current_chat = None
        self.conversation.show_chat("", [])
        self.refresh_chat_status()

    @work(group="dialogs", exclusive=True, exit_on_error=False)
    async def pin_bot(self, message: ChatList.PinRequested) -> None:
        from tuibot.tui.screens.prompt import PromptScreen

        engine = self.engine
        if engine is None:
            return
        names = ", ".join(bot.name for bot in engine.view.bots())
        name = await self.push_screen_wait(
            PromptScreen(f"Pin the chat to which bot? ({names}; empty unpins)")
        )
        if name is None:
            return
        from tuibot.bots import BotError
        from tuibot.store.chats import ChatNotFound
        from tuibot.store.jsonl import StorageError

        try:
            engine.pin_chat(message.chat, name.strip() or None)
        except (BotError, ValueError, ChatNotFound, StorageError) as error:
            self.notify(str(error), severity="error")
            return
        self.query_one(ChatList).load(engine)
        if message.chat == self.current_chat:
            self.open_chat(message.chat)
