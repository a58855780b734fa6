"""A chat as a Markdown document, to share or keep outside tuibot.

Used by ``tuibot chats export`` and the app's export key, so both write the same thing.
The text of each message is kept as written (it is usually Markdown already); tool
results go in fences longer than any backtick run inside them, so no output can close
its fence early and turn into live Markdown. Reasoning is left out: it is the model's
working, not the conversation.
"""

from __future__ import annotations

import json
import re
from datetime import datetime

from tuibot.store.chat_message import ChatMessage
from tuibot.store.chats import Chat
from tuibot.store.history import content_text

_TICKS = re.compile(r"`{3,}")


def fence(text: str, info: str = "") -> str:
    """``text`` in a backtick fence that nothing inside it can close."""
    longest = max((len(m.group()) for m in _TICKS.finditer(text)), default=2)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.rstrip(chr(10))}\n{ticks}"


def chat_markdown(chat: Chat) -> str:
    """The whole conversation: a title, a line of facts, then each message under a heading."""
    meta = chat.meta
    when = datetime.fromtimestamp(meta.created).strftime("%Y-%m-%d %H:%M")
    parts = [f"# {meta.title or 'Untitled chat'}", f"*{meta.id} · {meta.bot} · {when}*"]
    for message in chat.messages:
        parts.extend(_message(message))
    return "\n\n".join(parts) + "\n"


def _message(message: ChatMessage) -> list[str]:
    role = message.get("role")
    text = content_text(message.get("content")).strip()
    if role == "tool":
        name = message.get("name") or message.get("tool_call_id") or "tool"
        return [f"**Result of `{name}`**", fence(text or "(no output)")]
    if role == "user":
        heading = "## tuibot" if message.get("notice") else "## You"
    elif role == "assistant":
        heading = f"## {message.get('bot') or 'Assistant'}"
    else:
        heading = f"## {role}"
    parts = [heading]
    if text:
        parts.append(text)
    parts.extend(_call(call) for call in message.get("tool_calls") or [])
    return parts if len(parts) > 1 else []


def _call(call: object) -> str:
    function = call.get("function") if isinstance(call, dict) else None
    function = function if isinstance(function, dict) else {}
    arguments = function.get("arguments", "")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return f"**Calls `{function.get('name', '?')}`**\n\n" + fence(arguments, "json")
