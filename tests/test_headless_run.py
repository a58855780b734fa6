"""``tuibot run --headless``: one instance per data folder, a log, a clean stop on signals."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path

from ask_helpers import child_env, finish, kill, read_until, run, start, tuibot_argv
from delegation_helpers import Script, until
from job_helpers import FakeClock, add_job, every_minutes, make_engine
from scripted_server import ScriptedServer, text

from tuibot.frontends import headless


def wait_for_file_text(path: Path, wanted: str, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and wanted in (found := path.read_text(encoding="utf-8")):
            return found
        time.sleep(0.05)
    raise AssertionError(f"{wanted!r} never appeared in {path}")


def test_one_headless_instance_runs_and_a_second_is_refused_then_sigterm_stops_it(
    server: ScriptedServer, hermetic: Path
) -> None:
    env = child_env(TUIBOT_PROVIDERS__LOCAL__BASE_URL=server.url)
    first = start(tuibot_argv("run", "--headless"), env=env)
    try:
        assert first.stderr is not None
        read_until(first.stderr, b"Stop with Ctrl+C or SIGTERM")
        log = hermetic / "data" / "logs" / "tuibot.log"
        wait_for_file_text(log, "running headless")
        lock = json.loads((hermetic / "data" / "tuibot.lock").read_text(encoding="utf-8"))
        assert lock["pid"] == first.pid and lock["mode"] == "headless"

        second = run(tuibot_argv("run", "--headless"), env=env)
        assert second.code == headless.LOCKED
        assert f"a headless tuibot (pid {first.pid}" in second.stderr
        assert "not starting a second one" in second.stderr
        assert "running headless" not in second.stderr  # it does not say it runs, then not

        kill(first, signal.SIGTERM)
        code, _, _ = finish(first)
        assert code == 0
        assert "stopped" in log.read_text(encoding="utf-8")
        assert (hermetic / "data" / "tuibot.lock").read_text(encoding="utf-8") == ""
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()


def test_sigint_stops_it_too(server: ScriptedServer, hermetic: Path) -> None:
    process = start(tuibot_argv("run", "--headless"), env=child_env())
    assert process.stderr is not None
    read_until(process.stderr, b"Stop with Ctrl+C")
    wait_for_file_text(hermetic / "data" / "logs" / "tuibot.log", "running headless")
    kill(process, signal.SIGINT)
    assert finish(process)[0] == 0


async def test_serve_runs_jobs_and_logs_what_happened(
    server: ScriptedServer, clock: FakeClock, hermetic: Path, caplog: object
) -> None:
    import logging

    setup = make_engine(server, clock)
    job = add_job(setup, every_minutes(5))
    await setup.close()
    Script(server, [("Check the backups", text("Backups fine.")), ("is done.", text("Noted."))])
    clock.jump(minutes=6)  # due while nothing ran: the first thing headless does
    stop = asyncio.Event()
    caplog.set_level(logging.INFO, logger="tuibot")  # type: ignore[attr-defined]
    served = asyncio.create_task(headless.serve(setup.settings, setup.paths, stop, clock=clock))
    await until(lambda: _status(setup, job.id) == "completed")
    stop.set()
    assert await served == 0
    logged = caplog.text  # type: ignore[attr-defined]
    assert "running headless" in logged and f"({job.id}): run dlg_" in logged
    assert "): completed" in logged and "stopped" in logged  # the delegation's end, the stop


def _status(engine: object, job_id: str) -> str | None:
    run_ = engine.jobs.store.get(job_id).last_run  # type: ignore[attr-defined]
    return None if run_ is None else run_.status
