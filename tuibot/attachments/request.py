"""Attachments as the model receives them, built afresh for every request.

Why at request time rather than in the chat file: the stored user message keeps what the
person typed plus references (:mod:`tuibot.attachments.refs`), so the chat stays small and
readable, and each provider gets the shape it speaks. Two steps:

1. :func:`content_with` (called by ``sanitize``) puts text files and transcripts into the
   message as fenced blocks, and leaves each image as a placeholder part
   ``{"type": "tuibot_image", "ref": …}``: pure, no file is read.
2. :func:`resolve_images` (called just before the request goes out) re-reads each image
   below the workspace, checks its sha256 and turns it into an OpenAI ``image_url`` part
   with a ``data:`` URI; an image that changed, is gone, or goes to a model that takes no
   images becomes a one-line note to the model instead, so a replayed chat never fails.

A tool message's images (an MCP result's, kept by :mod:`tuibot.attachments.kept`) are
read from tuibot's kept folder only and sent in a user message after the tool results.
A provider that does not speak OpenAI's parts (Ollama's native ``/api/chat`` takes
``images`` on the message) calls :func:`split_images` on the resolved content.
"""

from __future__ import annotations

import base64
import fnmatch
import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tuibot.attachments.kept import read_kept
from tuibot.attachments.reading import TooBig, read_below
from tuibot.attachments.refs import AttachmentError, AttachmentRef
from tuibot.toolkit.workspace import use_workspace

PLACEHOLDER = "tuibot_image"
"""The part type ``sanitize`` leaves for an image; never sent."""
TOOL_IMAGES = "tuibot_tool_images"
"""The key ``sanitize`` puts a tool message's kept image references under; never sent."""


def takes_images(vision: bool, patterns: Sequence[str], model: str) -> bool:
    """Whether ``model`` takes images: the provider says all do, or a pattern names it."""
    name = model.casefold()
    return vision or any(fnmatch.fnmatchcase(name, p.casefold()) for p in patterns)


def content_with(text: str, refs: Sequence[AttachmentRef]) -> str | list[dict[str, Any]]:
    """The user's text with text attachments and transcripts appended as fenced blocks.

    With images, a list: one text part, then a placeholder part per image.
    """
    blocks = [text] if text.strip() else []
    images: list[dict[str, Any]] = []
    for ref in refs:
        if ref["kind"] == "image":
            images.append({"type": PLACEHOLDER, "ref": dict(ref)})
        elif ref["kind"] == "audio":
            blocks.append(_fenced(f"Transcript of the attached audio {ref['name']}:", ref))
        else:
            blocks.append(_fenced(f"Attached file {ref['name']}:", ref))
    joined = "\n\n".join(blocks)
    if not images:
        return joined
    return [{"type": "text", "text": joined or "(attached images)"}, *images]


def _fenced(title: str, ref: AttachmentRef) -> str:
    """An attachment's text under ``title`` (a text file's fence names its language)."""
    language = Path(ref["name"]).suffix.lstrip(".") if ref["kind"] == "text" else ""
    return fenced(title, ref.get("text", ""), language)


def fenced(title: str, text: str, language: str = "") -> str:
    """``title`` and ``text`` in a fence longer than any backtick run inside it."""
    body = text.rstrip("\n")
    fence = "`" * max(3, _longest_run(body) + 1)
    return f"{title}\n{fence}{language}\n{body}\n{fence}"


def _longest_run(text: str) -> int:
    """The longest run of backticks in ``text``."""
    best = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        best = max(best, run)
    return best


def resolve_images(
    messages: list[dict[str, Any]],
    workspace: Path,
    vision: bool,
    model: str,
    kept: Path | None = None,
) -> list[dict[str, Any]]:
    """``messages`` with every image placeholder made an ``image_url`` part or a note.

    A tool message's kept images (read only from ``kept``) cannot go on the tool message
    (the chat-completions schema takes text there), so they follow the run of tool
    results as one user message; notes go into the tool's text.
    """
    resolved: list[dict[str, Any]] = []
    shown: list[dict[str, Any]] = []
    with use_workspace(workspace):
        for message in messages:
            if shown and message.get("role") != "tool":
                resolved.append(_shown_message(shown))
                shown = []
            content = message.get("content")
            if TOOL_IMAGES in message:
                message, images = _tool_images(message, vision, model, kept)
                shown.extend(images)
            elif isinstance(content, list) and any(_is_placeholder(p) for p in content):
                parts = [_part(p, vision, model, _from_workspace) for p in content]
                message = {**message, "content": _merged(parts)}
            resolved.append(message)
    return resolved + ([_shown_message(shown)] if shown else [])


