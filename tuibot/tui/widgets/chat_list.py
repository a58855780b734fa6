"""The left pane: every chat with its bot, status and unread mark.

Direct chats come newest activity first; the task chats a chat's delegations opened sit
indented under it (to any depth), marked ``↳``. The pane reads the chat store once
(:meth:`ChatList.load`) and then follows engine events (:meth:`ChatList.apply`), redrawing
only the rows an event names. It never calls the engine: opening, renaming, deleting and
pinning are messages the app acts on.

| key | binding id | what it does |
|---|---|---|
| enter | ``chats_open`` | show the highlighted chat |
| n | ``chats_new`` | a new chat |
| r | ``chats_rename`` | rename the highlighted chat |
| d | ``chats_delete`` | delete it (asks first; its delegations are cancelled) |
| b | ``chats_pin`` | pin it to a bot (or unpin) |
| / | ``chats_search`` | search every chat's title and text |
| f | ``chats_fork`` | fork the highlighted chat (asks after which message) |
| e | ``chats_export`` | export it as Markdown (asks for the file) |
| down / j, up / k | ``chats_down``, ``chats_up`` | move |
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tuibot.events import Event
from tuibot.tui.messages import OpenChat
from tuibot.tui.text.chat_rows import ChatRows, Status

if TYPE_CHECKING:
    from tuibot.engine import Engine

STATUS_STYLES: dict[Status, str] = {
    "idle": "$foreground-muted",
    "working": "$warning",
    "waiting for approval": "bold $error",
    "paused": "$accent",
}
"""How each status word is drawn."""


class ChatList(OptionList):
    """Lists chats; selecting one posts :class:`~tuibot.tui.messages.OpenChat`."""

    DEFAULT_CSS = """
    ChatList { height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Open", id="chats_open"),
        Binding("n", "app.new_chat", "New", id="chats_new"),
        Binding("r", "rename", "Rename", id="chats_rename"),
        Binding("d", "delete", "Delete", id="chats_delete"),
        Binding("b", "pin", "Pin bot", id="chats_pin"),
        Binding("slash", "search", "Search", id="chats_search"),
        Binding("f", "fork", "Fork", id="chats_fork"),
        Binding("e", "export", "Export", id="chats_export"),
        Binding("down,j", "cursor_down", "Down", id="chats_down", show=False),
        Binding("up,k", "cursor_up", "Up", id="chats_up", show=False),
    ]
    """Keys of the chats pane; each ``id`` can be rebound under ``[tui.keys]``."""

    class RenameRequested(Message):
        """The person wants to rename ``chat`` (the app asks for the title)."""

        def __init__(self, chat: str, title: str) -> None:
            super().__init__()
            self.chat = chat
            self.title = title

    class DeleteRequested(Message):
        """The person wants to delete ``chat`` (the app asks to confirm)."""

        def __init__(self, chat: str, title: str) -> None:
            super().__init__()
            self.chat = chat
            self.title = title

    class PinRequested(Message):
        """The person wants to pin ``chat`` to a bot (the app asks which)."""

        def __init__(self, chat: str) -> None:
            super().__init__()
            self.chat = chat

    class SearchRequested(Message):
        """The person wants to search every chat (the app opens the search)."""

    class ForkRequested(Message):
        """The person wants to fork ``chat`` (the app asks where)."""

        def __init__(self, chat: str) -> None:
            super().__init__()
            self.chat = chat

    class ExportRequested(Message):
        """The person wants ``chat`` as Markdown (the app asks for the file)."""

        def __init__(self, chat: str, title: str) -> None:
            super().__init__()
            self.chat = chat
            self.title = title

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Chats"
        self.rows = ChatRows()
        """Every chat's header and state; the options are drawn from it."""
        self._depth: dict[str, int] = {}
        self._drawn: dict[str, Content] = {}
        """The prompt each row shows now, so an unchanged row is not redrawn."""

    # -- what the app calls ----------------------------------------------------------

    def load(self, engine: Engine) -> None:
        """Read every chat from the engine's store (on start, and after the app changed one)."""
        self.rows.load(engine)
        self._rebuild()

    def apply(self, event: Event) -> None:
        """Follow status changes from engine events; cheap, touches only named rows."""
        change = self.rows.apply(event)
        if change.reshape:
            self._rebuild()
        else:
            self._redraw(change.chats)

    def set_current(self, chat: str) -> None:
        """Mark ``chat`` as the one shown (and read), and put the cursor on it."""
        self._redraw(self.rows.set_current(chat))
        if chat in self._depth:
            self.highlighted = self.get_option_index(chat)

    @property
    def chat(self) -> str | None:
        """The highlighted chat's id."""
        option = self.highlighted_option
        return option.id if option is not None else None

    def row_text(self, chat: str) -> str:
        """The row of ``chat`` as plain text (what the person reads)."""
        prompt = self._drawn.get(chat)
        return prompt.plain if prompt is not None else ""

    def shown(self) -> list[tuple[str, int]]:
        """``(chat, depth)`` of every row, top to bottom."""
        return [(option.id or "", self._depth.get(option.id or "", 0)) for option in self.options]

    # -- drawing ---------------------------------------------------------------------

    def _rebuild(self) -> None:
        """Draw every row again in order, keeping the cursor on the same chat."""
        keep = self.chat or self.rows.current
        flat = self.rows.flat()
        self._depth = dict(flat)
        self._drawn = {chat: self._prompt(chat, depth) for chat, depth in flat}
        self.set_options(Option(self._drawn[chat], id=chat) for chat, _ in flat)
        if keep in self._depth:
            self.highlighted = self.get_option_index(keep)
        elif flat:
            self.highlighted = 0

    def _redraw(self, chats: set[str]) -> None:
        for chat in chats:
            depth = self._depth.get(chat)
            if depth is None:
                continue
            prompt = self._prompt(chat, depth)
            if not _same(prompt, self._drawn.get(chat)):
                self._drawn[chat] = prompt
                self.replace_option_prompt(chat, prompt)

    def _prompt(self, chat: str, depth: int) -> Content:
        """Two lines: unread mark, ``↳`` and title; then status and bot."""
        meta = self.rows.metas[chat]
        status = self.rows.status_of(chat)
        indent = "  " * depth
        unread = ("● ", "$accent") if chat in self.rows.unread else "  "
        mark = "↳ " if meta.kind == "task" else ""
        title_style = "bold $accent" if chat == self.rows.current else "bold"
        bot = meta.bot + (" (pinned)" if meta.pinned and meta.kind == "direct" else "")
        kind = "" if meta.kind in ("direct", "task") else f"{meta.kind} · "
        return Content.assemble(
            indent,
            unread,
            mark,
            (meta.title or "New chat", title_style),
            "\n",
            indent,
            "  " + " " * len(mark),
            (status, STATUS_STYLES[status]),
            (f" · {kind}{bot}", "$foreground-muted"),
        )

    # -- keys ------------------------------------------------------------------------

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(OpenChat(event.option.id))

    def _title_of(self, chat: str) -> str:
        return self.rows.metas[chat].title

    def action_rename(self) -> None:
        """Ask the app to rename the highlighted chat."""
        if (chat := self.chat) is not None:
            self.post_message(self.RenameRequested(chat, self._title_of(chat)))

    def action_delete(self) -> None:
        """Ask the app to delete the highlighted chat (it confirms first)."""
        if (chat := self.chat) is not None:
            self.post_message(self.DeleteRequested(chat, self._title_of(chat) or "New chat"))

    def action_pin(self) -> None:
        """Ask the app to pin the highlighted chat to a bot."""
        if (chat := self.chat) is not None:
            self.post_message(self.PinRequested(chat))

    def action_search(self) -> None:
        """Ask the app to search every chat."""
        self.post_message(self.SearchRequested())

    def action_fork(self) -> None:
        """Ask the app to fork the highlighted chat."""
        if (chat := self.chat) is not None:
            self.post_message(self.ForkRequested(chat))

    def action_export(self) -> None:
        """Ask the app to export the highlighted chat."""
        if (chat := self.chat) is not None:
            self.post_message(self.ExportRequested(chat, self._title_of(chat) or "chat"))


def _same(one: Content, other: Content | None) -> bool:
    """Equal text and styles (``Content.__eq__`` compares the text alone)."""
    return other is not None and one.plain == other.plain and one.spans == other.spans
