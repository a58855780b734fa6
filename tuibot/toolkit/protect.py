"""Protected paths and safe writes, shared by the bundled file tools.

The workspace guard keeps a tool inside the workspace, but the workspace may itself hold
tuibot's own folders (a user working in their config home, or ``TUIBOT_HOME`` pointing
inside a project). A file the model writes into a plugin folder would go live on the next
reload, and one written into the data home could rewrite a chat or memory, so those writes
need a human's yes. So do files in the workspace that steer programs: git's internals, a
``tuibot.toml``, ``AGENTS.md`` (see :mod:`tuibot.toolkit.guarded_files`). The check works
on real paths (symlinks resolved on both sides), so an alias cannot hide a protected
folder, and compares names case-insensitively.

Plugin files cannot import a sibling ``_helpers.py`` (each is loaded as a lone module), so
what the bundled tools share lives here.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuibot.store.atomic import replace_file, write_into
from tuibot.system.paths import bundled_dir, config_home, data_home, log_home
from tuibot.toolkit import beneath as beneath_fs
from tuibot.toolkit.guarded_files import (
    GIT,
    INSTRUCTION_FILES,
    PROJECT_CONFIG,
    git_folder_of,
    git_question,
    instruction_question,
    pointed_git_folders,
    project_config_question,
    same_name,
    within,
)
from tuibot.toolkit.workspace import current_workspace, resolve_in_workspace, spelled_plainly

if TYPE_CHECKING:
    from tuibot.approvals.permissions import Permission

PROMPT_FILES = frozenset({"AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md", "HEARTBEAT.md"})
"""Config-home files that go into every prompt."""
_PROMPT_FILES = frozenset(name.casefold() for name in PROMPT_FILES)


@dataclass(frozen=True)
class Protected:
    """Why a path is protected: the folder (or file) it falls in and what a write would do."""

    root: Path
    """The real path of the protected folder, or of the protected file itself."""
    kind: str
    """``plugin``, ``skill``, ``config``, ``data`` (tuibot's own folders), ``git`` (git's
    internals), ``project-config`` (a ``tuibot.toml``) or ``instructions`` (``AGENTS.md``)."""


def protected_roots() -> list[Protected]:
    """Protected folders, most specific first, as real paths (read now: env may change).

    tuibot's own folders, then the git folders that ``.git`` files in the workspace and
    the start folder point at (a worktree's or submodule's data lives elsewhere).
    """
    home = _real(config_home())
    roots = [
        Protected(home / "tools", "plugin"),
        Protected(_real(bundled_dir("tools")), "plugin"),
        Protected(home / "skills", "skill"),
        Protected(_real(bundled_dir("skills")), "skill"),
        Protected(home, "config"),
        Protected(_real(data_home()), "data"),
        Protected(_real(log_home()), "data"),
    ]
    for folder in _start_folders():
        roots += [Protected(aimed, "git") for aimed in pointed_git_folders(folder / GIT)]
    return roots


def protection_of(target: Path) -> Protected | None:
    """Why writing ``target`` needs a yes, or None (``target`` is made a real path).

    tuibot's own folders first, then git's internals anywhere, a ``tuibot.toml`` in any
    folder (tuibot looks for one wherever it starts), and instruction files (``AGENTS.md``).
    Names and folders match case-insensitively.
    """
    target = _real(target)
    for entry in protected_roots():
        if within(target, entry.root):
            return entry
    pointers = [folder / GIT for folder in _start_folders()]
    git_root = git_folder_of(target, pointers)
    if git_root is not None:
        return Protected(git_root, "git")
    if same_name(target.name, PROJECT_CONFIG):
        return Protected(target, "project-config")
    if target.name.casefold() in INSTRUCTION_FILES:
        return Protected(target, "instructions")
    return None


def protected_prompt(verb: str, target: Path) -> str | None:
    """The question to ask before ``verb``-ing ``target``, or None when it is not protected."""
    entry = protection_of(target)
    if entry is None:
        return None
    target = _real(target)
    if entry.kind == "git":
        return git_question(verb, target, entry.root)
    if entry.kind == "project-config":
        return project_config_question(verb, target)
    if entry.kind == "instructions":
        return instruction_question(verb, target)
    if entry.kind == "plugin":
        return f"{verb} the tuibot plugin file {target}? It would go live on reload."
    if entry.kind == "skill":
        return f"{verb} the tuibot skill file {target}? It would go live on reload."
    if entry.kind == "data":
        return f"{verb} {target} in tuibot's data folder (chats, memory, traces)?"
    at_top = within(target.parent, entry.root) and len(target.parts) == len(entry.root.parts) + 1
    if at_top and same_name(target.name, "config.toml"):
        return f"{verb} tuibot's settings file {target}? It applies on the next start."
    if at_top and target.name.casefold() in _PROMPT_FILES:
        return f"{verb} tuibot's prompt file {target}? It goes into every prompt."
    return f"{verb} {target} in tuibot's config folder?"


def _start_folders() -> list[Path]:
    """The workspace and the folder tuibot started in, as real paths, without repeats."""
    folders = [current_workspace(), _real(Path.cwd())]
    return list(dict.fromkeys(folders))


def confirm_protected(verb: str) -> Callable[[dict[str, Any]], Permission | None]:
    """A ``confirm=`` rule: ask when the call's ``path`` lands in a protected folder.

    A grant covers that file (or a folder the person chooses explicitly). A path the
    guard refuses needs no question: the tool itself refuses it.
    """
    from tuibot.approvals.permissions import Permission

    def rule(arguments: dict[str, Any]) -> Permission | None:
        raw = arguments.get("path")
        if not isinstance(raw, str):
            return None
        try:
            target = resolve_in_workspace(raw)
        except (OSError, ValueError):
            return None
        question = protected_prompt(verb, target)
        if question is None:
            return None
        return Permission(
            kind="write",
            question=question,
            subject=str(target),
            grant_key=f"write:{target}",
            covers="this file",
            prefixes=tuple(str(folder) for folder in _folders_up_to_root(target)),
            shown_arguments=("path",) if spelled_plainly(raw, target) else (),
        )

    rule.__doc__ = f"Ask before a {verb.lower()} lands in one of tuibot's own folders."
    return rule


def _folders_up_to_root(target: Path) -> list[Path]:
    """The folders above ``target`` a person may allow instead, nearest first (3 at most)."""
    entry = protection_of(target)
    folders: list[Path] = []
    for folder in target.parents:
        folders.append(folder)
        if entry is None or folder == entry.root or len(folders) == 3:
            break
    return folders


def atomic_write(
    target: Path, data: bytes, *, new_mode: int = 0o666, beneath: Path | None = None
) -> bool:
    """Write ``data`` to ``target`` through a temporary file and ``os.replace``.

    With ``beneath`` (the workspace, for the file tools: ``target`` came from
    ``resolve_in_workspace``), the folder is reached from ``beneath``'s descriptor with
    no-follow on every step and missing folders are made the same way, so a folder
    swapped for a symlink mid-call cannot send the write outside (``SymlinkInPath``).
    Without it, this is :func:`tuibot.store.atomic.replace_file` (missing folders made by
    path). Either way the write itself is :func:`tuibot.store.atomic.write_into`. Returns
    whether the file existed. A reader never sees a half-written file, and a failure
    leaves the old file as it was.
    """
    if beneath is None or not beneath_fs.SUPPORTED:
        return replace_file(target, data, new_mode=new_mode)
    if target == beneath:
        raise IsADirectoryError(errno.EISDIR, f"{target} is the workspace folder itself")
    parent = beneath_fs.open_folder(
        beneath, beneath_fs.parts_below(beneath, target.parent), create=True
    )
    try:
        return write_into(parent, target.name, data, new_mode)
    finally:
        os.close(parent)


def _real(path: Path) -> Path:
    """The real absolute path (symlinks resolved as far as the path exists)."""
    return Path(os.path.realpath(path.expanduser()))
