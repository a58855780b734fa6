"""Find and load skills: folders holding a SKILL.md, bundled and the user's.

Unknown frontmatter fields (``license``, ``allowed-tools``, ``metadata`` ...) are kept
as they were written, not rejected, so skills made for other tools load as they are.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tuibot.skills.frontmatter import FrontmatterError, parse_frontmatter

__all__ = ["FrontmatterError", "Skill", "SkillProblem", "load_skill", "load_skills"]


@dataclass(frozen=True)
class SkillProblem:
    """A skill that was skipped, so `tuibot skills list` can say where and why."""

    path: Path
    line: int
    reason: str


@dataclass(frozen=True)
class Skill:
    """One loaded skill; unavailable ones are listed but never injected."""

    name: str
    description: str
    body: str
    path: Path
    source: str
    always: bool = False
    missing: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def available(self) -> bool:
        """True when every required binary and environment variable is present."""
        return not self.missing


def _as_list(value: Any) -> list[str]:
    if value in (None, ""):
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _missing(requires: Any) -> tuple[str, ...]:
    """What a skill's `requires` names that this machine lacks."""
    if not isinstance(requires, dict):
        return ()
    bins = [f"binary {b}" for b in _as_list(requires.get("bins")) if not shutil.which(b)]
    envs = [f"env {e}" for e in _as_list(requires.get("env")) if not os.environ.get(e)]
    return tuple(bins + envs)


def _vendor_section(metadata: Any) -> dict[str, Any]:
    """``metadata.<tool>`` of a skill written for another assistant (OpenClaw keeps
    ``requires`` and ``always`` there); top-level fields win over it."""
    if not isinstance(metadata, dict):
        return {}
    for value in metadata.values():
        if isinstance(value, dict) and ("requires" in value or "always" in value):
            return value
    return {}


def load_skill(folder: Path, source: str) -> Skill:
    """Load one skill folder; raise FrontmatterError for a malformed SKILL.md."""
    path = folder / "SKILL.md"
    fields, body, _ = parse_frontmatter(path.read_text(encoding="utf-8"))
    description = fields.pop("description", "")
    if not isinstance(description, str) or not description.strip():
        raise FrontmatterError(1, "missing description")
    name = str(fields.pop("name", "") or folder.name)
    vendor = _vendor_section(fields.get("metadata"))
    always = fields.pop("always", vendor.get("always", False)) is True
    requires = fields.pop("requires", vendor.get("requires"))
    return Skill(name, description.strip(), body, path, source, always, _missing(requires), fields)


def load_skills(
    roots: list[tuple[str, Path]],
) -> tuple[list[Skill], list[SkillProblem]]:
    """Load skills from (source, folder) pairs; later roots override earlier by name."""
    found: dict[str, Skill] = {}
    problems: list[SkillProblem] = []
    for source, root in roots:
        if not root.is_dir():
            continue
        for folder in sorted(p for p in root.iterdir() if (p / "SKILL.md").is_file()):
            try:
                skill = load_skill(folder, source)
            except FrontmatterError as exc:
                problems.append(SkillProblem(folder / "SKILL.md", exc.line, exc.reason))
                continue
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(SkillProblem(folder / "SKILL.md", 0, str(exc)))
                continue
            found[skill.name] = skill
    return sorted(found.values(), key=lambda s: s.name), problems


def default_roots() -> list[tuple[str, Path]]:
    """Bundled skills first, then the user's, so a user skill overrides by name."""
    from tuibot.paths import bundled_dir, config_home

    return [("bundled", bundled_dir("skills")), ("user", config_home() / "skills")]
