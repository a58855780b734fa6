"""MCP prompts as slash commands: ``/NAME__prompt arg=value`` puts the prompt in the composer.

Why the composer and not straight to the model: a prompt's text is the server's words
(untrusted), but once sent it is the person's own message, with the authority of one.
So the person reads it first, escaped, and may edit it; sending is one more Enter.
Arguments are checked here against the prompt's own argument list (unknown names,
missing required ones) before the server is asked, so a typo gets a clear line that
lists what the prompt takes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tuibot.mcp.tools import DESCRIPTION_CHARS, registry_name
from tuibot.toolkit.sizes import clip_output
from tuibot.visible import visible


@dataclass(frozen=True)
class PromptArgument:
    """One argument a prompt takes (MCP prompt arguments are always strings)."""

    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class PromptCommand:
    """One server prompt as a slash command named like its tools (``server__prompt``)."""

    name: str
    server: str
    prompt: str
    """The prompt's own name on its server."""
    description: str
    arguments: tuple[PromptArgument, ...]

    def usage(self) -> str:
        """``/faults__greet name=… [tone=…]``: required arguments bare, optional in brackets."""
        parts = [f"{a.name}=…" if a.required else f"[{a.name}=…]" for a in self.arguments]
        return " ".join([f"/{self.name}", *parts])


def prompt_commands(server: str, prompts: list[dict[str, Any]]) -> dict[str, PromptCommand]:
    """The server's prompts by command name; junk entries are skipped, a clash keeps the first."""
    commands: dict[str, PromptCommand] = {}
    for prompt in prompts:
        own = prompt.get("name")
        if not isinstance(own, str) or not own:
            continue
        name = registry_name(server, own)
        if name not in commands:
            commands[name] = _command(server, name, own, prompt)
    return commands


def _command(server: str, name: str, own: str, prompt: dict[str, Any]) -> PromptCommand:
    given = prompt.get("description")
    description = visible(given[:DESCRIPTION_CHARS].strip()) if isinstance(given, str) else ""
    arguments = []
    for item in prompt.get("arguments") or []:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            text = item.get("description")
            arguments.append(
                PromptArgument(
                    visible(item["name"], keep_newlines=False),
                    visible(text[:200], keep_newlines=False) if isinstance(text, str) else "",
                    item.get("required") is True,
                )
            )
    return PromptCommand(name, server, own, description, tuple(arguments))


def prompt_arguments(command: PromptCommand, tokens: list[str]) -> dict[str, str]:
    """``key=value`` tokens checked against the prompt's arguments (ValueError says why)."""
    known = {a.name: a for a in command.arguments}
    listed = ", ".join(known) or "none"
    values: dict[str, str] = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep or not key:
            raise ValueError(f"expected key=value, got {visible(token, keep_newlines=False)!r}")
        if key not in known:
            if not known:
                raise ValueError("this prompt takes no arguments")
            shown = visible(key, keep_newlines=False)
            raise ValueError(f"unknown argument {shown} (it takes: {listed})")
        values[key] = value
    for argument in command.arguments:
        if argument.required and argument.name not in values:
            about = f" ({argument.description})" if argument.description else ""
            raise ValueError(
                f"missing required argument {argument.name}{about}; usage: {command.usage()}"
            )
    return values


def messages_text(result: dict[str, Any], limit: int) -> str:
    """A ``GetPromptResult``'s messages as composer text, escaped, within ``limit`` characters.

    Only user messages: their texts, a blank line apart. Any other role: each message
    under a ``[role]`` line, so an assistant turn is not mistaken for the person's words.
    """
    messages = [m for m in result.get("messages") or [] if isinstance(m, dict)]
    roles = {str(m.get("role", "")) for m in messages}
    labelled = roles != {"user"}
    parts = []
    for message in messages:
        body = _content(message.get("content"))
        parts.append(f"[{visible(str(message.get('role', '')))}]\n{body}" if labelled else body)
    return clip_output(visible("\n\n".join(parts)), limit)


def _content(content: Any) -> str:
    """One message's content block as text (binary parts named, not included)."""
    if not isinstance(content, dict):
        return ""
    kind = content.get("type")
    if kind == "text":
        return str(content.get("text", ""))
    if kind == "resource" and isinstance(content.get("resource"), dict):
        resource = content["resource"]
        if isinstance(resource.get("text"), str):
            return f"[resource {resource.get('uri', '')}]\n{resource['text']}"
        return f"[resource {resource.get('uri', '')}, binary, not included]"
    if kind == "resource_link":
        return f"[resource link {content.get('uri', '')}]"
    return f"[{kind} {content.get('mimeType', '')}, not included]".replace(" ,", ",")


def untrusted_prompt_line(command: PromptCommand) -> str:
    """The line above a prompt's text in the command output (the composer gets the text)."""
    return (
        f"[prompt {command.prompt!r} from MCP server {command.server!r}: untrusted content,"
        " now in the composer — read it before you send it]"
    )
