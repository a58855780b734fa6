"""Tool calls assembled from stream fragments, and their arguments parsed safely.

Providers stream a call as an id and name followed by argument fragments sharing one
``index``; some send the whole call in a single chunk; a few reuse index 0 for parallel
calls with distinct ids, or even one id for every call. One accumulator handles them all
and gives each call an id no other call of the chat has.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from tuibot.agent.json_cut import unterminated
from tuibot.llm.parts import ToolCallPart

CUT_ARGUMENTS = (
    "the arguments were cut off (they end inside an unterminated {kind}), so the call did "
    "not run. Send the call again with complete arguments; if they are long, split the work "
    "into smaller calls."
)


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
        if slot is None or _starts_another(slot, part):
            slot = PendingCall(id=part.id or "", name=part.name or "")
            self._slots[part.index] = slot
            self.calls.append(slot)
        else:
            if part.id and not slot.id:
                slot.id = part.id
            if part.name and not slot.name:
                slot.name = part.name
        slot.arguments += part.arguments

    def finish(self, taken: Collection[str] = ()) -> list[PendingCall]:
        """The calls, each with an id of its own.

        Some servers omit ids, some repeat one within an answer or reuse one from an
        earlier round (``taken``); a result is paired with its call by id, so every call
        that would share one gets a fresh id.
        """
        used = set(taken)
        for call in self.calls:
            if not call.id or call.id in used:
                call.id = new_call_id()
            used.add(call.id)
        return self.calls


def _starts_another(slot: PendingCall, part: ToolCallPart) -> bool:
    """Whether a fragment at a used index is a new call rather than more of the old one.

    A different id says so; so does a name arriving for a call whose name and complete
    arguments are already in (servers that send each whole call at index 0, one id).
    """
    if part.id and slot.id and part.id != slot.id:
        return True
    return bool(part.name and slot.name and _is_json(slot.arguments))


def _is_json(text: str) -> bool:
    """Whether ``text`` is one complete JSON value."""
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


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
    cut: bool = False
    """The text ended inside a string, array or object: the call was cut off."""

    @property
    def replay(self) -> str:
        """The arguments as stored and sent back: the canonical JSON that ran, else ``{}``.

        Servers parse every replayed call (vLLM ``json.loads`` them), so one malformed
        string in the history would make every later request of the chat fail.
        """
        return json.dumps(self.value if self.value is not None else {}, ensure_ascii=False)


def parse_arguments(raw: str) -> ParsedArguments:
    """Arguments as an object, repaired when the JSON is malformed; never guessed.

    An empty string means no arguments. Repair (``json_repair``) fixes what small models
    often get wrong — trailing commas, single quotes, unquoted keys, Python literals — but
    a text that ends inside a string, array or object was cut off, and closing it would run
    the call on part of its arguments, so it is refused. Anything that still is not a JSON
    object is an error the model gets back, so no call runs on arguments it did not mean.
    """
    text = raw.strip()
    if not text:
        return ParsedArguments({})
    try:
        value = json.loads(text)
        repaired = False
    except ValueError:
        if (kind := unterminated(text)) is not None:
            return ParsedArguments(None, False, CUT_ARGUMENTS.format(kind=kind), cut=True)
        value, repaired = _repair(text), True
    if isinstance(value, dict):
        return ParsedArguments(value, repaired)
    shown = text if len(text) <= 200 else text[:200] + "…"
    return ParsedArguments(
        None, repaired, f"the arguments are not a JSON object and could not be repaired: {shown}"
    )


def _repair(text: str) -> Any:
    """``json_repair``'s reading of a malformed text, None when it gives up."""
    import json_repair

    try:
        return json_repair.loads(text)
    except Exception:
        return None
