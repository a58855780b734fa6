"""Ollama behind a default-kind provider is detected by ``/api/version`` (issue 15).

What must hold: the built-in ``local`` provider (kind left at its default) speaks
Ollama's native ``/api/chat`` with ``num_ctx`` when the server is Ollama; the answer is
cached on disk per base URL so a later run does not ask again; ``kind = "openai"`` set
explicitly keeps the OpenAI endpoint; a server that does not answer ``/api/version`` is
spoken to as OpenAI-compatible exactly as before, and an unreachable one is not cached.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

from engine_helpers import ask, make_engine
from ollama_server import OllamaServer, answer
from scripted_server import ScriptedServer, text

from tuibot.llm.ollama_detect import ServerKinds, is_ollama_version

MODEL = {"agent__model": "qwen3:0.6b"}


def versions(requests: list[tuple[str, object]]) -> int:
    """How many ``/api/version`` probes a server saw."""
    return sum(1 for path, _ in requests if path == "/api/version")


async def test_default_kind_against_ollama_speaks_native_and_caches_the_answer(
    hermetic: Path,
) -> None:
    with OllamaServer() as server:
        server.enqueue(answer("native one"), answer("native two"))
        first = make_engine(f"{server.url}/v1", **MODEL)
        done = await ask(first, first.new_chat().id, "hi")
        await first.close()
        second = make_engine(f"{server.url}/v1", **MODEL)  # a later run: same data folder
        again = await ask(second, second.new_chat().id, "hi again")
        await second.close()
    assert (done.status, again.status) == ("completed", "completed"), (done.error, again.error)
    assert (done.text, again.text) == ("native one", "native two")
    assert len(server.chats()) == 2 and all(b["options"]["num_ctx"] >= 4096 for b in server.chats())
    assert versions(server.requests) == 1  # asked once, then read from the cache
    cached = json.loads(next(hermetic.rglob("servers.json")).read_text())
    assert cached[server.url]["ollama"] is True


async def test_explicit_openai_kind_is_never_probed_and_keeps_the_openai_endpoint() -> None:
    with ScriptedServer() as server:
        server.routes["/api/version"] = {"version": "0.12.6"}  # it even looks like Ollama
        server.enqueue(text("openai path"))
        engine = make_engine(server, providers__local__kind="openai")
        done = await ask(engine, engine.new_chat().id, "hi")
        await engine.close()
    assert done.status == "completed" and done.text == "openai path"
    assert [r.path for r in server.requests] == ["/v1/chat/completions"]
    assert server.probes == []


async def test_a_server_without_api_version_stays_openai_compatible(hermetic: Path) -> None:
    with ScriptedServer() as server:
        root = server.url.removesuffix("/v1")
        server.enqueue(text("one"), text("two"))
        engine = make_engine(server)
        chat = engine.new_chat().id
        await ask(engine, chat, "hi")
        done = await ask(engine, chat, "again")
        await engine.close()
    assert done.status == "completed" and done.text == "two"
    probes = [r.path for r in server.probes]
    assert probes == ["/api/version"]  # once per address, not per turn
    assert [r.path for r in server.requests] == ["/v1/chat/completions"] * 2
    cached = json.loads(next(hermetic.rglob("servers.json")).read_text())
    assert cached[root]["ollama"] is False


async def test_an_unreachable_server_is_not_cached(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again below: nothing listens there
    kinds = ServerKinds(tmp_path / "servers.json")
    assert await kinds.probe(f"http://127.0.0.1:{port}/v1") is None
    assert kinds.known(f"http://127.0.0.1:{port}/v1") is None
    assert not (tmp_path / "servers.json").exists()


def test_only_ollamas_version_answer_counts() -> None:
    assert is_ollama_version(200, {"version": "0.12.6"})
    assert not is_ollama_version(200, {"version": ""})
    assert not is_ollama_version(200, {"data": []})
    assert not is_ollama_version(404, {"version": "1"})
    assert not is_ollama_version(200, ["version"])
