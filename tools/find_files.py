"""Bundled tool: find files in the workspace by glob pattern.

The model uses it to learn a project's layout before reading, so it returns paths
relative to the workspace, sorted, capped in count and size, and it never leaves the
workspace: symlinked folders are not entered and symlinks leading outside are left out.
Pipes, sockets and devices are left out too (counted): they are not files to read.
"""

from __future__ import annotations

from typing import Annotated

from tuibot import Param, resolve_in_workspace, tool
from tuibot.toolkit.beneath import SymlinkInPath
from tuibot.toolkit.walk import Walk, glob_matcher
from tuibot.toolkit.workspace import current_workspace

OUTPUT_BYTES = 50 * 1024
"""Upper bound on the listing."""


@tool(timeout=60)
def find_files(
    pattern: str = "**/*",
    path: str = ".",
    limit: Annotated[int, Param(ge=1, le=1000)] = 200,
) -> str:
    """Find files in the workspace whose path matches a glob pattern, e.g. "**/*.py".

    Args:
        pattern: Glob relative to path: "*" and "?" match within one name, "**/" any
            number of folders ("*.md" is only the top folder, "**/*.md" every level).
        path: Folder to search, relative to the workspace.
        limit: Maximum number of paths to return.
    """
    problem = _check_pattern(pattern)
    if problem:
        return f"Error: {problem}"
    try:
        base = resolve_in_workspace(path, must_exist=True)
    except FileNotFoundError:
        return f"Error: directory not found: {path}"
    except (PermissionError, ValueError) as exc:
        return f"Error: {exc}"
    if not base.is_dir():
        return f"Error: '{path}' is a file, not a directory"
    walk = Walk(current_workspace(), base)
    matcher = glob_matcher(pattern.removeprefix("./"))
    try:
        found = [f.path for f in walk.files() if matcher.match(f.path.relative_to(base).as_posix())]
    except SymlinkInPath as exc:
        return f"Error: cannot search {path}: {exc}"
    except OSError as exc:
        return f"Error: cannot search {path}: {exc.strerror or exc}"
    if not found:
        return _nothing(pattern, path, walk)
    return _listing([walk.relative(p) for p in found], limit, walk)


def _check_pattern(pattern: str) -> str | None:
    """Why a pattern cannot be used, or None."""
    if not pattern.strip():
        return "pattern is empty; use '**/*' for every file"
    if "\0" in pattern:
        return "pattern contains a NUL byte"
    if pattern.startswith(("/", "~")):
        return "pattern must be relative; put the folder in path instead"
    if ".." in pattern.split("/"):
        return "pattern may not contain '..'; put the folder in path instead"
    return None


def _listing(paths: list[str], limit: int, walk: Walk) -> str:
    """The first ``limit`` paths under the size cap, then notes on what was left out."""
    shown: list[str] = []
    used = 0
    for rel in paths[:limit]:
        used += len(rel.encode("utf-8")) + 1
        if used > OUTPUT_BYTES:
            break
        shown.append(rel)
    lines = list(shown)
    if len(shown) < len(paths):
        lines.append(
            f"[showing {len(shown)} of {len(paths)} matches; narrow the pattern or the path]"
        )
    lines.extend(_notes(walk))
    return "\n".join(lines)


def _nothing(pattern: str, path: str, walk: Walk) -> str:
    """No match: say so, with the usual fix for a top-level-only pattern."""
    hint = ""
    if "/" not in pattern and "**" not in pattern:
        hint = f"; '{pattern}' only looks in the folder itself, try '**/{pattern}'"
    return "\n".join([f"No files match '{pattern}' in {path}{hint}", *_notes(walk)])


def _notes(walk: Walk) -> list[str]:
    notes: list[str] = []
    if walk.stopped:
        notes.append(f"[stopped after scanning {walk.scanned} entries; search a subfolder]")
    if walk.skipped_outside:
        notes.append(
            f"[left out {len(walk.skipped_outside)} symlink(s) leading outside the workspace]"
        )
    if walk.skipped_special:
        notes.append(f"[left out {len(walk.skipped_special)} pipe(s), socket(s) or device(s)]")
    return notes
