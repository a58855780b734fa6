"""Bundled tools: the bot's own memory — read it, add a note, search it.

Memory is the bot's notebook across chats (``<data>/memory/<bot>.md``), and its text is
in every system prompt; these tools let the model keep it. They need the turn's bot, so
they work inside chat turns (not as a bare ``/memory_read`` outside one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tuibot import tool
from tuibot.toolkit.services import services_of
from tuibot.toolkit.scope import current_scope

if TYPE_CHECKING:
    from tuibot.memory import MemoryStore

OUTPUT_LIMIT = 64 * 1024
"""memory_read returns at most the memory's own cap."""


def _store() -> MemoryStore | None:
    """The current bot's memory (the engine keeps one per bot), or None outside a turn."""
    scope = current_scope()
    services = services_of(scope)
    if scope is None or services is None or not scope.bot:
        return None
    return services.memory_for(scope.bot)


NO_TURN = "Error: memory is only available inside a chat turn"


@tool(timeout=30)
def memory_read() -> str:
    """Read everything you saved in your memory (it is also in your system prompt)."""
    from tuibot.memory import MemoryStoreError

    store = _store()
    if store is None:
        return NO_TURN
    try:
        text = store.read()
    except MemoryStoreError as exc:
        return f"Error: {exc}"
    return text[:OUTPUT_LIMIT] if text.strip() else "(memory is empty)"


@tool(timeout=30)
def memory_save(note: str) -> str:
    """Save a note to your memory for later chats: facts about the user, decisions, to-dos.

    Args:
        note: The note, short and self-contained (it is read without this chat).
    """
    from tuibot.memory import MemoryStoreError

    store = _store()
    if store is None:
        return NO_TURN
    try:
        heading = store.save(note)
    except MemoryStoreError as exc:
        return f"Error: {exc}"
    return f"Saved to memory under {heading}."


@tool(timeout=30)
def memory_search(query: str) -> str:
    """Find the memory entries that contain every word of a query.

    Args:
        query: Words to look for (case-insensitive; all must appear in an entry).
    """
    from tuibot.memory import MemoryStoreError

    store = _store()
    if store is None:
        return NO_TURN
    try:
        hits = store.search(query)
    except MemoryStoreError as exc:
        return f"Error: {exc}"
    if not hits:
        return f"No memory entry contains all of: {query}"
    blocks = [f"[line {e.line}] {e.heading}\n{e.text}".strip() for e in hits]
    return "\n\n".join(blocks)[:OUTPUT_LIMIT]
