"""Bundled tool: search the contents of workspace files with a regular expression.

Output reads like ``grep -n``: ``path:line:text`` for a match and ``path-line-text`` for
context, groups separated by ``--``. The same walk as ``find_files`` keeps it inside the
workspace; binary files (a NUL byte in the first 8 KB) and files over 5 MB are skipped
and counted; pipes, sockets and devices are never opened (a read from one could block
forever); secret-looking files (``tools.secret_files``: ``.env``, keys…) are skipped and
counted, since their lines would reach the model without the question ``read_file`` asks;
bad UTF-8 never stops a search; long lines are cut; the whole answer is capped
so a common word in a big tree cannot flood the context.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated

from tuibot import Param, resolve_in_workspace, tool
from tuibot.toolkit.beneath import NotRegularFile, SymlinkInPath
from tuibot.toolkit.permits import is_secret_file
from tuibot.toolkit.walk import Found, Walk, glob_matcher
from tuibot.toolkit.workspace import current_workspace

OUTPUT_BYTES = 50 * 1024
"""Upper bound on the answer."""
MAX_FILE_BYTES = 5 * 1024 * 1024
"""Files larger than this are skipped (logs, dumps, data)."""
BINARY_PROBE = 8192
"""How much of a file is checked for NUL bytes."""
LINE_CHARS = 300
"""Characters of one line shown; a minified file must not fill the answer."""


@tool(timeout=60)
def grep(
    pattern: str,
    path: str = ".",
    glob: str = "",
    ignore_case: bool = False,
    context: Annotated[int, Param(ge=0, le=10)] = 0,
    limit: Annotated[int, Param(ge=1, le=2000)] = 200,
) -> str:
    """Search workspace files for lines matching a regular expression (Python syntax).

    Args:
        pattern: Regular expression, e.g. "def \\w+_test" or "TODO|FIXME".
        path: File or folder to search, relative to the workspace.
        glob: Only files whose path (relative to path) matches this glob, e.g. "**/*.py".
        ignore_case: Match regardless of letter case.
        context: Lines of context shown before and after each match.
        limit: Maximum number of matching lines returned.
    """
    if "\0" in pattern:
        return "Error: pattern contains a NUL byte"
    try:
        regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        return f"Error: invalid regular expression {pattern!r}: {exc}"
    if glob.startswith(("/", "~")) or ".." in glob.split("/") or "\0" in glob:
        return "Error: glob must be a relative pattern without '..'; put the folder in path"
    try:
        base = resolve_in_workspace(path, must_exist=True)
    except FileNotFoundError:
        return f"Error: path not found: {path}"
    except (PermissionError, ValueError) as exc:
        return f"Error: {exc}"
    walk = Walk(current_workspace(), base)
    matcher = glob_matcher(glob.removeprefix("./")) if glob else None
    search = _Search(regex, context, limit)
    try:
        for found in walk.files():
            if matcher and not matcher.match(_relative_to_base(found.path, base)):
                continue
            if is_secret_file(found.path):  # its lines would reach the model unasked
                search.secret += 1
                continue
            search.file(found, walk.relative(found.path))
            if search.full:
                break
    except SymlinkInPath as exc:
        return f"Error: cannot search {path}: {exc}"
    except OSError as exc:
        return f"Error: cannot search {path}: {exc.strerror or exc}"
    return search.report(pattern, path, walk)


def _relative_to_base(file: Path, base: Path) -> str:
    return file.name if file == base else file.relative_to(base).as_posix()


class _Search:
    """Matches gathered across files, with counts of what was skipped or left out."""

    def __init__(self, regex: re.Pattern[str], context: int, limit: int) -> None:
        self.regex = regex
        self.context = context
        self.limit = limit
        self.lines: list[str] = []
        self.used = 0
        self.matches = 0
        self.skipped_binary = 0
        self.skipped_large = 0
        self.unreadable = 0
        self.special = 0
        self.secret = 0
        self.full = False
        """Set once ``limit`` matches or the byte cap are reached; the search stops."""

    def file(self, found: Found, rel: str) -> None:
        """Search one file and add its groups of lines."""
        text = self._read(found)
        if text is None:
            return
        lines = text.splitlines()
        hits = [i for i, line in enumerate(lines) if self.regex.search(line)]
        if not hits:
            return
        room = self.limit - self.matches
        if len(hits) > room:
            hits = hits[:room]
            self.full = True
        shown = set(hits)
        for first, last in _groups(hits, self.context, len(lines)):
            if self.context and self.lines and not self._add("--"):
                return
            for j in range(first, last + 1):
                mark = ":" if j in shown else "-"
                if not self._add(f"{rel}{mark}{j + 1}{mark}{_clip(lines[j])}"):
                    return
                self.matches += j in shown

    def _read(self, found: Found) -> str | None:
        """The file's text, or None (counted) when it is binary, too big or unreadable."""
        try:
            with found.open() as handle:
                if os.fstat(handle.fileno()).st_size > MAX_FILE_BYTES:
                    self.skipped_large += 1
                    return None
                data = handle.read(MAX_FILE_BYTES + 1)
        except NotRegularFile:  # swapped for a pipe or device since the walk listed it
            self.special += 1
            return None
        except OSError:
            self.unreadable += 1
            return None
        if b"\0" in data[:BINARY_PROBE]:
            self.skipped_binary += 1
            return None
        return data.decode("utf-8", errors="replace").removeprefix("\ufeff")

    def _add(self, line: str) -> bool:
        """Append ``line`` unless it would pass the byte cap (then the search is full)."""
        size = len(line.encode("utf-8")) + 1
        if self.used + size > OUTPUT_BYTES:
            self.full = True
            return False
        self.lines.append(line)
        self.used += size
        return True

    def report(self, pattern: str, path: str, walk: Walk) -> str:
        """The lines found, then one note per kind of thing left out."""
        notes: list[str] = []
        if self.full:
            notes.append(
                f"[stopped at {self.matches} matching lines; narrow the pattern, path or glob]"
            )
        if walk.stopped:
            notes.append(f"[stopped after scanning {walk.scanned} entries; search a subfolder]")
        skipped = []
        if self.skipped_binary:
            skipped.append(f"{self.skipped_binary} binary")
        if self.skipped_large:
            skipped.append(f"{self.skipped_large} over {MAX_FILE_BYTES // (1024 * 1024)} MB")
        if self.unreadable:
            skipped.append(f"{self.unreadable} unreadable")
        special = self.special + len(walk.skipped_special)
        if special:
            skipped.append(f"{special} not regular (pipe, socket or device)")
        if self.secret:
            skipped.append(f"{self.secret} secret-looking (read_file reads one after asking)")
        if skipped:
            notes.append(f"[skipped files: {', '.join(skipped)}]")
        if walk.skipped_outside:
            notes.append(
                f"[left out {len(walk.skipped_outside)} symlink(s) leading outside the workspace]"
            )
        if not self.lines:
            return "\n".join([f"No matches for {pattern!r} in {path}", *notes])
        return "\n".join([*self.lines, *notes])


def _groups(hits: list[int], context: int, count: int) -> list[tuple[int, int]]:
    """Line ranges (first, last) to show: each hit with its context, overlaps merged."""
    groups: list[tuple[int, int]] = []
    for i in hits:
        first, last = max(i - context, 0), min(i + context, count - 1)
        if groups and first <= groups[-1][1] + 1:
            groups[-1] = (groups[-1][0], last)
        else:
            groups.append((first, last))
    return groups


def _clip(line: str) -> str:
    if len(line) <= LINE_CHARS:
        return line
    return line[:LINE_CHARS] + f"… [{len(line) - LINE_CHARS} more characters]"
