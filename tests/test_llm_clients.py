"""The openai-kind client against a real loopback server, and how tool calls are assembled.

``OpenAIClient`` is the only thing between the agent loop and every local model server,
so it is driven here through the real SDK over real HTTP: each stream shape must become
the right parts, and each failure (down, rate limited, broken, silent, cut, garbage) one
:class:`ModelError` of the right kind with a message a person can act on.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from scripted_server import (
    REASONING_FIELDS,
    TOOL_CALL_MODES,
    ScriptedServer,
    cut,
    error,
    length,
    raw,
    silent,
    text,
    tool_calls,
)

from tuibot.agent.calls import CallAccumulator, parse_arguments
from tuibot.llm.errors import ModelError
from tuibot.llm.openai_client import OpenAIClient
from tuibot.llm.parts import (
    FinishPart,
    ReasoningPart,
    StreamPart,
    TextPart,
    ToolCallPart,
    UsagePart,
)
from tuibot.settings import ProviderSettings

MESSAGES: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {"name": "list_dir", "description": "d", "parameters": {"type": "object"}},
    }
]


def make_client(url: str, **fields: Any) -> OpenAIClient:
    """A client for ``url`` that does not retry unless a test asks it to."""
    fields.setdefault("max_retries", 0)
    return OpenAIClient(ProviderSettings(name="local", base_url=url, **fields), None)


async def collect(
    client: OpenAIClient,
    tools: list[dict[str, Any]] | None = None,
    params: dict[str, Any] | None = None,
) -> list[StreamPart]:
    """Every part of one streamed call; the client is closed afterwards."""
    try:
        return [
            part async for part in client.stream("test-model", MESSAGES, tools or [], params or {})
        ]
    finally:
        await client.close()


async def failure(client: OpenAIClient) -> tuple[ModelError, list[StreamPart]]:
    """The ModelError one call ends in, and the parts that arrived before it."""
    seen: list[StreamPart] = []
    try:
        with pytest.raises(ModelError) as caught:
            async for part in client.stream("test-model", MESSAGES, [], {}):
                seen.append(part)
    finally:
        await client.close()
    return caught.value, seen


def closed_port_url() -> str:
    """A loopback URL nobody listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@contextlib.contextmanager
def fixed_response(payload: bytes) -> Iterator[str]:
    """A loopback server answering every request with ``payload`` verbatim, then closing.

    For bodies the scripted server cannot produce because it always writes valid JSON.
    """
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.1)
    stopping = threading.Event()

    def serve() -> None:
        while not stopping.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                request = b""
                with contextlib.suppress(OSError):
                    while b"\r\n\r\n" not in request:
                        request += conn.recv(65536) or b"\r\n\r\n"
                    conn.sendall(payload)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        stopping.set()
        thread.join(timeout=2)
        listener.close()


def sse_response(*frames: bytes) -> bytes:
    """A complete HTTP/1.1 SSE response whose ``data:`` lines are ``frames`` verbatim."""
    body = b"".join(b"data: " + frame + b"\n\n" for frame in frames)
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body)
    )
    return head + body


# --- stream shapes -> parts --------------------------------------------------------


async def test_text_arrives_as_ordered_parts_then_finish_and_usage(server: ScriptedServer) -> None:
    server.enqueue(text("The quick brown fox jumps.", usage=(12, 7)))
    parts = await collect(make_client(server.url))

    texts = [p.text for p in parts if isinstance(p, TextPart)]
    assert len(texts) > 3, "the answer must stream in pieces"
    assert "".join(texts) == "The quick brown fox jumps."
    assert [p for p in parts if isinstance(p, FinishPart)] == [FinishPart("stop")]
    assert [p for p in parts if isinstance(p, UsagePart)] == [UsagePart(12, 7)]
    assert isinstance(parts[-1], UsagePart), "usage comes in the last chunk"


@pytest.mark.parametrize("field", REASONING_FIELDS)
async def test_reasoning_from_either_field_becomes_reasoning_parts(
    server: ScriptedServer, field: str
) -> None:
    server.enqueue(text("Answer.", reasoning="Let me think hard.", reasoning_field=field))
    parts = await collect(make_client(server.url))

    reasoning = [p.text for p in parts if isinstance(p, ReasoningPart)]
    assert "".join(reasoning) == "Let me think hard."
    assert "".join(p.text for p in parts if isinstance(p, TextPart)) == "Answer."
    first_text = next(i for i, p in enumerate(parts) if isinstance(p, TextPart))
    last_reasoning = max(i for i, p in enumerate(parts) if isinstance(p, ReasoningPart))
    assert last_reasoning < first_text


