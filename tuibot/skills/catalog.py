"""The skills a turn sees, re-read only when a skill folder changed.

Skills are hot-reloaded by checking, at the start of each turn, a cheap fingerprint of the
skill roots (every ``SKILL.md``'s path, size and modification time). When nothing changed
the previous load is reused; when something did, the folders are loaded again, so a saved
or deleted skill applies from the next turn without a watcher thread, and problems are
reported once per change rather than on every turn.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tuibot.skills.loader import Skill, SkillProblem, load_skills

Fingerprint = tuple[tuple[str, int, int], ...]


class SkillCatalog:
    """Loads skills from ``(source, folder)`` roots and reloads them when they change."""

    def __init__(
        self,
        roots: list[tuple[str, Path]],
        report: Callable[[list[SkillProblem]], None] | None = None,
        cache_file: Path | None = None,
    ) -> None:
        self.roots = roots
        self.cache_file = cache_file
        """Where parsed frontmatter is kept between runs (None: parse every time)."""
        self._report = report
        self._fingerprint: Fingerprint | None = None
        self.skills: list[Skill] = []
        self.problems: list[SkillProblem] = []

    def current(self) -> list[Skill]:
        """Every loaded skill (available or not), reloading first if a folder changed."""
        fingerprint = self._scan()
        if fingerprint != self._fingerprint:
            self.skills, self.problems = load_skills(self.roots, self.cache_file)
            self._fingerprint = fingerprint
            if self.problems and self._report is not None:
                self._report(self.problems)
        return self.skills

    def get(self, name: str) -> Skill | None:
        """The skill called ``name``, if there is one."""
        return next((skill for skill in self.current() if skill.name == name), None)

    def _scan(self) -> Fingerprint:
        """(path, size, mtime_ns) of every SKILL.md under the roots."""
        entries: list[tuple[str, int, int]] = []
        for _, root in self.roots:
            try:
                folders = os.scandir(root)
            except OSError:
                continue
            with folders:
                for folder in folders:
                    try:
                        info = os.stat(os.path.join(folder.path, "SKILL.md"))
                    except OSError:
                        continue
                    entries.append((folder.path, info.st_size, info.st_mtime_ns))
        return tuple(sorted(entries))
