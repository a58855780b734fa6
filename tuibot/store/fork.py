"""Forking a chat: a new direct chat holding a copy of another's first messages.

For trying another direction from some point without losing the original. The copy
never splits a tool round: a cut after an assistant's tool calls keeps their results,
so the fork is a history a provider accepts without a synthetic repair.
"""

from __future__ import annotations

from tuibot.store.chat_message import ChatMessage
from tuibot.store.chats import ChatMeta, ChatStore
from tuibot.store.history import clean_title

FORK_MARK = " (fork)"


def cut_point(messages: list[ChatMessage], at: int | None) -> int:
    """How many messages a fork keeps: the first ``at`` (all when None) plus tool results
    that answer the last kept message's calls. ``ValueError`` when ``at`` is out of range.
    """
    if at is None:
        return len(messages)
    if not 1 <= at <= len(messages):
        raise ValueError(f"--at must be between 1 and {len(messages)}, got {at}")
    end = at
    while end < len(messages) and messages[end].get("role") == "tool":
        end += 1
    return end


def fork_chat(store: ChatStore, chat_id: str, at: int | None = None) -> ChatMeta:
    """Copy the first ``at`` messages of ``chat_id`` (all by default) into a new chat."""
    chat = store.load(chat_id, readonly=True)
    kept = chat.messages[: cut_point(chat.messages, at)]
    title = clean_title(chat.meta.title or "Chat")
    if not title.endswith(FORK_MARK):
        title += FORK_MARK
    pinned = chat.meta.pinned or chat.meta.kind == "task"  # a task's bot did that work
    meta = store.create(kind="direct", bot=chat.meta.bot, title=title, pinned=pinned)
    if kept:
        store.append(meta.id, kept)
    return meta
