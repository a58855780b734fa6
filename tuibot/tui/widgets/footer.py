"""The footer, with the help key first, so a narrow terminal never cuts it off.

Textual's footer lists the focused pane's keys first and the app's after them; at 80
columns the list runs out of room before "f1 Help", the one key that leads to all the
others. Help goes first (as in htop or mc), and below 120 columns the keys are drawn
compact, so more of them fit.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer

HELP_ACTION = "help"
"""The app's help action (``f1``), shown first."""
COMPACT_BELOW = 120
"""Below this many columns the keys are drawn without padding."""


class AppFooter(Footer):
    """Textual's footer with the help key moved to the front."""

    def compose(self) -> ComposeResult:
        keys = list(super().compose())
        first = [key for key in keys if getattr(key, "action", None) == HELP_ACTION]
        yield from first
        yield from (key for key in keys if key not in first)

    def on_resize(self, event: events.Resize) -> None:
        """Compact keys on a narrow terminal."""
        self.compact = event.size.width < COMPACT_BELOW
