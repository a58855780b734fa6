"""The heartbeat: a file with nothing to do costs no model call; open items get a turn."""

from __future__ import annotations

from pathlib import Path

from delegation_helpers import Script, contents, until
from job_helpers import FakeClock, jump, make_engine, start
from scripted_server import ScriptedServer, text

from tuibot.jobs.heartbeat import actionable
from tuibot.system.paths import config_home

NOTHING = """\
# Heartbeat

<!-- Add what tuibot should check every half hour, one item a line.
- [ ] this is only an example -->

- [x] renew the certificate (done)
- [ ]
"""


def chat_requests(server: ScriptedServer) -> int:
    return sum(1 for r in server.requests if r.path.endswith("/chat/completions"))


def test_only_open_items_count() -> None:
    assert actionable(NOTHING) == []
    assert actionable("") == []
    assert actionable("# Home\n\n---\n\n# Work\n***\n_ _ _\n- [x] done\n") == []  # rules
    assert actionable(NOTHING + "- [ ] water the plants\n* call Ana\n1. pay rent\n") == [
        "- [ ] water the plants",
        "* call Ana",
        "1. pay rent",
    ]


async def test_an_empty_or_comment_only_file_costs_no_model_call(
    server: ScriptedServer, clock: FakeClock
) -> None:
    engine = make_engine(server, clock, heartbeat=1800)
    start(engine, clock)
    await jump(engine, clock, minutes=30)  # no file at all
    await until(lambda: engine.jobs.store.beat().last_run is not None)
    (config_home() / "HEARTBEAT.md").write_text(NOTHING, encoding="utf-8")
    await jump(engine, clock, minutes=30)
    await until(lambda: engine.jobs.store.beat().since == clock.now().timestamp())
    beat = engine.jobs.store.beat()
    assert beat.last_run is not None and beat.last_run.status == "idle"
    assert beat.chat is None  # no chat was even made
    assert chat_requests(server) == 0
    await engine.close()


async def test_open_items_give_the_heartbeat_bot_a_turn_and_edits_apply_at_once(
    server: ScriptedServer, clock: FakeClock, hermetic: Path
) -> None:
    engine = make_engine(server, clock, heartbeat=1800)
    Script(
        server,
        [
            ("water the plants", text("Reminder sent: water the plants.")),
            ("call Ana", text("Nothing due about Ana yet.")),
        ],
    )
    heartbeat = config_home() / "HEARTBEAT.md"
    heartbeat.write_text(NOTHING + "- [ ] water the plants\n", encoding="utf-8")
    start(engine, clock)

    await jump(engine, clock, minutes=30)
    await until(lambda: engine.jobs.store.beat().last_run is not None)
    await until(lambda: engine.jobs.store.beat().last_run.status == "completed")  # type: ignore[union-attr]
    beat = engine.jobs.store.beat()
    assert beat.chat is not None
    assert engine.chats.load(beat.chat).meta.title == "Heartbeat"
    [prompt] = contents(engine, beat.chat)
    assert prompt.startswith("[tuibot] Heartbeat.") and "- [ ] water the plants" in prompt
    assert "renew the certificate" not in prompt and "only an example" not in prompt

    heartbeat.write_text("- [ ] call Ana\n", encoding="utf-8")  # no restart
    await jump(engine, clock, minutes=30)
    await until(lambda: len(contents(engine, beat.chat or "", "assistant")) == 2)
    assert "call Ana" in contents(engine, beat.chat)[-1]
    assert chat_requests(server) == 2
    await engine.close()


async def test_a_heartbeat_interval_of_zero_is_off(
    server: ScriptedServer, clock: FakeClock
) -> None:
    engine = make_engine(server, clock, heartbeat=0)
    (config_home() / "HEARTBEAT.md").write_text("- [ ] water the plants\n", encoding="utf-8")
    work = start(engine, clock)
    assert work.scheduler._scheduler.get_jobs() == []
    await jump(engine, clock, hours=5)
    assert engine.jobs.store.beat().last_run is None and chat_requests(server) == 0
    await engine.close()
