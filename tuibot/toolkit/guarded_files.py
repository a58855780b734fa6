"""Files in a workspace that steer programs: git's internals, project config, AGENTS.md.

Why apart from tuibot's own folders (:mod:`tuibot.toolkit.protect`): these are found by
name and by what a folder holds, anywhere in the workspace, not under a fixed root. A
model that plants ``.git/hooks/pre-commit`` runs code on the person's next commit; one
that writes ``.git/config`` can make git run any program; a ``tuibot.toml`` changes
tuibot itself once trusted; ``AGENTS.md`` is read as instructions by coding agents.

Names match case-insensitively everywhere: on a case-insensitive file system (macOS,
Windows) ``.GIT/config`` is ``.git/config``, and on a case-sensitive one asking about
``.GIT/config`` costs one question. Paths are real paths (symlinks resolved), so an alias
cannot hide a protected file.
"""

from __future__ import annotations

import os
from pathlib import Path

GIT = ".git"
PROJECT_CONFIG = "tuibot.toml"
"""The project config file tuibot looks for in the folder it starts in."""
INSTRUCTION_FILES = frozenset({"agents.md"})
"""Workspace files coding agents read as instructions (casefolded)."""

HOOK_WHEN = {
    "pre-commit": "runs on every git commit",
    "prepare-commit-msg": "runs on every git commit",
    "commit-msg": "runs on every git commit",
    "post-commit": "runs after every git commit",
    "pre-merge-commit": "runs on every git merge",
    "post-merge": "runs after every git merge and pull",
    "pre-push": "runs on every git push",
    "pre-rebase": "runs before every git rebase",
    "post-rewrite": "runs after every git commit --amend and rebase",
    "post-checkout": "runs after every git checkout, switch and clone",
    "reference-transaction": "runs on every change of a branch or tag",
    "pre-auto-gc": "runs before git's automatic clean-ups",
    "fsmonitor-watchman": "runs on almost every git command",
}
"""What a hook's name means: when git runs it (``githooks(5)``)."""


def same_name(name: str, wanted: str) -> bool:
    """Whether a file name is ``wanted``, ignoring letter case."""
    return name.casefold() == wanted.casefold()


def within(target: Path, root: Path) -> bool:
    """``target`` is ``root`` or inside it, comparing names case-insensitively."""
    parts, prefix = target.parts, root.parts
    if len(parts) < len(prefix):
        return False
    return all(a.casefold() == b.casefold() for a, b in zip(parts, prefix, strict=False))


def git_folder_of(target: Path, pointers: list[Path]) -> Path | None:
    """The git folder ``target`` lies in (or the ``.git`` file it is), else None.

    A git folder is a ``.git`` component of the path, a folder laid out as git's own
    (``HEAD`` with ``objects/`` and ``refs/``, or ``HEAD`` with ``commondir``: a bare
    repository or a worktree's), or the folder a ``.git`` file in ``pointers`` names.
    """
    for index, part in enumerate(target.parts):
        if same_name(part, GIT):
            return Path(*target.parts[: index + 1])
    for folder in (target, *target.parents):
        if _looks_like_git_folder(folder):
            return folder
    for pointer in pointers:
        for aimed in pointed_git_folders(pointer):
            if within(target, aimed):
                return aimed
    return None


def _looks_like_git_folder(folder: Path) -> bool:
    """``HEAD`` plus ``objects/`` and ``refs/``, or plus ``commondir``: git's own check."""
    try:
        if not (folder / "HEAD").is_file():
            return False
        if (folder / "commondir").is_file():
            return True
        return (folder / "objects").is_dir() and (folder / "refs").is_dir()
    except OSError:
        return False


def pointed_git_folders(pointer: Path) -> list[Path]:
    """The real folders a ``.git`` file names (``gitdir:``), with its ``commondir``."""
    try:
        if not pointer.is_file():
            return []
        first = pointer.read_text(encoding="utf-8", errors="replace").splitlines()[:1]
    except OSError:
        return []
    if not first or not first[0].startswith("gitdir:"):
        return []
    aimed = Path(os.path.realpath(pointer.parent / first[0][len("gitdir:") :].strip()))
    found = [aimed]
    try:
        common = (aimed / "commondir").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return found
    if common:
        found.append(Path(os.path.realpath(aimed / common)))
    return found


def git_question(verb: str, target: Path, git_root: Path) -> str:
    """What writing ``target`` inside (or as) the git folder ``git_root`` would do."""
    if target == git_root and same_name(target.name, GIT) and not target.is_dir():
        return (
            f"{verb} the .git file {target}? It tells git where this repository's data is; "
            "a new one points git at another folder."
        )
    relative = target.parts[len(git_root.parts) :]
    if len(relative) == 2 and same_name(relative[0], "hooks"):
        when = HOOK_WHEN.get(relative[1].casefold(), "may be run by git as a program")
        return f"{verb} the git hook {target}? It {when}, with your rights."
    if len(relative) == 1 and same_name(relative[0], "config"):
        return (
            f"{verb} {target}, git's settings for this repository? They can make git run "
            "any program (core.hooksPath, core.fsmonitor, aliases, filters)."
        )
    return (
        f"{verb} {target} inside git's own folder {git_root}? It changes the repository "
        "itself (hooks, settings, history or branches)."
    )


def project_config_question(verb: str, target: Path) -> str:
    """What writing a ``tuibot.toml`` would do."""
    return (
        f"{verb} the tuibot project config {target}? Once trusted it can change tuibot's "
        "providers, keys and workspace when tuibot starts in that folder."
    )


def instruction_question(verb: str, target: Path) -> str:
    """What writing an ``AGENTS.md`` would do."""
    return f"{verb} {target}? It is read as instructions by coding agents working in this folder."
