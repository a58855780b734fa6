"""Nobody is watching: a job's tool confirmation and limit pause wait as approval requests,
and one job never runs twice at once, not even across a restart."""

from __future__ import annotations

import json
from pathlib import Path

from delegation_helpers import Script, until
from engine_helpers import Recorder, write_tool
from job_helpers import FakeClock, add_job, every_minutes, job_requests, jump, make_engine, start
from scripted_server import Reply, ScriptedServer, text, tool_calls

from tuibot.approvals import Decision
from tuibot.delegation.records import Limits
from tuibot.events import ApprovalRequested, Notice
from tuibot.system.paths import config_home

CONFIRM_TOOL = '''
from pathlib import Path
from tuibot import tool

@tool(confirm=True)
def launch(target: str) -> str:
    """Launch something irreversible."""
    Path("launched.txt").write_text(target)
    return f"launched {target}"
'''

LAUNCH = tool_calls([("launch", json.dumps({"target": "rocket"}))])


def status_of(engine: object, job_id: str) -> str | None:
    run = engine.jobs.store.get(job_id).last_run  # type: ignore[attr-defined]
    return None if run is None else run.status


async def test_a_tool_needing_confirmation_waits_for_a_person_instead_of_running(
    server: ScriptedServer, clock: FakeClock, hermetic: Path
) -> None:
    write_tool(config_home(), "launch", CONFIRM_TOOL)
    engine = make_engine(server, clock)
    Script(
        server,
        [
            ("Launch the rocket", LAUNCH),
            ("launched rocket", text("Launched.")),
            ("is done.", text("The job launched it.")),
        ],
    )
    events = Recorder(engine)
    job = add_job(engine, every_minutes(5), message="Launch the rocket.")
    start(engine, clock)

    await jump(engine, clock, minutes=5)
    await until(lambda: bool(engine.approvals.pending()))
    [request] = engine.approvals.pending()
    assert request.kind == "tool" and request.details["tool"] == "launch"
    assert request.chat == engine.jobs.store.get(job.id).chat  # asked in the results chat
    assert not (hermetic / "work" / "launched.txt").exists()  # waiting, not auto-allowed
    assert status_of(engine, job.id) == "running"
    assert events.of(ApprovalRequested)

    engine.decide(request.id, Decision(True, reason="go"))
    await until(lambda: status_of(engine, job.id) == "completed")
    assert (hermetic / "work" / "launched.txt").read_text() == "rocket"
    await engine.close()


async def test_a_job_at_its_budget_pauses_and_asks_and_a_denial_cancels_the_run(
    server: ScriptedServer, clock: FakeClock
) -> None:
    # Each call costs 10 prompt tokens × 100 µ$ = 1000 µ$; the run may spend 1500.
    engine = make_engine(server, clock, price=100)
    calls = iter(range(1, 100))

    def keep_listing(body: object) -> Reply:  # a different call each time: not a loop
        return tool_calls([("list_dir", json.dumps({"path": "./" * next(calls)}))])

    Script(server, [("Tidy the workspace", keep_listing), ("tuibot.toml", keep_listing)])
    job = add_job(
        engine,
        every_minutes(60),
        message="Tidy the workspace.",
        limits=Limits(600_000, steps=50, budget_micros=1500),
    )
    start(engine, clock)
    await jump(engine, clock, hours=1)
    await until(lambda: bool(engine.approvals.pending()))

    [request] = engine.approvals.pending()
    assert request.kind == "delegations.continue" and request.details["limit"] == "budget"
    run = engine.jobs.store.get(job.id).last_run
    assert run is not None and run.delegation is not None
    record = engine.delegations.get(run.delegation)
    assert record is not None and record.status == "paused"
    assert record.limits.budget_micros == 1500 and record.usage.cost_micros >= 1500

    engine.decide(request.id, Decision(False, reason="too dear"))
    await until(lambda: status_of(engine, job.id) == "cancelled")
    await engine.close()


async def test_a_job_never_overlaps_itself_not_even_across_a_restart(
    server: ScriptedServer, clock: FakeClock, hermetic: Path
) -> None:
    write_tool(config_home(), "launch", CONFIRM_TOOL)
    engine = make_engine(server, clock)
    Script(server, [("Launch the rocket", LAUNCH), ("was stopped", text("Stopped."))])
    events = Recorder(engine)
    job = add_job(engine, every_minutes(5), message="Launch the rocket.")
    start(engine, clock)
    await jump(engine, clock, minutes=5)
    await until(lambda: bool(engine.approvals.pending()))  # the first run waits for a person

    await jump(engine, clock, minutes=5)  # the next one falls due meanwhile
    await until(lambda: "skipped" in engine.jobs.store.get(job.id).note)
    assert len(job_requests(server, "Launch the rocket")) == 1
    assert any("still going" in n.message for n in events.of(Notice))
    engine.jobs.run(job.id)  # nor a run started by hand, and the note says which it was
    await until(lambda: "did not run it now" in engine.jobs.store.get(job.id).note)
    assert len(job_requests(server, "Launch the rocket")) == 1
    first = engine.jobs.store.get(job.id).last_run
    await engine.close()  # the open run stays recorded, as any delegation

    engine = make_engine(server, clock)
    engine.delegations.recover()  # what the app and headless mode do at start
    start(engine, clock)
    await jump(engine, clock, minutes=5)
    await until(lambda: "is still paused" in engine.jobs.store.get(job.id).note)
    assert len(job_requests(server, "Launch the rocket")) == 1
    assert engine.jobs.store.get(job.id).last_run == first
    await engine.close()
