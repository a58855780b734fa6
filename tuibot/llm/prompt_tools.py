"""Tools described in the prompt, for servers that refuse a request's ``tools`` field.

vLLM started without ``--enable-auto-tool-choice`` answers 400 (``"auto" tool choice
requires --enable-auto-tool-choice and --tool-call-parser to be set``) to every request
with ``tools``; llama.cpp's server without ``--jinja`` answers 500 (``tools param requires
--jinja flag``), and older builds refuse tools on a stream (``Cannot use tools with
stream``); Ollama answers 400 (``gemma3:4b does not support tools``) for a model whose
template has no tools. Such a server can still serve an agent: the tool list goes into the system
prompt, the model writes its calls as ``<tool_call>`` text (read by
:mod:`tuibot.llm.text_tools`), and earlier calls and results are replayed as text, since
the server has no tool parser and maybe no template for them.
"""

from __future__ import annotations

import json
from typing import Any

from tuibot.llm.errors import ModelError

REFUSALS = (
    "--enable-auto-tool-choice",
    "tools param requires --jinja",
    "cannot use tools with stream",
    "does not support tools",
)
"""Words of the servers' own refusals (lower case); a bare 400 is not enough: it is as
often a malformed request, and dropping the tools would hide the real error."""

TOOLS_SECTION = """\
# Tools

You can call the tools listed below. To call one, write this block in your answer, with
nothing else inside it:
<tool_call>
{{"name": "TOOL_NAME", "arguments": {{"ARGUMENT": "VALUE"}}}}
</tool_call>
Write one block per call. Each result comes back in a <tool_response> block. The tools,
each with a JSON Schema of its arguments:
{tools}"""


def refuses_tools(error: ModelError) -> bool:
    """Whether a failed call means "this server takes no ``tools`` field"."""
    text = str(error).lower()
    return error.kind == "rejected" and any(words in text for words in REFUSALS)


def tools_in_prompt(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The request's messages with the tools in the system prompt and every call as text.

    Assistant tool calls become ``<tool_call>`` blocks in the assistant's text; each block
    of tool results becomes one user message of ``<tool_response>`` blocks. A user message
    right after the results (the images an MCP tool returned, see
    :func:`tuibot.attachments.request.resolve_images`) joins that message: many chat
    templates (Mistral's, Llama's) refuse two user messages in a row.
    """
    converted: list[dict[str, Any]] = []
    gathering = False  # the last converted message collects the current block of results
    for message in messages:
        role = message.get("role")
        if role == "tool":
            block = _response_text(message)
            if gathering and isinstance(converted[-1]["content"], str):
                converted[-1]["content"] += "\n" + block
            else:
                converted.append({"role": "user", "content": block})
            gathering = True
            continue
        if role == "user" and gathering:
            converted[-1]["content"] = _joined(converted[-1]["content"], message.get("content"))
            continue
        gathering = False
        if role == "system" and tools and isinstance(message.get("content"), str):
            message = {**message, "content": message["content"] + "\n\n" + describe(tools)}
        elif role == "assistant" and message.get("tool_calls"):
            message = {"role": "assistant", "content": _calls_text(message)}
        converted.append(message)
    return converted


def _joined(results: str, content: object) -> str | list[dict[str, Any]]:
    """The results' text and a following user message's content as one content: plain
    text when neither has images, else a list of parts with every text part first (the
    tool results', then the message's), then the images."""
    if isinstance(content, str):
        return f"{results}\n\n{content}" if content else results
    parts = [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []
    texts = [p for p in parts if p.get("type") == "text"]
    others = [p for p in parts if p.get("type") != "text"]
    if not others:
        return "\n\n".join([results, *(str(p.get("text", "")) for p in texts)])
    return [{"type": "text", "text": results}, *texts, *others]


def describe(tools: list[dict[str, Any]]) -> str:
    """The prompt section naming each tool, what it does and its arguments' schema."""
    lines = []
    for tool in tools:
        function = tool.get("function", {})
        entry = {key: function.get(key) for key in ("name", "description", "parameters")}
        lines.append(json.dumps(entry, ensure_ascii=False))
    return TOOLS_SECTION.format(tools="\n".join(lines))


def _calls_text(message: dict[str, Any]) -> str:
    """An assistant message's text followed by its calls as ``<tool_call>`` blocks."""
    parts = [message["content"]] if isinstance(message.get("content"), str) else []
    for call in message["tool_calls"]:
        function = call.get("function", {})
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except ValueError:
            arguments = {}
        body = json.dumps({"name": function.get("name"), "arguments": arguments})
        parts.append(f"<tool_call>\n{body}\n</tool_call>")
    return "\n".join(parts)


def _response_text(message: dict[str, Any]) -> str:
    """A tool result as a ``<tool_response>`` block naming its tool."""
    name = json.dumps(str(message.get("name") or ""))
    return f"<tool_response name={name}>\n{message.get('content') or ''}\n</tool_response>"
