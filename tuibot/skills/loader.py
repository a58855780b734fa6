"""Find and load skills: folders holding a SKILL.md, bundled and the user's.

Unknown frontmatter fields (``license``, ``allowed-tools``, ``metadata`` ...) are kept
as YAML read them, not rejected, so skills made for other tools load as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tuibot.skills.cache import FrontmatterCache
from tuibot.skills.fields import check_fields
from tuibot.skills.frontmatter import FrontmatterError, parse_frontmatter, read_frontmatter

__all__ = [
    "FrontmatterError",
    "Skill",
    "SkillProblem",
    "load_skill",
    "load_skills",
    "parse_frontmatter",
]


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


def load_skill(folder: Path, source: str, cache: FrontmatterCache | None = None) -> Skill:
    """Load one skill folder; raise FrontmatterError for a malformed SKILL.md."""
    path = folder / "SKILL.md"
    front = read_frontmatter(path.read_text(encoding="utf-8"), cache)
    checked = check_fields(front, folder.name)
    return Skill(
        checked.name,
        checked.description,
        front.body,
        path,
        source,
        checked.always,
        checked.missing,
        checked.extra,
    )


def load_skills(
    roots: list[tuple[str, Path]], cache_file: Path | None = None
) -> tuple[list[Skill], list[SkillProblem]]:
    """Load skills from (source, folder) pairs; later roots override earlier by name.

    ``cache_file`` keeps the parsed frontmatter between runs (see :mod:`tuibot.skills.cache`).
    """
    cache = FrontmatterCache(cache_file)
    found: dict[str, Skill] = {}
    problems: list[SkillProblem] = []
    for source, root in roots:
        if not root.is_dir():
            continue
        for folder in sorted(p for p in root.iterdir() if (p / "SKILL.md").is_file()):
            try:
                skill = load_skill(folder, source, cache)
            except FrontmatterError as exc:
                problems.append(SkillProblem(folder / "SKILL.md", exc.line, exc.reason))
                continue
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(SkillProblem(folder / "SKILL.md", 0, str(exc)))
                continue
            found[skill.name] = skill
    cache.save()
    return sorted(found.values(), key=lambda s: s.name), problems


def default_roots() -> list[tuple[str, Path]]:
    """Bundled skills first, then the user's, so a user skill overrides by name."""
    from tuibot.system.paths import bundled_dir, config_home

    return [("bundled", bundled_dir("skills")), ("user", config_home() / "skills")]
