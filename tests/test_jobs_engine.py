"""Jobs in the engine on a fake clock: each schedule kind, sleeps, restarts, failures.

Every run is real delegated work against the scripted server; the clock only decides
when. Waiting uses ``until`` (a condition with a generous timeout), never a duration.
"""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from delegation_helpers import Script, contents, settle, until
from engine_helpers import Recorder
from job_helpers import (
    FakeClock,
    add_job,
    crontab,
    every_minutes,
    job_requests,
    jump,
    make_engine,
    start,
    stored_jobs,
)
from scripted_server import Reply, ScriptedServer, text

from tuibot.engine import Engine
from tuibot.events import Notice
from tuibot.jobs.records import Job, Run
from tuibot.jobs.schedule import Schedule, parse_schedule

RULES = [("Check the backups", text("Backups fine.")), ("is done.", text("Noted."))]


def backups_engine(server: ScriptedServer, clock: FakeClock, **options: Any) -> Engine:
    """An engine on the fake clock whose bot answers the backup job (:data:`RULES`)."""
    engine = make_engine(server, clock, **options)
    Script(server, RULES)
    return engine


def scheduled(engine: Engine, clock: FakeClock, schedule: Schedule, **extra: Any) -> Job:
    """Add the backup job on ``schedule`` and start scheduled work on the fake clock."""
    job = add_job(engine, schedule, **extra)
    start(engine, clock)
    return job


def last_status(engine: Engine, job_id: str) -> str | None:
    run = engine.jobs.store.get(job_id).last_run
    return None if run is None else run.status


async def completed(engine: Engine, job_id: str) -> None:
    """Wait until the job's last run has completed."""
    await until(lambda: last_status(engine, job_id) == "completed")


def last_run(engine: Engine, job_id: str) -> Run:
    """The job's last run, as the store has it; there must be one."""
    run = engine.jobs.store.get(job_id).last_run
    assert run is not None
    return run


def backup_requests(server: ScriptedServer) -> list[dict[str, Any]]:
    """The chat requests that carry the backup job's message."""
    return job_requests(server, "Check the backups")


async def test_an_every_job_runs_each_time_it_falls_due_in_one_task_chat(
    server: ScriptedServer, clock: FakeClock
) -> None:
    engine = backups_engine(server, clock)
    job = scheduled(engine, clock, every_minutes(5))
    assert engine.jobs.next_run(job) == datetime(2026, 3, 6, 8, 5, tzinfo=UTC)

    await jump(engine, clock, minutes=5)
    await completed(engine, job.id)
    first = engine.jobs.store.get(job.id)
    assert first.own_chat and first.chat is not None and first.task_chat is not None
    assert first.last_run is not None and first.last_run.result == "Backups fine."
    await settle(engine, first.chat)
    assert contents(engine, first.chat, "assistant") == ["Noted."]  # the result came back

    await jump(engine, clock, minutes=5)
    await until(lambda: len(engine.delegations.given_by(first.chat or "")) == 2)
    await completed(engine, job.id)
    second = engine.jobs.store.get(job.id)
    assert second.task_chat == first.task_chat  # the bot keeps the job's history
    assert len(backup_requests(server)) == 2
    assert engine.chats.load(second.task_chat or "").meta.kind == "task"
    await engine.close()


async def test_a_one_shot_runs_once_and_delete_after_run_removes_it(
    server: ScriptedServer, clock: FakeClock
) -> None:
    engine = backups_engine(server, clock)
    origin = engine.new_chat().id
    at = parse_schedule(at="+30m", tz="UTC", now=clock.now())
    job = scheduled(engine, clock, at, chat=origin, delete_after_run=True)

    await jump(engine, clock, minutes=30)
    await until(lambda: engine.jobs.all() == [])
    await settle(engine, origin)
    assert contents(engine, origin, "assistant") == ["Noted."]  # results went to its chat
    await jump(engine, clock, hours=2)
    assert len(backup_requests(server)) == 1
    assert engine.jobs.next_run(job) is None
    await engine.close()


async def test_a_cron_job_for_weekday_zero_runs_on_sunday(
    server: ScriptedServer, clock: FakeClock
) -> None:
    engine = backups_engine(server, clock)
    job = scheduled(engine, clock, crontab("0 9 * * 0", "UTC"))
    upcoming = engine.jobs.next_run(job)
    assert upcoming == datetime(2026, 3, 8, 9, 0, tzinfo=UTC)
    assert upcoming.strftime("%A") == "Sunday"

    await jump(engine, clock, days=2, hours=1)  # Friday 08:00 → Sunday 09:00
    await completed(engine, job.id)
    run = last_run(engine, job.id)
    assert datetime.fromtimestamp(run.due, UTC).strftime("%A") == "Sunday"
    await engine.close()