@pytest.mark.parametrize("mode", TOOL_CALL_MODES)
async def test_tool_call_fragments_fold_into_whole_calls(server: ScriptedServer, mode: str) -> None:
    server.enqueue(
        tool_calls(
            [("read_file", '{"path": "notes.txt"}', "call_a"), ("list_dir", "{}", "call_b")],
            mode=mode,
        )
    )
    parts = await collect(make_client(server.url), tools=TOOLS)

    fragments = [p for p in parts if isinstance(p, ToolCallPart)]
    if mode != "whole":
        assert len(fragments) > 2, "split and interleaved calls arrive in several fragments"
    calls = CallAccumulator()
    for fragment in fragments:
        calls.add(fragment)
    got = [(c.id, c.name, c.arguments) for c in calls.finish()]
    assert got == [("call_a", "read_file", '{"path": "notes.txt"}'), ("call_b", "list_dir", "{}")]
    assert FinishPart("tool_calls") in parts


async def test_length_finish_reason_is_reported(server: ScriptedServer) -> None:
    server.enqueue(length("cut short"))
    parts = await collect(make_client(server.url))
    assert FinishPart("length") in parts
    assert "".join(p.text for p in parts if isinstance(p, TextPart)) == "cut short"


# --- what the client sends ---------------------------------------------------------


async def test_request_streams_with_usage_and_merges_params(server: ScriptedServer) -> None:
    server.enqueue(text("ok"))
    params = {"temperature": 0.2, "max_tokens": 50, "stream": False}
    await collect(make_client(server.url), params=params)

    body = server.requests[0].body
    assert body is not None
    assert body["stream"] is True, "params cannot turn streaming off"
    assert body["stream_options"] == {"include_usage": True}
    assert (body["temperature"], body["max_tokens"]) == (0.2, 50)
    assert body["model"] == "test-model" and body["messages"] == MESSAGES
    assert "tools" not in body, "no tools list is sent when there are no tools"


async def test_tools_are_sent_when_given(server: ScriptedServer) -> None:
    server.enqueue(text("ok"))
    await collect(make_client(server.url), tools=TOOLS)
    body = server.requests[0].body
    assert body is not None and body["tools"] == TOOLS


async def test_keyless_client_still_sends_a_placeholder_key(server: ScriptedServer) -> None:
    server.enqueue(text("ok"))
    await collect(make_client(server.url))
    assert server.requests[0].headers["authorization"] == "Bearer not-needed"


def test_timeouts_and_retries_come_from_the_provider() -> None:
    client = make_client("http://127.0.0.1:9/v1", connect_timeout=3.5, stream_timeout=42)
    timeout = client._client.timeout
    assert timeout.connect == 3.5
    assert timeout.read == 42
    assert client._client.max_retries == 0


# --- failures -> ModelError --------------------------------------------------------


async def test_server_down_is_unreachable_and_names_the_url() -> None:
    url = closed_port_url()
    err, seen = await failure(make_client(url))
    assert err.kind == "unreachable"
    assert url in str(err) and "Is it running?" in str(err)
    assert "--base-url" in str(err), "the message says how to point tuibot elsewhere"
    assert seen == []


async def test_retries_on_a_dead_server_are_bounded() -> None:
    started = time.monotonic()
    err, _ = await failure(make_client(closed_port_url(), max_retries=2))
    assert err.kind == "unreachable"
    assert time.monotonic() - started < 5, "two short backoffs, not an endless loop"


async def test_rate_limit_with_retry_after_is_retried_then_succeeds(
    server: ScriptedServer,
) -> None:
    server.enqueue(error(429, headers={"Retry-After": "0.1"}), text("after the wait"))
    parts = await collect(make_client(server.url, max_retries=1))
    assert "".join(p.text for p in parts if isinstance(p, TextPart)) == "after the wait"
    assert len(server.requests) == 2


async def test_rate_limit_beyond_the_retries_is_rejected(server: ScriptedServer) -> None:
    server.enqueue(error(429, headers={"Retry-After": "0.1"}), error(429, message="slow down"))
    err, _ = await failure(make_client(server.url, max_retries=1))
    assert (err.kind, err.status) == ("rejected", 429)
    assert "rate limiting" in str(err) and "slow down" in str(err)
    assert len(server.requests) == 2


