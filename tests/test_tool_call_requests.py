"""Tool calls the model got wrong, and the requests real servers accept afterwards.

Through the engine, the real ``openai`` SDK and the scripted server on loopback: a cut call
must never run; what is replayed must be what vLLM's ``json.loads`` accepts; tool-only
answers go back with ``content: null``; duplicate ids are made unique; and a server that
refuses ``tools`` (vLLM without a tool parser, llama.cpp without ``--jinja``) gets the tools
in the prompt instead. Each assertion reads the request body the server received.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ask_helpers import run_ask
from engine_helpers import Recorder, ask, make_engine, sent_messages
from ollama_server import OllamaServer, answer, failure
from scripted_server import Reply, ScriptedServer, error, raw, text, tool_calls

from tuibot.events import Notice, ToolFinished

VLLM_NO_PARSER = {
    "object": "error",
    "message": '"auto" tool choice requires --enable-auto-tool-choice and '
    "--tool-call-parser to be set",
    "type": "BadRequestError",
    "param": None,
    "code": 400,
}
OLLAMA_NO_TOOLS = {  # per model: a model whose template has no tools
    "error": {
        "message": "registry.ollama.ai/library/gemma3:4b does not support tools",
        "type": "api_error",
        "param": None,
        "code": None,
    }
}
LLAMACPP_NO_JINJA = {
    "error": {"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}
}


def chat_bodies(server: ScriptedServer) -> list[dict[str, Any]]:
    """The JSON bodies of every chat request, in order."""
    return [r.body for r in server.requests if r.path.endswith("/chat/completions") and r.body]


def replayed_calls(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every tool call of the assistant messages in a request."""
    return [c for m in messages if m.get("tool_calls") for c in m["tool_calls"]]


async def test_a_cut_write_never_runs_and_the_model_is_told(
    server: ScriptedServer, hermetic: Path
) -> None:
    engine = make_engine(server)
    seen = Recorder(engine)
    cut_call = '{"path": "x.txt", "content": "half'
    server.enqueue(tool_calls([("write_file", cut_call)]), text("I will resend it."))

    outcome = await ask(engine, engine.new_chat().id, "write x.txt")

    assert outcome.status == "completed"
    assert not (hermetic / "work" / "x.txt").exists()
    [finished] = seen.of(ToolFinished)
    assert not finished.ok and "cut off" in finished.output and "again" in finished.output
    second = sent_messages(server, 1)
    assert second[-1]["role"] == "tool" and second[-1]["content"] == finished.output
    [call] = replayed_calls(second)
    assert json.loads(call["function"]["arguments"]) == {}
    await engine.close()


async def test_a_repaired_call_is_stored_and_replayed_as_canonical_json(
    server: ScriptedServer, hermetic: Path
) -> None:
    (hermetic / "work" / "a.txt").write_text("repaired!")
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(tool_calls([("read_file", '{"path": "a.txt",}')]), text("ok"), text("more"))
    chat = engine.new_chat().id

    await ask(engine, chat, "read a.txt")
    await ask(engine, chat, "and now?")

    [finished] = seen.of(ToolFinished)
    assert finished.ok and "repaired!" in finished.output
    for index in (1, 2):  # the next round, and the next turn
        [call] = replayed_calls(sent_messages(server, index))
        assert call["function"]["arguments"] == '{"path": "a.txt"}'
    stored = next(m for m in engine.chats.load(chat).messages if m.get("tool_calls"))
    assert stored["tool_calls"][0]["function"]["arguments"] == '{"path": "a.txt"}'
    assert stored["raw_arguments"] == {stored["tool_calls"][0]["id"]: '{"path": "a.txt",}'}
    await engine.close()


async def test_unparseable_arguments_are_replayed_as_an_empty_object(
    server: ScriptedServer,
) -> None:
    engine = make_engine(server)
    seen = Recorder(engine)
    server.enqueue(tool_calls([("list_dir", "list everything please")]), text("sorry"))

    await ask(engine, engine.new_chat().id, "list")

    [finished] = seen.of(ToolFinished)
    second = sent_messages(server, 1)
    [call] = replayed_calls(second)
    assert call["function"]["arguments"] == "{}"
    assert second[-1]["tool_call_id"] == call["id"] and second[-1]["content"] == finished.output
    assert not finished.ok
    await engine.close()


async def test_a_tool_only_answer_is_sent_with_null_content(server: ScriptedServer) -> None:
    engine = make_engine(server)
    server.enqueue(tool_calls([("list_dir", "{}")]), text("ok"))

    await ask(engine, engine.new_chat().id, "list")

    assistant = sent_messages(server, 1)[-2]
    assert assistant["role"] == "assistant" and assistant["content"] is None
    assert assistant["tool_calls"][0]["function"]["name"] == "list_dir"
    await engine.close()


async def test_a_provider_that_needs_a_placeholder_gets_one(server: ScriptedServer) -> None:
    engine = make_engine(server, providers__local__tool_call_placeholder=True)
    server.enqueue(tool_calls([("list_dir", "{}")]), text("ok"))

    await ask(engine, engine.new_chat().id, "list")

    assistant = sent_messages(server, 1)[-2]
    assert assistant["content"] == "(empty)" and assistant["tool_calls"]
    await engine.close()


