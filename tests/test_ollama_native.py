"""``kind = "ollama"``: the real engine against a scripted Ollama server (issue 15).

What must hold: answers, thinking and tool calls arrive through ``/api/chat``; every
request carries an ``options.num_ctx`` that holds the whole prompt, so Ollama's silent
cut to 4096 never happens; the window comes from ``/api/show``; failures are the same
friendly provider errors as on the OpenAI path.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine_helpers import Recorder, ask, make_engine
from ollama_server import OllamaReply, OllamaServer, answer, calls, failure
from test_context_window import seed_big_result

from tuibot.events import Notice, ReasoningDelta
from tuibot.llm.ollama_client import num_ctx_for
from tuibot.llm.ollama_wire import chat_body, ollama_messages

NATIVE = {"providers__local__kind": "ollama", "agent__model": "qwen3:0.6b"}


def engine_for(server: OllamaServer | str, **overrides: object):
    """An engine whose local provider speaks Ollama's native API."""
    url = server if isinstance(server, str) else server.url
    return make_engine(url, **{**NATIVE, **overrides})


async def test_answer_and_thinking_stream_through_api_chat() -> None:
    with OllamaServer() as server:
        server.enqueue(answer("Hello from Ollama.", thinking="The user greets me."))
        engine = engine_for(server)
        seen = Recorder(engine)
        chat = engine.new_chat().id
        done = await ask(engine, chat, "hi")
        await engine.close()
    assert done.status == "completed", done.error
    assert done.text == "Hello from Ollama."
    assert "".join(e.delta for e in seen.of(ReasoningDelta)) == "The user greets me."
    body = server.chats()[0]
    assert body["stream"] is True and body["model"] == "qwen3:0.6b"
    assert body["messages"][0]["role"] == "system"
    assert body["messages"][-1] == {"role": "user", "content": "hi"}
    assert body["options"]["num_ctx"] >= 4096
    assert done.usage.prompt_tokens > 0 and done.usage.completion_tokens == 7


