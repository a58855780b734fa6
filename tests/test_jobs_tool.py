"""The bots' cron tool: add, list and remove jobs from a chat; results come back to it."""

from __future__ import annotations

import json

from delegation_helpers import Script, delegate_call, messages_of, settle, until
from engine_helpers import ask
from job_helpers import FakeClock, jump, make_engine, start
from scripted_server import Reply, ScriptedServer, text, tool_calls


def cron_call(call_id: str = "call_c", **arguments: object) -> Reply:
    return tool_calls([("cron", json.dumps(arguments), call_id)])


def tool_results(engine: object, chat: str) -> list[str]:
    return [m["content"] for m in messages_of(engine, chat) if m["role"] == "tool"]  # type: ignore[arg-type]


async def test_a_bot_schedules_work_and_its_results_come_back_to_the_chat(
    server: ScriptedServer, clock: FakeClock
) -> None:
    engine = make_engine(server, clock)
    add = cron_call(
        action="add",
        message="Look up the weather in Lisbon.",
        expression="0 9 * * 1-5",
        tz="Europe/Lisbon",
        name="weather",
    )
    Script(
        server,
        [
            ("Every weekday morning", add),
            ('"name": "weather"', text("Scheduled for weekdays at 09:00.")),
            ("Look up the weather", text("Sunny, 21 °C.")),
            ("is done.", text("Good morning: sunny, 21 °C.")),
        ],
    )
    chat = engine.new_chat().id
    await ask(engine, chat, "Every weekday morning, tell me the weather in Lisbon.")
    [job] = engine.jobs.all()
    assert (job.name, job.bot, job.chat, job.origin) == ("weather", "Assistant", chat, chat)
    assert job.schedule.describe() == "cron 0 9 * * 1-5 (Europe/Lisbon)"
    assert job.limits == engine.jobs.default_limits()

    start(engine, clock)  # Friday 08:00 UTC is 08:00 in Lisbon: due in an hour
    await jump(engine, clock, hours=1)
    await until(lambda: len(engine.delegations.given_by(chat)) == 1)
    await settle(engine, chat)
    assert messages_of(engine, chat)[-1]["content"] == "Good morning: sunny, 21 °C."
    await engine.close()


async def test_bad_input_is_an_error_result_and_nothing_is_stored(
    server: ScriptedServer, clock: FakeClock
) -> None:
    engine = make_engine(server, clock)
    Script(
        server,
        [
            ("Bad cron", cron_call(action="add", message="x", expression="0 9 * * 8")),
            ("Bad zone", cron_call(action="add", message="x", expression="@daily", tz="Moon/Base")),
            ("Two kinds", cron_call(action="add", message="x", every="1h", at="+1h")),
            ("Error:", text("That did not work.")),
        ],
    )
    chat = engine.new_chat().id
    for prompt in ("Bad cron", "Bad zone", "Two kinds"):
        await ask(engine, chat, prompt)
    results = tool_results(engine, chat)
    assert "bad day of week '8'" in results[0]
    assert "unknown time zone 'Moon/Base'" in results[1]
    assert "exactly one" in results[2]
    assert all(r.startswith("Error:") for r in results)
    assert engine.jobs.all() == []
    await engine.close()


async def test_list_and_remove_only_this_chats_jobs(
    server: ScriptedServer, clock: FakeClock
) -> None:
    from job_helpers import add_job, every_minutes

    engine = make_engine(server, clock)
    chat = engine.new_chat().id
    other = add_job(engine, every_minutes(60), message="Someone else's job.")

    def remove_mine(body: object) -> Reply:
        mine = next(j.id for j in engine.jobs.all() if j.origin == chat)
        return cron_call(action="remove", job=mine)

    Script(
        server,
        [
            ("Add one", cron_call(action="add", message="Mine.", every="2h")),
            ("List them", cron_call(action="list")),
            ("Remove theirs", cron_call(action="remove", job=other.id)),
            ("Remove mine", remove_mine),
            ("", text("Done.")),
        ],
    )

    for prompt in ("Add one", "List them", "Remove theirs", "Remove mine"):
        await ask(engine, chat, prompt)
    listed = json.loads(tool_results(engine, chat)[1])
    assert {entry["name"] for entry in listed} == {"Mine.", "Someone else's job."}
    assert "was not made in this chat" in tool_results(engine, chat)[2]
    assert '"removed"' in tool_results(engine, chat)[3]
    assert [j.id for j in engine.jobs.all()] == [other.id]
    await engine.close()


async def test_delegated_work_cannot_schedule_more_work(
    server: ScriptedServer, clock: FakeClock
) -> None:
    engine = make_engine(server, clock)
    Script(
        server,
        [
            ("Plan it", delegate_call("Set up reminders.", {"timeMs": 600_000})),
            ('"status": "queued"', text("A helper is on it.")),
            ("Set up reminders", cron_call(action="add", message="nag", every="1h")),
            ("cannot schedule more work", text("I may not schedule; please add it.")),
            ("is done.", text("The helper could not schedule it.")),
        ],
    )
    chat = engine.new_chat().id
    await ask(engine, chat, "Plan it")
    await settle(engine, chat)
    [record] = engine.delegations.given_by(chat)
    assert "cannot schedule more work" in tool_results(engine, record.chat or "")[0]
    assert engine.jobs.all() == []
    await engine.close()
