"""Live time for running delegated work, between the engine's records.

A record's ``usage.time_ms`` moves only when the engine writes it, which can be many
seconds apart; the delegation tree's time bars must move every second. This keeps,
for each running delegation, when its recorded time last moved, and adds the time
since then. Plain bookkeeping over frozen records and the app's one clock
(:mod:`tuibot.tui.clock`): nothing here imports Textual.
"""

from __future__ import annotations

from tuibot.delegation.records import Delegation
from tuibot.tui import clock


class WorkClock:
    """When each running delegation's clock started, and the time it has used now."""

    def __init__(self) -> None:
        self._since: dict[str, float] = {}
        """Running delegation → when its recorded time last moved (its clock's start)."""

    def follow(self, old: Delegation | None, record: Delegation) -> None:
        """Its time clock restarts whenever the recorded time moves or it starts running."""
        if record.status != "running":
            self._since.pop(record.id, None)
        elif old is None:
            self._since[record.id] = min(clock.now(), record.updated)
        elif old.status != "running" or old.usage.time_ms != record.usage.time_ms:
            self._since[record.id] = clock.now()

    def used_ms(self, record: Delegation) -> int:
        """Time counted against the limits, with the running clock added live."""
        used = record.used().time_ms
        since = self._since.get(record.id)
        if record.status == "running" and since is not None:
            used += max(int((clock.now() - since) * 1000), 0)
        return used
