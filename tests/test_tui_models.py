"""Switching a chat's model and provider in the app, against the scripted ``/v1/models``.

The palette's "Switch model" lists what the server serves and switches the chat; the
status bar shows the model; the choice survives a restart of the app. A server that is
down or sends a garbage or empty list is one error notice, no picker, and nothing lost
(the chat's model and the composer's draft stay).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from scripted_replies import text
from scripted_server import ScriptedServer
from textual.widgets import OptionList
from tui_helpers import SIZE, make_app, ready, until

from tuibot.tui.app import TuibotApp
from tuibot.tui.screens.pick import PickScreen
from tuibot.tui.widgets.blocks import CommandOutputBlock

MODELS = ["test-model", "qwen3:8b", "llama3:latest"]


def record_notes(app: TuibotApp, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every toast as (severity, text)."""
    notes: list[tuple[str, str]] = []
    real = app.notify

    def notify(message: str, **options: Any) -> None:
        notes.append((options.get("severity", "information"), message))
        real(message, **options)

    monkeypatch.setattr(app, "notify", notify)
    return notes


def chat_header(app: TuibotApp) -> dict[str, Any]:
    assert app.engine is not None and app.current_chat is not None
    path = app.engine.chats.path(app.current_chat)
    return dict(json.loads(path.read_text(encoding="utf-8").splitlines()[0]))


def picker_names(app: TuibotApp) -> list[str]:
    options = app.screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def open_a_chat(app: TuibotApp, pilot: Any) -> None:
    assert app.engine is not None
    app.open_chat(app.engine.new_chat().id)
    await pilot.pause()


async def palette(pilot: Any, words: str) -> None:
    await pilot.press("ctrl+p")
    await pilot.press(*words)
    await pilot.pause(0.3)
    await pilot.press("down", "enter")


@pytest.fixture
def many() -> ScriptedServer:
    with ScriptedServer(models=MODELS) as scripted:
        yield scripted


async def test_the_palette_lists_the_served_models_and_switches_the_chat(
    many: ScriptedServer,
) -> None:
    app = make_app(many)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await open_a_chat(app, pilot)
        assert app.status.model == "test-model"
        await palette(pilot, "switch model")
        await until(pilot, lambda: isinstance(app.screen, PickScreen))
        assert picker_names(app) == ["  llama3:latest", "  qwen3:8b", "● test-model"]
        await pilot.press("up", "enter")  # from the current one up to qwen3:8b
        await until(pilot, lambda: app.status.model == "qwen3:8b")
        assert chat_header(app)["model"] == "qwen3:8b"
        many.enqueue(text("hello from qwen"))
        app.submit(app.current_chat, "hi")
        await until(
            pilot, lambda: any(r.body and r.body.get("model") == "qwen3:8b" for r in many.requests)
        )
        chat = app.current_chat

    again = make_app(many)  # the choice is the chat's: a restarted app shows and uses it
    async with again.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await until(pilot, lambda: again.current_chat == chat)
        assert again.status.model == "qwen3:8b"


async def test_slash_model_switches_and_refuses_with_one_line(many: ScriptedServer) -> None:
    app = make_app(many)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await open_a_chat(app, pilot)
        app.submit(app.current_chat, "/model llama3")
        await until(pilot, lambda: app.status.model == "llama3")
        app.submit(app.current_chat, "/model nope")
        await until(pilot, lambda: len(app.query(CommandOutputBlock)) == 2)
        failed = list(app.query(CommandOutputBlock))[-1]
        assert failed.has_class("-failed")
        assert app.status.model == "llama3"
        assert chat_header(app)["model"] == "llama3"


@pytest.mark.parametrize("broken", ["down", b"<html>garbage</html>", b'{"data": []}'])
async def test_a_broken_model_list_is_one_notice_and_nothing_is_lost(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, broken: str | bytes
) -> None:
    if isinstance(broken, bytes):
        server.routes["/v1/models"] = broken
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await open_a_chat(app, pilot)
        notes = record_notes(app, monkeypatch)
        if broken == "down":
            server.stop()
        app.composer.text = "my unsent draft"
        before = chat_header(app)
        await palette(pilot, "switch model")
        await until(pilot, lambda: any(sev == "error" for sev, _ in notes))
        errors = [note for sev, note in notes if sev == "error"]
        assert len(errors) == 1 and "\n" not in errors[0]
        assert "Cannot list the models of local" in errors[0]
        assert "Nothing was changed" in errors[0]
        assert not isinstance(app.screen, PickScreen)
        assert app.status.model == "test-model"
        assert chat_header(app) == before
        assert app.composer.text == "my unsent draft"


async def test_switching_provider_offers_the_new_providers_models(
    server: ScriptedServer, many: ScriptedServer
) -> None:
    server.models = ["test-model", "other-local"]
    many.models = ["qwen3:8b", "llama3:latest"]  # does not serve test-model
    app = make_app(server, providers__big__base_url=many.url)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await open_a_chat(app, pilot)
        await palette(pilot, "switch provider")
        await until(pilot, lambda: isinstance(app.screen, PickScreen))
        names = [name.strip() for name in picker_names(app)]
        assert "big" in names and "local" in names
        await pilot.press(*["down"] * names.index("big"))
        while app.screen.query_one(OptionList).highlighted != names.index("big"):
            await pilot.press("down")
        await pilot.press("enter")
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, PickScreen) and "qwen3:8b" in " ".join(picker_names(app))
            ),
        )
        await pilot.press("enter")  # the first: llama3:latest
        await until(pilot, lambda: app.status.model == "llama3:latest (big)")
        assert chat_header(app)["provider"] == "big"
