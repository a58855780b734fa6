"""The command palette's app commands: every app-wide binding, by what it does.

Why the palette repeats the bindings: a person who has not learnt a key yet can type
"approvals" or "reasoning" and still get there, and the palette shows the key (after
``[tui.keys]``) so next time it is one key away.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand

from tuibot.tui import compat
from tuibot.tui.keys.keymap import PALETTE_TITLES, binding_rows

if TYPE_CHECKING:
    from textual.app import App

SWITCHES = (
    ("Switch model", "pick a model the provider serves for this chat (/model)", "pick_model"),
    ("Switch provider", "pick a configured provider for this chat (/provider)", "pick_provider"),
)
"""Palette commands with no key: (title, help, the app's method)."""
SKIPPED = frozenset({"quit"})
"""Binding ids Textual's own palette commands already offer (its "Quit" runs ours)."""


def app_commands(app: App[Any]) -> Iterator[SystemCommand]:
    """A palette command per app-wide binding with an id, its key in the help text."""
    for row in binding_rows(app, [compat.node_bindings(app)]):
        if row.binding_id is None or row.binding_id in SKIPPED:
            continue
        title = PALETTE_TITLES.get(row.binding_id, row.description)
        help_text = f"{row.keys} · {row.description} (tui.keys.{row.binding_id})"
        yield SystemCommand(title, help_text, partial(app.run_action, row.action))
    for title, help_text, method in SWITCHES:
        callback = getattr(app, method, None)
        if callback is not None:
            yield SystemCommand(title, help_text, callback)
