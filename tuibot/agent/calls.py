"""Tool calls assembled from stream fragments, and their arguments parsed safely.

Providers stream a call as an id and name followed by argument fragments sharing one
``index``; some send the whole call in a single chunk; a few reuse index 0 for parallel
calls with distinct ids. One accumulator handles all three.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from tuibot.llm.parts import ToolCallPart


@dataclass
class PendingCall:
    """A tool call being assembled."""

    id: str
    name: str
    arguments: str = ""


@dataclass
class CallAccumulator:
    """Collects :class:`ToolCallPart` fragments into whole calls, in order."""

    calls: list[PendingCall] = field(default_factory=list)
    _slots: dict[int, PendingCall] = field(default_factory=dict)

    def add(self, part: ToolCallPart) -> None:
        """Fold one fragment in."""
        slot = self._slots.get(part.index)
        if slot is None or (part.id and slot.id and part.id != slot.id):
            slot = PendingCall(id=part.id or "", name=part.name or "")
            self._slots[part.index] = slot
            self.calls.append(slot)
        else:
            if part.id and not slot.id:
                slot.id = part.id
            if part.name and not slot.name:
                slot.name = part.name
        slot.arguments += part.arguments

    def finish(self) -> list[PendingCall]:
        """The calls, each with an id (some servers omit them)."""
        for call in self.calls:
            if not call.id:
                call.id = new_call_id()
        return self.calls


def new_call_id() -> str:
    """A call id unique across rounds and chats (providers reject repeated ids)."""
    return f"call_{uuid.uuid4().hex[:16]}"


def summarize_arguments(arguments: dict[str, Any], limit: int | None = None) -> str:
    """Arguments on one line, every hiding character spelled out, for status lines.

    Whole unless ``limit`` asks for a cut (only where the line is not a request a person
    decides on, e.g. a folded tool row; the approval itself is always shown whole).
    """
    from tuibot.visible import visible

    joined = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())
    text = visible(joined, keep_newlines=False)
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class ParsedArguments:
    """The outcome of reading a call's argument string."""

    value: dict[str, Any] | None
    repaired: bool = False
    error: str | None = None


def parse_arguments(raw: str) -> ParsedArguments:
    """Arguments as an object, repaired when the JSON is malformed; never guessed.

    An empty string means no arguments. Repair (``json_repair``) fixes what small models
    often get wrong — trailing commas, single quotes, a missing brace — but anything that
    still is not a JSON object is an error the model gets back, so no call runs on
    arguments it did not mean.
    """
    text = raw.strip()
    if not text:
        return ParsedArguments({})
    try:
        value = json.loads(text)
        repaired = False
    except ValueError:
        import json_repair

        try:
            value = json_repair.loads(text)
        except Exception:
            value = None
        repaired = True
    if isinstance(value, dict):
        return ParsedArguments(value, repaired)
    shown = text if len(text) <= 200 else text[:200] + "…"
    return ParsedArguments(
        None, repaired, f"the arguments are not a JSON object and could not be repaired: {shown}"
    )
