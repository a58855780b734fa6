"""Keep one pane's failure from ending the app.

What a pane is given comes from servers and the model, and a pane that cannot show
something (a repeated key, an odd value) must not take the whole app down with it: the
error goes to the log with its traceback, and the person sees a one-line notice once per
pane, naming the log. Crashes elsewhere still end the app (see ``commands/tui.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger("tuibot.tui")

NAMES = {
    "chats": "chats pane",
    "tasks": "task board",
    "delegations": "delegation tree",
    "tools": "tool log",
    "approvals": "approvals pane",
    "conversation": "conversation",
}
"""Widget id → what the notice calls the pane."""


class PaneGuard:
    """Runs pane updates, turning an exception into a log entry and one notice per pane."""

    def __init__(self, notify: Callable[[str], Any], log_file: str) -> None:
        self._notify = notify
        self._log_file = log_file
        self._told: set[str] = set()

    def run(self, pane_id: str, update: Callable[[Any], Any], event: Any) -> bool:
        """``update(event)`` for the pane ``pane_id``; False (logged, noticed) if it raised."""
        pane = NAMES.get(pane_id, pane_id)
        try:
            update(event)
        except Exception:
            log.exception("the %s pane could not show an update", pane)
            if pane not in self._told:
                self._told.add(pane)
                self._notify(f"The {pane} could not show an update; details in {self._log_file}")
            return False
        return True