async def test_the_same_id_twice_in_one_answer_pairs_each_result_with_its_call(
    server: ScriptedServer, hermetic: Path
) -> None:
    (hermetic / "work" / "a.txt").write_text("alpha")
    (hermetic / "work" / "b.txt").write_text("beta")
    engine = make_engine(server)
    server.enqueue(
        tool_calls(
            [("read_file", '{"path": "a.txt"}', "dup"), ("read_file", '{"path": "b.txt"}', "dup")]
        ),
        text("both read"),
    )

    await ask(engine, engine.new_chat().id, "read both")

    second = sent_messages(server, 1)
    calls = replayed_calls(second)
    assert len({c["id"] for c in calls}) == 2
    results = {m["tool_call_id"]: m["content"] for m in second if m["role"] == "tool"}
    for call, content in zip(calls, ("alpha", "beta"), strict=True):
        assert content in results[call["id"]]
    await engine.close()


async def test_one_index_and_one_id_for_two_whole_calls_runs_both(
    server: ScriptedServer, hermetic: Path
) -> None:
    (hermetic / "work" / "a.txt").write_text("alpha")
    (hermetic / "work" / "b.txt").write_text("beta")
    engine = make_engine(server)
    seen = Recorder(engine)

    def whole(path: str) -> dict[str, Any]:
        function = {"name": "read_file", "arguments": json.dumps({"path": path})}
        return {
            "tool_calls": [{"index": 0, "id": "call_0", "type": "function", "function": function}]
        }

    finish = {"delta": {}, "finish_reason": "tool_calls"}
    server.enqueue(
        raw([{"role": "assistant", "content": None}, whole("a.txt"), whole("b.txt"), finish]),
        text("both"),
    )

    await ask(engine, engine.new_chat().id, "read both")

    outputs = sorted(f.output for f in seen.of(ToolFinished))
    assert len(outputs) == 2 and "alpha" in outputs[0] and "beta" in outputs[1]
    assert len({c["id"] for c in replayed_calls(sent_messages(server, 1))}) == 2
    await engine.close()


async def test_an_id_reused_from_an_earlier_round_is_made_unique(server: ScriptedServer) -> None:
    engine = make_engine(server)
    server.enqueue(
        tool_calls([("list_dir", "{}", "call_1")]),
        tool_calls([("list_dir", '{"path": "."}', "call_1")]),
        text("done"),
    )

    await ask(engine, engine.new_chat().id, "list twice")

    third = sent_messages(server, 2)
    ids = [c["id"] for c in replayed_calls(third)]
    assert len(ids) == 2 and len(set(ids)) == 2
    for position, message in enumerate(third):  # each result right after its own call
        if message["role"] == "tool":
            assert third[position - 1]["tool_calls"][0]["id"] == message["tool_call_id"]
    await engine.close()


async def _fallback_case(server: ScriptedServer, refusal: Reply) -> None:
    """A server refusing ``tools`` once: the request is retried with tools in the prompt."""
    engine = make_engine(server)
    seen = Recorder(engine)
    call = '<tool_call>{"name": "list_dir", "arguments": {"path": "."}}</tool_call>'
    server.enqueue(refusal, text(call), text("listed"), text("again"))
    chat = engine.new_chat().id

    outcome = await ask(engine, chat, "list")
    later = await ask(engine, chat, "once more")

    assert outcome.status == "completed" and outcome.text == "listed"
    assert later.status == "completed" and later.text == "again"
    [finished] = seen.of(ToolFinished)
    assert finished.ok and finished.name == "list_dir"
    bodies = chat_bodies(server)
    assert len(bodies) == 4 and "tools" in bodies[0]
    for body in bodies[1:]:  # remembered: never sent natively again
        assert "tools" not in body and "tool_choice" not in body
        assert "list_dir" in body["messages"][0]["content"]
        assert "<tool_call>" in body["messages"][0]["content"]
        assert all(m["role"] != "tool" and "tool_calls" not in m for m in body["messages"])
    replayed = bodies[2]["messages"]
    assert "<tool_call>" in replayed[-2]["content"] and replayed[-2]["role"] == "assistant"
    assert "<tool_response" in replayed[-1]["content"] and replayed[-1]["role"] == "user"
    notices = [n for n in seen.of(Notice) if "prompt" in n.message]
    assert len(notices) == 1 and "local" in notices[0].message
    await engine.close()


@pytest.mark.parametrize(
    "refusal",
    [
        error(400, body=VLLM_NO_PARSER),
        error(500, body=LLAMACPP_NO_JINJA),
        error(500, message="Cannot use tools with stream"),  # older llama-server builds
        error(400, body=OLLAMA_NO_TOOLS),
    ],
    ids=[
        "vllm-no-tool-parser",
        "llamacpp-no-jinja",
        "llamacpp-no-tools-on-stream",
        "ollama-model-without-tools",
    ],
)
async def test_a_server_refusing_tools_gets_them_in_the_prompt(
    server: ScriptedServer, refusal: Reply
) -> None:
    await _fallback_case(server, refusal)


