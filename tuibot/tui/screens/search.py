"""Search every chat (``/`` in the chats pane): type words, see matching chats, open one.

The results update as you type (after a short pause, so a long chat folder is not
searched per key); each shows the chat's title and the line the first word was found
in. Enter opens the highlighted result (the first one while the cursor is in the box),
scrolled to the message the words were found in.
Searches run in a thread: the first one reads every chat file (seconds for thousands of
long chats), and the screen must keep answering keys meanwhile.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar, Protocol

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from tuibot.store.search import SearchHit

SEARCH_DELAY_S = 0.12
"""The search runs this long after the last key typed."""


class Searching(Protocol):
    """What the screen searches with: the engine's read API (``engine.view``)."""

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Chats holding every word of ``query``, best first."""
        ...


class SearchScreen(ModalScreen[SearchHit | None]):
    """Dismisses with the chosen hit (its chat and message), or None on Escape."""

    DEFAULT_CSS = """
    SearchScreen { align: center middle; }
    SearchScreen > Vertical {
        width: 90%; max-width: 110; height: 80%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    SearchScreen OptionList { height: 1fr; border: none; }
    SearchScreen .hint { color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("down", "to_results", "Results", show=False),
    ]

    def __init__(self, search: Searching, query: str = "") -> None:
        super().__init__()
        self.search = search
        self.query_text = query
        self.hits: list[SearchHit] = []
        """What the list shows now, best first."""
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Search all chats (titles and text)")
            yield Input(self.query_text, placeholder="words to find", id="search-input")
            yield OptionList(id="search-results")
            yield Label("Enter opens · ↓ to the results · Esc closes", classes="hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self.run_search()  # with no words: reads the chat files, so the next search is fast

    @on(Input.Changed, "#search-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.query_text = event.value
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(SEARCH_DELAY_S, self.run_search)

    def run_search(self) -> None:
        """Search for what the box holds now, in a thread, and show the results."""
        self.run_worker(self._search(self.query_text), group="search", exclusive=True)

    async def _search(self, query: str) -> None:
        hits = await asyncio.to_thread(self.search.search, query)
        if query != self.query_text:
            return  # typed on meanwhile: a newer search shows its own results
        self.hits = hits
        results = self.query_one(OptionList)
        results.set_options(_option(hit) for hit in hits)
        if hits:
            results.highlighted = 0
        elif query.strip():
            results.add_option(Option("No chat matches.", disabled=True))

    @on(Input.Submitted, "#search-input")
    async def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        hits = await asyncio.to_thread(self.search.search, event.value)
        if hits:
            self.dismiss(hits[0])

    @on(OptionList.OptionSelected, "#search-results")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        chosen = [hit for hit in self.hits if hit.meta.id == event.option.id]
        if chosen:
            self.dismiss(chosen[0])

    def action_to_results(self) -> None:
        if self.hits:
            self.query_one(OptionList).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)


def _option(hit: SearchHit) -> Option:
    """Two lines: the title, then where the match is (plain text, never markup)."""
    title = hit.meta.title or "New chat"
    where = "in the title" if hit.message is None else hit.snippet
    prompt = Content.assemble((title, "bold"), "\n  ", (where, "$text-muted"))
    return Option(prompt, id=hit.meta.id)
