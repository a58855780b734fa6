"""A chat's own model and provider: ``/model`` and ``/provider`` through the real engine.

Every switch is checked against the provider's real ``GET /v1/models`` (the scripted
server on loopback): a model it does not serve, a server that is down, a list that is
garbage or empty, and names carrying terminal escapes are refused with one line, and
the chat keeps what it had. The choice lives in the chat's header, so a new engine (the
app reopened, ``ask --chat``) sends the chosen model.
"""

from __future__ import annotations

import json
import shlex

import pytest
from engine_helpers import ask, make_engine
from scripted_replies import text
from scripted_server import ScriptedServer

from tuibot.engine import Engine
from tuibot.events import CommandOutput
from tuibot.model_choice import ChoiceError


async def command(engine: Engine, chat: str, line: str) -> CommandOutput:
    """Run one slash command and give back what it printed."""
    outcome = await (await engine.send(chat, line))
    assert isinstance(outcome, CommandOutput)
    assert "\n" not in outcome.text or outcome.ok, "a refusal is one line"
    return outcome


def header(engine: Engine, chat: str) -> dict[str, object]:
    """The chat file's first line, as stored."""
    first = engine.chats.path(chat).read_text(encoding="utf-8").splitlines()[0]
    return dict(json.loads(first))


def sent_model(server: ScriptedServer) -> str:
    """The model named by the last chat request."""
    chat_requests = [r for r in server.requests if r.path.endswith("/chat/completions")]
    body = chat_requests[-1].body
    assert body is not None
    return str(body["model"])


@pytest.fixture
def many() -> ScriptedServer:
    with ScriptedServer(models=["test-model", "qwen3:8b", "llama3:latest"]) as scripted:
        yield scripted


async def test_model_lists_what_the_server_serves_and_marks_the_chats(
    many: ScriptedServer,
) -> None:
    engine = make_engine(many)
    chat = engine.new_chat().id
    out = await command(engine, chat, "/model")
    assert out.ok
    assert " * test-model" in out.text.splitlines()
    assert "   qwen3:8b" in out.text.splitlines()
    await engine.close()


async def test_switch_is_kept_with_the_chat_and_used_after_a_restart(
    many: ScriptedServer,
) -> None:
    engine = make_engine(many)
    chat = engine.new_chat().id
    out = await command(engine, chat, "/model qwen3:8b")
    assert out.ok, out.text
    assert "qwen3:8b" in out.text
    many.enqueue(text("hi"))
    await ask(engine, chat, "hello")
    assert sent_model(many) == "qwen3:8b"
    await engine.close()

    again = make_engine(many)  # the app reopened, or `ask --chat`
    many.enqueue(text("hi again"))
    await ask(again, chat, "and now?")
    assert sent_model(many) == "qwen3:8b"
    other = again.new_chat().id  # a new chat starts from the bot's model
    many.enqueue(text("fresh"))
    await ask(again, other, "new chat")
    assert sent_model(many) == "test-model"
    out = await command(again, chat, "/model default")
    assert out.ok and "test-model" in out.text
    assert "model" not in header(again, chat) or header(again, chat)["model"] == ""
    await again.close()


async def test_an_ollama_name_without_its_tag_is_served(many: ScriptedServer) -> None:
    engine = make_engine(many)
    chat = engine.new_chat().id
    assert (await command(engine, chat, "/model llama3")).ok
    await engine.close()


async def test_a_model_the_server_does_not_serve_is_refused_and_nothing_changes(
    many: ScriptedServer,
) -> None:
    engine = make_engine(many)
    chat = engine.new_chat().id
    before = header(engine, chat)
    out = await command(engine, chat, "/model qwen3:8")
    assert not out.ok
    assert "does not serve qwen3:8" in out.text and "Did you mean qwen3:8b?" in out.text
    assert "Nothing was changed" in out.text
    assert header(engine, chat) == before
    await engine.close()


async def test_a_single_llama_cpp_model_serves_any_name() -> None:
    """llama.cpp lists the one file it loaded and answers every name with it (item 8)."""
    with ScriptedServer(models=["SmolLM2-135M-Instruct.Q4_1.gguf"]) as server:
        engine = make_engine(server)
        chat = engine.new_chat().id
        out = await command(engine, chat, "/model smol")
        assert out.ok, out.text
        await engine.close()


async def test_a_single_tagged_ollama_model_does_not_serve_other_names() -> None:
    with ScriptedServer(models=["llama3:latest"]) as server:
        engine = make_engine(server)
        chat = engine.new_chat().id
        assert not (await command(engine, chat, "/model qwen3")).ok
        await engine.close()


