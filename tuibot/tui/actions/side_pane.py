"""Where the side pane goes: beside the conversation when there is room, in its place when not.

A mixin of :class:`~tuibot.tui.app.TuibotApp`. From 120 columns the side pane (tasks,
delegations, tool log, approvals) shows beside a conversation that keeps most of the
width; ctrl+b hides it. Below 120 columns it is hidden, and opening it (ctrl+b, its
F-keys, ctrl+g) puts it in the conversation's place rather than squeezing both: focusing
the composer or opening a chat brings the conversation back. When it opened only so a
request could be answered (ctrl+g, or a jump to a request), it closes again once the
queue is empty.

The state is two classes on the main screen, so a resize never strands it: ``-side-hidden``
(hidden by hand on a wide terminal) and ``-side-open`` (opened on a narrow one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    _AppBase = App[int]
else:
    _AppBase = object

HIDDEN = "-side-hidden"
"""On the main screen: the person hid the side pane on a wide terminal."""
OPEN = "-side-open"
"""On the main screen: the side pane is open, in the conversation's place (narrow)."""


class SidePaneCommands(_AppBase):
    """Shows, hides and places the side pane; expects ``#side`` and ``#main``."""

    _side_for_request: bool = False
    """The side pane opened only so a request could be answered (close it after)."""

    @property
    def _main_screen(self) -> Screen[object]:
        return self.screen_stack[0]

    @property
    def narrow(self) -> bool:
        """Whether the terminal is too narrow for the side pane beside the conversation."""
        return self._main_screen.has_class("-narrow")

    @property
    def side_shown(self) -> bool:
        """Whether the side pane is on screen now."""
        screen = self._main_screen
        return screen.has_class(OPEN) if self.narrow else not screen.has_class(HIDDEN)

    def show_side(self, *, for_request: bool = False) -> None:
        """Show the side pane; ``for_request``: it closes again when the queue empties."""
        if not self.side_shown:
            self._side_for_request = for_request
        screen = self._main_screen
        if self.narrow:
            screen.add_class(OPEN)
        else:
            screen.remove_class(HIDDEN)

    def hide_side(self) -> None:
        """Hide the side pane (on a narrow terminal: the conversation comes back)."""
        self._side_for_request = False
        screen = self._main_screen
        if self.narrow:
            screen.remove_class(OPEN)
        else:
            screen.add_class(HIDDEN)

    def action_toggle_side(self) -> None:
        """ctrl+b: show or hide the side pane."""
        if self.side_shown:
            self.hide_side()
        else:
            self.show_side()

    def close_side_after_request(self) -> None:
        """The queue emptied: close the side pane if it opened only for a request."""
        if self._side_for_request and self.side_shown:
            self.hide_side()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Something in the conversation's pane got focus: on a narrow terminal, show it."""
        if not (self.narrow and self._main_screen.has_class(OPEN)):
            return
        main = self._main_screen.query_one("#main")
        widget = event.widget
        if widget is main or (isinstance(widget, Widget) and main in widget.ancestors):
            self.hide_side()
