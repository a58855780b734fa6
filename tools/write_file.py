"""Bundled tool: create or overwrite a text file in the workspace.

The write goes through a temporary file and ``os.replace``, so a crash or a full disk
never leaves a half-written file, and missing parent folders are created only inside the
workspace. The folder is reached from the workspace's descriptor without following any
symlink, so one swapped in while the call runs cannot send the write outside. Writing
into one of tuibot's own folders (plugins, skills, config, data) asks the human first: a
plugin the model writes must never go live unasked.
"""

from __future__ import annotations

from tuibot import resolve_in_workspace, tool
from tuibot.toolkit.beneath import NotRegularFile, SymlinkInPath
from tuibot.toolkit.protect import atomic_write, confirm_protected
from tuibot.toolkit.workspace import current_workspace


@tool(confirm=confirm_protected("Write"), timeout=30)
def write_file(path: str, content: str) -> str:
    """Write a text file in the workspace, replacing it if it exists (folders are created).

    Args:
        path: File to write, relative to the workspace (or absolute inside it).
        content: The complete new content of the file (UTF-8 text).
    """
    try:
        target = resolve_in_workspace(path)
    except (PermissionError, ValueError) as exc:
        return f"Error: {exc}"
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError:
        return "Error: content holds characters that are not valid Unicode (lone surrogates)"
    try:
        existed = atomic_write(target, data, beneath=current_workspace())
    except IsADirectoryError:
        return f"Error: '{path}' is a directory; give a file name inside it"
    except NotRegularFile:
        return f"Error: '{path}' is not a regular file (a pipe, socket or device)"
    except (NotADirectoryError, FileExistsError):
        return f"Error: cannot create '{path}': a part of its folder path is a file"
    except SymlinkInPath as exc:
        return f"Error: cannot write {path}: {exc}"
    except PermissionError:
        return f"Error: permission denied: {path}"
    except OSError as exc:
        return f"Error: cannot write {path}: {exc.strerror or exc}"
    verb = "Overwrote" if existed else "Created"
    lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    return f"{verb} {path} ({_plural(len(data), 'byte')}, {_plural(lines, 'line')})"


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
