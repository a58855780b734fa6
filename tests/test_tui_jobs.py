"""The app and scheduled work: it runs jobs under the instance lock, says when another
tuibot does, and the jobs screen (F9) lists jobs and runs, pauses, resumes, deletes them."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from delegation_helpers import Script
from job_helpers import add_job, every_minutes, job_requests
from scripted_server import ScriptedServer, text
from textual.pilot import Pilot
from textual.widgets import DataTable
from tui_helpers import SIZE, Notes, make_app, ready, until

from tuibot.system.instance import InstanceLock
from tuibot.tui.app import TuibotApp
from tuibot.tui.screens.confirm import ConfirmScreen
from tuibot.tui.screens.jobs import JobsScreen


def table_rows(app: TuibotApp) -> list[list[str]]:
    table = app.screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def open_jobs(app: TuibotApp, pilot: Pilot[Any]) -> JobsScreen:
    await pilot.press("f9")  # from the composer, where the app starts
    await until(pilot, lambda: isinstance(app.screen, JobsScreen))
    assert isinstance(app.screen, JobsScreen)
    return app.screen


def where(screen: JobsScreen) -> str:
    """What the screen says about who runs the jobs."""
    return str(screen.query_one(".where").render())


async def test_the_app_runs_jobs_and_the_screen_acts_on_them(
    server: ScriptedServer, hermetic: Path
) -> None:
    app = make_app(server, heartbeat__interval=0)
    Script(server, [("Check the backups", text("Backups fine.")), ("is done.", text("Ok."))])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None and engine.scheduled is not None  # it holds the lock
        job = add_job(engine, every_minutes(60))
        screen = await open_jobs(app, pilot)
        await until(pilot, lambda: len(table_rows(app)) == 1)
        [row] = table_rows(app)
        assert row[0] == "Check the backups." and row[1] == "every 1h" and row[6] == job.id
        assert "run in this window" in where(screen)

        await pilot.press("p")
        await until(pilot, lambda: engine.jobs.store.get(job.id).paused)
        await until(pilot, lambda: table_rows(app)[0][2] == "paused")
        await pilot.press("u")
        await until(pilot, lambda: not engine.jobs.store.get(job.id).paused)

        await pilot.press("n")  # run now: real work, shown as a task chat below its chat
        await until(pilot, lambda: len(job_requests(server, "Check the backups")) == 1)
        await until(pilot, lambda: table_rows(app)[0][3].startswith("completed"))
        task_chat = engine.jobs.store.get(job.id).task_chat
        assert task_chat is not None and engine.chats.load(task_chat).meta.kind == "task"

        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: engine.jobs.all() == [])
        await until(pilot, lambda: isinstance(app.screen, JobsScreen) and not table_rows(app))
        await pilot.press("escape")


async def test_an_app_started_beside_a_headless_one_says_so_and_runs_nothing(
    server: ScriptedServer, hermetic: Path
) -> None:
    lock = InstanceLock(hermetic / "data" / "tuibot.lock")
    assert lock.acquire("headless") is None  # as `tuibot run --headless` would
    notes = Notes()
    app = make_app(server)
    try:
        async with app.run_test(size=SIZE, message_hook=notes) as pilot:
            await ready(pilot)
            assert app.engine is not None and app.engine.scheduled is None
            await until(pilot, lambda: bool(notes.about("runs the scheduled jobs")))
            [(severity, said)] = notes.about("runs the scheduled jobs")
            assert severity == "warning" and "a headless tuibot (pid" in said
            screen = await open_jobs(app, pilot)
            assert "t takes over" in where(screen)
    finally:
        lock.release()


HOLDER = """\
import sys, time
from pathlib import Path
from tuibot.system.instance import InstanceLock
lock = InstanceLock(Path(sys.argv[1]))
assert lock.acquire(sys.argv[2]) is None
print("held", flush=True)
time.sleep(60)
"""


@contextmanager
def lock_holder(hermetic: Path, kind: str = "headless") -> Iterator[subprocess.Popen[str]]:
    """Another process holding the instance lock as a ``kind`` tuibot; killed at the end if
    it still runs."""
    path = hermetic / "data" / "tuibot.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), kind], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.wait()


async def test_take_over_stops_the_headless_one_and_runs_the_jobs_here(
    server: ScriptedServer, hermetic: Path
) -> None:
    with lock_holder(hermetic) as holder:
        app = make_app(server, heartbeat__interval=0)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            assert app.engine is not None and app.engine.scheduled is None
            await open_jobs(app, pilot)
            await pilot.press("t")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("y")
            await until(pilot, lambda: app.engine is not None and app.engine.scheduled is not None)
            assert holder.wait(timeout=10) is not None  # it was asked to stop, and did


async def test_another_app_is_never_taken_over(server: ScriptedServer, hermetic: Path) -> None:
    """An app dies on SIGTERM without restoring its terminal: only a headless one is stopped."""
    notes = Notes()
    with lock_holder(hermetic, "tui") as holder:
        app = make_app(server, heartbeat__interval=0)
        async with app.run_test(size=SIZE, message_hook=notes) as pilot:
            await ready(pilot)
            await until(pilot, lambda: bool(notes.about("runs the scheduled jobs")))
            [(_, said)] = notes.about("runs the scheduled jobs")
            assert "quit that one" in said and "press t" not in said
            screen = await open_jobs(app, pilot)
            assert "quit it to run them here" in where(screen)
            await pilot.press("t")
            await until(pilot, lambda: bool(notes.about("only a headless tuibot")))
            assert app.screen is screen and app.engine is not None
            assert app.engine.scheduled is None
            assert holder.poll() is None  # still running: nobody asked it to stop


async def test_when_the_headless_one_ends_by_itself_t_runs_the_jobs_here(
    server: ScriptedServer, hermetic: Path
) -> None:
    with lock_holder(hermetic) as holder:
        app = make_app(server, heartbeat__interval=0)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            assert app.engine is not None and app.engine.scheduled is None
            screen = await open_jobs(app, pilot)
            holder.terminate()  # `systemctl --user stop tuibot` while the app is open
            holder.wait(timeout=10)
            await until(pilot, lambda: "t runs them here" in where(screen))
            await pilot.press("t")  # nothing to stop, so nothing to confirm
            await until(pilot, lambda: app.engine is not None and app.engine.scheduled is not None)
            assert app.screen is screen