async def test_a_job_at_a_time_of_day_runs_once_the_night_the_clocks_go_back(
    server: ScriptedServer, clock: FakeClock
) -> None:
    clock.current = datetime(2026, 10, 25, 0, 0, tzinfo=UTC)  # 02:00 CEST in Berlin
    engine = backups_engine(server, clock)
    job = scheduled(engine, clock, crontab("30 2 * * *", "Europe/Berlin"))

    await jump(engine, clock, minutes=31)  # 02:30 CEST
    await completed(engine, job.id)
    await jump(engine, clock, hours=1)  # 02:31 CET: 02:30 came round again
    assert engine.jobs.next_run(job) == datetime(2026, 10, 26, 1, 30, tzinfo=UTC)
    stored = engine.jobs.store.get(job.id)
    assert stored.since == datetime(2026, 10, 25, 0, 30, tzinfo=UTC).timestamp()
    assert len(backup_requests(server)) == 1
    await engine.close()


async def test_after_a_sleep_missed_runs_coalesce_into_one_run_that_says_so(
    server: ScriptedServer, clock: FakeClock
) -> None:
    engine = backups_engine(server, clock)
    job = scheduled(engine, clock, every_minutes(10))

    await jump(engine, clock, minutes=65)  # due 08:10 … 09:00 while asleep; now 09:05
    await completed(engine, job.id)
    [request] = backup_requests(server)
    first_input = request["messages"][-1]["content"]
    assert "due 2026-03-06 09:00 UTC" in first_input
    assert "5m late" in first_input and "stands for 6 runs" in first_input
    run = last_run(engine, job.id)
    assert run.coalesced == 6 and run.late == 300
    await engine.close()


async def test_a_run_due_while_the_machine_slept_starts_soon_after_it_wakes(
    server: ScriptedServer, clock: FakeClock
) -> None:
    engine = backups_engine(server, clock)
    job = add_job(engine, every_minutes(5))
    work = start(engine, clock)
    work.scheduler.poll_seconds = 0.02  # before the poll's first wait: a fast test
    await asyncio.sleep(0.1)
    # A sleep: the wall clock moves on, the loop's monotonic clock (APScheduler's timer)
    # does not. Nobody calls wake(): the scheduler has to notice by itself.
    clock.jump(minutes=6)
    await completed(engine, job.id)
    run = last_run(engine, job.id)
    assert run.due == datetime(2026, 3, 6, 8, 5, tzinfo=UTC).timestamp()
    await engine.close()


async def test_a_run_later_than_the_grace_time_is_reported_as_missed_not_run(
    server: ScriptedServer, clock: FakeClock
) -> None:
    engine = backups_engine(server, clock, grace=600)
    events = Recorder(engine)
    job = scheduled(engine, clock, crontab("0 9 * * *", "UTC"))

    await jump(engine, clock, hours=3)  # 09:00 passed two hours ago
    await until(lambda: "missed" in engine.jobs.store.get(job.id).note)
    assert backup_requests(server) == []
    assert any("missed the run due 2026-03-06 09:00" in n.message for n in events.of(Notice))
    assert engine.jobs.next_run(job) == datetime(2026, 3, 7, 9, 0, tzinfo=UTC)
    await engine.close()


async def test_a_restart_keeps_jobs_once_and_runs_what_fell_due_while_off(
    server: ScriptedServer, clock: FakeClock
) -> None:
    engine = backups_engine(server, clock)
    job = scheduled(engine, clock, every_minutes(60))
    await engine.close()

    clock.jump(hours=3, minutes=30)  # tuibot was off: due 09:00, 10:00, 11:00
    engine = make_engine(server, clock)
    work = start(engine, clock)
    work.scheduler.sync()
    work.scheduler.sync()  # syncing again never makes a second copy
    assert [j.id for j in work.scheduler._scheduler.get_jobs()] == [job.id]
    await completed(engine, job.id)
    run = last_run(engine, job.id)
    assert run.coalesced == 3
    assert len(backup_requests(server)) == 1
    assert [j["id"] for j in stored_jobs(Path.cwd().parent)] == [job.id]
    await engine.close()


async def test_a_run_whose_bot_is_gone_fails_and_the_scheduler_lives_on(
    server: ScriptedServer, clock: FakeClock
) -> None:
    from dataclasses import replace

    engine = backups_engine(server, clock)
    events = Recorder(engine)
    broken = add_job(engine, every_minutes(5), message="Check the printers.")
    engine.jobs.store.change(broken.id, lambda j: replace(j, bot="Gone"))
    healthy = scheduled(engine, clock, every_minutes(10))

    await jump(engine, clock, minutes=5)
    await until(lambda: last_status(engine, broken.id) == "failed")
    assert "Gone" in engine.jobs.store.get(broken.id).note
    assert any(n.level == "error" and broken.id in n.message for n in events.of(Notice))
    await jump(engine, clock, minutes=5)
    await completed(engine, healthy.id)
    await engine.close()


