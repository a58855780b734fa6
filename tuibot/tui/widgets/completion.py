"""The small list of `/` commands that opens above the composer while one is typed.

It never takes focus: the composer keeps the cursor and steers the list (↑/↓ move,
Tab/Enter complete, Esc closes), so typing goes on uninterrupted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

MAX_SHOWN = 8
"""Rows of the list before it scrolls."""


def matching(commands: list[tuple[str, str]], typed: str) -> list[tuple[str, str]]:
    """Commands for what is typed: names that start with it first, then names containing it."""
    typed = typed.lower()
    starts = [c for c in commands if c[0].lower().startswith(typed)]
    word = typed.removeprefix("/")
    inside = [c for c in commands if word and word in c[0].lower()[1:] and c not in starts]
    return starts + inside


class CommandCompletion(OptionList, can_focus=False):
    """Matching commands with their one-line help; the composer drives it."""

    DEFAULT_CSS = """
    CommandCompletion {
        height: auto;
        max-height: 10;
        border: round $accent;
        background: $surface;
        padding: 0;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        display: none;
    }
    CommandCompletion.-open { display: block; }
    """

    def __init__(self, on_pick: Callable[[str], object], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.commands: list[tuple[str, str]] = []
        """Every ``(name, help)`` that can be completed."""
        self._on_pick = on_pick
        """What a click on a command does (the composer completes it)."""

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    @property
    def chosen(self) -> str | None:
        """The name of the highlighted command, if the list is open."""
        option = self.highlighted_option if self.is_open else None
        return option.id if option is not None else None

    def show_for(self, typed: str) -> bool:
        """Open with the commands matching ``typed`` (close when none); True when open."""
        found = matching(self.commands, typed)
        if not found:
            self.close()
            return False
        names = [name for name, _ in found]
        if [option.id for option in self.options] != names:
            self.set_options(Option(_prompt(name, help), id=name) for name, help in found)
        if self.highlighted is None:
            self.highlighted = 0
        self.add_class("-open")
        return True

    def show_options(self, found: list[tuple[str, str]]) -> bool:
        """Open with exactly ``found`` (``(name, help)``; close when empty); True when open."""
        if not found:
            self.close()
            return False
        names = [name for name, _ in found]
        if [option.id for option in self.options] != names:
            self.set_options(Option(_prompt(name, help), id=name) for name, help in found)
            self.highlighted = 0
        self.add_class("-open")
        return True

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self._on_pick(event.option.id)

    def close(self) -> None:
        self.remove_class("-open")

    def move(self, step: int) -> None:
        """Highlight the next (1) or previous (-1) command, wrapping around."""
        if self.option_count:
            current = self.highlighted if self.highlighted is not None else -step
            self.highlighted = (current + step) % self.option_count


def _prompt(name: str, help: str) -> Content:
    """``/name  help`` with the help dimmed."""
    return Content.assemble((name, "bold"), "  ", (help, "$foreground-muted"))