async def test_server_error_without_retries_is_rejected_once(server: ScriptedServer) -> None:
    server.enqueue(error(500, message="boom"))
    err, _ = await failure(make_client(server.url, max_retries=0))
    assert (err.kind, err.status) == ("rejected", 500)
    assert "internal error (500)" in str(err) and "boom" in str(err)
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (400, "rejected the request (400): no such parameter"),
        (401, "rejected the credentials (check `tuibot keys list`"),
        (404, "does not know this model"),
    ],
)
async def test_client_errors_explain_themselves(
    server: ScriptedServer, status: int, expected: str
) -> None:
    server.enqueue(error(status, message="no such parameter"))
    err, _ = await failure(make_client(server.url, max_retries=2))
    assert (err.kind, err.status) == ("rejected", status)
    assert expected in str(err) and server.url in str(err)
    assert len(server.requests) == 1, "a 4xx other than 429 is never retried"


async def test_silent_stream_times_out_instead_of_hanging(server: ScriptedServer) -> None:
    server.enqueue(silent(30))
    started = time.monotonic()
    err, seen = await failure(make_client(server.url, stream_timeout=0.5))
    assert time.monotonic() - started < 2.5
    assert err.kind == "timeout"
    assert "went silent" in str(err) and server.url in str(err)
    assert seen == []


async def test_cut_mid_stream_is_interrupted_after_the_text_so_far(
    server: ScriptedServer,
) -> None:
    server.enqueue(cut("abcdefghijklmnop", after=2))
    err, seen = await failure(make_client(server.url))
    assert err.kind == "interrupted"
    assert "broke mid-answer" in str(err)
    assert "".join(p.text for p in seen if isinstance(p, TextPart)) == "abcdefgh"


async def test_an_answer_that_has_begun_is_never_retried(server: ScriptedServer) -> None:
    """A retry after headers or text could duplicate output, so the SDK must not make one."""
    server.enqueue(silent(30), cut("abcdefgh", after=1), text("never asked for"))
    first, _ = await failure(make_client(server.url, stream_timeout=0.5, max_retries=2))
    second, _ = await failure(make_client(server.url, max_retries=2))
    assert (first.kind, second.kind) == ("timeout", "interrupted")
    assert len(server.requests) == 2 and server.pending == 1


async def test_an_error_sent_inside_the_stream_is_a_model_error(server: ScriptedServer) -> None:
    server.enqueue(
        raw([{"content": "par"}, {"choices": [], "error": {"message": "CUDA out of memory"}}])
    )
    err, seen = await failure(make_client(server.url))
    assert "CUDA out of memory" in str(err)
    assert err.kind == "interrupted", "text had already streamed"
    assert seen == [TextPart("par")]


