"""The file tools' guard: every path a tool touches must stay inside the workspace.

The workspace root lives in a context variable rather than a global because one process
runs many chats at once, each possibly with its own folder; the engine sets it around a
turn with ``use_workspace`` and ``asyncio.to_thread`` carries it into sync tools. Paths
are resolved the way the OS will resolve them (``~``, ``..``, symlinks) *before* the
check, so a symlink or a dotted path cannot walk out.

Resolving by name is only the check: another process may swap a folder for a symlink
right after it. So the tools never open the resolved path by name; they open it with
``tuibot.toolkit.beneath``, from the workspace's descriptor with no-follow on every
component, which refuses whatever was swapped in. In-workspace symlinks keep working
because the path handed over is already the real one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path, PurePosixPath

_workspace: ContextVar[Path | None] = ContextVar("tuibot_workspace", default=None)


@contextmanager
def use_workspace(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Make ``path`` the workspace for the code inside the ``with`` block (and its tasks)."""
    root = Path(os.path.realpath(Path(path).expanduser()))
    token = _workspace.set(root)
    try:
        yield root
    finally:
        _workspace.reset(token)


def current_workspace() -> Path:
    """The workspace root in effect: the one set by ``use_workspace``, else the cwd."""
    root = _workspace.get()
    return root if root is not None else Path(os.path.realpath(Path.cwd()))


def resolve_in_workspace(raw: str, *, must_exist: bool = False) -> Path:
    """The real absolute path for ``raw``, refused when it lies outside the workspace.

    Relative paths count from the workspace; ``~`` is expanded; symlinks are followed
    (a dangling one by its target). Open the result with ``tuibot.toolkit.beneath``
    (never by name), so a swap after this check cannot lead outside. Raises
    ``ValueError`` for an empty path or a NUL byte, ``PermissionError`` for anything
    outside, and ``FileNotFoundError`` when ``must_exist`` and nothing is there.
    Messages name the path and the reason.
    """
    if not isinstance(raw, str | os.PathLike):
        raise ValueError(f"path must be a string, got {type(raw).__name__}")
    text = os.fspath(raw)
    if not isinstance(text, str):
        raise ValueError("path must be text, not bytes")
    if "\0" in text:
        raise ValueError(f"path {text!r} contains a NUL byte")
    if not text.strip():
        raise ValueError("path is empty")
    root = current_workspace()
    candidate = Path(os.path.expanduser(text))
    if not candidate.is_absolute():
        candidate = root / candidate
    lexical = Path(os.path.normpath(candidate))
    try:
        resolved = Path(os.path.realpath(candidate))
    except OSError:  # a part was swapped between realpath's lstat and readlink
        raise PermissionError(
            f"path '{text}' changed while it was resolved (a folder or symlink was swapped); "
            "try again"
        ) from None
    if not resolved.is_relative_to(root):
        raise PermissionError(_outside_message(text, root, lexical, resolved))
    if must_exist and not os.path.lexists(resolved):
        raise FileNotFoundError(f"path '{text}' does not exist")
    return resolved


def _outside_message(text: str, root: Path, lexical: Path, resolved: Path) -> str:
    """Why a path is refused: it points outside, or a symlink inside leads outside."""
    if lexical.is_relative_to(root):
        return f"path '{text}' is outside the workspace {root} (a symlink leads to {resolved})"
    return f"path '{text}' is outside the workspace {root}"


def spelled_plainly(raw: str, target: Path) -> bool:
    """Whether ``raw`` (a path as the model wrote it) is simply ``target`` (what
    :func:`resolve_in_workspace` made of it): that absolute path, or that path relative to
    the workspace, up to redundant ``./`` and ``/``.

    A prompt then shows ``target`` alone. Anything else — ``..``, ``~``, a symlink on the
    way, a folder that is not the real one — can make the written path read as another
    file, so a prompt shows it too.
    """
    written = PurePosixPath(raw)
    if raw.startswith("~") or ".." in written.parts:
        return False
    if written.is_absolute():
        return written == PurePosixPath(target)
    root = current_workspace()
    return target.is_relative_to(root) and written == PurePosixPath(target.relative_to(root))
