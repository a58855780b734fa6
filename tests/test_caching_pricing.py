"""Prompt-caching marks and what a model call costs, alone and through an engine turn.

Cache marks must land on the stable prefix only (else nothing is cached) without
touching the history the loop keeps; costs feed delegation budgets, so they are exact
integers in micro-USD.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from engine_helpers import ask, make_engine
from scripted_server import ScriptedServer, text, tool_calls

from tuibot.llm.caching import EPHEMERAL, apply_cache_control
from tuibot.llm.pricing import cost_micros
from tuibot.settings import ProviderSettings

TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("alpha", "beta", "gamma")
]


def conversation(system: Any) -> list[dict[str, Any]]:
    """A system prompt, then a short exchange."""
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "again"},
    ]


def test_string_system_prompt_becomes_one_marked_block() -> None:
    messages = conversation("You are helpful.")
    marked, _ = apply_cache_control(messages, [])
    assert marked[0] == {
        "role": "system",
        "content": [{"type": "text", "text": "You are helpful.", "cache_control": EPHEMERAL}],
    }
    assert marked[1:] == messages[1:], "only the system prompt is marked"


def test_list_system_prompt_gets_its_last_block_marked() -> None:
    blocks = [{"type": "text", "text": "part one"}, {"type": "text", "text": "part two"}]
    marked, _ = apply_cache_control(conversation(blocks), [])
    content = marked[0]["content"]
    assert "cache_control" not in content[0]
    assert content[1] == {"type": "text", "text": "part two", "cache_control": EPHEMERAL}


def test_only_the_last_tool_is_marked() -> None:
    _, marked = apply_cache_control([], TOOLS)
    assert [("cache_control" in tool) for tool in marked] == [False, False, True]
    assert marked[-1]["cache_control"] == {"type": "ephemeral"}
    assert marked[-1]["function"] == TOOLS[-1]["function"]


def test_inputs_are_left_unmodified() -> None:
    blocks = [{"type": "text", "text": "stable"}]
    messages, tools = conversation(blocks), copy.deepcopy(TOOLS)
    before = copy.deepcopy((messages, tools))
    marked_messages, _ = apply_cache_control(messages, tools)
    marked_messages[0]["content"][0]["text"] = "changed"
    assert (messages, tools) == before


def test_no_system_prompt_and_no_tools_change_nothing() -> None:
    messages = [{"role": "user", "content": "hi"}]
    assert apply_cache_control(messages, []) == (messages, [])


async def test_provider_with_prompt_caching_sends_the_marks(server: ScriptedServer) -> None:
    engine = make_engine(server, providers__local__prompt_caching=True)
    server.enqueue(tool_calls([("list_dir", '{"path": "."}')]), text("done"))
    chat = engine.new_chat().id

    outcome = await ask(engine, chat, "hi")

    assert outcome.status == "completed"
    for request in server.requests:
        body = request.body
        assert body is not None
        system = body["messages"][0]
        assert system["role"] == "system"
        assert system["content"][-1]["cache_control"] == EPHEMERAL
        assert [("cache_control" in tool) for tool in body["tools"]][-1] is True
        assert sum("cache_control" in tool for tool in body["tools"]) == 1
        for message in body["messages"][1:]:
            assert "cache_control" not in str(message)
    stored = engine.chats.load(chat).messages
    assert "cache_control" not in str(stored), "marks are never stored"
    await engine.close()


async def test_provider_without_prompt_caching_sends_plain_requests(
    server: ScriptedServer,
) -> None:
    engine = make_engine(server)
    server.enqueue(text("ok"))
    await ask(engine, engine.new_chat().id, "hi")
    body = server.requests[0].body
    assert body is not None
    assert isinstance(body["messages"][0]["content"], str)
    assert "cache_control" not in str(body)
    await engine.close()


# --- pricing -----------------------------------------------------------------------


def priced(price_input: float | None, price_output: float | None, kind: str = "openai") -> Any:
    """A provider with the given prices (USD per million tokens)."""
    return ProviderSettings(name="p", kind=kind, price_input=price_input, price_output=price_output)


@pytest.mark.parametrize(
    ("prices", "tokens", "expected"),
    [
        ((1.0, 2.0), (10, 5), 20),
        ((3.0, 15.0), (1234, 567), 3702 + 8505),
        ((0.15, 0.6), (1_000_000, 1_000_000), 750_000),
        ((2.5, 10.0), (0, 0), 0),
        ((1.0, None), (100, 100), 100),
        ((None, 4.0), (100, 100), 400),
    ],
)
def test_configured_prices_give_exact_micro_usd(
    prices: tuple[float | None, float | None], tokens: tuple[int, int], expected: int
) -> None:
    cost = cost_micros(priced(*prices), "any-model", *tokens)
    assert cost == expected and isinstance(cost, int)


def test_configured_prices_win_for_litellm_providers_too() -> None:
    assert cost_micros(priced(1.0, 1.0, kind="litellm"), "gpt-4o-mini", 10, 10) == 20


def test_unknown_price_costs_nothing() -> None:
    assert cost_micros(priced(None, None), "llama3.2", 5000, 5000) == 0


async def test_turn_usage_carries_the_cost(server: ScriptedServer) -> None:
    engine = make_engine(
        server, providers__local__price_input=1.0, providers__local__price_output=2.0
    )
    server.enqueue(text("priced answer", usage=(10, 5)))
    chat = engine.new_chat().id

    outcome = await ask(engine, chat, "hi")

    assert (outcome.usage.prompt_tokens, outcome.usage.completion_tokens) == (10, 5)
    assert outcome.usage.cost_micros == 20
    stored = engine.chats.load(chat).messages[-1]
    assert stored["usage"]["cost_micros"] == 20
    await engine.close()


async def test_costs_add_up_over_the_rounds_of_a_turn(server: ScriptedServer) -> None:
    engine = make_engine(
        server, providers__local__price_input=1.0, providers__local__price_output=2.0
    )
    server.enqueue(
        tool_calls([("list_dir", '{"path": "."}')], usage=(100, 10)),
        text("done", usage=(200, 20)),
    )
    outcome = await ask(engine, engine.new_chat().id, "hi")
    assert outcome.usage.cost_micros == (100 + 20) + (200 + 40)
    await engine.close()
