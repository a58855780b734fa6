"""The approvals pane keeps only what the person chose, and nothing for what hides.

``p`` allows a command prefix typed (prefilled) in a prompt; on a request that hides
characters ``c``, ``a`` and ``p`` are not offered (the card says why) and keep nothing,
and only ``y`` allows it, once.
"""

from __future__ import annotations

from typing import Any

import pytest
from engine_helpers import Recorder
from scripted_server import ScriptedServer
from test_tui_approvals import (
    cards,
    chat_of,
    exec_responder,
    finish,
    record_notifications,
    request_in,
    run,
)
from tui_helpers import SIZE, make_app, ready, until

from tuibot.events import ApprovalRequested, ToolFinished
from tuibot.tui.screens.prompt import PromptScreen
from tuibot.tui.widgets.approvals import ApprovalsPane


async def test_p_keeps_a_prefix_that_covers_the_next_command(server: ScriptedServer) -> None:
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None and engine.approvals.grants is not None
        seen = Recorder(engine)
        chat = chat_of(app)
        await run(app, chat, "echo one")
        await request_in(pilot, app)
        await pilot.press("ctrl+g", "p")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press("enter")  # the offered prefix: "echo"
        await until(pilot, lambda: len(seen.of(ToolFinished)) == 1)
        [grant] = engine.approvals.grants.all()
        assert (grant.key, grant.scope, grant.chat) == ("exec-prefix:echo", "chat", chat)
        await run(app, chat, "echo two words")
        await until(pilot, lambda: len(seen.of(ToolFinished)) == 2)
        await run(app, chat, "echo x; touch PWNED")  # not plain words after the prefix
        await until(pilot, lambda: len(seen.of(ApprovalRequested)) == 2)
        await finish(pilot, app)


@pytest.mark.parametrize("key", ["c", "a", "p"])
async def test_a_request_with_hidden_characters_keeps_no_grant(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None and engine.approvals.grants is not None
        notes = record_notifications(app, monkeypatch)
        seen = Recorder(engine)
        await run(app, chat_of(app), "echo hi\u202e")
        await request_in(pilot, app)
        await pilot.press("ctrl+g", key)
        await pilot.pause()
        assert len(engine.approvals.pending()) == 1  # still waiting: nothing was decided
        assert engine.approvals.grants.all() == []
        assert not any("Only y" in note for note in notes)  # the key is not even offered
        [card] = cards(app)
        assert "Can only be allowed once: it contains hidden characters" in card.text
        await pilot.press("y")
        await until(pilot, lambda: len(seen.of(ToolFinished)) == 1)
        assert engine.approvals.grants.all() == []
        await finish(pilot, app)


async def test_a_known_secret_is_never_shown_in_the_app(server: ScriptedServer) -> None:
    """The model puts the provider's key into a command: the pane and chat show a mask."""
    import secrets as random

    from tuibot.system.secrets import remember_secret

    key = f"sk-test-{random.token_hex(12)}"
    remember_secret(key)
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        chat = chat_of(app)
        app.open_chat(chat)
        await run(app, chat, f"curl -H 'Authorization: Bearer {key}' https://x.test/")
        await request_in(pilot, app)
        await pilot.pause()
        shown = "\n".join(card.text for card in cards(app))
        assert "Authorization: Bearer" in shown and key not in shown
        drawn = [str(line) for widget in app.query("*") for line in _rendered(widget)]
        assert any("Bearer" in line for line in drawn) and not any(key in line for line in drawn)
        await finish(pilot, app)


def _rendered(widget: Any) -> list[Any]:
    """What a Static-like widget shows now, as text lines (other widgets: nothing)."""
    visual = getattr(widget, "visual", None) or getattr(widget, "renderable", None)
    return [visual] if visual is not None else []


def offered_keys(app: Any) -> set[str]:
    """The keys the footer offers now (those a binding's ``check_action`` does not hide)."""
    return set(app.screen.active_bindings)


async def test_the_key_bar_offers_only_the_keys_that_do_something_for_the_selection(
    server: ScriptedServer,
) -> None:
    """c / a / p keep nothing for a request that hides characters: the footer drops them,
    and brings them back when an ordinary request is selected."""
    server.responder = exec_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await run(app, chat_of(app), "echo hi\u202e")
        await request_in(pilot, app)
        await run(app, chat_of(app), "echo plain words")
        hiding, plain = await request_in(pilot, app, 2)
        await pilot.press("ctrl+g")
        pane = app.query_one(ApprovalsPane)
        assert pane.selected == hiding
        await pilot.pause()
        assert {"y", "n", "q"} <= offered_keys(app)
        assert not {"c", "a", "p"} & offered_keys(app)
        await pilot.press("j")
        await until(pilot, lambda: pane.selected == plain)
        await pilot.pause()
        assert {"y", "c", "a", "p", "n", "q"} <= offered_keys(app)
        await pilot.press("k")
        await until(pilot, lambda: not {"c", "a", "p"} & offered_keys(app))
        await finish(pilot, app)


async def test_an_empty_queue_offers_no_keys_that_answer_a_request(
    server: ScriptedServer,
) -> None:
    """With nothing waiting, y / c / a / p / n / q and Enter would do nothing: the footer
    leaves them out, offers them once a request arrives, and drops them again after."""
    server.responder = exec_responder
    app = make_app(server)
    answering = {"y", "c", "a", "p", "n", "q", "enter"}
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+g")
        pane = app.query_one(ApprovalsPane)
        await until(pilot, lambda: pane.has_focus)
        await pilot.pause()
        assert pane.selected is None
        assert not answering & offered_keys(app), offered_keys(app)
        await run(app, chat_of(app), "echo plain words")
        await request_in(pilot, app)
        await until(pilot, lambda: answering <= offered_keys(app))
        await pilot.press("n")
        await until(pilot, lambda: not pane.request_ids)
        await until(pilot, lambda: not answering & offered_keys(app))
        await finish(pilot, app)