async def test_tool_calls_round_trip_in_ollamas_shape(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("the secret word is plum", encoding="utf-8")
    with OllamaServer() as server:
        server.enqueue(calls(("read_file", {"path": "a.txt"})), answer("It says plum."))
        engine = engine_for(server, agent__tools=["read_file"], tools__workspace=str(tmp_path))
        done = await ask(engine, engine.new_chat().id, "read a.txt")
        await engine.close()
    assert done.status == "completed", done.error
    assert done.text == "It says plum."
    first, second = server.chats()
    assert "read_file" in [t["function"]["name"] for t in first["tools"]]
    replayed = second["messages"]
    call = next(m for m in replayed if m.get("tool_calls"))
    wanted = {"function": {"name": "read_file", "arguments": {"path": "a.txt"}}}
    assert call["tool_calls"] == [wanted]
    result = replayed[-1]
    assert result["role"] == "tool" and result["tool_name"] == "read_file"
    assert "plum" in result["content"]


async def test_num_ctx_holds_a_big_chat_so_nothing_is_cut() -> None:
    """A 51 KB tool result (~13k tokens): Ollama's 4096 default would cut it silently."""
    with OllamaServer({"qwen3:0.6b": 40960}) as server:
        server.enqueue(answer("Still here."))
        engine = engine_for(server, agent__tools=["read_file"])
        seen = Recorder(engine)
        chat = engine.new_chat().id
        seed_big_result(engine, chat)
        done = await ask(engine, chat, "what was in it?")
        await engine.close()
    assert done.status == "completed", done.error
    body = server.chats()[0]
    sent = len(json.dumps(body["messages"])) + len(json.dumps(body.get("tools") or []))
    num_ctx = body["options"]["num_ctx"]
    assert num_ctx >= sent // 3, (num_ctx, sent)  # room for the prompt, at ~3 chars a token
    assert num_ctx <= 40960  # never above the trained length
    assert not [n for n in seen.of(Notice) if "cut the prompt" in n.text]
    assert done.context is not None and done.context["window"] == 40960  # from /api/show


async def test_without_a_trained_length_the_loaded_context_of_api_ps_is_the_window() -> None:
    """``/api/show`` without ``model_info`` lengths: ``/api/ps`` says what is loaded."""
    with OllamaServer({"qwen3:0.6b": 40960}) as server:
        server.show_length = False
        server.loaded = {"qwen3:0.6b": 16384}
        server.enqueue(answer("ok"))
        engine = engine_for(server, agent__tools=["read_file"])
        chat = engine.new_chat().id
        seed_big_result(engine, chat)
        done = await ask(engine, chat, "and now?")
        await engine.close()
    assert done.status == "completed", done.error
    assert done.context is not None and done.context["window"] == 16384
    assert server.chats()[0]["options"]["num_ctx"] <= 16384  # within what is loaded


async def test_config_window_caps_num_ctx_and_fitting() -> None:
    with OllamaServer({"qwen3:0.6b": 40960}) as server:
        server.enqueue(answer("ok"))
        capped = {"providers__local__context_window": 6000}
        engine = engine_for(server, agent__tools=["read_file"], **capped)
        chat = engine.new_chat().id
        seed_big_result(engine, chat)
        done = await ask(engine, chat, "and now?")
        await engine.close()
    assert done.status == "completed", done.error
    body = server.chats()[0]
    assert body["options"]["num_ctx"] == 6000
    assert len(json.dumps(body["messages"])) < 6000 * 4  # fitted: the big result was cut


async def test_unknown_model_is_a_clear_rejection() -> None:
    with OllamaServer() as server:
        server.enqueue(failure(404, "model 'nope' not found, try pulling it first"))
        engine = engine_for(server, agent__model="nope")
        done = await ask(engine, engine.new_chat().id, "hi")
        await engine.close()
    assert done.status == "failed" and done.error_kind == "rejected"
    assert "does not know this model" in (done.error or "")
    assert "try pulling it first" in (done.error or "")


async def test_nothing_listening_is_unreachable() -> None:
    from ask_helpers import closed_port_url

    engine = engine_for(closed_port_url().removesuffix("/v1"))
    done = await ask(engine, engine.new_chat().id, "hi")
    await engine.close()
    assert done.status == "failed" and done.error_kind == "unreachable"
    assert "Cannot reach the model server" in (done.error or "")


async def test_error_line_mid_stream_and_cut_stream_are_interruptions() -> None:
    midway = OllamaReply([{"message": {"content": "Half"}}, {"error": "model runner crashed"}])
    cut = OllamaReply([{"message": {"content": "Half"}}], cut=True)
    for reply, said in ((midway, "model runner crashed"), (cut, "broke mid-answer")):
        with OllamaServer() as server:
            server.enqueue(reply)
            engine = engine_for(server)
            done = await ask(engine, engine.new_chat().id, "hi")
            await engine.close()
        assert done.status == "interrupted", reply  # as the OpenAI path says a broken stream
        assert done.text == "Half"  # what had arrived is kept
        assert said in (done.error or ""), done.error


async def test_hostile_stream_lines_fail_cleanly() -> None:
    """A model server that sends calls without a function, or a name that is no string."""
    bad = (
        OllamaReply([{"message": {"tool_calls": [{"nope": 1}]}}]),
        OllamaReply([{"message": {"tool_calls": [{"function": {"name": ["x"]}}]}}]),
        OllamaReply([{"message": "not an object"}]),
    )
    for reply in bad:
        with OllamaServer() as server:
            server.enqueue(reply)
            engine = engine_for(server)
            done = await ask(engine, engine.new_chat().id, "hi")
            await engine.close()
        assert done.status == "failed", reply
        assert "cannot read" in (done.error or ""), done.error


def test_messages_carry_images_as_base64_and_arguments_as_objects() -> None:
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "oops{"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "r"},
    ]
    user, call, result = ollama_messages(messages)
    assert user == {"role": "user", "content": "what is this?", "images": ["iVBORw0KGgo="]}
    assert call["content"] == ""
    assert call["tool_calls"][0]["function"]["arguments"] == {"arguments": "oops{"}
    assert result["tool_name"] == "f"


def test_params_map_to_options_and_a_bigger_configured_num_ctx_wins() -> None:
    params = {"temperature": 0.2, "max_tokens": 99, "think": True, "num_ctx": 65536}
    body = chat_body("m", [], [], params, 8192)
    assert body["think"] is True
    assert body["options"] == {"temperature": 0.2, "num_predict": 99, "num_ctx": 65536}
    assert chat_body("m", [], [], {"num_ctx": 2048}, 8192)["options"]["num_ctx"] == 8192


def test_num_ctx_grows_in_steps_within_the_cap() -> None:
    assert num_ctx_for(10, None) == 4096
    assert num_ctx_for(5000, None) == 8192
    assert num_ctx_for(20000, 24000) == 24000
    assert num_ctx_for(100, 2048) == 2048


async def test_an_image_counts_as_its_estimate_not_its_base64_in_num_ctx() -> None:
    """A 600 KB photo is ~1k tokens to a vision model; its base64 is 200k characters."""
    from tuibot.llm.ollama_client import OllamaClient
    from tuibot.settings import ProviderSettings

    photo = "data:image/png;base64," + "A" * 600_000
    content = [{"type": "text", "text": "what is this?"}]
    content.append({"type": "image_url", "image_url": {"url": photo}})  # type: ignore[dict-item]
    with OllamaServer() as server:
        server.enqueue(answer("a cat"))
        client = OllamaClient(ProviderSettings(name="o", kind="ollama", base_url=server.url), None)
        parts = [
            p
            async for p in client.stream(
                "qwen3:0.6b", [{"role": "user", "content": content}], [], {}
            )
        ]
        await client.close()
    assert parts and server.chats()[0]["options"]["num_ctx"] == 4096
