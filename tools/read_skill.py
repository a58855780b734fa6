"""Bundled tool: read a skill the system prompt lists, or a file that comes with it.

Skills live in tuibot's own folders, outside the workspace, so ``read_file`` cannot
reach them; this tool reads only inside the folder of a skill the turn was shown, and
only text, capped like ``read_file``.
"""

from __future__ import annotations

import os
from pathlib import Path

from tuibot import tool
from tuibot.skills.loader import Skill
from tuibot.toolkit.scope import current_skills

MAX_BYTES = 50 * 1024
"""Upper bound on what one call returns."""
DESCRIPTION_CHARS = 200
"""How much of each description the list of every skill shows."""


@tool(timeout=30)
def read_skill(name: str, file: str = "SKILL.md") -> str:
    """Read the instructions of a skill from <available_skills>, or a file in its folder.

    Args:
        name: The skill's name, as listed in <available_skills>; "*" lists every skill
            with its description (the prompt's list may leave some out).
        file: A file inside the skill's folder, relative to it (default: its SKILL.md).
    """
    skills = {skill.name: skill for skill in current_skills()}
    skill = skills.get(name)
    if skill is None and name == "*":
        return _catalogue(list(skills.values()))
    if skill is None:
        known = ", ".join(sorted(skills)) or "none"
        return f"Error: no skill named {name!r}; the skills are: {known}"
    if not skill.available:
        return f"Error: skill {name!r} cannot be used here: missing {', '.join(skill.missing)}"
    folder = Path(os.path.realpath(skill.path.parent))
    if "\0" in file:
        return "Error: file name contains a NUL byte"
    target = Path(os.path.realpath(folder / file))
    if not target.is_relative_to(folder):
        return f"Error: {file!r} is outside the folder of skill {name!r}"
    if target.is_dir():
        return _listing(folder, target)
    try:
        data = target.read_bytes()[: MAX_BYTES + 1]
    except FileNotFoundError:
        return f"Error: skill {name!r} has no file {file!r}\n{_listing(folder, folder)}"
    except OSError as exc:
        return f"Error: cannot read {file!r} of skill {name!r}: {exc.strerror or exc}"
    if b"\0" in data[:8192]:
        return f"Error: {file!r} looks like a binary file; read_skill only shows text"
    text = data[:MAX_BYTES].decode("utf-8", errors="replace")
    if len(data) > MAX_BYTES:
        text += f"\n[truncated at {MAX_BYTES // 1024} KB]"
    if target == folder / "SKILL.md":
        others = _listing(folder, folder, skip="SKILL.md")
        if others:
            text += f"\n\n{others}"
    return text


def _catalogue(skills: list[Skill]) -> str:
    """Every skill of the turn, one line each, for a prompt whose list was cut."""
    if not skills:
        return "There are no skills."
    lines = ["Every skill (read one with read_skill and its name):"]
    for skill in sorted(skills, key=lambda s: s.name):
        description = " ".join(skill.description.split())
        if len(description) > DESCRIPTION_CHARS:
            description = description[: DESCRIPTION_CHARS - 1] + "…"
        status = "" if skill.available else f" [unavailable: missing {', '.join(skill.missing)}]"
        lines.append(f"- {skill.name}: {description}{status}")
    text = "\n".join(lines)
    if len(text.encode("utf-8")) > MAX_BYTES:
        text = text.encode("utf-8")[:MAX_BYTES].decode("utf-8", errors="ignore")
        text += f"\n[truncated at {MAX_BYTES // 1024} KB]"
    return text


def _listing(folder: Path, where: Path, skip: str = "") -> str:
    """The files under ``where`` (relative to the skill folder), for reading next."""
    names: list[str] = []
    for parent, dirs, files in os.walk(where):  # symlinked folders are not entered
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        rel = Path(parent).relative_to(folder)
        names += [(rel / f).as_posix() for f in sorted(files) if f != skip or rel.parts]
        if len(names) >= 100:
            break
    names = names[:100]
    if not names:
        return ""
    return "Files in this skill (read with file=...):\n" + "\n".join(f"- {n}" for n in names)
