"""An approval request as plain lines, for ``ask``'s terminal prompt (the app has its own
styled pane, built from the same details).

Everything a person decides on is there whole: the tool's question, the exact subject
(command, path, URL), every field of a request that carries data, and each argument —
with hiding characters spelled out, a warning in words when there are any, and what
each answer would allow.
"""

from __future__ import annotations

import json
from typing import Any

from tuibot.approvals.permissions import (
    SUBJECT_LABELS,
    broader_key,
    describe_key,
    unshown_arguments,
)
from tuibot.visible import hidden_warning, visible


def request_lines(kind: str, summary: str, details: dict[str, Any]) -> list[str]:
    """The request, one item a line (multi-line values indented under their label)."""
    if kind != "tool":
        return [visible(summary, keep_newlines=False)]
    permission = details.get("permission") or {}
    bot = details.get("bot") or "A bot"
    lines = [f"{visible(str(bot))} wants to run {visible(str(details.get('tool', '?')))}"]
    if details.get("task_chat"):
        lines.append(f"  in its task chat {details['task_chat']}")
    lines.append(f"  {visible(str(details.get('prompt') or ''))}")
    subject = permission.get("subject")
    if subject and permission.get("kind") != "tool":
        lines += _field(SUBJECT_LABELS.get(permission.get("kind", ""), "subject"), subject)
    for name, value in permission.get("fields") or []:
        lines += _field(str(name), value)
    arguments = details.get("arguments")
    if isinstance(arguments, dict):
        for name, value in unshown_arguments(arguments, permission).items():
            lines += _field(str(name), value)
    if permission.get("hidden"):
        lines.append(f"  ! {hidden_warning(list(permission['hidden']))}")
    elif permission.get("whyOnce"):
        lines.append(f"  ! can only be allowed once: {permission['whyOnce']}")
    return lines


def _field(label: str, value: Any) -> list[str]:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)
    shown = visible(text).splitlines() or [""]
    if len(shown) == 1:
        return [f"  {visible(label)}: {shown[0]}"]
    return [f"  {visible(label)}:", *(f"    {line}" for line in shown)]


def answer_choices(details: dict[str, Any]) -> str:
    """The answers offered, each saying what it allows: ``[y]es once / [c] …``."""
    permission = details.get("permission")
    if not isinstance(permission, dict):
        return "[y]es once / [c] always in this chat / [N]o"
    key = permission.get("grantKey")
    if not key:
        return "[y]es once / [N]o"
    covers = describe_key(key)
    choices = [f"[y]es once / [c] in this chat: {covers} / [a] always: the same"]
    if permission.get("prefixes"):
        what = "folder" if permission.get("kind") == "write" else "prefix"
        choices.append(f"[p] a {what} you choose, in this chat")
    return " / ".join([*choices, "[N]o"])


def chosen_grant(details: dict[str, Any], typed: str) -> str | None:
    """The grant key for a prefix or folder typed at the prompt (Enter: the narrowest
    offered); None when it is not a safe prefix or folder for this kind."""
    permission = details.get("permission") or {}
    offered = list(permission.get("prefixes") or [])
    text = typed.strip() or (offered[0] if offered else "")
    return broader_key(str(permission.get("kind", "")), text)
