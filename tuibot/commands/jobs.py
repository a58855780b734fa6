"""``tuibot jobs``: list, add, remove, run, pause and resume scheduled jobs.

These commands edit ``<data>/jobs.json`` and never run a job themselves: jobs run in the
tuibot that holds the single-instance lock (the app, or ``tuibot run --headless``), which
notices the change within seconds. ``jobs run ID`` asks that process to run the job now;
with none running, the run waits for the next start.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import TYPE_CHECKING

from tuibot.commands.output import emit

if TYPE_CHECKING:
    from tuibot.jobs.book import JobBook
    from tuibot.jobs.records import Job
    from tuibot.system.instance import Holder
    from tuibot.system.paths import DataPaths


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``tuibot jobs [list|add|remove|run|pause|resume]``."""
    parser = subparsers.add_parser(
        "jobs",
        help="list, add, remove, run, pause or resume scheduled jobs",
        description="Scheduled jobs: a message for a bot, run at a time, every N, or on "
        "a crontab schedule while tuibot runs (see docs/jobs.md).",
    )
    actions = parser.add_subparsers(dest="jobs_action", metavar="ACTION")
    listing = actions.add_parser("list", help="every job with its next and last run")
    listing.add_argument("--json", action="store_true", help="one JSON object per job")
    _add_add(actions)
    for verb, text in (
        ("remove", "delete a job (a run in progress still reports)"),
        ("run", "run a job now, outside its schedule"),
        ("pause", "stop scheduling a job until it is resumed"),
        ("resume", "schedule a paused job again, from now"),
    ):
        action = actions.add_parser(verb, help=text)
        action.add_argument("job", metavar="ID", help="a job id or a unique prefix of one")
    parser.set_defaults(handler=run)


