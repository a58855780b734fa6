"""Vision detected where the server says: Ollama's ``capabilities``, LM Studio's ``type``.

Real engine and clients against scripted servers written from each server's API docs:
Ollama's ``POST /api/show`` lists ``capabilities`` (``"vision"`` for image models); LM
Studio's ``GET /api/v0/models`` gives each model a ``type`` (``"vlm"``, ``"llm"``,
``"embeddings"``). No ``vision`` setting is set unless a case says so; the config wins
when it is.
"""

from __future__ import annotations

from pathlib import Path

from attach_helpers import chat_requests, png_bytes, write
from engine_helpers import ask, make_engine
from ollama_server import OllamaServer, answer
from scripted_replies import text
from scripted_server import ScriptedServer

LMSTUDIO = {"object": "list", "data": [
    {"id": "test-model", "object": "model", "type": "vlm", "publisher": "mistralai",
     "arch": "mistral3", "state": "loaded", "max_context_length": 32768},
    {"id": "text-only", "object": "model", "type": "llm", "state": "not-loaded",
     "max_context_length": 8192},
]}  # fmt: skip


async def test_ollama_says_a_model_sees_and_the_image_goes_as_images() -> None:
    write(Path("shot.png"), png_bytes())
    with OllamaServer({"llava:7b": 4096}) as server:
        server.capabilities["llava:7b"] = ["completion", "vision"]
        server.enqueue(answer("a grey pixel"))
        engine = make_engine(server.url, providers__local__kind="ollama", agent__model="llava:7b")
        try:
            done = await ask(engine, engine.new_chat().id, "what is @shot.png")
        finally:
            await engine.close()
    assert done.status == "completed", done.error
    [body] = server.chats()
    assert len(body["messages"][-1]["images"]) == 1


async def test_ollama_without_vision_in_capabilities_refuses_the_image() -> None:
    write(Path("shot.png"), png_bytes())
    with OllamaServer() as server:  # qwen3:0.6b: completion, tools
        engine = make_engine(server.url, providers__local__kind="ollama", agent__model="qwen3:0.6b")
        try:
            done = await ask(engine, engine.new_chat().id, "what is @shot.png")
        finally:
            await engine.close()
    assert done.error_kind == "attachment" and "takes no images" in (done.error or "")
    assert server.chats() == []


async def test_lm_studio_says_vlm_and_the_image_goes_as_a_part(server: ScriptedServer) -> None:
    write(Path("shot.png"), png_bytes())
    server.routes["/api/v0/models"] = LMSTUDIO
    server.enqueue(text("a grey pixel"))
    engine = make_engine(server)
    try:
        done = await ask(engine, engine.new_chat().id, "what is @shot.png")
    finally:
        await engine.close()
    assert done.status == "completed", done.error
    content = chat_requests(server)[-1].body["messages"][-1]["content"]
    assert [part["type"] for part in content] == ["text", "image_url"]


async def test_lm_studio_says_llm_and_the_image_is_refused(server: ScriptedServer) -> None:
    write(Path("shot.png"), png_bytes())
    server.routes["/api/v0/models"] = LMSTUDIO
    engine = make_engine(server, agent__model="text-only")
    try:
        done = await ask(engine, engine.new_chat().id, "what is @shot.png")
    finally:
        await engine.close()
    assert done.error_kind == "attachment" and "takes no images" in (done.error or "")
    assert chat_requests(server) == []


async def test_the_config_wins_over_what_the_server_says(server: ScriptedServer) -> None:
    write(Path("shot.png"), png_bytes())
    server.routes["/api/v0/models"] = LMSTUDIO
    engine = make_engine(server, providers__local__vision_models=["llava*"])
    try:
        done = await ask(engine, engine.new_chat().id, "what is @shot.png")
    finally:
        await engine.close()
    assert done.error_kind == "attachment" and "takes no images" in (done.error or "")
    assert not [r for r in server.requests if r.path == "/api/v0/models"]  # never asked


async def test_the_answer_is_asked_once_and_kept_across_runs(server: ScriptedServer) -> None:
    write(Path("shot.png"), png_bytes())
    server.routes["/api/v0/models"] = LMSTUDIO
    for run in range(2):
        server.enqueue(text("seen"), text("seen again"))
        engine = make_engine(server)
        try:
            chat = engine.new_chat().id
            for n in range(2):
                done = await ask(engine, chat, f"what is @shot.png ({run}, {n})")
                assert done.status == "completed", done.error
        finally:
            await engine.close()
    assert len([r for r in server.requests if r.path == "/api/v0/models"]) == 1
    assert len(chat_requests(server)) == 4


async def test_a_message_without_images_asks_nothing(server: ScriptedServer) -> None:
    server.routes["/api/v0/models"] = LMSTUDIO
    server.enqueue(text("hi"))
    engine = make_engine(server)
    try:
        await ask(engine, engine.new_chat().id, "hello")
    finally:
        await engine.close()
    assert not [r for r in server.requests if "/api/" in r.path]
