"""What the app shows on start: the newest chat, and a server banner that does not go stale.

The "cannot reach the model server" banner once stayed up for good after the server
came back; these start the app with the server down, bring it up, and check the banner
goes (at the next probe, or at once when the person sends).
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest
from scripted_server import ScriptedServer, text
from tui_helpers import SIZE, make_app, ready, until

from tuibot.store.chats import ChatStore
from tuibot.system.paths import DataPaths
from tuibot.tui.widgets.blocks import ProblemBanner


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def banners(app: object) -> int:
    return len(app.query(ProblemBanner))  # type: ignore[attr-defined]


async def test_the_banner_goes_when_a_later_probe_finds_the_server_up() -> None:
    port = free_port()
    app = make_app(f"http://127.0.0.1:{port}/v1", tui__health_interval=0.2)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await until(pilot, lambda: banners(app) == 1, timeout=15)
        with ScriptedServer(port=port):
            await until(pilot, lambda: app.status.health == "ok", timeout=15)
            await until(pilot, lambda: banners(app) == 0)


async def test_sending_while_down_checks_again_and_an_answer_clears_the_banner() -> None:
    port = free_port()
    app = make_app(f"http://127.0.0.1:{port}/v1")  # the next periodic probe is an hour away
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await until(pilot, lambda: banners(app) == 1, timeout=15)
        with ScriptedServer(port=port) as server:
            server.enqueue(text("Up again."))
            app.submit(None, "Hello?")
            await until(pilot, lambda: banners(app) == 0, timeout=15)
            assert app.status.health == "ok"


async def test_the_app_opens_the_most_recently_updated_chat(server: ScriptedServer) -> None:
    store = ChatStore(DataPaths.default().chats)
    old = store.create(title="Old chat")
    new = store.create(title="New chat")
    then = time.time() - 3600
    os.utime(store.path(old.id), (then, then))
    store.append(new.id, [{"role": "user", "content": "recent"}])
    assert Path(store.path(new.id)).stat().st_mtime > then
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await until(pilot, lambda: app.current_chat is not None)
        assert app.current_chat == new.id


async def test_a_server_serving_one_other_model_is_not_a_problem() -> None:
    """llama.cpp lists the one model it loaded and answers whatever name is asked for."""
    with ScriptedServer(models=["models/smol.gguf"]) as server:
        server.enqueue(text("Hi."))
        app = make_app(server)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await until(pilot, lambda: app.status.health != "unknown")
            assert app.status.health == "ok" and banners(app) == 0


@pytest.mark.parametrize("models", [["llama3", "qwen"], ["llama3:latest"]])
async def test_a_server_listing_others_still_says_which_it_has(models: list[str]) -> None:
    """Several models, or Ollama's one ``name:tag`` (Ollama refuses other names)."""
    with ScriptedServer(models=models) as server:
        app = make_app(server)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await until(pilot, lambda: banners(app) == 1)
            assert ", ".join(models) in app.status.health_detail


WARMED = """
import asyncio, sys
sys.path.insert(0, TESTS)
from scripted_server import ScriptedServer
from tui_helpers import SIZE, make_app, ready, until
from pygments.lexers.css import CssLexer
from pygments.lexers.python import PythonLexer

async def main() -> None:
    with ScriptedServer() as server:
        app = make_app(server)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await until(pilot, lambda: app.status.health == "ok", timeout=15)
            warming = [w for w in app.workers if w.group == "warm"]  # started before health
            await until(pilot, lambda: all(w.is_finished for w in warming), timeout=15)
            print([("_tokens" in vars(lexer)) for lexer in (PythonLexer, CssLexer)])

asyncio.run(main())
"""


def test_code_highlighting_is_ready_after_start_up_before_any_chat_is_opened() -> None:
    """Pygments compiles a language's patterns when it first highlights it (20-30 ms for
    Python or CSS): start-up does it in a thread, not the first chat opened. A fresh
    interpreter, since another test may have highlighted these languages already."""
    import subprocess
    import sys

    tests = str(Path(__file__).parent)
    code = f"TESTS = {tests!r}\n" + WARMED
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.splitlines()[-1] == "[True, True]"
