"""How an approval request reads: exactly what would happen, in words and plain values.

Kept apart from the pane so the wording can be tested (and reused) without a screen.
What is approved must read as what runs: strings are shown verbatim with control and
direction characters spelled out, long values are cut with the cut counted, and usage is
put next to the limit it is measured against.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from textual.content import Content

from tuibot.approvals.permissions import SUBJECT_LABELS, describe_key, unshown_arguments
from tuibot.system.masking import mask_value
from tuibot.visible import hidden_warning, visible

if TYPE_CHECKING:
    from tuibot.engine.view import PendingApproval

VALUE_LIMIT = 8000
"""Characters of one argument that is not what the request decides on (a file's content)
shown; the rest is counted. The command, path, URL, headers and body are shown whole."""
KIND_TITLES = {
    "tool": "Run a tool",
    "delegations.authorize": "First work for another bot",
    "delegations.continue": "Delegated work paused",
    "delegations.tree_limit": "A chat's work reached its bound",
}


def _shown(value: Any, *, whole: bool = False) -> str:
    """A value as the person should read it: strings verbatim, the rest as JSON."""
    text = (
        value
        if isinstance(value, str)
        else json.dumps(value, ensure_ascii=False, indent=2, default=str)
    )
    text = visible(text)
    if not whole and len(text) > VALUE_LIMIT:
        text = f"{text[:VALUE_LIMIT]}\n… {len(text) - VALUE_LIMIT:,} more characters not shown"
    return text


def _field(label: str, value: Any, *, whole: bool = False) -> Content:
    """``label: value``, a multi-line value indented under its label."""
    text = _shown(value, whole=whole)
    if "\n" in text:
        text = "\n" + "\n".join(f"  {line}" for line in text.splitlines())
    return Content.assemble((f"{visible(label)}: ", "bold"), text)


def _seconds(ms: int) -> str:
    seconds = ms / 1000
    if seconds < 120:
        return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _usd(micros: int) -> str:
    return f"${micros / 1_000_000:.4f}"


def usage_line(usage: dict[str, Any], limits: dict[str, Any]) -> str:
    """``time 12 s / 60 s · steps 10 / 10 · cost $0.0012 / $0.5000``."""
    parts = []
    for name, used_key, limit_key, unit in (
        ("time", "timeMs", "timeMs", _seconds),
        ("steps", "steps", "steps", str),
        ("cost", "costMicros", "budgetMicros", _usd),
    ):
        used, limit = usage.get(used_key), limits.get(limit_key)
        if used is None and limit is None:
            continue
        shown = unit(used) if isinstance(used, int) else "?"
        parts.append(f"{name} {shown} / {unit(limit) if isinstance(limit, int) else '∞'}")
    return " · ".join(parts) or "none"


def limits_line(limits: dict[str, Any]) -> str:
    """``time 60 s · steps 10 · budget $0.5000`` (only the limits set)."""
    parts = []
    if isinstance(limits.get("timeMs"), int):
        parts.append(f"time {_seconds(limits['timeMs'])}")
    if isinstance(limits.get("steps"), int):
        parts.append(f"steps {limits['steps']}")
    if isinstance(limits.get("budgetMicros"), int):
        parts.append(f"budget {_usd(limits['budgetMicros'])}")
    return " · ".join(parts) or "none"


def _prompt_text(prompt: str, arguments: Any) -> str:
    """The tool's question without the lines that only repeat an argument shown below."""
    values = arguments.values() if isinstance(arguments, dict) else ()
    repeated = {line.strip() for v in values if isinstance(v, str) for line in v.splitlines()}
    kept = [line for line in prompt.strip().splitlines() if line.strip() not in repeated]
    return "\n".join(kept).strip()


def _tool_lines(details: dict[str, Any]) -> list[Content]:
    bot = details.get("bot") or "A bot"
    tool = visible(str(details.get("tool", "?")))
    lines = [Content.assemble((visible(str(bot)), "bold"), " wants to run ", (tool, "bold"))]
    if details.get("task_chat"):
        lines.append(Content(f"in its task chat {details['task_chat']}"))
    permission = details.get("permission") or {}
    arguments = details.get("arguments")
    prompt = _prompt_text(str(details.get("prompt") or ""), arguments)
    if prompt:
        lines.append(Content(visible(prompt)))
    if permission.get("hidden"):
        warning = hidden_warning(list(permission["hidden"]))
        lines.append(Content.styled(f"⚠ {warning[0].upper()}{warning[1:]}", "bold $text-error"))
    subject = permission.get("subject")
    if subject and permission.get("kind") not in (None, "tool"):
        label = SUBJECT_LABELS.get(permission["kind"], "subject")
        lines.append(_field(label[0].upper() + label[1:], subject, whole=True))
        for name, value in permission.get("fields") or []:
            lines.append(_field(str(name), value, whole=True))
    if isinstance(arguments, dict):  # those shown above (command, path, URL) are not repeated
        rest = unshown_arguments(arguments, permission)
        if rest:
            lines.append(Content.styled("Arguments", "bold underline"))
            lines.extend(_field(str(key), value, whole=True) for key, value in rest.items())
        elif not arguments:
            lines.append(Content.styled("(no arguments)", "dim"))
    elif arguments is not None:
        lines.append(_field("Arguments", arguments))
    else:
        lines.append(Content.styled("(no arguments)", "dim"))
    lines.append(_grant_line(permission))
    return lines


def _grant_line(permission: dict[str, Any]) -> Content:
    """What ``c`` and ``a`` would keep (or why they keep nothing)."""
    key = permission.get("grantKey")
    if not permission:
        return Content.styled("c / a keep a grant for every call of this tool", "dim")
    if not key:
        why = permission.get("whyOnce") or "it cannot be kept as a grant"
        return Content.styled(f"Can only be allowed once: {why}", "bold $text-warning")
    text = f"c (this chat) / a (always) would allow {describe_key(key)}"
    if permission.get("prefixes"):
        what = "a folder" if permission.get("kind") == "write" else "a command prefix"
        text += f"; p allows {what} you choose, in this chat"
    return Content.styled(visible(text), "dim")


def _authorize_lines(details: dict[str, Any]) -> list[Content]:
    giver, bot = visible(str(details.get("giver", "?"))), visible(str(details.get("bot", "?")))
    return [
        Content.assemble((giver, "bold"), " → ", (bot, "bold"), " (first work for this bot)"),
        _field("Task", details.get("task", "")),
        _field("Reason", details.get("reason") or "(none given)"),
        _field("Limits", limits_line(details.get("limits") or {})),
        Content.styled(f"delegation {details.get('delegation', '?')}", "dim"),
    ]


def _continue_lines(details: dict[str, Any]) -> list[Content]:
    bot, limit = visible(str(details.get("bot", "?"))), str(details.get("limit", "?"))
    what = {
        "loop": "keeps repeating the same tool call (loop guard)",
        "restart": "was running when tuibot stopped; continue it?",
    }.get(limit, f"reached its {limit} limit")
    usage = details.get("used") or details.get("usage") or {}
    return [
        Content.assemble((bot, "bold"), f"'s work {what}"),
        _field("Used", usage_line(usage, details.get("limits") or {})),
        _field("Task", details.get("task", "")),
        Content("Allow restarts its limits from now; deny stops it and the work below it."),
        Content.styled(f"delegation {details.get('delegation', '?')}", "dim"),
    ]


def describe(request: PendingApproval) -> Content:
    """Everything the person needs to decide ``request``, as display text."""
    details = mask_value(request.details)  # a known key is never shown, as in the chat
    if request.kind == "tool":
        lines = _tool_lines(details)
    elif request.kind == "delegations.authorize":
        lines = _authorize_lines(details)
    elif request.kind == "delegations.continue":
        lines = _continue_lines(details)
    else:
        lines = [Content(visible(request.summary)), _field("Details", details)]
    return Content("\n").join(lines)


def time_left(deadline: float, now: float) -> str:
    """``4:05 left``, ``45 s left``, ``timing out``."""
    left = int(deadline - now + 0.999)
    if left <= 0:
        return "timing out"
    if left < 60:
        return f"{left} s left"
    if left < 3600:
        return f"{left // 60}:{left % 60:02d} left"
    return f"{left // 3600} h {left % 3600 // 60:02d} min left"
