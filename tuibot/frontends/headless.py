"""``tuibot run --headless``: the engine without a screen, for a machine that keeps it up.

It does what the app does in the background — scheduled jobs, the heartbeat, delegated
work, live tool reloading, recovering work cut off by the last exit — and nothing that
needs a person at once: an approval request waits in its queue until its timeout (see
docs/jobs.md for answering it). Everything worth knowing goes to the log file.

Only one process per data folder runs scheduled work: this one exits (code 3) when the
single-instance lock is held by a live process, and stops cleanly, leaving open work
recorded for the next start, on SIGINT or SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from typing import TYPE_CHECKING, Any

from tuibot.events import (
    ApprovalDecided,
    ApprovalRequested,
    DelegationChanged,
    Event,
    Notice,
    TurnFinished,
    TurnStarted,
)

if TYPE_CHECKING:
    from tuibot.engine import Engine
    from tuibot.jobs.schedule import Clock
    from tuibot.settings import Settings
    from tuibot.system.paths import DataPaths

log = logging.getLogger("tuibot.frontends.headless")

LOCKED = 3
"""Exit code when another live tuibot holds the single-instance lock."""


class EventLog:
    """Writes the events a person would want to read later to the log, one line each."""

    def __init__(self, engine: Engine) -> None:
        self._statuses: dict[str, str] = {}
        self._timeout = engine.view.settings.tools.confirm_timeout
        engine.events.listen(self)

    def __call__(self, event: Event) -> None:
        line = self._line(event)
        if line is not None:
            level, text = line
            log.log(level, "%s", text)

    def _line(self, event: Event) -> tuple[int, str] | None:
        if isinstance(event, Notice):
            level = {"error": logging.ERROR, "warning": logging.WARNING}.get(event.level)
            return level or logging.INFO, f"{event.chat or '-'}: {event.message}"
        if isinstance(event, TurnStarted):
            return logging.INFO, f"{event.chat}: turn {event.turn} started ({event.bot})"
        if isinstance(event, TurnFinished):
            error = f": {event.error}" if event.error else ""
            return logging.INFO, f"{event.chat}: turn {event.turn} {event.status}{error}"
        if isinstance(event, ApprovalRequested):
            return logging.WARNING, (
                f"{event.chat}: {event.request_id} waits for a person: {event.summary} "
                "(open `tuibot` and take over on the jobs screen to answer it; unanswered "
                "requests are denied at their timeout)"
            )
        if isinstance(event, ApprovalDecided):
            verdict = "allowed" if event.allowed else "denied"
            return logging.INFO, f"{event.chat}: {event.request_id} {verdict}: {event.reason}"
        if isinstance(event, DelegationChanged):
            return self._delegation(event.record)
        return None

    def _delegation(self, record: dict[str, Any]) -> tuple[int, str] | None:
        """Status changes only: a step's usage update is not news."""
        delegation_id, status = str(record.get("id")), str(record.get("status"))
        if self._statuses.get(delegation_id) == status:
            return None
        self._statuses[delegation_id] = status
        return logging.INFO, f"delegation {delegation_id} ({record.get('bot')}): {status}"


async def serve(
    settings: Settings,
    paths: DataPaths,
    stop: asyncio.Event,
    *,
    clock: Clock | None = None,
) -> int:
    """Run until ``stop`` is set; returns the exit code (0, or :data:`LOCKED`)."""
    from tuibot.engine import Engine
    from tuibot.store.jsonl import StorageError

    engine = Engine(settings, paths=paths)
    holder = engine.claim_instance("headless")
    if holder is not None:
        message = f"{holder.describe()} already runs scheduled work for {paths.root}"
        log.error("not started: %s", message)
        print(f"tuibot: {message}; not starting a second one.", file=sys.stderr)
        await engine.close()
        return LOCKED
    print(  # only now: a second one, refused above, must not claim it runs
        f"tuibot: running headless for {paths.root}; log: {paths.log_file}. "
        "Stop with Ctrl+C or SIGTERM.",
        file=sys.stderr,
    )
    EventLog(engine)
    try:
        engine.load_tools()
        engine.start_reloader()
        try:
            engine.recover_tasks()
            recovered = engine.recover_delegations()
            log.info("recovered %d open delegations", len(recovered))
        except StorageError as error:
            log.error("could not recover earlier work: %s", error)
        if settings.jobs.enabled:
            engine.start_jobs(clock)
        else:
            log.warning("jobs.enabled is false: no jobs or heartbeat run")
        log.info("running headless for %s", paths.root)
        await stop.wait()
    finally:
        log.info("stopping")
        await engine.close()
        log.info("stopped")
    return 0


def run(settings: Settings, paths: DataPaths) -> int:
    """Serve until SIGINT or SIGTERM; the exit code for the command line."""

    async def main() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows
                loop.add_signal_handler(signum, stop.set)
        return await serve(settings, paths, stop)

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:  # where signal handlers are not available
        return 0