async def test_a_run_that_raises_is_logged_reported_and_the_next_one_runs(
    server: ScriptedServer, clock: FakeClock, monkeypatch: object
) -> None:
    engine = backups_engine(server, clock)
    events = Recorder(engine)
    job = add_job(engine, every_minutes(5))
    work = start(engine, clock)
    original = work.runs._start
    calls: list[int] = []

    def explode_once(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("disk on fire")
        return original(*args, **kwargs)

    monkeypatch.setattr(work.runs, "_start", explode_once)  # type: ignore[attr-defined]
    await jump(engine, clock, minutes=5)
    await until(lambda: any("disk on fire" in n.message for n in events.of(Notice)))
    assert work.scheduler.running_tasks == 0
    await jump(engine, clock, minutes=5)
    await completed(engine, job.id)
    await engine.close()


async def test_a_job_removed_while_it_runs_still_reports_and_nothing_is_an_error(
    server: ScriptedServer, clock: FakeClock
) -> None:
    answer = threading.Event()

    def slow(body: dict[str, object]) -> Reply:
        answer.wait(10)
        return text("Backups fine.")

    engine = make_engine(server, clock)
    Script(server, [("Check the backups", slow), ("is done.", text("Noted."))])
    events = Recorder(engine)
    job = scheduled(engine, clock, every_minutes(5))
    await jump(engine, clock, minutes=5)
    await until(lambda: len(backup_requests(server)) == 1)
    chat = engine.jobs.store.get(job.id).chat or ""

    engine.jobs.remove(job.id)  # `tuibot jobs remove` while the run works
    answer.set()
    await until(lambda: contents(engine, chat, "assistant") == ["Noted."])
    await settle(engine, chat)
    assert [n.message for n in events.of(Notice) if n.level == "error"] == []
    await engine.close()


async def test_pause_stops_a_job_and_resume_counts_from_now(
    server: ScriptedServer, clock: FakeClock
) -> None:
    engine = backups_engine(server, clock)
    job = scheduled(engine, clock, every_minutes(5))
    engine.jobs.pause(job.id)
    assert engine.jobs.next_run(engine.jobs.store.get(job.id)) is None
    await jump(engine, clock, minutes=30)
    assert backup_requests(server) == []

    resumed = engine.jobs.resume(job.id)
    assert engine.jobs.next_run(resumed) == datetime(2026, 3, 6, 8, 35, tzinfo=UTC)
    await jump(engine, clock, minutes=5)
    await completed(engine, job.id)
    await engine.close()


async def test_run_now_here_and_as_asked_by_another_process(
    server: ScriptedServer, clock: FakeClock
) -> None:
    from tuibot.bots import BotDirectory
    from tuibot.jobs.book import JobBook
    from tuibot.jobs.store import JobStore

    engine = backups_engine(server, clock)
    job = add_job(engine, crontab("0 9 * * 1"))
    work = start(engine, clock)
    engine.jobs.run(job.id)
    await completed(engine, job.id)
    await settle(engine, engine.jobs.store.get(job.id).chat or "")

    other = JobBook(
        JobStore(engine.paths.jobs),
        BotDirectory(engine.settings, engine.paths.bots),
        engine.settings.jobs,
    )
    _, here = other.run(job.id)  # `tuibot jobs run` in another process
    assert here is False and engine.jobs.store.get(job.id).run_requested is not None
    work.scheduler.sync()  # what the poll does when the file changed
    await until(lambda: len(backup_requests(server)) == 2)
    assert engine.jobs.store.get(job.id).run_requested is None
    assert engine.jobs.next_run(job) == datetime(2026, 3, 9, 9, 0, tzinfo=UTC)  # unmoved
    for request in backup_requests(server):  # both say who started them
        first_input = request["messages"][-1]["content"]
        assert first_input == (
            f"[tuibot] Job “{job.name}” ({job.id}), run now by the user at 2026-03-06 08:00 UTC."
            "\n\nCheck the backups."
        )
    await engine.close()


async def test_jobs_run_on_the_real_clock_too(server: ScriptedServer) -> None:
    """No fake clock: APScheduler's own timer starts the run."""
    from tuibot.engine import Engine
    from tuibot.settings import load_settings

    engine = Engine(
        load_settings(
            None,
            overrides={
                "providers.local.base_url": (server.url, "test"),
                "providers.local.max_retries": (0, "test"),
                "agent.model": ("test-model", "test"),
                "heartbeat.interval": (0, "test"),
            },
            env={},
        )
    )
    engine.load_tools()
    Script(server, RULES)
    when = datetime.now(UTC).replace(microsecond=0)
    from dataclasses import replace

    job = add_job(engine, parse_schedule(at="+1h", tz="UTC", now=when))
    soon = replace(job.schedule, at=datetime.now(UTC))  # due at once
    engine.jobs.store.change(job.id, lambda j: replace(j, schedule=soon))
    assert engine.claim_instance("headless") is None
    engine.start_jobs()
    await completed(engine, job.id)
    await engine.close()
