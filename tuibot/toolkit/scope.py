"""What a tool call may depend on besides its arguments, set around every call.

One process runs many chats at once, each with its own workspace and policy, so these
live in context variables rather than globals: the engine builds a ``ToolScope`` for a
turn and the loop (or a slash command) enters it around each confirmation check and
each call; sync tools see it too, because their threads run in a copy of the context.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from tuibot.toolkit.workspace import use_workspace

_allow_loopback: ContextVar[bool] = ContextVar("tuibot_allow_loopback", default=False)


@dataclass(frozen=True)
class ToolScope:
    """The settings a turn's tools run under."""

    workspace: Path
    """The folder file tools are confined to (see ``workspace.py``)."""
    allow_loopback: bool = False
    """Whether web tools may reach this machine (``tools.allow_loopback``)."""


@contextmanager
def use_scope(scope: ToolScope) -> Iterator[ToolScope]:
    """Run the ``with`` block (and tasks and threads it starts) under ``scope``."""
    token = _allow_loopback.set(scope.allow_loopback)
    try:
        with use_workspace(scope.workspace):
            yield scope
    finally:
        _allow_loopback.reset(token)


def loopback_allowed() -> bool:
    """Whether the web tools of the current call may connect to loopback addresses."""
    return _allow_loopback.get()
