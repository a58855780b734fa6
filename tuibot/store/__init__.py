"""Local, durable storage: JSONL files for chats and traces.

Everything tuibot keeps lives in plain files under the data home, written so that a crash
or a full disk never loses what was already saved.
"""

from __future__ import annotations

from tuibot.lazy_exports import lazy_exports

TYPE_CHECKING = False  # not from typing: importing a submodule runs this file first
if TYPE_CHECKING:
    from tuibot.store.chats import Chat, ChatMeta, ChatNotFound, ChatStore, InvalidChatId
    from tuibot.store.jsonl import LineProblem, ReadResult, StorageError
    from tuibot.store.traces import TraceLog


_EXPORTS = {
    **dict.fromkeys(("Chat", "ChatMeta", "ChatNotFound", "ChatStore"), "tuibot.store.chats"),
    "InvalidChatId": "tuibot.store.chats",
    **dict.fromkeys(("LineProblem", "ReadResult", "StorageError"), "tuibot.store.jsonl"),
    "TraceLog": "tuibot.store.traces",
}
"""Public name → its module, imported on first use: ``tuibot.store.chat_message`` (the
app's conversation needs its types before the first frame) must not bring the chat
store, its locks and files along."""

__all__ = [
    "Chat",
    "ChatMeta",
    "ChatNotFound",
    "ChatStore",
    "InvalidChatId",
    "LineProblem",
    "ReadResult",
    "StorageError",
    "TraceLog",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
