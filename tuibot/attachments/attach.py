"""Attaching the files a message mentions, when it is sent: read, checked, referenced.

Why here and not in the front ends: the TUI's ``@path`` and ``ask --attach`` must follow
one set of rules, the bot's own workspace decides what may be read, and a secret-looking
file needs a person's yes through the same approval queue (and the same
``read-secret:PATH`` grant) as the ``read_file`` tool. Every refusal is an
:class:`AttachmentError` raised before anything is stored, so the message can be sent
again once fixed.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from tuibot.approvals.permissions import Permission
from tuibot.attachments.mentions import Mention, find_mentions
from tuibot.attachments.reading import read_below, too_big
from tuibot.attachments.refs import AttachmentError, AttachmentRef, Kind, sniff
from tuibot.attachments.transcribe import NOT_SET_UP, Transcribe
from tuibot.settings.attach import AttachmentSettings
from tuibot.system.secrets import redact
from tuibot.toolkit.permits import secret_read_permission
from tuibot.toolkit.scope import ToolScope, use_scope

Approve = Callable[[Permission], Awaitable[tuple[bool, str]]]
"""Ask a person about a permission; ``(allowed, reason)``."""


@dataclass(frozen=True)
class AttachRules:
    """What attaching depends on: where, how big, which model, who approves, who transcribes."""

    scope: ToolScope
    """The bot's tool scope: its workspace and secret-file patterns."""
    limits: AttachmentSettings
    vision: bool
    """Whether the model this message goes to takes images."""
    model: str
    """The model, named in refusals."""
    approve: Approve
    transcribe: Transcribe | None = None
    sees: Callable[[], Awaitable[bool]] | None = None
    """Asked when an image is attached and ``vision`` is false: whether the model takes
    images after all (what its server says); None: ``vision`` decides."""


@dataclass
class Attached:
    """The references to store on the message, and notes for the person."""

    refs: list[AttachmentRef] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


async def attach_mentioned(text: str, rules: AttachRules) -> Attached:
    """Read every file ``text`` mentions; raises :class:`AttachmentError` on any refusal."""
    root = str(rules.scope.workspace)
    found = find_mentions(text, lambda path: _exists(root, path))
    notes = [f"@{word} names no file; it was sent as text" for word in found.missing]
    attached = Attached(notes=notes)
    seen: set[str] = set()
    for mention in found.mentions:
        ref = await _attach_one(mention, rules)
        if ref.get("path") not in seen:
            seen.add(ref.get("path", ""))
            attached.refs.append(ref)
    return attached


def _exists(root: str, path: str) -> bool:
    """Whether ``path`` names anything (a dangling symlink too), relative to ``root``."""
    expanded = os.path.expanduser(path)
    return os.path.lexists(os.path.join(root, expanded)) if "\0" not in expanded else False


async def _attach_one(mention: Mention, rules: AttachRules) -> AttachmentRef:
    """One file: asked about when secret-looking, read under the guards, then by kind."""
    raw = mention.path
    limits = rules.limits
    cap = max(limits.max_text_bytes, limits.max_image_bytes, limits.max_audio_bytes)
    with use_scope(rules.scope):
        target, data = await asyncio.to_thread(read_below, raw, cap)
        # asked about the file whose bytes are held: a swap after the question cannot
        # slip another file past it (nothing is sent before the answer)
        permission = secret_read_permission("Attach", str(target))
    if permission is not None:
        allowed, reason = await rules.approve(permission)
        if not allowed:
            raise AttachmentError(f"cannot attach {raw}: reading it was denied ({reason})")
    kind_mime = sniff(raw, data)
    if kind_mime is None:
        raise AttachmentError(
            f"cannot attach {raw}: it looks like a binary file (NUL bytes) and is no image "
            "or audio tuibot knows; only text, images and audio can be attached"
        )
    kind, mime = kind_mime
    _check_size(raw, kind, len(data), rules.limits)
    ref: AttachmentRef = {
        "kind": kind,
        "name": raw,
        "path": str(target),
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "mime": mime,
    }
    if kind == "text":
        ref["text"] = redact(data.decode("utf-8", errors="replace").removeprefix("\ufeff"))
    elif kind == "image" and not (rules.vision or (rules.sees is not None and await rules.sees())):
        raise AttachmentError(
            f"cannot attach {raw}: model '{rules.model}' takes no images; set vision = true "
            "(or vision_models) on its provider if it does, or pick a vision model"
        )
    elif kind == "audio":
        if rules.transcribe is None:
            raise AttachmentError(f"cannot attach {raw}: {NOT_SET_UP}")
        ref["text"] = redact(await rules.transcribe(os.path.basename(raw), data, mime))
    return ref


def _check_size(raw: str, kind: Kind, size: int, limits: AttachmentSettings) -> None:
    """Refuse a file over the cap of its kind."""
    caps = {
        "text": (limits.max_text_bytes, "attachments.max_text_bytes"),
        "image": (limits.max_image_bytes, "attachments.max_image_bytes"),
        "audio": (limits.max_audio_bytes, "attachments.max_audio_bytes"),
    }
    cap, key = caps[kind]
    if size > cap:
        raise too_big(raw, cap, key)
