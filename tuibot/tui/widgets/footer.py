"""The footer, with the help key first, so a narrow terminal never cuts it off.

Textual's footer lists the focused pane's keys first and the app's after them; at 80
columns the list runs out of room before "f1 Help", the one key that leads to all the
others. Help goes first (as in htop or mc), and below 120 columns the keys are drawn
compact, so more of them fit.

Textual composes a footer's keys only after the first refresh, so they came a frame or
two after the rest of the app's first frame; and it rebuilds them on every change of
focus or bindings (five times as the app starts, ~40 ms each). Here the app, once its
focus is where it starts, has the keys built before the first frame
(:meth:`AppFooter.compose_keys`), a rebuild that would show the same keys is skipped,
and :meth:`AppFooter.drawn` lets the app's start wait for the keys to be on the screen
before it does its heavy work (see ``LifecycleCommands.on_ready``).
"""

from __future__ import annotations

import asyncio
import contextlib

from textual import events
from textual.app import ComposeResult
from textual.compose import compose
from textual.widgets import Footer

from tuibot.tui.compat import running_in

HELP_ACTION = "help"
"""The app's help action (``f1``), shown first."""
COMPACT_BELOW = 120
"""Below this many columns the keys are drawn without padding."""


class AppFooter(Footer):
    """Textual's footer with the help key moved to the front."""

    def __init__(self) -> None:
        super().__init__()
        self.keys_drawn = asyncio.Event()
        """Set once a frame showing the keys has been drawn."""
        self._composed: tuple[object, ...] | None = None
        """What the keys on screen show (:meth:`shown`); None before the first keys."""

    def compose(self) -> ComposeResult:
        keys = list(super().compose())
        first = [key for key in keys if getattr(key, "action", None) == HELP_ACTION]
        yield from first
        yield from (key for key in keys if key not in first)

    def shown(self) -> tuple[object, ...]:
        """Everything the keys show: each shown binding, enabled or not, and the palette."""
        bindings = self.screen.active_bindings.values()
        keys = ((b, enabled, tip) for _, b, enabled, tip in bindings if b.show)
        return (self.show_command_palette, *keys)

    def compose_keys(self) -> None:
        """Mount the keys now, for the first frame: the app calls this once its focus and
        bindings are the ones it starts with (Textual would wait for the first refresh).
        Nothing is awaited, so the app's first refresh comes after, with the keys."""
        self.compact = self.app.size.width < COMPACT_BELOW
        self.bindings_changed(self.screen)  # Textual's "bindings ready" (and a recompose,
        # after the refresh, that finds the keys unchanged)
        with running_in(self):
            self.mount_all(compose(self))
        self._composed = self.shown()
        self.call_after_refresh(self.keys_drawn.set)

    async def recompose(self) -> None:
        """Rebuild the keys, unless they would show what they show already."""
        if not self.is_attached:
            return
        shown = self.shown()
        if shown == self._composed:
            return
        await super().recompose()
        if not self.children:  # composed before the bindings were ready: nothing shown
            return
        self._composed = shown
        if not self.keys_drawn.is_set():
            self.call_after_refresh(self.keys_drawn.set)

    async def drawn(self, timeout: float) -> None:
        """Wait until the keys are on the screen, or ``timeout`` seconds (a footer that is
        hidden, or an app without focus, may not compose them until later)."""
        if not self.display or not self.app.app_focus:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.keys_drawn.wait(), timeout)

    def on_resize(self, event: events.Resize) -> None:
        """Compact keys on a narrow terminal."""
        self.compact = event.size.width < COMPACT_BELOW
