"""Local, durable storage: JSONL files for chats and traces.

Everything tuibot keeps lives in plain files under the data home, written so that a crash
or a full disk never loses what was already saved.
"""

from __future__ import annotations

from tuibot.store.chats import Chat, ChatMeta, ChatNotFound, ChatStore, InvalidChatId
from tuibot.store.jsonl import LineProblem, ReadResult, StorageError
from tuibot.store.traces import TraceLog

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
