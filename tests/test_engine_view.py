"""The read API front ends use (``engine.view``): frozen records with the engine's content.

Each query is checked against what the engine's own parts hold after real work (a turn
against the scripted server, a real approval request, a job in the real book, a
delegation record in the real journal), and each answer is checked to be frozen: a
screen that keeps a record can never change the engine through it. The thin commands
that replaced front ends' reach-ins are checked to do what the reach-in did.
"""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from engine_helpers import make_engine
from engine_reach import reaches
from job_helpers import add_job, every_minutes
from mcp_helpers import fault_server
from scripted_server import ScriptedServer, text

from tuibot.approvals import Decision
from tuibot.delegation.records import Delegation, Limits, Parent
from tuibot.engine import Engine
from tuibot.engine.view import PendingApproval, Transcript
from tuibot.settings import load_settings
from tuibot.settings.mcp import McpSettings


def assert_frozen(record: object) -> None:
    """Setting any field of ``record`` fails."""
    assert dataclasses.is_dataclass(record)
    field = dataclasses.fields(record)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(record, field, None)


def plain_engine() -> Engine:
    return Engine(load_settings(None, env={}))


async def test_chats_and_a_transcript_are_what_the_store_holds(server: ScriptedServer) -> None:
    engine = make_engine(server)
    server.enqueue(text("Hello there."))
    chat = engine.new_chat(title="greeting").id
    other = engine.new_chat().id
    await (await engine.send(chat, "hi"))
    view = engine.view
    chats = view.chats()
    assert isinstance(chats, tuple)
    assert {meta.id for meta in chats} == {chat, other}
    assert chats == tuple(engine.chats.list())
    assert view.chat(chat) == engine.chats.meta(chat)
    # the shortest prefix no other chat shares (two chats made in one second differ only
    # in a random suffix, which may start alike)
    unique = next(
        chat[:n] for n in range(len(chat) - 2, len(chat) + 1) if not other.startswith(chat[:n])
    )
    assert view.resolve(unique) == chat
    assert view.latest("direct") == engine.chats.latest("direct")
    shown = view.transcript(chat)
    assert isinstance(shown, Transcript)
    assert isinstance(shown.messages, tuple)
    assert [(m["role"], m.get("content")) for m in shown.messages] == [
        ("user", "hi"),
        ("assistant", "Hello there."),
    ]
    assert (shown.problems, shown.repaired) == ((), 0)
    assert "Hello there." in view.markdown(chat)
    assert [hit.meta.id for hit in view.search("hello")] == [chat]
    for record in (chats[0], shown, shown.meta):
        assert_frozen(record)
    await engine.close()


async def test_a_pending_approval_is_a_frozen_copy_that_changes_nothing() -> None:
    engine = plain_engine()
    asking = asyncio.ensure_future(
        engine.approvals.ask("c_1", "tool", "run ls", {"command": ["ls"]}, grant_key="exec:ls")
    )
    while not engine.approvals.pending():
        await asyncio.sleep(0)
    (pending,) = engine.view.pending_approvals()
    assert isinstance(pending, PendingApproval)
    assert_frozen(pending)
    assert (pending.chat, pending.kind, pending.summary, pending.grant_key) == (
        "c_1",
        "tool",
        "run ls",
        "exec:ls",
    )
    assert pending.details == {"command": ["ls"]}
    pending.details["command"].append("-la")  # the copy is the screen's own
    assert engine.approvals.pending()[0].details == {"command": ["ls"]}
    assert not hasattr(pending, "future")
    assert engine.view.is_pending(pending.id)
    assert engine.view.pending_count() == 1
    assert engine.decide(pending.id, Decision(True))
    assert (await asyncio.wait_for(asking, 2)).allowed
    assert engine.view.pending_approvals() == ()
    assert not engine.view.is_pending(pending.id)
    await engine.close()


async def test_grants_of_the_store_and_of_this_run_are_listed_and_revoked() -> None:
    engine = plain_engine()
    engine.approvals.lifetime_grants.add("tool:http_request")
    asking = asyncio.ensure_future(
        engine.approvals.ask("c_1", "tool", "run ls", {}, grant_key="exec:ls")
    )
    while not engine.approvals.pending():
        await asyncio.sleep(0)
    engine.decide(engine.approvals.pending()[0].id, Decision(True, "chat", reason="fine"))
    await asyncio.wait_for(asking, 2)
    grants, problem = engine.view.grants()
    assert problem == ""
    assert [(g.scope, g.chat, g.key, g.stored) for g in grants] == [
        ("chat", "c_1", "exec:ls", True),
        ("lifetime", None, "tool:http_request", False),
    ]
    assert grants[0].reason == "fine"
    assert_frozen(grants[0])
    for grant in grants:
        engine.revoke_grant(grant)
    assert engine.view.grants() == ((), "")
    assert engine.approvals.lifetime_grants == set()
    assert not engine.approvals.granted("c_1", "exec:ls")
    await engine.close()


