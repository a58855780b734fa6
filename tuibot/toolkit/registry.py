"""The catalogue of tools the agent loop shows to the model and runs.

``execute`` is the one door every tool call goes through, from the model or from a
``/tool_name`` slash command, and it never raises for a tool's failure: an unknown name,
bad arguments, a timeout or an exception all come back as an ``Error: ...`` result with a
hint, because a model that sees its mistake can fix it, while an exception would end the
turn.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
import logging
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from tuibot.toolkit.decorator import ToolSpec
from tuibot.toolkit.threads import run_in_daemon_thread
from tuibot.toolkit.validate import validate_arguments

ERROR_HINT = "[Analyze the error above and try a different approach.]"
"""Appended to every failed result so the model changes course instead of repeating."""

NO_OUTPUT = "(no output)"
"""What the model sees when a tool returns nothing (empty content upsets some servers)."""

log = logging.getLogger("tuibot.tools")


@dataclass(frozen=True)
class ToolResult:
    """The text the model receives for one call, and whether the call succeeded."""

    ok: bool
    output: str


def error_result(message: str) -> ToolResult:
    """A failed result: ``message`` then the hint on its own paragraph."""
    return ToolResult(ok=False, output=f"{message}\n\n{ERROR_HINT}")


class ToolRegistry:
    """Tools by name; registering a name again replaces it (the later source wins)."""

    def __init__(self) -> None:
        self._specs: dict[str, ToolSpec] = {}

    def register(self, spec: ToolSpec) -> None:
        """Add ``spec``, replacing any tool of the same name (user tools override bundled)."""
        self._specs[spec.name] = spec

    def unregister(self, name: str) -> None:
        """Remove a tool; removing an absent name is a no-op (reloads may race)."""
        self._specs.pop(name, None)

    def get(self, name: str) -> ToolSpec | None:
        """The tool called ``name``, or ``None``."""
        return self._specs.get(name)

    def names(self) -> list[str]:
        """All tool names, sorted."""
        return sorted(self._specs)

    def specs(self) -> list[ToolSpec]:
        """All tools, sorted by name."""
        return [self._specs[name] for name in self.names()]

    def __len__(self) -> int:
        return len(self._specs)

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def definitions(self, allowed: Collection[str] | None = None) -> list[dict[str, Any]]:
        """The OpenAI ``tools`` list, sorted by name (stable for prompt caching).

        ``allowed`` limits it to those names (a bot's tool list); unknown names in it are
        ignored. Each definition is a fresh copy, so callers may decorate it freely.
        """
        return [
            {
                "type": "function",
                "function": {
                    "name": spec.name,
                    "description": spec.description,
                    "parameters": copy.deepcopy(spec.parameters),
                },
            }
            for spec in self.specs()
            if allowed is None or spec.name in allowed
        ]

    async def execute(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Validate and run one call; every failure becomes an error result, never a raise.

        Cancellation (the turn was interrupted) still propagates, as it must.
        """
        spec = self._specs.get(name)
        if spec is None:
            available = ", ".join(self.names()) or "(none)"
            return error_result(f"Error: unknown tool '{name}'. Available tools: {available}")
        problems = validate_arguments(arguments, spec.parameters)
        if problems:
            return error_result(f"Error: invalid arguments for {name}: {'; '.join(problems)}")
        scope = asyncio.timeout(spec.timeout)
        try:
            async with scope:
                value = await _call(spec, arguments)
        except (Exception, SystemExit) as exc:
            if isinstance(exc, TimeoutError) and scope.expired():
                log.debug("tool %s timed out after %ss", name, spec.timeout)
                return error_result(f"Error: tool '{name}' timed out after {spec.timeout:g} s")
            log.debug("tool %s raised", name, exc_info=True)
            return error_result(f"Error: {describe_exception(exc)}")
        return to_result(value)


async def _call(spec: ToolSpec, arguments: dict[str, Any]) -> Any:
    """Await async tools on the loop; run sync ones in a daemon thread (context kept)."""
    if spec.is_async:
        value = await spec.func(**arguments)
    else:
        value = await run_in_daemon_thread(spec.func, **arguments)
    if inspect.isawaitable(value):
        value = await value
    return value


def describe_exception(exc: BaseException) -> str:
    """``ExcType: message``, or just the type when the message is empty."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def to_result(value: Any) -> ToolResult:
    """Turn a tool's return value into the model's text; ``Error...`` text is a failure."""
    if value is None:
        return ToolResult(ok=True, output=NO_OUTPUT)
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    if not text:
        return ToolResult(ok=True, output=NO_OUTPUT)
    if text.startswith("Error"):
        return error_result(text)
    return ToolResult(ok=True, output=text)
