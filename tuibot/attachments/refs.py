"""What the chat file keeps of an attachment, and how a file's kind is told.

An image is kept by reference (its real path, sha256, size and MIME type), never as
base64: a chat file must stay small enough to load and search, and the image is re-read
on each request (see :mod:`tuibot.attachments.request`). A text file and an audio
transcript are kept whole (``text``), because what the model read must survive the file
changing later. The kind comes from the bytes for images (a ``.png`` that is really text
is text) and from the name for audio, whose containers are too many to sniff well.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Literal, Required, TypedDict

Kind = Literal["text", "image", "audio"]

IMAGE_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
    (b"WEBP", 8, "image/webp"),
)
"""Signature, offset and MIME type of the image formats vision APIs accept."""
AUDIO_TYPES = {
    ".ogg": "audio/ogg",
    ".oga": "audio/ogg",
    ".opus": "audio/ogg",
    ".wav": "audio/wav",
    ".mp3": "audio/mpeg",
    ".m4a": "audio/mp4",
    ".flac": "audio/flac",
    ".webm": "audio/webm",
}
"""Audio file extensions the transcription endpoint takes, with their MIME types."""
AUDIO_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"WAVE", 8, "audio/wav"),  # after "RIFF" and the chunk size
    (b"OggS", 0, "audio/ogg"),
    (b"ID3", 0, "audio/mpeg"),
    (b"fLaC", 0, "audio/flac"),
)
"""Signature, offset and MIME type of the audio a tool's bytes are trusted to be."""
BINARY_PROBE = 8192
"""How much of a file is checked for NUL bytes (as ``read_file`` does)."""


class AttachmentError(Exception):
    """An attachment was refused; the message says which file and why, and what to do."""


class AttachmentRef(TypedDict, total=False):
    """One attachment on a stored user message (``ChatMessage["attachments"]``)."""

    kind: Required[Kind]
    name: Required[str]
    """The path as the person wrote it, for people and the model."""
    path: str
    """The real absolute path it was read from."""
    size: int
    sha256: str
    mime: str
    text: str
    """Text files: the content as sent; audio: the transcript."""


def audio_type(head: bytes) -> str | None:
    """The MIME type of audio told by its first bytes (a tool's result has no file name
    to go by): WAV, Ogg, FLAC, MP3 with an ID3 tag or starting on a layer III frame."""
    for magic, offset, mime in AUDIO_MAGIC:
        if head[offset : offset + len(magic)] == magic and (offset == 0 or head[:4] == b"RIFF"):
            return mime
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE6 == 0xE2:  # sync, layer III
        return "audio/mpeg"
    return None


def sniff(name: str, head: bytes) -> tuple[Kind, str] | None:
    """The kind and MIME type of a file from its name and first bytes; None: binary."""
    for magic, offset, mime in IMAGE_MAGIC:
        if head[offset : offset + len(magic)] == magic and (offset == 0 or head[:4] == b"RIFF"):
            return "image", mime
    suffix = PurePath(name).suffix.lower()
    if suffix in AUDIO_TYPES:
        return "audio", AUDIO_TYPES[suffix]
    if b"\0" in head[:BINARY_PROBE]:
        return None
    return "text", "text/plain"
