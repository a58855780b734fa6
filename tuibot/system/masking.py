"""Secrets masked in what a front end prints, the same way the stored chat masks them.

The engine masks known secrets (:func:`tuibot.system.secrets.redact`) in what it writes to the
chat file and the trace log, but its events carry the raw text: a model that echoes the
API key (in its answer, in tool-call arguments, in an approval's summary) would have
``ask`` print it. :class:`Masked` wraps a listener so it only ever sees masked events.

Two costs are kept off the hot path: with no secret known, every event passes through
untouched; with one known, a text or reasoning delta is masked as a string (never a JSON
round trip). A secret split across deltas is caught by :class:`StreamMask`, which holds
back the end of the stream while it could be the start of a secret — at most one
secret's length less one, released by the next delta that rules it out or by the next
other event of the chat (the turn's end at the latest). So what is guaranteed: a known
secret never reaches the wrapped listener, whole or split across deltas, and no delta
shows a prefix of it that is followed by the rest.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any, TypeVar

from tuibot.events import Event, Listener, ReasoningDelta, TextDelta
from tuibot.system import secrets
from tuibot.system.secrets import known_secrets, redact

E = TypeVar("E", bound=Event)
Delta = TextDelta | ReasoningDelta


def _pending(text: str, secrets: tuple[str, ...]) -> int:
    """How many characters at the end of ``text`` could begin one of ``secrets``."""
    keep = 0
    for secret in secrets:
        i = text.find(secret[0], max(0, len(text) - len(secret) + 1))
        while i != -1 and len(text) - i > keep:
            if secret.startswith(text[i:]):
                keep = len(text) - i  # the earliest start is the longest for this secret
                break
            i = text.find(secret[0], i + 1)
    return keep


class StreamMask:
    """Masks known secrets in a stream of pieces of text, also one split across pieces."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        """What of the stream may be shown now that ``piece`` arrived (may be "")."""
        text = self._held + piece
        secrets = known_secrets()
        if not secrets:
            self._held = ""
            return text
        text = redact(text)
        keep = _pending(text, secrets)
        self._held = text[len(text) - keep :] if keep else ""
        return text[: len(text) - keep]

    def flush(self) -> str:
        """The end held back: the stream ended (or paused) here, so it is not a secret."""
        held, self._held = self._held, ""
        return held


def mask_value(value: Any) -> Any:
    """``value`` with known secrets masked in every string inside; the same object when
    nothing changed (so unchanged events are not copied)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        items = [(mask_value(k), mask_value(v)) for k, v in value.items()]
        pairs = zip(items, value.items(), strict=True)
        same = all(k is k0 and v is v0 for (k, v), (k0, v0) in pairs)
        return value if same else dict(items)
    if isinstance(value, list | tuple):
        masked = [mask_value(v) for v in value]
        if all(m is v for m, v in zip(masked, value, strict=True)):
            return value
        return masked if isinstance(value, list) else tuple(masked)
    return value


def mask_event(event: E) -> E:
    """``event`` with known secrets masked in every field (itself when there are none)."""
    if not known_secrets():
        return event
    changes = {}
    for spec in fields(event):
        value = getattr(event, spec.name)
        masked = mask_value(value)
        if masked is not value:
            changes[spec.name] = masked
    return replace(event, **changes) if changes else event


class Masked:
    """A listener that passes every event on to ``listener`` with known secrets masked."""

    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self._streams: dict[tuple[type, str, str], tuple[StreamMask, Delta]] = {}
        """Per delta type, chat and turn: the stream's mask and its last delta."""

    def __call__(self, event: Event) -> None:
        if not self._streams and not secrets._longest_first:
            self.listener(event)  # nothing to mask: no copy, no buffer, no scan
        elif isinstance(event, TextDelta | ReasoningDelta):
            self._delta(event)
        else:
            self._flush(event.chat)
            self.listener(mask_event(event))

    def _delta(self, event: Delta) -> None:
        key = (type(event), event.chat, event.turn)
        found = self._streams.get(key)
        stream = found[0] if found is not None else StreamMask()
        self._streams[key] = (stream, event)
        shown = stream.feed(event.delta)
        if shown == event.delta:
            self.listener(event)  # the usual case: nothing held, nothing masked
        elif shown:
            self.listener(type(event)(event.chat, event.turn, shown))

    def _flush(self, chat: str) -> None:
        """Show what the chat's streams held back: something else happens in it now."""
        for key in [k for k in self._streams if k[1] == chat]:
            stream, last = self._streams.pop(key)
            held = stream.flush()
            if held:
                self.listener(type(last)(last.chat, last.turn, held))
