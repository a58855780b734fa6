"""Scheduled work in the app: run it here when no other tuibot does, else say who does.

Only the process holding the single-instance lock recovers work cut off by the last exit
and runs jobs and the heartbeat (see :mod:`tuibot.system.instance`). An app started while a
headless tuibot runs leaves all of that to it, says so, and can take over: the headless
process is asked to stop (it leaves its open work recorded, as at any exit), and this app
then recovers that work — a run waiting for a person becomes a request in this app's
approvals queue — and runs the jobs itself.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from tuibot.engine import Engine
    from tuibot.system.instance import Holder

Severity = Literal["information", "warning", "error"]
TAKE_OVER_SECONDS = 20.0
"""How long taking over waits for the other process to stop and free the lock."""


def start_scheduled_work(engine: Engine) -> list[tuple[Severity, str]]:
    """Claim the lock and, when it is ours, recover earlier work and start the jobs.

    Returns what the person should be told (nothing when all went as usual).
    """
    holder = engine.claim_instance("tui")
    if holder is not None:
        return [("warning", elsewhere(holder))]
    return _run_here(engine)


def elsewhere(holder: Holder) -> str:
    """The message for an app that does not run scheduled work."""
    said = (
        f"{holder.describe()} runs the scheduled jobs and the heartbeat for this data "
        "folder, and holds their approval requests; this window runs none of them. "
    )
    if cannot_take_over(holder) is not None:
        return said + "To run them here, quit that one and start tuibot again."
    return said + "To answer them here, open the jobs screen (f9) and press t to take over."


def cannot_take_over(holder: Holder) -> str | None:
    """Why this app may not stop ``holder``, or None when it may.

    Only a headless tuibot stops cleanly on SIGTERM. Another app would die on the spot:
    its turns cut off and its terminal left in raw mode on the alternate screen, perhaps
    in front of someone working in it.
    """
    if holder.mode == "headless":
        return None
    return (
        f"{holder.describe()} runs the jobs; only a headless tuibot can be taken over. "
        "Quit that one to run the jobs here."
    )


def _run_here(engine: Engine) -> list[tuple[Severity, str]]:
    from tuibot.store.jsonl import StorageError

    said: list[tuple[Severity, str]] = []
    try:  # work cut off by the last exit: tasks back to "todo", delegations paused
        engine.recover_tasks()
        engine.recover_delegations()
    except StorageError as error:  # the app still opens; the problem is on screen
        said.append(("error", f"Could not recover earlier work: {error}"))
    if engine.view.settings.jobs.enabled:
        engine.start_jobs()
    return said


async def take_over(engine: Engine, holder: Holder | None) -> list[tuple[Severity, str]]:
    """Stop the process that runs scheduled work, then run it here.

    ``holder`` None: nobody runs it any more (the headless one was stopped, or a take-over
    gave up waiting before it ended), so there is only the lock to claim.
    """
    import psutil

    refused = None if holder is None else cannot_take_over(holder)
    if refused is not None:
        return [("error", refused)]
    if holder is not None and holder.alive():
        try:
            psutil.Process(holder.pid).terminate()
        except psutil.Error as error:
            return [("error", f"Could not stop {holder.describe()}: {error}")]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TAKE_OVER_SECONDS
    while (still := engine.claim_instance("tui")) is not None:
        if loop.time() > deadline:
            return [("error", f"{still.describe()} did not stop; nothing was taken over")]
        await asyncio.sleep(0.1)
    return [
        ("information", "Scheduled jobs and the heartbeat now run in this window."),
        *_run_here(engine),
    ]
