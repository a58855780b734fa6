"""Bundled tool: replace an exact piece of text in a workspace file.

Exact replacement (no fuzzy matching) keeps an edit predictable: the text must occur
exactly once, or ``replace_all`` must say that every occurrence is meant. When it does not
match, the error says so and how to fix the call, instead of guessing. Line endings are
kept: a ``\\n`` in the text also matches a ``\\r\\n`` file. The write is atomic, and files
in tuibot's own folders need a human's yes, as with ``write_file``. Both the read and the
write go from the workspace's descriptor with no symlink followed (see ``beneath``).
"""

from __future__ import annotations

import os
from pathlib import Path

from tuibot import resolve_in_workspace, tool
from tuibot.toolkit.beneath import NotRegularFile, SymlinkInPath, open_file
from tuibot.toolkit.protect import atomic_write, confirm_protected
from tuibot.toolkit.workspace import current_workspace

MAX_BYTES = 10 * 1024 * 1024
"""Files larger than this are not edited (they are not hand-written text)."""


@tool(confirm=confirm_protected("Edit"), timeout=30)
def edit_file(path: str, old_text: str, new_text: str, replace_all: bool = False) -> str:
    """Replace exact text in a workspace file; old_text must match once unless replace_all.

    Args:
        path: File to edit, relative to the workspace (or absolute inside it).
        old_text: The exact text to replace, whitespace and indentation included; add
            surrounding lines to make it unique.
        new_text: The text to put in its place.
        replace_all: Replace every occurrence instead of requiring exactly one.
    """
    if old_text == "":
        return "Error: old_text is empty; use write_file to create or overwrite a whole file"
    if old_text == new_text:
        return "Error: old_text and new_text are the same; nothing would change"
    try:
        target = resolve_in_workspace(path)
    except (PermissionError, ValueError) as exc:
        return f"Error: {exc}"
    try:
        text = _load(target, path)
    except _CannotEdit as exc:
        return f"Error: {exc}"
    old, new = _match_line_endings(text, old_text, new_text)
    count = text.count(old)
    if count == 0:
        return (
            f"Error: old_text was not found in {path}; it must match character for character "
            "(whitespace and indentation included) — read_file shows the current text"
        )
    if count > 1 and not replace_all:
        return (
            f"Error: old_text was found {count} times in {path}; include more surrounding "
            "lines to make it unique, or pass replace_all=true to replace every occurrence"
        )
    line = text[: text.index(old)].count("\n") + 1
    updated = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    try:
        atomic_write(target, updated.encode("utf-8"), beneath=current_workspace())
    except UnicodeEncodeError:
        return "Error: new_text holds characters that are not valid Unicode (lone surrogates)"
    except (SymlinkInPath, NotRegularFile, IsADirectoryError) as exc:
        return f"Error: cannot write {path}: {exc.strerror or exc}"
    except PermissionError:
        return f"Error: permission denied: {path}"
    except OSError as exc:
        return f"Error: cannot write {path}: {exc.strerror or exc}"
    done = "1 occurrence" if count == 1 else f"{count} occurrences"
    where = f"at line {line}" if count == 1 else f"first at line {line}"
    return f"Replaced {done} in {path} ({where})"


class _CannotEdit(Exception):
    """The file cannot be edited as UTF-8 text; the message says why."""


def _load(target: Path, path: str) -> str:
    """The file's text; ``_CannotEdit`` when it is missing, binary, huge or not UTF-8."""
    try:
        with open_file(current_workspace(), target) as handle:
            if os.fstat(handle.fileno()).st_size > MAX_BYTES:
                raise _CannotEdit(f"'{path}' is larger than 10 MB; edit_file only edits text files")
            data = handle.read(MAX_BYTES + 1)
    except IsADirectoryError:
        raise _CannotEdit(f"'{path}' is a directory, not a file") from None
    except FileNotFoundError:
        raise _CannotEdit(f"file not found: {path}; use write_file to create it") from None
    except NotRegularFile:
        raise _CannotEdit(f"'{path}' is not a regular file (a pipe, socket or device)") from None
    except SymlinkInPath as exc:
        raise _CannotEdit(f"cannot read {path}: {exc}") from None
    except PermissionError:
        raise _CannotEdit(f"permission denied: {path}") from None
    except OSError as exc:
        raise _CannotEdit(f"cannot read {path}: {exc.strerror or exc}") from None
    if b"\0" in data[:8192]:
        raise _CannotEdit(f"'{path}' looks like a binary file; edit_file only edits text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise _CannotEdit(f"'{path}' is not valid UTF-8; edit_file only edits UTF-8 text") from None


def _match_line_endings(text: str, old: str, new: str) -> tuple[str, str]:
    """Use ``\\r\\n`` in the texts when the file has it and the model wrote ``\\n``."""
    if "\r\n" in text and "\r\n" not in old and "\n" in old and old not in text:
        return old.replace("\n", "\r\n"), new.replace("\r\n", "\n").replace("\n", "\r\n")
    return old, new