async def test_another_rejection_that_mentions_tools_is_not_a_fallback(
    server: ScriptedServer,
) -> None:
    engine = make_engine(server)
    server.enqueue(error(400, message="Invalid 'tools[0].function.name': string too long"))

    outcome = await ask(engine, engine.new_chat().id, "list")

    assert outcome.status == "failed" and "too long" in (outcome.error or "")
    assert len(chat_bodies(server)) == 1
    await engine.close()


async def test_the_switch_is_remembered_by_the_next_run(server: ScriptedServer) -> None:
    """A later process (``tuibot ask`` again, the app restarted) sends no ``tools`` to a
    server that refused them, and says nothing more about it."""
    call = '<tool_call>{"name": "list_dir", "arguments": {"path": "."}}</tool_call>'
    server.enqueue(error(400, body=VLLM_NO_PARSER), text(call), text("listed"))
    first = make_engine(server)
    assert (await ask(first, first.new_chat().id, "list")).text == "listed"
    await first.close()

    server.enqueue(text(call), text("listed again"))
    second = make_engine(server)
    seen = Recorder(second)
    outcome = await ask(second, second.new_chat().id, "list")

    assert outcome.status == "completed" and outcome.text == "listed again"
    [finished] = seen.of(ToolFinished)
    assert finished.ok and finished.name == "list_dir"
    later = chat_bodies(server)[3:]
    assert len(later) == 2 and all("tools" not in body for body in later)
    assert "<tool_call>" in later[0]["messages"][0]["content"]
    assert not [n for n in seen.of(Notice) if "prompt" in n.message]
    await second.close()


async def test_another_server_under_the_same_name_is_asked_natively_again(
    server: ScriptedServer,
) -> None:
    """The memory belongs to the server's address: a provider pointed elsewhere (or a
    server restarted on another port with its tool parser) gets native tools again."""
    server.enqueue(error(400, body=VLLM_NO_PARSER), text("plain"))
    first = make_engine(server)
    await ask(first, first.new_chat().id, "hi")
    await first.close()

    with ScriptedServer() as other:
        other.enqueue(text("native"))
        second = make_engine(other)
        assert (await ask(second, second.new_chat().id, "hi")).text == "native"
        [body] = chat_bodies(other)
        assert "tools" in body
        await second.close()


def test_ask_prints_no_call_markup_and_the_next_run_says_nothing(server: ScriptedServer) -> None:
    """``tuibot ask`` against a server with no tool parser: the call the model writes as
    Qwen3-Coder XML (streamed three characters at a time) never reaches stdout; the
    warning goes to stderr once, and a second run sends no ``tools`` and warns no more."""
    Path("notes.txt").write_text("hello", encoding="utf-8")
    call = (
        "Let me look.\n<tool_call>\n<function=list_dir>\n<parameter=path>\n.\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    answer = text(call, pieces=len(call) // 3)
    server.enqueue(error(400, body=VLLM_NO_PARSER), answer, text("One file."))
    first = run_ask(server, "what is here?")
    server.enqueue(text(call, pieces=len(call) // 3), text("Still one."))
    second = run_ask(server, "and now?")

    assert first.code == 0 and second.code == 0, first.stderr + second.stderr
    assert first.stdout == "Let me look.One file.\n"
    assert second.stdout == "Let me look.Still one.\n"
    assert "<" not in first.stdout + second.stdout
    assert first.stderr.count("tool-call-parser") == 1
    assert "tool-call-parser" not in second.stderr and "✓ list_dir" in second.stderr
    assert all("tools" not in body for body in chat_bodies(server)[1:])


async def test_native_ollama_model_without_tools_gets_them_in_the_prompt(tmp_path: Path) -> None:
    """Ollama's own API refuses ``tools`` per model; the model then calls them as text,
    while another model on the same server still gets native tools."""
    (tmp_path / "a.txt").write_text("plum", encoding="utf-8")
    call = '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>'
    with OllamaServer() as ollama:
        ollama.enqueue(
            failure(400, "registry.ollama.ai/library/gemma3:4b does not support tools"),
            answer(call),
            answer("It says plum."),
            answer("Hi."),
        )
        settings = {
            "providers__local__kind": "ollama",
            "agent__tools": ["read_file"],
            "tools__workspace": str(tmp_path),
        }
        engine = make_engine(ollama.url, agent__model="gemma3:4b", **settings)
        done = await ask(engine, engine.new_chat().id, "read a.txt")
        await engine.close()
        other = make_engine(ollama.url, agent__model="qwen3:0.6b", **settings)
        await ask(other, other.new_chat().id, "hi")
        await other.close()
    assert done.status == "completed" and done.text == "It says plum.", done.error
    first, second, third, fourth = ollama.chats()
    assert "tools" in first and "tools" not in second and "tools" not in third
    assert "read_file" in second["messages"][0]["content"]
    assert fourth["model"] == "qwen3:0.6b" and "tools" in fourth