def has_images(messages: Sequence[dict[str, Any]]) -> bool:
    """Whether any message carries an image (a placeholder part or a tool's kept image)."""
    return any(
        TOOL_IMAGES in m
        or (isinstance(m.get("content"), list) and any(_is_placeholder(p) for p in m["content"]))
        for m in messages
    )


def _tool_images(
    message: dict[str, Any], vision: bool, model: str, kept: Path | None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The tool message without its references (notes added), and the images to show."""
    message = dict(message)
    refs = [r for r in message.pop(TOOL_IMAGES) or () if r.get("kind") == "image"]

    def read(ref: AttachmentRef) -> bytes:
        if kept is None:
            raise AttachmentError("tuibot's kept folder is not known here")
        return read_kept(kept, ref)

    parts = [_part({"type": PLACEHOLDER, "ref": ref}, vision, model, read) for ref in refs]
    notes = [str(p["text"]) for p in parts if p.get("type") == "text"]
    if notes:
        message["content"] = "\n\n".join([str(message.get("content") or ""), *notes])
    images = [p for p in parts if p.get("type") == "image_url"]
    if images:
        label = f"[tuibot: the images {message.get('name', 'a tool')} returned above]"
        images.insert(0, {"type": "text", "text": label})
    return message, images


def _shown_message(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The user message that carries tool results' images (their labels, then images)."""
    return {"role": "user", "content": parts}


def _from_workspace(ref: AttachmentRef) -> bytes:
    """A person's attachment, read again under the workspace guards."""
    return read_below(ref.get("path", ""), int(ref.get("size", 0)))[1]


def _is_placeholder(part: object) -> bool:
    return isinstance(part, dict) and part.get("type") == PLACEHOLDER


def _part(
    part: dict[str, Any], vision: bool, model: str, read: Callable[[AttachmentRef], bytes]
) -> dict[str, Any]:
    """One part as sent: images read (by ``read``, under its guards) and hash-checked."""
    if not _is_placeholder(part):
        return part
    ref: AttachmentRef = part["ref"]
    name = ref.get("name", "?")
    if not vision:
        return _note(f"the image {name} is not shown: model '{model}' takes no images")
    changed = f"the image {name} has changed since it was attached; it is not shown"
    try:
        data = read(ref)
    except TooBig:
        return _note(changed)
    except AttachmentError as error:
        return _note(f"the image {name} attached earlier cannot be shown: {error}")
    if hashlib.sha256(data).hexdigest() != ref.get("sha256"):
        return _note(changed)
    uri = f"data:{ref.get('mime', 'image/png')};base64,{base64.b64encode(data).decode()}"
    return {"type": "image_url", "image_url": {"url": uri}}


def _note(text: str) -> dict[str, Any]:
    return {"type": "text", "text": f"[tuibot: {text}]"}


def _merged(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """Plain text when no image is left (servers without vision may refuse parts)."""
    if any(p.get("type") != "text" for p in parts):
        return parts
    return "\n\n".join(str(p.get("text", "")) for p in parts)


def split_images(content: object) -> tuple[str, list[str]]:
    """Resolved content as Ollama's native API wants it: the text, and base64 images."""
    if isinstance(content, str):
        return content, []
    texts: list[str] = []
    images: list[str] = []
    for part in content if isinstance(content, list) else ():
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text":
            texts.append(str(part.get("text", "")))
        elif part.get("type") == "image_url":
            url = str((part.get("image_url") or {}).get("url", ""))
            images.append(url.partition(";base64,")[2])
    return "\n\n".join(texts), images
