"""Find and parse skills (folders holding SKILL.md) without a YAML dependency.

Skills use a small subset of YAML frontmatter; a tiny parser keeps start-up fast and lets
unknown fields (license, metadata, ...) pass through as raw values instead of failing.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class FrontmatterError(ValueError):
    """A SKILL.md whose frontmatter can't be read; carries the 1-based line."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason


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


def _scalar(text: str) -> Any:
    """One YAML-ish scalar: quoted string, bool, inline list, or plain string."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text.lower() in ("true", "yes"):
        return True
    if text.lower() in ("false", "no"):
        return False
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [_scalar(part) for part in inner.split(",")] if inner else []
    return text


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _parse_block(lines: list[tuple[int, str]], base: int) -> dict[str, Any]:
    """Parse `key: value` lines at indent `base`, with nested maps and block lists."""
    result: dict[str, Any] = {}
    i = 0
    while i < len(lines):
        number, line = lines[i]
        if _indent(line) != base:
            raise FrontmatterError(number, "unexpected indentation")
        key, sep, rest = line.strip().partition(":")
        if not sep or not key:
            raise FrontmatterError(number, f"expected 'key: value', got {line.strip()!r}")
        j = i + 1
        while j < len(lines) and _indent(lines[j][1]) > base:
            j += 1
        child = lines[i + 1 : j]
        if rest.strip():
            if child:
                raise FrontmatterError(child[0][0], "unexpected indentation")
            result[key.strip()] = _scalar(rest)
        elif child and child[0][1].strip().startswith("- "):
            items = []
            for n, item in child:
                if not item.strip().startswith("- "):
                    raise FrontmatterError(n, "mixed list and map")
                items.append(_scalar(item.strip()[2:]))
            result[key.strip()] = items
        elif child:
            result[key.strip()] = _parse_block(child, _indent(child[0][1]))
        else:
            result[key.strip()] = ""
        i = j
    return result


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str, int]:
    """Split SKILL.md text into (fields, body, body start line); raise FrontmatterError."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise FrontmatterError(1, "no frontmatter (the file must start with '---')")
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            break
    else:
        raise FrontmatterError(1, "unclosed frontmatter (no closing '---')")
    raw = [
        (n + 1, lines[n])
        for n in range(1, end)
        if lines[n].strip() and not lines[n].lstrip().startswith("#")
    ]
    for number, line in raw:
        if "\t" in line[: _indent(line) + 1]:
            raise FrontmatterError(number, "tabs are not allowed for indentation")
    fields = _parse_block(raw, 0) if raw else {}
    return fields, "\n".join(lines[end + 1 :]).strip() + "\n", end + 2


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


def load_skill(folder: Path, source: str) -> Skill:
    """Load one skill folder; raise FrontmatterError for a malformed SKILL.md."""
    path = folder / "SKILL.md"
    fields, body, _ = parse_frontmatter(path.read_text(encoding="utf-8"))
    description = fields.pop("description", "")
    if not isinstance(description, str) or not description.strip():
        raise FrontmatterError(1, "missing description")
    name = str(fields.pop("name", "") or folder.name)
    always = fields.pop("always", False) is True
    requires = fields.pop("requires", None)
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
