"""The heartbeat: every ``heartbeat.interval`` seconds, a look at ``HEARTBEAT.md``.

``HEARTBEAT.md`` in the config home is a standing to-do list the person edits by hand
(where cron jobs are what bots schedule). At each beat the file is read afresh, so an edit
applies at the next beat without a restart. A file with nothing to do in it — missing,
empty, only headings, comments, rules (``---``), done items (``- [x]``) or empty checkboxes —
costs no model call. Otherwise the heartbeat bot gets a turn in the heartbeat chat with the
open items.

The turn is an ordinary turn of a chat nobody may be watching: a tool that needs
confirmation waits in the approvals queue for its timeout, like every other request.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tuibot.bots import BotError
from tuibot.events import Notice, NoticeLevel, TurnFinished
from tuibot.jobs.records import Run, clip
from tuibot.jobs.schedule import Clock, format_duration
from tuibot.jobs.store import JobStore, JobStoreError
from tuibot.store.jsonl import StorageError

if TYPE_CHECKING:
    from tuibot.engine import Engine

log = logging.getLogger("tuibot.jobs")

FILE_NAME = "HEARTBEAT.md"
_COMMENT = re.compile(r"<!--.*?(-->|$)", re.DOTALL)
_MARKER = re.compile(r"^(?:[-*+]|\d+[.)])\s*")
_EMPTY_BOX = re.compile(r"^\[\s?\]$")
_DONE_BOX = re.compile(r"^\[[xX]\]")
_RULE = re.compile(r"^([-*_])(?:\s*\1){2,}$")
"""A thematic break (``---``, ``***``, ``_ _ _``): layout, not an item."""


def actionable(text: str) -> list[str]:
    """The lines of ``HEARTBEAT.md`` that ask for something, as written."""
    items = []
    for line in _COMMENT.sub("", text).splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or _RULE.match(stripped):
            continue
        bare = _MARKER.sub("", stripped)
        if not bare or _EMPTY_BOX.match(bare) or _DONE_BOX.match(bare):
            continue
        items.append(line.rstrip())
    return items


class Heartbeat:
    """Reads the file at each beat and, when it holds work, gives the bot a turn."""

    def __init__(self, engine: Engine, store: JobStore, clock: Clock, home: Path) -> None:
        self.engine = engine
        self.store = store
        self.clock = clock
        self.path = home / FILE_NAME

    def since(self) -> float | None:
        """When the heartbeat last looked (for the schedule after a restart)."""
        try:
            return self.store.beat().since
        except JobStoreError:
            return None

    async def fire(
        self,
        _key: str = "",
        *,
        due: datetime,
        coalesced: int = 1,
        late: float = 0.0,
        missed: bool = False,
    ) -> None:
        """One beat: read the file; if it has open items, a turn for the heartbeat bot."""
        self._save(since=due.timestamp())
        items = self._items()
        if items is None:
            return
        started = self.clock.now().timestamp()
        if not items:
            self._save(last_run=Run(due.timestamp(), started, "idle", result="nothing to do"))
            return
        chat = self._chat()
        if chat is None:
            return
        if self.engine.busy(chat):
            self._note("warning", "skipped a beat: the heartbeat chat is still busy")
            return
        self._save(
            last_run=Run(due.timestamp(), started, "running", late=late, coalesced=coalesced),
            note="",
        )
        outcome = await self.engine.post(chat, _prompt(items, late), notice=True)
        status = outcome.status if isinstance(outcome, TurnFinished) else "failed"
        text = outcome.text if isinstance(outcome, TurnFinished) else ""
        if isinstance(outcome, TurnFinished) and outcome.error:
            text = outcome.error
        run = Run(
            due.timestamp(), started, status, result=clip(text), late=late, coalesced=coalesced
        )
        self._save(last_run=run)

    def _items(self) -> list[str] | None:
        """The open items; None (after a notice) when the file cannot be read."""
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return []
        except OSError as error:
            self._note("error", f"could not read {self.path}: {error.strerror or error}")
            return None
        return actionable(text)

    def _chat(self) -> str | None:
        """The heartbeat chat (made on first need, pinned to the heartbeat bot)."""
        name = self.engine.settings.heartbeat.bot
        try:
            bot = self.engine.bots.require(name) if name else self.engine.bots.default
            known = self.store.beat().chat
            if known is not None and self.engine.chats.exists(known):
                return known
            chat = self.engine.new_chat(bot=bot.name, title="Heartbeat").id
        except (BotError, StorageError) as error:
            self._note("error", f"no turn: {error}")
            return None
        self._save(chat=chat)
        return chat

    def _save(self, **changes: object) -> None:
        try:
            self.store.change_beat(lambda beat: replace(beat, **changes))  # type: ignore[arg-type]
        except JobStoreError as error:
            log.warning("heartbeat state not saved: %s", error)

    def _note(self, level: NoticeLevel, text: str) -> None:
        self._save(note=text)
        getattr(log, "error" if level == "error" else "info")("heartbeat: %s", text)
        self.engine.events.publish(Notice("", level, f"heartbeat: {text}"))


def _prompt(items: list[str], late: float) -> str:
    """The heartbeat chat's input: the open items, and what to do with them."""
    late_text = f" (this beat is {format_duration(late)} late)" if late >= 60 else ""
    listed = "\n".join(items)
    return (
        f"[tuibot] Heartbeat{late_text}. These items in HEARTBEAT.md are open. Do what is due "
        "now; if nothing is, say so in one line.\n\n" + listed
    )