@pytest.mark.parametrize(
    "chunk",
    [
        {"choices": "garbage"},
        {"choices": [{"index": 0, "delta": "not an object"}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": "nope"}}]},
    ],
)
async def test_chunks_of_the_wrong_shape_are_protocol_errors(
    server: ScriptedServer, chunk: dict[str, Any]
) -> None:
    server.enqueue(raw([chunk]))
    err, _ = await failure(make_client(server.url))
    assert err.kind == "protocol"
    assert server.url in str(err)


@pytest.mark.parametrize(
    "chunk",
    [
        {"choices": [{"index": 0, "delta": {"content": 5}, "finish_reason": "stop"}]},
        {"choices": [], "usage": {"prompt_tokens": "many", "completion_tokens": 1}},
    ],
)
async def test_fields_of_the_wrong_type_never_reach_the_loop(
    server: ScriptedServer, chunk: dict[str, Any]
) -> None:
    """Text must be str and token counts int, or the call is a protocol error.

    Otherwise the loop fails later with a TypeError (``"" + 5``, ``"many" * price``),
    which the engine can only report as an internal error.
    """
    server.enqueue(raw([chunk]))
    client = make_client(server.url)
    try:
        parts = await collect(client)
    except ModelError as err:
        assert err.kind == "protocol"
        return
    for part in parts:
        if isinstance(part, TextPart | ReasoningPart):
            assert isinstance(part.text, str), part
        if isinstance(part, UsagePart):
            assert isinstance(part.prompt_tokens, int), part
            assert isinstance(part.completion_tokens, int), part


async def test_an_sse_frame_that_is_not_json_is_a_protocol_error() -> None:
    payload = sse_response(b'{"choices": [{"index": 0, "delta": {"content": "a"}}]}', b"{oops")
    with fixed_response(payload) as url:
        err, seen = await failure(make_client(url))
    assert isinstance(err, ModelError) and err.kind in ("protocol", "interrupted")
    assert url in str(err)
    assert seen == [TextPart("a")]


async def test_an_html_page_with_status_200_is_not_a_crash() -> None:
    body = b"<html><body>502 Bad Gateway</body></html>"
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n"
    payload = head + b"Content-Length: %d\r\n\r\n" % len(body) + body
    with fixed_response(payload) as url:
        client = make_client(url)
        try:
            parts = await collect(client)
        except ModelError:
            return
    assert parts == [], "nothing is made up from the page; the loop reports a stream with no end"


async def test_list_models_reads_the_server_and_maps_errors(server: ScriptedServer) -> None:
    server.models = ["qwen3", "llama3.2"]
    client = make_client(server.url)
    assert await client.list_models() == ["qwen3", "llama3.2"]
    await client.close()
    down = make_client(closed_port_url())
    with pytest.raises(ModelError) as caught:
        await down.list_models()
    await down.close()
    assert caught.value.kind == "unreachable"


# --- assembling calls and parsing their arguments ----------------------------------


def fold(*parts: ToolCallPart) -> list[tuple[str, str, str]]:
    """Calls assembled from ``parts``, as (id, name, arguments)."""
    calls = CallAccumulator()
    for part in parts:
        calls.add(part)
    return [(c.id, c.name, c.arguments) for c in calls.finish()]


def test_fragments_with_one_index_form_one_call() -> None:
    got = fold(
        ToolCallPart(0, "call_x", "read_file", ""),
        ToolCallPart(0, None, None, '{"pa'),
        ToolCallPart(0, None, None, 'th": "a"}'),
    )
    assert got == [("call_x", "read_file", '{"path": "a"}')]


def test_parallel_calls_reusing_index_zero_stay_separate() -> None:
    got = fold(
        ToolCallPart(0, "call_a", "list_dir", '{"path": "."}'),
        ToolCallPart(0, "call_b", "read_file", ""),
        ToolCallPart(0, None, None, '{"path": "b"}'),
    )
    assert got == [
        ("call_a", "list_dir", '{"path": "."}'),
        ("call_b", "read_file", '{"path": "b"}'),
    ]


def test_calls_without_ids_get_distinct_ids() -> None:
    got = fold(
        ToolCallPart(0, None, "list_dir", "{}"),
        ToolCallPart(1, None, "read_file", '{"path": "x"}'),
    )
    again = fold(ToolCallPart(0, None, "list_dir", "{}"))
    ids = [call_id for call_id, _, _ in got + again]
    assert all(ids) and len(set(ids)) == 3, "ids never repeat, not even in a later round"
    assert [name for _, name, _ in got] == ["list_dir", "read_file"]


@pytest.mark.parametrize(
    ("raw_arguments", "expected"),
    [
        ('{"path": "a.txt",}', {"path": "a.txt"}),
        ("{'path': 'a.txt'}", {"path": "a.txt"}),
        ("{path: 'a.txt'}", {"path": "a.txt"}),
    ],
)
def test_small_mistakes_are_repaired(raw_arguments: str, expected: dict[str, Any]) -> None:
    parsed = parse_arguments(raw_arguments)
    assert parsed.value == expected
    assert parsed.repaired is True and parsed.error is None


def test_valid_arguments_are_not_marked_repaired() -> None:
    parsed = parse_arguments(' {"n": 1} ')
    assert (parsed.value, parsed.repaired, parsed.error) == ({"n": 1}, False, None)


@pytest.mark.parametrize("raw_arguments", ["not json at all", "[1, 2]", "42", '"text"'])
def test_anything_but_an_object_is_an_error(raw_arguments: str) -> None:
    parsed = parse_arguments(raw_arguments)
    assert parsed.value is None
    assert parsed.error is not None and "not a JSON object" in parsed.error
    assert raw_arguments in parsed.error, "the model is shown what it sent"


@pytest.mark.parametrize("raw_arguments", ["", "   \n"])
def test_empty_arguments_mean_no_arguments(raw_arguments: str) -> None:
    parsed = parse_arguments(raw_arguments)
    assert (parsed.value, parsed.error) == ({}, None)


def test_a_long_bad_argument_string_is_shortened_in_the_error() -> None:
    parsed = parse_arguments("x" * 1000)
    assert parsed.error is not None and len(parsed.error) < 300
