"""Slash commands: typed by a person, answered without the model.

They run outside the chat's turn lock, so ``/tool_name`` works while a turn is running
and with no model server at all. ``/name key=value ...`` calls a tool directly; each
value is typed by the tool's schema (a string parameter gets the text as typed, numbers,
booleans, lists and objects are decoded); quote a value with spaces shell-style.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from tuibot.events import CommandOutput
from tuibot.toolkit.registry import ToolRegistry
from tuibot.toolkit.scope import ToolScope, use_scope
from tuibot.typed_values import typed_value

BUILTIN_HELP = {
    "/new": "start a fresh chat (the current one is kept)",
    "/compact [instructions]": "summarise the older turns now (the chat file keeps them)",
    "/model [NAME|default]": "list the provider's models, or switch this chat's model",
    "/provider [NAME] [MODEL]": "list the providers, or switch this chat's provider",
    "/help": "list commands and tools",
    "/TOOL key=value ...": "run a tool directly, without the model",
    "/SERVER__PROMPT key=value ...": "put an MCP server's prompt into the composer",
}


class PromptSource(Protocol):
    """MCP prompts as commands (the MCP manager); slash commands need only this much."""

    def prompt_usages(self) -> list[tuple[str, str]]:
        """``(usage, description)`` of every prompt."""
        ...

    async def run_prompt(self, name: str, tokens: list[str]) -> tuple[bool, str, str | None] | None:
        """(ok, text, composer text), or None when there is no prompt ``name``."""
        ...


def is_command(text: str) -> bool:
    """A slash command starts with one ``/`` followed by a name."""
    stripped = text.strip()
    return len(stripped) > 1 and stripped[0] == "/" and stripped[1].isalpha()


@dataclass
class SlashContext:
    """What commands may use."""

    tools: ToolRegistry
    scope: ToolScope
    new_chat: Callable[[], str]
    compact: Callable[[str, str], Awaitable[tuple[bool, str]]] | None = None
    """(chat, instructions) -> (done, message): the one command that calls the model."""
    prompts: PromptSource | None = None
    """MCP prompts (``/server__prompt``); a tool of the same name wins."""
    model: Callable[[str, str, list[str]], Awaitable[tuple[bool, str]]] | None = None
    """(chat, "model" or "provider", arguments) -> (ok, message): list or switch."""


def parse_arguments(tokens: list[str], schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """``key=value`` tokens into arguments typed by the tool's parameter ``schema``.

    Raises ValueError naming the bad token, or the key, its value and the type wanted.
    A key the schema does not list keeps the old reading (JSON if it parses, else text),
    so the validator can name it.
    """
    properties = (schema or {}).get("properties") or {}
    arguments: dict[str, Any] = {}
    for token in tokens:
        key, sep, raw = token.partition("=")
        if not sep or not key.isidentifier():
            raise ValueError(f"expected key=value, got {token!r}")
        try:
            arguments[key] = typed_value(raw, properties.get(key) or {})
        except ValueError as error:
            raise ValueError(f"{key}: {error}") from None
    return arguments


async def run_command(context: SlashContext, chat: str, text: str) -> CommandOutput:
    """Run one command and say what it printed."""
    import shlex  # (not for ``is_command``, which every plain ``ask`` asks)

    try:
        tokens = shlex.split(text.strip())
    except ValueError as error:
        return CommandOutput(chat, text, False, f"Cannot read the command: {error}.")
    name, tokens = tokens[0][1:], tokens[1:]
    if name == "help":
        return CommandOutput(chat, "/help", True, help_text(context.tools, context.prompts))
    if name == "compact" and context.compact is not None:
        ok, message = await context.compact(chat, " ".join(tokens))
        return CommandOutput(chat, "/compact", ok, message)
    if name in ("model", "provider") and context.model is not None:
        ok, message = await context.model(chat, name, tokens)
        return CommandOutput(chat, f"/{name}", ok, message)
    if name == "new":
        new = context.new_chat()
        return CommandOutput(chat, "/new", True, f"Started a new chat: {new}", new_chat=new)
    spec = context.tools.get(name)
    if spec is None and context.prompts is not None:
        reply = await context.prompts.run_prompt(name, tokens)
        if reply is not None:
            ok, shown, compose = reply
            return CommandOutput(chat, f"/{name}", ok, shown, compose=compose)
    if spec is None:
        return CommandOutput(
            chat, f"/{name}", False, f"Unknown command /{name}. Type /help for the list."
        )
    try:
        arguments = parse_arguments(tokens, spec.parameters)
    except ValueError as error:
        return CommandOutput(chat, f"/{name}", False, f"/{name}: {error}.")
    with use_scope(context.scope):
        result = await context.tools.execute(name, arguments)
    return CommandOutput(chat, f"/{name}", result.ok, result.output)


def help_text(tools: ToolRegistry, prompts: PromptSource | None = None) -> str:
    """Commands, then every tool with the first line of its description, then prompts."""
    lines = ["Commands:"]
    lines += [f"  {usage:<22} {meaning}" for usage, meaning in BUILTIN_HELP.items()]
    lines.append("Tools (/name key=value ...):")
    for spec in tools.specs():
        summary = spec.description.strip().splitlines()[0] if spec.description.strip() else ""
        params = " ".join(f"{p}=…" for p in spec.parameters.get("properties", {}))
        lines.append(f"  /{spec.name} {params}".rstrip() + (f"  — {summary}" if summary else ""))
    usages = prompts.prompt_usages() if prompts is not None else []
    if usages:
        lines.append("MCP prompts (fill the composer):")
        lines += [f"  {usage}" + (f"  — {about}" if about else "") for usage, about in usages]
    return "\n".join(lines)
