"""The shape of one chat message, as every layer passes it: stored, shown and sent.

A chat message is a plain dict (it is JSON on disk and JSON to the provider), so its
shape is a ``TypedDict``: mypy then knows which keys exist and what they hold, and a
typo in a key is an error instead of a silent miss. The provider's keys come first;
the rest are tuibot's own, kept in the chat file for people and the TUI and dropped by
:func:`tuibot.agent.messages.sanitize` before anything is sent.
"""

from __future__ import annotations

from typing import Any, Literal, Required, TypedDict

Role = Literal["system", "user", "assistant", "tool"]


class ChatMessage(TypedDict, total=False):
    """One message of a chat; only ``role`` is always there."""

    role: Required[Role]
    content: str | list[Any] | None
    """Text, or content parts; ``None`` beside tool calls."""
    tool_calls: list[dict[str, Any]]
    """The assistant's calls, OpenAI's form: ``{"id", "type", "function": {...}}``."""
    tool_call_id: str
    """On a tool result: the call it answers."""
    name: str
    """On a tool result: the tool's name."""
    # tuibot's own keys: stored, never sent
    reasoning: str
    """The model's visible reasoning, shown live and stored, never re-sent."""
    raw_arguments: dict[str, str]
    """Call id -> the arguments text as the model sent it, when it had to be repaired."""
    status: str
    """Why a message is not a normal answer: ``round_limit``, ``interrupted``, …"""
    usage: dict[str, Any]
    """Token counts (and cost) of the model call that wrote it."""
    turn: str
    """The turn that wrote it."""
    bot: str
    """The bot that answered (in chats that route between bots)."""
    notice: bool
    """A message from tuibot itself (a delegation result, a cancel note), not a person."""
    attachments: list[dict[str, Any]]
    """On a user message: the files attached to it, as references
    (:class:`tuibot.attachments.refs.AttachmentRef`); ``sanitize`` turns them into what
    the model receives."""
