"""Reading an attached file under the file tools' workspace rules, within a size cap.

The same guards as ``read_file`` (reused, not re-implemented): the path is resolved and
refused outside the workspace (``..``, absolute paths elsewhere, a symlink that leads
out), then opened from the workspace's descriptor with no symlink followed and only when
it is a regular file, so a FIFO or device is refused and a swap mid-call cannot lead out.
A file bigger than the cap is refused whole: a cut file would mislead the model.
"""

from __future__ import annotations

from pathlib import Path

from tuibot.attachments.refs import AttachmentError
from tuibot.toolkit.beneath import NotRegularFile, SymlinkInPath, open_file
from tuibot.toolkit.workspace import current_workspace, resolve_in_workspace


def read_below(raw: str, max_bytes: int) -> tuple[Path, bytes]:
    """The real path and the bytes of the file ``raw`` in the current workspace.

    Raises :class:`AttachmentError` naming the path and the reason.
    """
    try:
        target = resolve_in_workspace(raw, must_exist=True)
    except (OSError, ValueError) as exc:
        raise AttachmentError(f"cannot attach {raw}: {exc}") from None
    try:
        with open_file(current_workspace(), target) as handle:
            data = handle.read(max_bytes + 1)
    except IsADirectoryError:
        raise AttachmentError(f"cannot attach {raw}: it is a folder, not a file") from None
    except NotRegularFile:
        raise AttachmentError(
            f"cannot attach {raw}: not a regular file (a pipe, socket or device)"
        ) from None
    except SymlinkInPath as exc:
        raise AttachmentError(f"cannot attach {raw}: {exc}") from None
    except FileNotFoundError:
        raise AttachmentError(f"cannot attach {raw}: no such file") from None
    except OSError as exc:
        raise AttachmentError(f"cannot attach {raw}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise too_big(raw, max_bytes, "attachments.max_*_bytes")
    return target, data


class TooBig(AttachmentError):
    """The file is over its size cap."""


def too_big(raw: str, cap: int, key: str) -> TooBig:
    """The refusal of a file over its cap, naming the setting that raises it."""
    return TooBig(f"cannot attach {raw}: it is larger than {_size(cap)} ({key})")


def _size(count: int) -> str:
    """A byte count as people read it."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.3g} {unit}"
    return f"{count} bytes"