async def test_delegations_given_in_a_chat_and_their_root() -> None:
    engine = plain_engine()
    giver = engine.new_chat().id
    record = engine.delegations.journal.create(
        Delegation.new(
            parent=Parent(giver),
            giver_bot="Assistant",
            bot="Assistant",
            task="count the files",
            reason="",
            limits=Limits(60_000),
        )
    )
    view = engine.view
    assert view.delegations() == (record,)
    assert view.delegation(record.id) == record
    assert view.given_by(giver) == (record,)
    assert view.given_by(giver, open_only=True) == (record,)  # authorizing is open
    assert view.given_by("c_none") == ()
    assert view.root_chat(giver) == giver
    assert_frozen(view.delegations()[0])
    await engine.close()


async def test_jobs_and_their_next_run_and_the_four_job_commands() -> None:
    engine = plain_engine()
    job = add_job(engine, every_minutes(5), name="backups")
    view = engine.view
    assert view.jobs() == (job,)
    assert_frozen(view.jobs()[0])
    assert view.next_run(job) == engine.jobs.next_run(job)
    assert not view.jobs_run_here()
    assert view.jobs_holder() is None
    assert engine.pause_job(job.id).paused
    assert view.jobs()[0].paused
    assert not engine.resume_job(job.id).paused
    assert engine.remove_job(job.id).id == job.id
    assert view.jobs() == ()
    await engine.close()


async def test_tasks_tools_and_bots_are_tuples_of_frozen_records(server: ScriptedServer) -> None:
    engine = make_engine(server)
    engine.load_tools()
    server.enqueue(text("done"))
    chat = engine.new_chat().id
    await (await engine.send(chat, "do it"))
    view = engine.view
    tasks = view.tasks()
    assert [(t.chat, t.state) for t in tasks] == [(t.chat, t.state) for t in engine.tasks.board()]
    assert [t.chat for t in tasks] == [chat]
    tools = view.tools()
    assert [spec.name for spec in tools] == list(view.tool_names()) == engine.tools.names()
    assert tools, "the bundled tools are loaded"
    bots = view.bots()
    assert [bot.name for bot in bots] == [bot.name for bot in engine.bots.all()]
    for record in (tasks[0], tools[0], bots[0]):
        assert_frozen(record)
    assert view.settings is engine.settings
    await engine.close()


@pytest.mark.timeout(240)  # real servers import the SDK on a loaded machine
async def test_mcp_servers_are_frozen_records_of_real_servers_and_restart_through_the_engine() -> (
    None
):
    settings = load_settings(None, env={})
    assert plain_engine().view.mcp_servers() == ()  # before tools are loaded: none
    servers = {
        "faults": fault_server("faults"),
        "down": fault_server("down", "--exit-at-start"),
        "off": fault_server("off", enabled=False),
    }
    engine = Engine(dataclasses.replace(settings, mcp=McpSettings(servers=servers)))
    engine.load_tools()
    await engine.settle_mcp()
    shown = engine.view.mcp_servers()
    assert isinstance(shown, tuple)
    assert [(s.name, s.transport, s.state) for s in shown] == [
        ("faults", "stdio", "ready"), ("down", "stdio", "failed"), ("off", "stdio", "disabled")
    ]  # fmt: skip
    faults, down, off = shown
    offered = [name for name in engine.view.tool_names() if name.startswith("faults__")]
    assert faults.tools == len(offered) == 8
    assert faults.prompts == 3  # greet, daily, sneaky
    assert (faults.reason, down.tools, off.tools, off.reason) == ("", 0, 0, "")
    assert "closed" in down.reason
    assert "fatal: cannot open the database" in down.stderr_tail  # the server's own words
    assert_frozen(faults)
    assert await engine.restart_mcp_server("down")
    for _ in range(200):  # its connection task starts on the loop's next round
        if engine.view.mcp_servers()[1].state != "stopped":
            break
        await asyncio.sleep(0.01)
    assert engine.view.mcp_servers()[1].state == "starting"
    await engine.settle_mcp()
    assert engine.view.mcp_servers()[1].state == "failed"  # it exits at start again
    assert not await engine.restart_mcp_server("off")  # disabled: nothing runs to restart
    assert not await engine.restart_mcp_server("nothing")
    await engine.close()


def test_front_ends_reach_no_further_than_the_engine_and_its_view() -> None:
    deep = [f"{r.path}:{r.line}: engine.{r.chain}" for r in reaches() if r.deep]
    assert deep == []


def test_front_ends_use_only_the_engines_own_methods_its_view_and_events() -> None:
    """A one-part chain may name a method or property of :class:`Engine`, never one of its
    parts (``engine.mcp``, ``getattr(engine, "chats")``): a part is not the engine's API."""
    public = {"view", "events"}
    parts = [
        f"{r.path}:{r.line}: engine.{r.chain}"
        for r in reaches()
        if (head := r.chain.split(".")[0]) not in public and not hasattr(Engine, head)
    ]
    assert parts == []
