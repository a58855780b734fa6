"""What a tool call may depend on besides its arguments, set around every call.

One process runs many chats at once, each with its own workspace and policy, so these
live in a context variable rather than globals: the engine builds a ``ToolScope`` for a
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

_scope: ContextVar[ToolScope | None] = ContextVar("tuibot_tool_scope", default=None)


@dataclass(frozen=True)
class ToolScope:
    """The settings and the place a turn's tools run under."""

    workspace: Path
    """The folder file tools are confined to (see ``workspace.py``)."""
    allow_loopback: bool = False
    """Whether web tools may reach this machine (``tools.allow_loopback``)."""
    allowed_hosts: tuple[str, ...] = ()
    """Hosts web tools may reach without asking (``tools.allowed_hosts``)."""
    secret_files: tuple[str, ...] | None = None
    """Secret-looking file names (``tools.secret_files``); None: the defaults."""
    skills: Sequence[Skill] = ()
    """The skills the turn's prompt listed, so ``read_skill`` reads exactly those."""
    chat: str = ""
    """The chat the turn belongs to ("" outside a turn, e.g. a slash command's)."""
    turn: str = ""
    """The turn's id."""
    bot: str = ""
    """The bot the turn speaks as."""
    call_id: str = ""
    """The id of the tool call now running ("" outside one), e.g. for a delegation's
    record to name the ``delegate`` call that gave the work."""
    services: object = None
    """The engine, for the engine's own tools (memory, delegation, cron), which read it
    only through :func:`tuibot.toolkit.services.services_of`; opaque to the framework. None
    in tests that run plugins alone."""


@contextmanager
def use_scope(scope: ToolScope) -> Iterator[ToolScope]:
    """Run the ``with`` block (and tasks and threads it starts) under ``scope``."""
    token = _scope.set(scope)
    try:
        with use_workspace(scope.workspace):
            yield scope
    finally:
        _scope.reset(token)


def current_scope() -> ToolScope | None:
    """The scope of the current call, or None outside one."""
    return _scope.get()


def loopback_allowed() -> bool:
    """Whether the web tools of the current call may connect to loopback addresses."""
    scope = _scope.get()
    return scope is not None and scope.allow_loopback


def current_skills() -> Sequence[Skill]:
    """The skills of the current turn (none outside a turn)."""
    scope = _scope.get()
    return scope.skills if scope is not None else ()


def secret_patterns() -> tuple[str, ...]:
    """The secret-looking file patterns of the current call (the defaults outside one)."""
    scope = _scope.get()
    if scope is None or scope.secret_files is None:
        from tuibot.settings import SECRET_FILES

        return SECRET_FILES
    return scope.secret_files


def hosts_allowed() -> tuple[str, ...]:
    """Hosts the web tools of the current call may reach without asking."""
    scope = _scope.get()
    return scope.allowed_hosts if scope is not None else ()
