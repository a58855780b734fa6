"""What a tool call may depend on besides its arguments, set around every call.

One process runs many chats at once, each with its own workspace and policy, so these
live in context variables rather than globals: the engine builds a ``ToolScope`` for a
turn and the loop (or a slash command) enters it around each confirmation check and
each call; sync tools see it too, because their threads run in a copy of the context.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tuibot.toolkit.workspace import use_workspace

if TYPE_CHECKING:
    from tuibot.skills.loader import Skill

_allow_loopback: ContextVar[bool] = ContextVar("tuibot_allow_loopback", default=False)
_skills: ContextVar[Sequence[Skill]] = ContextVar("tuibot_skills", default=())


@dataclass(frozen=True)
class ToolScope:
    """The settings a turn's tools run under."""

    workspace: Path
    """The folder file tools are confined to (see ``workspace.py``)."""
    allow_loopback: bool = False
    """Whether web tools may reach this machine (``tools.allow_loopback``)."""
    skills: Sequence[Skill] = ()
    """The skills the turn's prompt listed, so ``read_skill`` reads exactly those."""


@contextmanager
def use_scope(scope: ToolScope) -> Iterator[ToolScope]:
    """Run the ``with`` block (and tasks and threads it starts) under ``scope``."""
    loopback = _allow_loopback.set(scope.allow_loopback)
    skills = _skills.set(scope.skills)
    try:
        with use_workspace(scope.workspace):
            yield scope
    finally:
        _skills.reset(skills)
        _allow_loopback.reset(loopback)


def loopback_allowed() -> bool:
    """Whether the web tools of the current call may connect to loopback addresses."""
    return _allow_loopback.get()


def current_skills() -> Sequence[Skill]:
    """The skills of the current turn (none outside a turn)."""
    return _skills.get()
