"""Images and audio a tool returned (an MCP result's blocks), kept in tuibot's own folder.

Why a folder of tuibot's own and a reader of its own: the attachments reader only reads
inside the workspace, and a tool's image is not a file the person chose. It is stored by
content hash under the data folder, and the tool message carries its reference
(:class:`~tuibot.attachments.refs.AttachmentRef`: path, sha256, size, MIME type) built
from the bytes the server sent, never from a path its text names. On each request the
reference is read back only from that one folder (no symlink followed, a regular file,
within its recorded size) and hash-checked by :mod:`tuibot.attachments.request`. Audio
whose bytes are audio by their magic gets a reference too, so it can be transcribed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from tuibot.attachments.reading import TooBig
from tuibot.attachments.refs import AttachmentError, AttachmentRef, Kind, audio_type, sniff
from tuibot.toolkit.beneath import NotRegularFile, SymlinkInPath, open_file

EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif",
              "image/webp": ".webp", "audio/wav": ".wav", "audio/mpeg": ".mp3",
              "audio/ogg": ".ogg", "audio/flac": ".flac"}  # fmt: skip
"""File endings of kept files by the MIME type their bytes show (``.bin`` otherwise)."""


def keep(folder: Path, data: bytes, mime: str, name: str) -> tuple[Path, AttachmentRef | None]:
    """Store ``data`` in ``folder`` by content hash; its path, and a reference when the
    bytes really are an image a vision API takes or audio (``mime``, the server's word,
    is not trusted: the bytes decide, and bytes that are neither are kept as ``.bin``).

    Raises ``OSError`` when it cannot be stored.
    """
    found = _kind_of(data[:16])
    digest = hashlib.sha256(data).hexdigest()
    path = folder / f"{digest[:16]}{EXTENSIONS.get(found[1], '.bin') if found else '.bin'}"
    folder.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_bytes(data)
    if found is None:
        return path, None
    ref: AttachmentRef = {"kind": found[0], "name": name, "path": str(path),
                          "size": len(data), "sha256": digest, "mime": found[1]}  # fmt: skip
    return path, ref


def _kind_of(head: bytes) -> tuple[Kind, str] | None:
    """An image a vision API takes, or audio, by the first bytes alone; None: neither."""
    found = sniff("", head)
    if found is not None and found[0] == "image":
        return found
    mime = audio_type(head)
    return ("audio", mime) if mime else None


def read_kept(folder: Path, ref: AttachmentRef) -> bytes:
    """The bytes of a kept image, read only from ``folder`` itself (not below, not out).

    Raises :class:`AttachmentError` (or :class:`TooBig`) saying why; the caller checks
    the hash.
    """
    name = ref.get("name", "?")
    root = folder.resolve()
    target = Path(ref.get("path", ""))
    if not target.is_absolute() or target.parent != root:
        raise AttachmentError(f"{name} is not in tuibot's kept folder")
    size = int(ref.get("size", 0))
    try:
        with open_file(root, target) as handle:
            data = handle.read(size + 1)
    except FileNotFoundError:
        raise AttachmentError(f"{name} is no longer kept") from None
    except (NotRegularFile, SymlinkInPath, IsADirectoryError, PermissionError) as error:
        raise AttachmentError(f"{name} is not a plain kept file: {error}") from None
    except OSError as error:
        raise AttachmentError(f"{name} cannot be read: {error.strerror or error}") from None
    if len(data) > size:
        raise TooBig(f"{name} has grown since it was kept")
    return data
