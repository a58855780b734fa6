"""Tools in the prompt with an MCP tool's image: one user message, roles alternating.

A server that refuses ``tools`` gets the tool results replayed as a user message; an MCP
result's image used to follow as a second user message, which strict chat templates
(Mistral's, Llama's "roles must alternate") refuse. Real engine, real fault-server
process (the SDK's own ``ImageContent``), real openai SDK against the scripted server.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

from engine_helpers import ask, sent_messages
from mcp_helpers import fault_engine
from scripted_server import ScriptedServer, error, text

from tuibot.llm.prompt_tools import tools_in_prompt

PNG = bytes.fromhex(  # what tests/mcp_fault_server.py's ``picture`` returns
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)
NO_PARSER = {  # vLLM started without a tool parser
    "object": "error",
    "message": '"auto" tool choice requires --enable-auto-tool-choice and '
    "--tool-call-parser to be set",
    "type": "BadRequestError",
    "code": 400,
}


def _alternates(messages: list[dict[str, Any]]) -> bool:
    """A system message first, then user and assistant turns strictly by turns."""
    roles = [m["role"] for m in messages]
    after = roles[1:] if roles[:1] == ["system"] else roles
    return all(role == ("user", "assistant")[i % 2] for i, role in enumerate(after))


async def test_the_image_joins_the_tool_results_in_one_user_message(
    server: ScriptedServer,
) -> None:
    engine = fault_engine(server, vision=True)
    try:
        for _ in range(600):  # the server process imports the SDK first
            if "faults__picture" in engine.tools:
                break
            await asyncio.sleep(0.1)
        call = '<tool_call>{"name": "faults__picture", "arguments": {}}</tool_call>'
        server.enqueue(error(400, body=NO_PARSER), text(call), text("a red dot"))
        outcome = await ask(engine, engine.new_chat().id, "what does the picture show?")
    finally:
        await engine.close()
    assert outcome.status == "completed" and outcome.text == "a red dot"
    sent = sent_messages(server, -1)
    assert sent[0]["role"] == "system" and _alternates(sent), [m["role"] for m in sent]
    parts = sent[-1]["content"]
    assert sent[-1]["role"] == "user" and isinstance(parts, list)
    kinds = [p["type"] for p in parts]
    assert kinds == ["text", "text", "image_url"]  # the texts first, then the image
    assert parts[0]["text"].startswith('<tool_response name="faults__picture">')
    assert "faults__picture" in parts[1]["text"]
    assert base64.b64decode(parts[2]["image_url"]["url"].partition(",")[2]) == PNG


def test_a_text_only_conversation_is_converted_as_before() -> None:
    call = {"id": "c1", "type": "function",
            "function": {"name": "list_dir", "arguments": '{"path": "."}'}}  # fmt: skip
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "list"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "name": "list_dir", "content": "a.txt"},
        {"role": "assistant", "content": "one file"},
        {"role": "user", "content": "thanks"},
    ]
    converted = tools_in_prompt(messages, [])
    assert converted == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "list"},
        {"role": "assistant",
         "content": '<tool_call>\n{"name": "list_dir", "arguments": {"path": "."}}\n</tool_call>'},
        {"role": "user", "content": '<tool_response name="list_dir">\na.txt\n</tool_response>'},
        {"role": "assistant", "content": "one file"},
        {"role": "user", "content": "thanks"},
    ]  # fmt: skip