def _add_add(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    add = actions.add_parser("add", help="schedule a message for a bot")
    add.add_argument("message", help="what the bot should do when the job runs")
    when = add.add_mutually_exclusive_group(required=True)
    when.add_argument("--at", metavar="TIME", help="once: 2026-05-01T09:00, or +20m from now")
    when.add_argument("--every", metavar="DURATION", help="repeat: 90s, 15m, 2h, 1d, 1h30m")
    when.add_argument("--cron", metavar="EXPR", help='crontab: "0 9 * * 1-5" (0 = Sunday)')
    add.add_argument("--tz", default="", help="IANA time zone for --at/--cron (default: local)")
    add.add_argument("--bot", default="", help="the bot that does the work (default bot)")
    add.add_argument("--chat", metavar="ID", help="send results to this chat (default: its own)")
    add.add_argument("--name", default="", help="a short name for lists")
    add.add_argument(
        "--delete-after-run", action="store_true", help="remove an --at job once it has run"
    )
    add.add_argument("--time", metavar="DURATION", help="each run's time limit (jobs.time_ms)")
    add.add_argument("--steps", type=int, help="each run's limit on model calls (jobs.steps)")
    add.add_argument("--budget", type=float, metavar="USD", help="each run's budget in USD")


def run(args: argparse.Namespace) -> int:
    """Run one ``jobs`` action; 0 ok, 1 the file cannot be read or written, 2 bad input."""
    from tuibot.jobs.store import JobNotFound, JobStoreError
    from tuibot.settings import ConfigError
    from tuibot.store.chats import ChatNotFound, InvalidChatId
    from tuibot.system.paths import DataPaths

    paths = DataPaths.default()
    action = getattr(args, "jobs_action", None) or "list"
    try:
        book = _book(args, paths)
        if action == "list":
            return _list(book, paths, bool(getattr(args, "json", False)))
        if action == "add":
            return _add(book, args, paths)
        return _change(book, action, args.job, paths)
    except (JobNotFound, ChatNotFound, InvalidChatId) as error:
        emit(sys.stderr, f"tuibot: {error}")
        return 2
    except JobStoreError as error:
        emit(sys.stderr, f"tuibot: {error}")
        return 1
    except (ConfigError, ValueError) as error:  # a bad schedule, bot, chat or limit
        emit(sys.stderr, f"tuibot: {error}")
        return 2


def _book(args: argparse.Namespace, paths: DataPaths) -> JobBook:
    from tuibot.bots import BotDirectory
    from tuibot.commands.trust import warn_ignored
    from tuibot.jobs.book import JobBook
    from tuibot.jobs.store import JobStore
    from tuibot.settings import load_settings
    from tuibot.store.chats import ChatStore

    settings = load_settings(args.config)
    warn_ignored(settings, sys.stderr)
    chats = ChatStore(paths.chats)
    bots = BotDirectory(settings, paths.bots)
    return JobBook(JobStore(paths.jobs), bots, settings.jobs, chat_exists=chats.exists)


def _add(book: JobBook, args: argparse.Namespace, paths: DataPaths) -> int:
    from tuibot.delegation.records import Limits
    from tuibot.jobs.book import NewJob
    from tuibot.jobs.schedule import parse_duration, parse_schedule
    from tuibot.store.chats import ChatStore

    schedule = parse_schedule(
        at=args.at or "",
        every_=args.every or "",
        cron_=args.cron or "",
        tz=args.tz,
        now=book.clock.now(),
    )
    defaults = book.default_limits()
    limits = {
        "timeMs": parse_duration(args.time) * 1000 if args.time else defaults.time_ms,
        "steps": args.steps if args.steps is not None else defaults.steps,
        "budgetMicros": round(args.budget * 1_000_000) if args.budget else defaults.budget_micros,
    }
    chat = ChatStore(paths.chats).resolve(args.chat) if args.chat else None
    job = book.add(
        NewJob(
            message=args.message,
            schedule=schedule,
            bot=args.bot,
            chat=chat,
            name=args.name,
            delete_after_run=args.delete_after_run,
            limits=Limits.parse({k: v for k, v in limits.items() if v is not None}),
        )
    )
    upcoming = book.next_run(job)
    emit(sys.stdout, f"added {job.id}: {job.name} ({job.schedule.describe()})")
    emit(sys.stdout, f"next run: {_time(upcoming)}; {_who_runs(paths)}")
    return 0


def _change(book: JobBook, action: str, wanted: str, paths: DataPaths) -> int:
    if action == "remove":
        job = book.remove(wanted)
        emit(sys.stdout, f"removed {job.id}: {job.name}")
    elif action == "pause":
        job = book.pause(wanted)
        emit(sys.stdout, f"paused {job.id}: {job.name}")
    elif action == "resume":
        job = book.resume(wanted)
        emit(sys.stdout, f"resumed {job.id}: {job.name}; next run: {_time(book.next_run(job))}")
    else:
        job, _ = book.run(wanted)
        holder = _holder(paths)
        if holder is None:
            emit(
                sys.stdout,
                f"{job.id} will run when tuibot next starts (the app, or "
                "`tuibot run --headless`); none runs jobs now",
            )
        else:
            emit(sys.stdout, f"asked {holder.describe()} to run {job.id} now")
    return 0


def _list(book: JobBook, paths: DataPaths, as_json: bool) -> int:
    jobs = book.all()
    if as_json:
        for job in jobs:
            data = job.to_json()
            upcoming = book.next_run(job)
            data["nextRun"] = upcoming.isoformat() if upcoming else None
            emit(sys.stdout, json.dumps(data, ensure_ascii=False))
        return 0
    if not jobs:
        emit(sys.stdout, "No jobs. Add one with `tuibot jobs add MESSAGE --every 1h` (see --help).")
    else:
        _table(book, jobs)
    who = _who_runs(paths)
    emit(sys.stdout, who[0].upper() + who[1:] + ".")
    return 0


def _table(book: JobBook, jobs: list[Job]) -> None:
    rows = [("ID", "NAME", "SCHEDULE", "NEXT RUN", "LAST RUN", "BOT")]
    for job in jobs:
        upcoming = "paused" if job.paused else _time(book.next_run(job))
        last = job.last_run
        shown = "-" if last is None else f"{last.status} {_time_of(last.started)}"
        rows.append((job.id, job.name, job.schedule.describe(), upcoming, shown, job.bot))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        emit(sys.stdout, "  ".join([*cells, row[-1]]))
    for job in jobs:
        if job.note:
            emit(sys.stdout, f"{job.id}: {job.note}")


def _time(when: datetime | None) -> str:
    if when is None:
        return "none"
    return when.astimezone().strftime("%Y-%m-%d %H:%M")


def _time_of(timestamp: float) -> str:
    from tuibot.commands.output import local_time

    return local_time(timestamp)


def _holder(paths: DataPaths) -> Holder | None:
    from tuibot.system.instance import InstanceLock

    return InstanceLock(paths.lock).holder()


def _who_runs(paths: DataPaths) -> str:
    holder = _holder(paths)
    if holder is None:
        return "no tuibot runs jobs now: they run while the app or `tuibot run --headless` runs"
    return f"jobs run in {holder.describe()}"
