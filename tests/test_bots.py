"""Bots: the directory (default, configured, created) and routing between them.

The router runs against the scripted server, so the classifier request is a real
streamed chat completion with a real ``route`` tool call in it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import Recorder, ask, sent_messages
from scripted_server import ScriptedServer, error, text, tool_calls
from trust_helpers import trust_file

from tuibot.agent.router import ROUTE_TOOL, choose_bot, recent_messages
from tuibot.bots import BotDirectory, BotError
from tuibot.delegation.tools import BUILTIN_TOOLS
from tuibot.engine import Engine
from tuibot.events import Notice, TurnStarted
from tuibot.llm.openai_client import OpenAIClient
from tuibot.settings import ProviderSettings, Settings, load_settings

TWO_BOTS = """\
[agent]
name = "Assistant"
model = "test-model"
instructions = "You are the generalist."

[providers.local]
base_url = "{url}"
max_retries = 0

[[bots]]
name = "Coder"
description = "Writes and fixes code"
instructions = "You are the Coder. Write code."
tools = ["read_file"]

[[bots]]
name = "Researcher"
description = "Finds facts on the web"
"""


def settings_with_bots(url: str) -> Settings:
    Path("tuibot.toml").write_text(TWO_BOTS.format(url=url), encoding="utf-8")
    trust_file()
    return load_settings(None, env={})


# --- the directory ------------------------------------------------------------------


def test_the_default_bot_exists_without_config(tmp_path: Path) -> None:
    bots = BotDirectory(Settings(), tmp_path / "bots.jsonl")
    assert [b.name for b in bots.all()] == ["Assistant"]
    assert bots.default.source == "default" and bots.get("assistant") is bots.default


def test_configured_bots_inherit_from_agent(hermetic: Path) -> None:
    bots = BotDirectory(settings_with_bots("http://127.0.0.1:9/v1"), hermetic / "bots.jsonl")
    coder = bots.require("coder")
    assert [b.name for b in bots.all()] == ["Assistant", "Coder", "Researcher"]
    assert coder.model == "test-model" and coder.tools == ["read_file"]
    with pytest.raises(BotError, match="no bot named 'Nobody'; the bots are: Assistant, Coder"):
        bots.require("Nobody")


def test_a_created_bot_is_owned_and_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "bots.jsonl"
    bots = BotDirectory(Settings(), path)
    helper = bots.create(
        name="Tester", description="Runs the tests", instructions="Run pytest.", owner="assistant"
    )
    grandchild = bots.create(
        name="Linter", description="Lints", instructions="", owner="Tester", tools=["exec"]
    )
    assert helper.owner == "Assistant" and helper.model == bots.default.model
    reopened = BotDirectory(Settings(), path)
    assert reopened.require("tester") == helper
    assert reopened.require("Linter").tools == ["exec"] == grandchild.tools
    assert reopened.owns("Assistant", "Linter") and reopened.owns("Tester", "Linter")
    assert not reopened.owns("Linter", "Tester") and not reopened.owns("Assistant", "Assistant")


@pytest.mark.parametrize(
    ("name", "description", "message"),
    [
        ("assistant", "x", "a bot named 'Assistant' already exists"),
        ("9lives", "x", "is not usable: start with a letter"),
        ("A" * 41, "x", "is not usable"),
        ("Fine", "  ", "needs a description"),
    ],
)
def test_bad_new_bots_are_refused_and_not_stored(
    tmp_path: Path, name: str, description: str, message: str
) -> None:
    path = tmp_path / "bots.jsonl"
    bots = BotDirectory(Settings(), path)
    with pytest.raises(BotError, match=message):
        bots.create(name=name, description=description, instructions="", owner="Assistant")
    assert not path.exists()


def test_a_torn_bots_file_keeps_the_good_bots_and_says_what_it_skipped(tmp_path: Path) -> None:
    path = tmp_path / "bots.jsonl"
    bots = BotDirectory(Settings(), path)
    bots.create(name="Tester", description="Runs tests", instructions="", owner="Assistant")
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"name": "Half", "descr')
    reopened = BotDirectory(Settings(), path)
    assert reopened.get("Tester") is not None and reopened.get("Half") is None
    assert len(reopened.problems) == 1 and f"{path}:2:" in reopened.problems[0]


# --- the router ---------------------------------------------------------------------


@pytest.fixture
async def client(server: ScriptedServer):  # type: ignore[no-untyped-def]
    provider = ProviderSettings(name="local", base_url=server.url, max_retries=0)
    made = OpenAIClient(provider, None)
    yield made
    await made.close()


def directory(hermetic: Path) -> BotDirectory:
    return BotDirectory(settings_with_bots("http://127.0.0.1:9/v1"), hermetic / "bots.jsonl")


async def test_the_classifier_picks_a_bot_with_one_small_cold_call(
    server: ScriptedServer, client: OpenAIClient, hermetic: Path
) -> None:
    bots = directory(hermetic)
    server.enqueue(tool_calls([("route", '{"bot": "coder", "confidence": 0.9}')]))
    history = [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "Hi there.", "bot": "Researcher"},
    ]
    choice = await choose_bot(
        client, "test-model", {}, bots.all(), bots.default, history, "fix the failing test"
    )
    assert (choice.bot.name, choice.confidence, choice.why) == ("Coder", 0.9, "classifier")
    body = server.requests[-1].body
    assert body is not None
    assert body["temperature"] == 0 and body["max_tokens"] == 60
    assert body["tools"] == [ROUTE_TOOL]
    system, *rest = body["messages"]
    assert "- Coder: Writes and fixes code" in system["content"]
    assert "Researcher answered last: keep Researcher unless" in system["content"]
    assert rest == [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "[Bot: Researcher] Hi there."},
        {"role": "user", "content": "fix the failing test"},
    ]


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (tool_calls([("route", '{"bot": "Nobody", "confidence": 1}')]), "unknown bot: 'Nobody'"),
        (tool_calls([("route", "{not json")]), "was not JSON"),
        (text("I think the Coder."), "did not call route"),
        (error(500, message="boom"), "the classifier failed"),
    ],
)
async def test_an_unusable_classifier_answer_falls_back_to_the_default(
    server: ScriptedServer, client: OpenAIClient, hermetic: Path, reply: object, why: str
) -> None:
    bots = directory(hermetic)
    server.enqueue(reply)  # type: ignore[arg-type]
    choice = await choose_bot(client, "test-model", {}, bots.all(), bots.default, [], "hi")
    assert choice.bot is bots.default and why in choice.why


async def test_one_bot_needs_no_classifier(
    server: ScriptedServer, client: OpenAIClient, tmp_path: Path
) -> None:
    bots = BotDirectory(Settings(), tmp_path / "bots.jsonl")
    choice = await choose_bot(client, "m", {}, bots.all(), bots.default, [], "hi")
    assert choice.why == "only bot" and server.requests == []


def test_the_classifier_reads_only_the_last_twenty_messages() -> None:
    history = [{"role": "user", "content": f"m{i}"} for i in range(30)]
    history.insert(5, {"role": "tool", "content": "ignored", "tool_call_id": "x"})
    picked = recent_messages(history)
    assert [m["content"] for m in picked] == [f"m{i}" for i in range(10, 30)]


# --- routing in the engine ----------------------------------------------------------


async def test_an_unpinned_chat_is_routed_and_the_bot_shapes_the_turn(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = Engine(settings_with_bots(server.url))
    engine.load_tools()
    events = Recorder(engine)
    server.enqueue(tool_calls([("route", '{"bot": "Coder", "confidence": 0.8}')]), text("Done."))
    chat = engine.new_chat().id
    result = await ask(engine, chat, "fix the failing test")
    assert result.text == "Done."
    assert [e.bot for e in events.of(TurnStarted)] == ["Coder"]
    answer = server.requests[-1].body
    assert answer is not None
    assert answer["messages"][0]["content"].rstrip().endswith("You are the Coder. Write code.")
    names = [t["function"]["name"] for t in answer["tools"]]
    assert sorted(names) == sorted(["read_file", *BUILTIN_TOOLS])  # its list + every bot's
    stored = engine.chats.load(chat).messages
    assert stored[-1]["bot"] == "Coder"
    await engine.close()


async def test_a_pinned_chat_skips_routing(server: ScriptedServer, hermetic: Path) -> None:
    engine = Engine(settings_with_bots(server.url))
    engine.load_tools()
    server.enqueue(text("Researching."))
    chat = engine.new_chat(bot="researcher")
    assert chat.pinned and chat.bot == "Researcher"
    await ask(engine, chat.id, "fix the failing test")
    assert len(server.requests) == 1
    assert "You are the generalist." not in sent_messages(server)[0]["content"]
    with pytest.raises(BotError):
        engine.new_chat(bot="Nobody")
    await engine.close()


async def test_a_failed_classifier_still_answers_with_the_default_bot(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = Engine(settings_with_bots(server.url))
    engine.load_tools()
    events = Recorder(engine)
    server.enqueue(error(503, message="overloaded"), text("Hello from the default."))
    result = await ask(engine, engine.new_chat().id, "hi")
    assert result.text == "Hello from the default."
    assert [e.bot for e in events.of(TurnStarted)] == ["Assistant"]
    notes = [n.message for n in events.of(Notice)]
    assert any(n.startswith("routed to Assistant: the classifier failed") for n in notes)
    await engine.close()


def test_a_created_bot_gets_only_tools_its_creator_has(hermetic: Path) -> None:
    bots = directory(hermetic)  # Coder may use read_file only
    with pytest.raises(BotError, match="only give a new bot tools it has itself; not: exec"):
        bots.create(
            name="Runner", description="Runs", instructions="", owner="Coder", tools=["exec"]
        )
    made = bots.create(
        name="Reader", description="Reads", instructions="", owner="Coder", tools=["read_file"]
    )
    assert made.tools == ["read_file"]


async def test_a_result_notice_goes_to_the_bot_that_gave_the_work_not_the_router(
    server: ScriptedServer, hermetic: Path
) -> None:
    from delegation_helpers import Script, delegate_call, settle

    engine = Engine(settings_with_bots(server.url))
    engine.load_tools()
    events = Recorder(engine)
    Script(
        server,
        [
            ("Plan it", delegate_call("Draft", {"timeMs": 600_000})),
            ('"status": "queued"', text("Delegated.")),
            ("gives you this task: Draft", text("Drafted.")),
            ("is done.", text("Here is the draft.")),
        ],
        route="Coder",
    )
    engine.bots.create(name="Helper", description="Helps", instructions="", owner="Coder")
    chat = engine.new_chat().id
    await ask(engine, chat, "Plan it")
    await settle(engine, chat)

    route_calls = [
        r.body
        for r in server.requests
        if r.body and any(t["function"]["name"] == "route" for t in r.body.get("tools") or [])
    ]
    assert len(route_calls) == 1  # the person's message only; the notice skipped the router
    assert "Helper" not in route_calls[0]["messages"][0]["content"]  # created bots: not routed
    direct = [e.bot for e in events.of(TurnStarted) if e.chat == chat]
    assert direct == ["Coder", "Coder"]
    await engine.close()


async def test_the_classifier_request_fits_a_small_window(
    server: ScriptedServer, hermetic: Path
) -> None:
    """Twenty 600-character messages (~4k tokens) would overflow a 2,048 window: the
    router reads only the newest that fit, and always the message it routes."""
    Path("tuibot.toml").write_text(
        TWO_BOTS.format(url=server.url).replace(
            "max_retries = 0", "max_retries = 0\ncontext_window = 2048"
        ),
        encoding="utf-8",
    )
    trust_file()
    engine = Engine(load_settings(None, env={}))
    engine.load_tools()
    chat = engine.new_chat().id
    for i in range(10):
        engine.chats.append(
            chat,
            [
                {"role": "user", "content": f"u{i} " + "w" * 600},
                {"role": "assistant", "content": f"a{i} " + "r" * 600, "bot": "Coder"},
            ],
        )
    server.enqueue(tool_calls([("route", '{"bot": "Coder", "confidence": 0.8}')]), text("Done."))
    await ask(engine, chat, "fix the failing test")
    await engine.close()
    routed = server.requests[0].body
    assert routed is not None and routed["tools"][0]["function"]["name"] == "route"
    sent = sum(len(m["content"]) for m in routed["messages"])
    assert sent <= 2048 * 0.5 * 3.2, sent
    assert routed["messages"][-1]["content"] == "fix the failing test"
    assert routed["messages"][-2]["content"].startswith("[Bot: Coder] a9")  # the newest kept