async def test_a_server_that_is_down_is_one_line_and_nothing_changes() -> None:
    with ScriptedServer() as server:
        url = server.url
    engine = make_engine(url)
    chat = engine.new_chat().id
    before = header(engine, chat)
    for line in ("/model", "/model other"):
        out = await command(engine, chat, line)
        assert not out.ok
        assert "Cannot list the models of local" in out.text and "Cannot reach" in out.text
        assert "\n" not in out.text
    assert header(engine, chat) == before
    await engine.close()


@pytest.mark.parametrize(
    "body",
    [
        b"<html>not json</html>",
        b'{"object": "list", "data": 5}',
        b'{"object": "list", "data": [{"nope": 1}]}',
        b'{"object": "list", "data": [{"id": 7}, {"id": null}]}',
        b"[1, 2, 3]",
        b'{"object": "list", "data": []}',
        b'{"object": "list"}',
    ],
)
async def test_a_garbage_or_empty_model_list_is_one_line(
    server: ScriptedServer, body: bytes
) -> None:
    server.routes["/v1/models"] = body
    engine = make_engine(server)
    chat = engine.new_chat().id
    before = header(engine, chat)
    for line in ("/model", "/model test-model"):
        out = await command(engine, chat, line)
        assert not out.ok, body
        assert "\n" not in out.text
        assert out.text.startswith("/model: Cannot list the models of local")
    assert header(engine, chat) == before
    await engine.close()


@pytest.mark.parametrize(
    "name",
    ["evil\x1b]52;c;aGk=\x07", "a\u202eb", "zero\u200bwidth", "x" * 300, "tab\there"],
)
async def test_names_that_would_act_on_the_terminal_are_refused(
    server: ScriptedServer, name: str
) -> None:
    """The attack: a name that reaches the status bar and the chat header."""
    server.models = ["test-model", name]
    engine = make_engine(server)
    chat = engine.new_chat().id
    before = header(engine, chat)
    out = await command(engine, chat, f"/model {shlex.quote(name)}")
    assert not out.ok
    assert "\x1b" not in out.text and "\u202e" not in out.text and "\u200b" not in out.text
    assert header(engine, chat) == before
    listed = await command(engine, chat, "/model")
    assert listed.ok and name not in listed.text  # a server's hostile id is not shown
    await engine.close()


async def test_a_hand_edited_header_with_escapes_is_not_sent(server: ScriptedServer) -> None:
    engine = make_engine(server)
    chat = engine.new_chat().id
    path = engine.chats.path(chat)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    first = json.loads(lines[0]) | {"model": "bad\x1b[2Jmodel"}
    path.write_text(json.dumps(first) + "\n" + "".join(lines[1:]), encoding="utf-8")
    server.enqueue(text("ok"))
    await ask(engine, chat, "hi")
    assert sent_model(server) == "test-model"
    await engine.close()


async def test_provider_switch_sends_to_the_other_server(server: ScriptedServer) -> None:
    with ScriptedServer(models=["big-model"]) as other:
        engine = make_engine(server, providers__other__base_url=other.url)
        chat = engine.new_chat().id
        listed = await command(engine, chat, "/provider")
        assert listed.ok and " * local" in listed.text and "   other" in listed.text
        out = await command(engine, chat, "/provider other")  # one tagless name: llama.cpp
        assert out.ok, out.text
        other.enqueue(text("from other"))
        await ask(engine, chat, "hi")
        assert sent_model(other) == "test-model"
        await engine.close()


async def test_provider_switch_checks_the_model_on_the_new_provider(
    server: ScriptedServer, many: ScriptedServer
) -> None:
    engine = make_engine(server, providers__other__base_url=many.url)
    chat = engine.new_chat().id
    out = await command(engine, chat, "/provider nowhere")
    assert not out.ok and "No provider 'nowhere' is configured" in out.text
    server.models = ["only-here:1b"]
    out = await command(engine, chat, "/provider other qwen3:8b")
    assert out.ok, out.text
    assert header(engine, chat)["provider"] == "other"
    many.enqueue(text("from other"))
    await ask(engine, chat, "hi")
    assert sent_model(many) == "qwen3:8b"
    back = await command(engine, chat, "/provider default")
    assert back.ok and "test-model on local" in back.text  # the config's own, never refused
    assert "Note: local does not serve test-model" in back.text
    assert header(engine, chat).get("provider", "") == ""
    await engine.close()


async def test_switching_needs_a_chat(server: ScriptedServer) -> None:
    engine = make_engine(server)
    with pytest.raises(ChoiceError):
        await engine.choose_model("", "test-model")
    out = await command(engine, "", "/model")  # `tuibot ask /model`: the default bot's
    assert out.ok and "test-model" in out.text
    await engine.close()
