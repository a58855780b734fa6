"""The scripted server speaks OpenAI's chat protocol as the real SDKs expect it.

Every engine test trusts this server, so it is checked here with the real ``openai`` SDK
(and once with ``litellm``) over real HTTP: if these pass, a failure in an engine test is
the engine's, not the fake's.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import httpx2
import openai
import pytest
from scripted_server import (
    ScriptedServer,
    cut,
    error,
    length,
    raw,
    silent,
    text,
    tool_calls,
)

MESSAGES: list[Any] = [{"role": "user", "content": "hi"}]


def client(server: ScriptedServer, **kwargs: Any) -> openai.AsyncOpenAI:
    """An SDK client for ``server`` that never retries unless asked to."""
    kwargs.setdefault("max_retries", 0)
    return openai.AsyncOpenAI(base_url=server.url, api_key="test", **kwargs)


async def stream_chunks(server: ScriptedServer, **kwargs: Any) -> list[Any]:
    """All chunks of one streamed chat completion."""
    async with client(server) as sdk:
        stream = await sdk.chat.completions.create(
            model="test-model", messages=MESSAGES, stream=True, **kwargs
        )
        return [chunk async for chunk in stream]


def wire(
    server: ScriptedServer,
    body: dict[str, Any] | bytes | None,
    *,
    method: str = "POST",
    path: str = "/v1/chat/completions",
) -> tuple[http.client.HTTPResponse, bytes]:
    """One request with the stdlib client, to see the exact bytes the SDK would parse."""
    url = urlsplit(server.url)
    conn = http.client.HTTPConnection(url.hostname or "", url.port, timeout=5)
    payload = json.dumps(body).encode() if isinstance(body, dict) else body
    try:
        conn.request(method, path, payload)
        response = conn.getresponse()
        return response, response.read()
    finally:
        conn.close()


def assemble_calls(chunks: list[Any]) -> dict[int, dict[str, str]]:
    """Tool calls rebuilt by index, the way a client accumulates them."""
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        for delta in chunk.choices[0].delta.tool_calls or []:
            call = calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
            call["id"] += delta.id or ""
            call["name"] += (delta.function and delta.function.name) or ""
            call["arguments"] += (delta.function and delta.function.arguments) or ""
    return calls


async def test_text_streams_in_many_chunks_and_reassembles(server: ScriptedServer):
    answer = "The quick brown fox jumps over the lazy dog, twice over."
    server.enqueue(text(answer))
    chunks = await stream_chunks(server)
    pieces = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    assert len(pieces) >= 10
    assert "".join(pieces) == answer
    assert chunks[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].finish_reason for c in chunks][-2:] == [None, "stop"]
    assert {c.model for c in chunks} == {"test-model"}
    assert len({c.id for c in chunks}) == 1 and chunks[0].id.startswith("chatcmpl-")


async def test_pieces_sets_the_number_of_content_deltas(server: ScriptedServer):
    server.enqueue(text("abcdefghij", pieces=3))
    chunks = await stream_chunks(server)
    pieces = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    assert pieces == ["abcd", "efg", "hij"]


def test_wire_format_is_chunked_sse_ending_in_done(server: ScriptedServer):
    server.enqueue(text("hello", pieces=2))
    response, data = wire(server, {"model": "m", "messages": [], "stream": True})
    assert response.status == 200
    assert response.getheader("Content-Type") == "text/event-stream"
    assert response.getheader("Transfer-Encoding") == "chunked"
    frames = data.decode().split("\n\n")
    assert frames[-2:] == ["data: [DONE]", ""]
    chunks = [json.loads(f.removeprefix("data: ")) for f in frames[:-2]]
    assert all(f.startswith("data: ") for f in frames[:-1])
    first = chunks[0]
    assert set(first) == {"id", "object", "created", "model", "system_fingerprint", "choices"}
    assert first["object"] == "chat.completion.chunk" and first["model"] == "m"
    assert first["choices"] == [
        {
            "index": 0,
            "delta": {"role": "assistant", "content": ""},
            "logprobs": None,
            "finish_reason": None,
        }
    ]
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_streams_before_content_in_its_field(server: ScriptedServer, field: str):
    server.enqueue(text("42", reasoning="Let me think about it.", reasoning_field=field))
    chunks = await stream_chunks(server)
    order = []
    for chunk in chunks:
        delta = chunk.choices[0].delta
        if getattr(delta, field, None):
            order.append(("r", getattr(delta, field)))
        if delta.content:
            order.append(("c", delta.content))
    assert "".join(p for k, p in order if k == "r") == "Let me think about it."
    assert [k for k, _ in order] == ["r"] * (len(order) - 1) + ["c"]
    other = "reasoning" if field == "reasoning_content" else "reasoning_content"
    assert all(other not in (c.choices[0].delta.model_extra or {}) for c in chunks)


@pytest.mark.parametrize("mode", ["split", "whole", "interleaved"])
async def test_tool_calls_reassemble_by_index(server: ScriptedServer, mode: str):
    calls = [("read_file", '{"path": "notes/a.md"}'), ("search", '{"query": "x"}', "call_xyz")]
    server.enqueue(tool_calls(calls, mode=mode))
    chunks = await stream_chunks(server)
    assert assemble_calls(chunks) == {
        0: {"id": "call_1", "name": "read_file", "arguments": '{"path": "notes/a.md"}'},
        1: {"id": "call_xyz", "name": "search", "arguments": '{"query": "x"}'},
    }
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    indexes = [d.index for c in chunks for d in c.choices[0].delta.tool_calls or []]
    carrying = [c for c in chunks if c.choices[0].delta.tool_calls]
    if mode == "whole":
        assert len(carrying) == 1 and indexes == [0, 1]
    elif mode == "split":
        assert indexes == sorted(indexes) and indexes.count(0) >= 4 and indexes.count(1) >= 4
    else:
        assert indexes[:4] == [0, 1, 0, 1]


async def test_tool_call_arguments_are_sent_raw_even_when_malformed(
    server: ScriptedServer,
):
    server.enqueue(tool_calls([("f", '{"a": 1,,')], content="Calling f."))
    chunks = await stream_chunks(server)
    assert assemble_calls(chunks)[0]["arguments"] == '{"a": 1,,'
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Calling f."


async def test_usage_chunk_only_when_include_usage(server: ScriptedServer):
    server.enqueue(text("hi", usage=(12, 3)), text("hi"))
    with_usage = await stream_chunks(server, stream_options={"include_usage": True})
    assert with_usage[-1].choices == []
    assert (with_usage[-1].usage.prompt_tokens, with_usage[-1].usage.completion_tokens) == (12, 3)
    assert with_usage[-1].usage.total_tokens == 15
    assert all(c.usage is None for c in with_usage[:-1])
    without = await stream_chunks(server)
    assert all(c.choices and c.usage is None for c in without)


async def test_length_finish_reason(server: ScriptedServer):
    server.enqueue(length("truncated answ"))
    chunks = await stream_chunks(server)
    assert chunks[-1].choices[0].finish_reason == "length"
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "truncated answ"


async def test_cut_raises_connection_error_after_the_sent_deltas(server: ScriptedServer):
    server.enqueue(cut("abcdefghijklmnop", after=2))
    seen: list[str] = []
    async with client(server) as sdk:
        stream = await sdk.chat.completions.create(
            model="test-model", messages=MESSAGES, stream=True
        )
        with pytest.raises(openai.APIConnectionError) as caught:
            async for chunk in stream:
                seen.append(chunk.choices[0].delta.content or "")
    assert isinstance(caught.value.__cause__, httpx2.RemoteProtocolError)
    assert "".join(seen) == "abcdefgh"


async def test_raw_frames_without_done_end_cleanly(server: ScriptedServer):
    server.enqueue(
        raw(
            [{"role": "assistant", "content": "x"}, {"delta": {}, "finish_reason": "stop"}],
            done=False,
        )
    )
    chunks = await stream_chunks(server)
    assert [c.choices[0].finish_reason for c in chunks] == [None, "stop"]
    server.enqueue(raw([{"content": "y"}], done=False))
    _, data = wire(server, {"model": "m", "messages": [], "stream": True})
    assert b"[DONE]" not in data and data.count(b"data: ") == 1


async def test_raw_takes_whole_chunks_too(server: ScriptedServer):
    usage = {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}
    server.enqueue(raw([{"content": "z"}, {"choices": [], "usage": usage}]))
    chunks = await stream_chunks(server)
    assert chunks[0].choices[0].delta.content == "z"
    assert chunks[1].choices == [] and chunks[1].usage.total_tokens == 3


async def test_delay_spaces_the_frames(server: ScriptedServer):
    server.enqueue(text("abcdefgh", pieces=2, delay=0.1))  # role, 2 pieces, finish: 3 gaps
    started = time.monotonic()
    chunks = await stream_chunks(server)
    assert 0.3 <= time.monotonic() - started < 2
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "abcdefgh"


@pytest.mark.parametrize(
    "build",
    [
        lambda: tool_calls([]),
        lambda: tool_calls([("f", "{}")], mode="sideways"),
        lambda: text("x", reasoning="r", reasoning_field="thoughts"),
        lambda: text("x", pieces=0),
    ],
)
def test_builders_refuse_bad_arguments(build: Any):
    with pytest.raises(ValueError):
        build()


async def test_429_with_retry_after_is_retried(server: ScriptedServer):
    server.enqueue(error(429, headers={"Retry-After": "0"}), text("after the wait"))
    async with client(server, max_retries=1) as sdk:
        stream = await sdk.chat.completions.create(
            model="test-model", messages=MESSAGES, stream=True
        )
        chunks = [c async for c in stream]
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "after the wait"
    assert [r.path for r in server.requests] == ["/v1/chat/completions"] * 2


async def test_errors_map_to_sdk_exceptions(server: ScriptedServer):
    server.enqueue(error(500), error(400, message="bad model"))
    with pytest.raises(openai.InternalServerError):
        await stream_chunks(server)
    with pytest.raises(openai.BadRequestError, match="bad model"):
        await stream_chunks(server)
    assert len(server.requests) == 2


async def test_silent_reply_trips_the_read_timeout(server: ScriptedServer):
    server.enqueue(silent(10))
    started = time.monotonic()
    async with client(server, timeout=openai.Timeout(5, read=0.5)) as sdk:
        with pytest.raises(openai.APITimeoutError):
            stream = await sdk.chat.completions.create(
                model="test-model", messages=MESSAGES, stream=True
            )
            async for _ in stream:
                pass
    assert time.monotonic() - started < 3


def test_stop_does_not_hang_with_a_silent_reply_in_flight():
    server = ScriptedServer().start()
    server.enqueue(silent(60))
    errors: list[BaseException] = []

    def call() -> None:
        try:
            wire(server, {"model": "m", "messages": [], "stream": True})
        except Exception as exc:
            errors.append(exc)

    caller = threading.Thread(target=call, daemon=True)
    caller.start()
    server.wait_for_requests(1)
    started = time.monotonic()
    server.stop()
    caller.join(timeout=5)
    assert time.monotonic() - started < 2
    assert not caller.is_alive() and errors


async def test_models_list_uses_the_configured_ids():
    with ScriptedServer(models=["qwen3:8b", "llama3.2"]) as server:
        async with client(server) as sdk:
            page = await sdk.models.list()
        assert [m.id for m in page.data] == ["qwen3:8b", "llama3.2"]
        assert {m.owned_by for m in page.data} == {"scripted"}


async def test_no_reply_queued_fails_loudly(server: ScriptedServer):
    with pytest.raises(openai.InternalServerError, match="scripted server: no reply queued"):
        await stream_chunks(server)


def test_unknown_path_is_a_json_404(server: ScriptedServer):
    response, data = wire(server, None, method="GET", path="/v1/nothing")
    assert response.status == 404
    assert response.getheader("Content-Type") == "application/json"
    assert "no route for GET /v1/nothing" in json.loads(data)["error"]["message"]


def test_a_body_that_is_not_json_is_a_400_and_keeps_the_queue(server: ScriptedServer):
    server.enqueue(text("kept"))
    response, data = wire(server, b"{not json")
    assert response.status == 400
    assert "not a JSON object" in json.loads(data)["error"]["message"]
    assert server.pending == 1
    assert server.requests[0].body is None


async def test_requests_are_recorded_with_bodies_and_headers(server: ScriptedServer):
    server.enqueue(text("ok"))
    await stream_chunks(server, temperature=0.2)
    server.wait_for_requests(1)
    (request,) = server.requests
    assert request.path == "/v1/chat/completions" and request.method == "POST"
    assert request.headers["authorization"] == "Bearer test"
    assert request.body is not None
    assert request.body["messages"] == MESSAGES
    assert (request.body["stream"], request.body["temperature"]) == (True, 0.2)
    with pytest.raises(AssertionError, match="expected 2 requests, got 1"):
        server.wait_for_requests(2, timeout=0.1)


async def test_non_streaming_reply_is_a_full_completion(server: ScriptedServer):
    server.enqueue(
        text("The answer.", reasoning="Thinking."),
        tool_calls([("f", '{"a": 1}'), ("g", "{}")], mode="interleaved"),
    )
    async with client(server) as sdk:
        done = await sdk.chat.completions.create(model="test-model", messages=MESSAGES)
        called = await sdk.chat.completions.create(model="test-model", messages=MESSAGES)
    assert done.object == "chat.completion" and done.choices[0].finish_reason == "stop"
    assert done.choices[0].message.content == "The answer."
    assert (done.choices[0].message.model_extra or {})["reasoning_content"] == "Thinking."
    assert done.usage is not None and done.usage.total_tokens == 15
    message = called.choices[0].message
    assert called.choices[0].finish_reason == "tool_calls" and message.content is None
    got = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []]
    assert got == [("call_1", "f", '{"a": 1}'), ("call_2", "g", "{}")]


async def test_litellm_streams_from_the_server(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # else it fetches prices
    litellm = pytest.importorskip("litellm")
    server.enqueue(text("Streamed through litellm.", reasoning="hmm"))
    stream = await litellm.acompletion(
        model="openai/test-model",
        api_base=server.url,
        api_key="x",
        messages=MESSAGES,
        stream=True,
    )
    pieces = [chunk.choices[0].delta.content or "" async for chunk in stream]
    assert "".join(pieces) == "Streamed through litellm."
    assert sum(1 for p in pieces if p) > 3
    body = server.requests[0].body
    assert body is not None and body["model"] == "test-model"
