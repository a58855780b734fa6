"""Bundled tool: read a text file in pages, numbered like ``cat -n``.

Models cite and edit by line number, so each line carries its number. A page stops at
``limit`` lines or 50 KB of output, whichever comes first, and always ends by saying how
to get the next page, so a large file never floods the context and is never silently cut.
A file whose name looks like it holds secrets (``.env``, ``*.pem``, ``id_rsa``…) is read
only after a person allows it. The file is opened from the workspace's descriptor without following
any symlink, and only when it is a regular file: a pipe or device swapped in mid-call is
refused, not read.
"""

from __future__ import annotations

from typing import Annotated, Any, BinaryIO

from tuibot import Param, resolve_in_workspace, tool
from tuibot.approvals.permissions import Permission
from tuibot.toolkit.permits import secret_read_permission
from tuibot.toolkit.beneath import NotRegularFile, SymlinkInPath, open_file
from tuibot.toolkit.workspace import current_workspace

PAGE_BYTES = 50 * 1024
"""Upper bound on one page of output."""
BINARY_PROBE = 8192
"""How much of the file is checked for NUL bytes."""


def _confirm(arguments: dict[str, Any]) -> Permission | None:
    """Ask before a file that looks like it holds secrets (``tools.secret_files``)."""
    return secret_read_permission("Read", arguments.get("path"))


@tool(confirm=_confirm, timeout=30)
def read_file(
    path: str,
    offset: Annotated[int, Param(ge=0)] = 0,
    limit: Annotated[int, Param(ge=1, le=10000)] = 2000,
) -> str:
    """Read a text file from the workspace, with line numbers.

    Args:
        path: File to read, relative to the workspace (or absolute inside it).
        offset: Number of lines to skip; use the offset given at the end of a
            truncated page to continue.
        limit: Maximum number of lines to return.
    """
    try:
        target = resolve_in_workspace(path)
    except (PermissionError, ValueError) as exc:
        return f"Error: {exc}"
    try:
        with open_file(current_workspace(), target) as handle:
            if b"\0" in handle.read(BINARY_PROBE):
                return (
                    f"Error: '{path}' looks like a binary file (NUL bytes in its first 8 KB); "
                    "read_file only shows text"
                )
            handle.seek(0)
            return _page(handle, offset, limit)
    except IsADirectoryError:
        return f"Error: '{path}' is a directory; use list_dir to see what it contains"
    except NotRegularFile:
        return f"Error: '{path}' is not a regular file (a pipe, socket or device)"
    except SymlinkInPath as exc:
        return f"Error: cannot read {path}: {exc}"
    except FileNotFoundError:
        return f"Error: file not found: {path}"
    except PermissionError:
        return f"Error: permission denied: {path}"
    except OSError as exc:
        return f"Error: cannot read {path}: {exc.strerror or exc}"


def _page(handle: BinaryIO, offset: int, limit: int) -> str:
    """Lines ``offset+1`` onward, at most ``limit`` lines and ``PAGE_BYTES`` of text."""
    shown: list[str] = []
    used = 0
    total = 0
    cut = False
    for raw in handle:
        total += 1
        if total <= offset:
            continue
        if len(shown) >= limit:
            break
        entry = f"{total:>6}\t{_decode(raw, first=total == 1)}\n"
        size = len(entry.encode("utf-8"))
        if used + size > PAGE_BYTES:
            if not shown:  # one line bigger than a page: show its start rather than nothing
                shown.append(_clip(entry, PAGE_BYTES))
            cut = True
            break
        shown.append(entry)
        used += size
    total += _count_rest(handle)
    if total == 0:
        return "(empty file)"
    if offset >= total:
        return f"Error: offset {offset} is past the end of the file ({_lines(total)})"
    last = offset + len(shown)
    body = "".join(shown)
    if last >= total:
        return body.rstrip("\n")
    note = "truncated: " if cut else ""
    return (
        f"{body}[{note}showing lines {offset + 1}-{last} of {total}; "
        f"call read_file with offset={last} to continue]"
    )


def _count_rest(handle: BinaryIO) -> int:
    """Lines left after the current position, counted in chunks (no decoding)."""
    count = 0
    tail = b""
    while chunk := handle.read(1 << 20):
        count += chunk.count(b"\n")
        tail = chunk
    return count + (1 if tail and not tail.endswith(b"\n") else 0)


def _decode(raw: bytes, *, first: bool) -> str:
    """One line as text without its line ending; bad UTF-8 becomes U+FFFD."""
    text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
    return text.removeprefix("\ufeff") if first else text


def _clip(entry: str, limit: int) -> str:
    """The first ``limit`` bytes of ``entry``, on a character boundary, marked as cut."""
    clipped = entry.encode("utf-8")[:limit].decode("utf-8", errors="ignore")
    return f"{clipped}… [line cut at {limit // 1024} KB]\n"


def _lines(n: int) -> str:
    return "1 line" if n == 1 else f"{n} lines"
