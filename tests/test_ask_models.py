"""``tuibot ask --model/--provider``: the app's checked switch, kept with the chat.

A real ``tuibot ask`` process against the scripted server: a model the server does not
serve (or a name with escapes) is exit 2 with one line and leaves no chat behind; the
chosen model is kept, so ``ask -c`` goes on with it, as reopening the chat in the app does.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from ask_helpers import Ran, child_env, run, tuibot_argv
from scripted_replies import text
from scripted_server import ScriptedServer

from tuibot.store.chats import ChatStore
from tuibot.system.paths import DataPaths


def run_ask(server: ScriptedServer | str, *args: str) -> Ran:
    """``tuibot ask`` with the test model from the environment, not a --model flag."""
    url = server if isinstance(server, str) else server.url
    argv = tuibot_argv("ask", "--base-url", url, *args)
    return run(argv, env=child_env(TUIBOT_AGENT__MODEL="test-model"))


def chat_models(server: ScriptedServer) -> list[str]:
    return [str(r.body["model"]) for r in server.requests if r.body and "model" in r.body]


def chats() -> list[str]:
    return [meta.id for meta in ChatStore(DataPaths.default().chats).list()]


def test_ask_model_is_checked_and_kept_with_the_chat() -> None:
    with ScriptedServer(models=["test-model", "qwen3:8b"]) as server:
        server.enqueue(text("one"), text("two"))
        first = run_ask(server, "--model", "qwen3:8b", "hello")
        assert first.code == 0, first.stderr
        again = run_ask(server, "-c", "and again")  # no --model: the chat's own
        assert again.code == 0, again.stderr
        assert chat_models(server) == ["qwen3:8b", "qwen3:8b"]


def test_ask_refuses_an_unserved_or_hostile_model_and_leaves_no_chat() -> None:
    with ScriptedServer(models=["test-model", "qwen3:8b"]) as server:
        for name in ("qwen3:8", "evil\x1b]0;owned\x07"):
            ran = run_ask(server, "--model", name, "hello")
            assert ran.code == 2, ran.stderr
            assert "\x1b" not in ran.stderr
            assert "Nothing" not in ran.stdout and ran.stdout == ""
        assert chats() == []
        assert chat_models(server) == []


def test_ask_model_with_the_server_down_is_exit_3() -> None:
    with ScriptedServer() as server:
        url = server.url
    ran = run_ask(url, "--model", "other", "hello")
    assert ran.code == 3, ran.stderr
    assert "Cannot list the models of local" in ran.stderr
    assert chats() == []


async def test_a_new_chat_is_written_with_its_model_and_title_without_extra_rewrites(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ask --model`` on a new chat: the model is in the header the chat is created with,
    and the title goes in with the first message; no fsynced rewrite of the header alone
    on the way to the first token (issue 19)."""
    from engine_helpers import make_engine

    from tuibot.frontends import ask
    from tuibot.store import chats as chat_files
    from tuibot.store.jsonl import rewrite_head as real_rewrite

    header_only: list[dict[str, Any]] = []

    def rewrite_head(path: Path, record: dict[str, Any], then: Sequence[Any] = ()) -> None:
        if not then:
            header_only.append(record)
            return real_rewrite(path, record)
        return real_rewrite(path, record, then)

    monkeypatch.setattr(chat_files, "rewrite_head", rewrite_head)
    server.models = ["test-model", "qwen3:8b"]
    server.enqueue(text("hi there"))
    engine = make_engine(server)
    out, err = io.StringIO(), io.StringIO()

    code = await ask.run_ask(engine, ask.AskOptions("hello", model="qwen3:8b"), out, err)

    assert code == 0, err.getvalue()
    assert out.getvalue() == "hi there\n"
    assert header_only == []
    (meta,) = engine.chats.list()
    assert (meta.model, meta.provider, meta.title) == ("qwen3:8b", "", "hello")
    chat = engine.chats.load(meta.id)
    assert [m["content"] for m in chat.messages] == ["hello", "hi there"]
    assert chat_models(server) == ["qwen3:8b"]
