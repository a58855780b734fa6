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
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
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
    images: tuple[dict[str, Any], ...] = ()
    """References of images the tool kept aside (an MCP result's image blocks), stored
    on the tool message for vision models (see ``tuibot.attachments.kept``)."""


@dataclass(frozen=True)
class ToolOutput:
    """What a tool returns when it has images besides its text (MCP tools do)."""

    text: str
    images: tuple[dict[str, Any], ...] = ()


def error_result(message: str) -> ToolResult:
    """A failed result: ``message`` then the hint on its own paragraph."""
    return ToolResult(ok=False, output=f"{message}\n\n{ERROR_HINT}")


def disabled_message(name: str) -> str:
    """What a call to a disabled tool gets: how to turn it back on."""
    return f"Error: tool {name} is disabled; enable it with `tuibot tools enable {name}`"


class ToolRegistry:
    """Tools by name; registering a name again replaces it (the later source wins).

    Changes replace the inner dict instead of mutating it, so a ``snapshot()`` taken for
    a turn keeps seeing the tools of that moment while a reload swaps in new ones.
    """

    def __init__(self) -> None:
        self._specs: dict[str, ToolSpec] = {}
        self._disabled: frozenset[str] = frozenset()
        self._frozen = False

    def register(self, spec: ToolSpec) -> None:
        """Add ``spec``, replacing any tool of the same name (user tools override bundled)."""
        self._check_mutable()
        self._specs = {**self._specs, spec.name: spec}

    def unregister(self, name: str) -> None:
        """Remove a tool; removing an absent name is a no-op (reloads may race)."""
        self._check_mutable()
        self._specs = {key: value for key, value in self._specs.items() if key != name}

    def replace_all(self, specs: Iterable[ToolSpec]) -> None:
        """Swap the whole catalogue at once (what a reload does)."""
        self._check_mutable()
        self._specs = {spec.name: spec for spec in specs}

    def set_disabled(self, names: Iterable[str]) -> None:
        """Hide these tools from the model and refuse calls to them."""
        self._check_mutable()
        self._disabled = frozenset(names)

    def is_disabled(self, name: str) -> bool:
        """Whether ``name`` is switched off by the user."""
        return name in self._disabled

    def runnable(self, name: str) -> ToolSpec | None:
        """The tool if a call to it would run (not disabled, not gated): worth confirming."""
        spec = self._specs.get(name)
        if spec is None or name in self._disabled or spec.unavailable_reason() is not None:
            return None
        return spec

    def snapshot(self, allowed: Collection[str] | None = None) -> ToolRegistry:
        """An immutable view of the tools now: one per turn, so reloads land between turns.

        ``allowed`` (a bot's whitelist) drops every other tool from the view, so the model
        cannot run a tool its bot does not have even by naming it.
        """
        view = ToolRegistry()
        view._specs = (
            self._specs
            if allowed is None
            else {k: v for k, v in self._specs.items() if k in allowed}
        )
        view._disabled = self._disabled
        view._frozen = True
        return view

    def _check_mutable(self) -> None:
        if self._frozen:
            raise TypeError("a tool registry snapshot cannot be changed")

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
        ignored. Disabled tools are never shown. Each definition is a fresh copy, so
        callers may decorate it freely.
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
            if (allowed is None or spec.name in allowed) and spec.name not in self._disabled
        ]

    async def execute(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Validate and run one call; every failure becomes an error result, never a raise.

        Cancellation (the turn was interrupted) still propagates, as it must.
        """
        spec = self._specs.get(name)
        if spec is None:
            available = ", ".join(self.names()) or "(none)"
            return error_result(f"Error: unknown tool '{name}'. Available tools: {available}")
        if name in self._disabled:
            return ToolResult(ok=False, output=disabled_message(name))
        reason = spec.unavailable_reason()
        if reason is not None:  # one line, no hint: retrying differently cannot help
            return ToolResult(ok=False, output=f"Error: {name} is not available here: {reason}")
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
    if isinstance(value, ToolOutput):
        return replace(to_result(value.text), images=value.images)
    if value is None:
        return ToolResult(ok=True, output=NO_OUTPUT)
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    if not text:
        return ToolResult(ok=True, output=NO_OUTPUT)
    if text.startswith("Error"):
        return error_result(text)
    return ToolResult(ok=True, output=text)
