"""The ``cron`` tool: a bot schedules work for later, lists jobs, removes its own.

Built into tuibot (like the delegation tools) because it reaches the engine's job book
through the turn's ``ToolScope``. Jobs a bot adds run as that bot, and report to the chat
the bot was asked in (or to a chat of the job's own). Work given to a bot (a task chat)
cannot schedule more work: a job that makes jobs could multiply without anyone asking, so
only a conversation with a person, or the heartbeat, may add one.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

from tuibot.bots import BotError
from tuibot.delegation.tools import LIMITS_SCHEMA
from tuibot.toolkit.decorator import ToolSpec
from tuibot.toolkit.decorator import tool as tool_decorator
from tuibot.toolkit.scope import ToolScope, current_scope
from tuibot.toolkit.services import ToolServices, services_of

if TYPE_CHECKING:  # the job modules load when the tool is called, not when it is offered
    from tuibot.jobs.records import Job


class CronRefused(Exception):
    """A call the tool will not do; the message says why."""


def _context() -> tuple[ToolScope, ToolServices]:
    scope = current_scope()
    services = services_of(scope)
    if scope is None or services is None or not scope.chat:
        raise CronRefused("the cron tool works only inside a bot's turn")
    return scope, services


def describe(job: Job, engine: ToolServices) -> dict[str, Any]:
    """A job as the model reads it back."""
    upcoming = engine.jobs.next_run(job)
    last = job.last_run
    return {
        "id": job.id,
        "name": job.name,
        "schedule": job.schedule.describe(),
        "bot": job.bot,
        "chat": job.chat,
        "paused": job.paused,
        "next_run": upcoming.isoformat() if upcoming else None,
        "last_run": None if last is None else {"status": last.status, "result": last.result},
        "note": job.note or None,
    }


async def cron(
    action: str,
    message: str = "",
    at: str = "",
    every: str = "",
    expression: str = "",
    tz: str = "",
    name: str = "",
    results: str = "here",
    delete_after_run: bool = False,
    limits: dict[str, int] | None = None,
    job: str = "",
) -> str:
    """Schedule work for later or on repeat; list scheduled jobs; remove one.

    A job runs even while nobody is at the terminal; when it runs, you get its message as
    a task, and its result comes back to this chat. Give exactly one of at, every,
    expression when adding.

    Args:
        action: add, list or remove.
        message: add: what to do when it runs, with everything the work needs.
        at: add: one time, ISO (2026-05-01T09:00) or +DURATION from now (+20m, +2h).
        every: add: repeat interval, e.g. 30m, 2h, 1d (at least 60 s).
        expression: add: a 5-field crontab expression, e.g. "0 9 * * 1-5" (0 = Sunday).
        tz: add: IANA time zone for at and expression (default: the machine's).
        name: add: a short name for lists.
        results: add: "here" (this chat) or "own" (a chat of the job's own).
        delete_after_run: add: remove a one-time (at) job after it has run.
        limits: add: each run's limits; default from the settings.
        job: remove: the job id.
    """
    from tuibot.delegation.records import Limits
    from tuibot.jobs.book import NewJob
    from tuibot.jobs.schedule import parse_schedule

    scope, engine = _context()
    verb = action.strip().lower()
    if verb == "list":
        return _answer([describe(j, engine) for j in engine.jobs.all()])
    if verb == "remove":
        return _remove(scope, engine, job)
    if verb != "add":
        raise CronRefused(f"unknown action {action!r}: use add, list or remove")
    meta = next((m for m in engine.chats.list() if m.id == scope.chat), None)
    if meta is not None and meta.kind == "task":
        raise CronRefused(
            "work given to you cannot schedule more work; say in your result "
            "what should be scheduled, and the one who gave it can add a job"
        )
    if results not in ("here", "own"):
        raise CronRefused(f"results must be 'here' or 'own', got {results!r}")
    schedule = parse_schedule(
        at=at, every_=every, cron_=expression, tz=tz, now=engine.jobs.clock.now()
    )
    added = engine.jobs.add(
        NewJob(
            message=message,
            schedule=schedule,
            bot=scope.bot,
            chat=scope.chat if results == "here" else None,
            name=name,
            delete_after_run=delete_after_run,
            limits=Limits.parse(limits) if limits else None,
            origin=scope.chat,
        )
    )
    return _answer(describe(added, engine))


def _remove(scope: ToolScope, engine: ToolServices, wanted: str) -> str:
    if not wanted.strip():
        raise CronRefused("give the id of the job to remove (see action list)")
    found = engine.jobs.store.get(wanted)
    if found.origin != scope.chat and found.chat != scope.chat:
        raise CronRefused(
            f"job {found.id} was not made in this chat; a person can remove it "
            "with `tuibot jobs remove` or the jobs screen"
        )
    removed = engine.jobs.remove(found.id)
    return _answer({"removed": removed.id, "name": removed.name})


def _answer(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1)


async def _guarded(**arguments: Any) -> str:
    """The expected refusals as ``Error: …`` results the model can act on."""
    from tuibot.delegation.records import LimitsError
    from tuibot.jobs.schedule import ScheduleError
    from tuibot.jobs.store import JobStoreError

    try:
        return await cron(**arguments)
    except (CronRefused, ScheduleError, BotError, LimitsError, JobStoreError, ValueError) as error:
        return f"Error: {error}"


_guarded.__doc__ = cron.__doc__
_guarded.__annotations__ = cron.__annotations__
_guarded.__wrapped__ = cron  # type: ignore[attr-defined]
_guarded.__name__ = "cron"


def cron_tool() -> ToolSpec:
    """The built-in ``cron`` spec (source ``builtin``), its limits with the full schema."""
    decorated: Any = tool_decorator(_guarded)
    spec: ToolSpec = decorated.__tool_meta__
    parameters = json.loads(json.dumps(spec.parameters))
    parameters["properties"]["limits"] = LIMITS_SCHEMA
    parameters["properties"]["action"]["enum"] = ["add", "list", "remove"]
    parameters["properties"]["results"]["enum"] = ["here", "own"]
    return dataclasses.replace(spec, parameters=parameters, source="builtin")
