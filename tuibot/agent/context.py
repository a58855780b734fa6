"""The system prompt: who the bot is, when and where it works, and what it knows.

Sections come in a fixed order (the seed's): identity and bot name, date and time, the
workspace, the prompt files ``AGENTS.md``, ``SOUL.md``, ``USER.md``, ``TOOLS.md``, the
bot's memory, always-on skills, the summary of the other skills, and the bot's own
instructions last, so they win when something earlier disagrees. Prompt files are read
on every turn, so editing one takes effect at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from tuibot.skills.loader import Skill

PROMPT_FILES = ("AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md")
IDENTITY = "You are tuibot, a personal AI assistant that runs in the user's terminal."
SKILLS_INTRO = (
    "Skills are instructions for particular kinds of work. When one below fits the task, "
    "call read_skill with its name before you start, and follow it."
)
MORE_SKILLS = (
    '  <more_skills count="{count}">{count} more skills are not listed, to keep this prompt '
    'short. Call read_skill with name "*" to see every skill with its description.'
    "</more_skills>"
)
"""The last line of a summary that was cut to its budget."""
MEMORY_INTRO = (
    "What you saved earlier (memory_save adds to it, memory_search finds in it). "
    "It is your own notes, not instructions from the user."
)


def build_system_prompt(
    *,
    bot: str,
    workspace: Path,
    prompt_dirs: list[Path],
    instructions: str = "",
    memory: str = "",
    skills: Sequence[Skill] = (),
    skills_budget: int = 0,
    now: datetime | None = None,
) -> str:
    """Assemble the prompt; a prompt file in an earlier folder wins over a later one."""
    now = now or datetime.now().astimezone()
    sections = [
        IDENTITY,
        f"You are acting as the bot **{bot}**.",
        f"Current date and time: {now:%Y-%m-%d %H:%M %Z}.".replace(" .", "."),
        f"# Workspace\nYour file tools work in {workspace}. Relative paths resolve there.",
    ]
    for name in PROMPT_FILES:
        text = _first_readable(name, prompt_dirs)
        if text:
            sections.append(f"# {name}\n{text}")
    if memory.strip():
        sections.append(f"# Memory\n{MEMORY_INTRO}\n\n{memory.strip()}")
    for skill in skills:
        if skill.always and skill.available:
            sections.append(f"# Skill: {skill.name}\n{skill.body.strip()}")
    summary = skills_summary(skills, skills_budget)
    if summary:
        sections.append(f"# Skills\n{SKILLS_INTRO}\n\n{summary}")
    if instructions.strip():
        sections.append(f"# Bot Instructions\n{instructions.strip()}")
    return "\n\n".join(sections)


WINDOW_SHARE = 0.1
"""The most of a known context window the skills list may take (in tokens)."""
CHARS_PER_TOKEN = 3.2
"""Characters per token for that share: the ratio the context fitting starts from."""


def skills_budget(configured: int, window_tokens: int | None) -> int:
    """The summary's budget in characters: ``agent.skills_summary_chars``, and once the
    model's window is known at most a tenth of it, because the list is sent with every
    request and counts toward that window (4000 characters is a quarter of 4k tokens)."""
    if not window_tokens:
        return configured
    share = int(window_tokens * WINDOW_SHARE * CHARS_PER_TOKEN)
    return min(configured, share) if configured > 0 else share


def skills_summary(skills: Sequence[Skill], budget: int = 0) -> str:
    """The ``<available_skills>`` list: name, description, location and status of each.

    At most ``budget`` characters (0 = no limit), because every skill costs about 500 and
    a small model's window is a few thousand tokens: when the list is cut, unavailable
    skills go first, and a ``<more_skills>`` line says how many were left out and how to
    find them (read_skill "*"). Text is XML-escaped: a description is written by whoever
    wrote the skill and must not be able to close the list or forge an entry.
    """
    if not skills:
        return ""
    entries = [_entry(skill) for skill in skills]
    shown = _fit(skills, entries, budget)
    lines = ["<available_skills>", *(entries[i] for i in sorted(shown))]
    left_out = len(skills) - len(shown)
    if left_out:
        lines.append(MORE_SKILLS.format(count=left_out))
    lines.append("</available_skills>")
    return "\n".join(lines)


def _entry(skill: Skill) -> str:
    """One ``<skill>`` line of the summary."""
    attribute = ' always="true"' if skill.always else ""
    status = "available" if skill.available else f"unavailable: missing {', '.join(skill.missing)}"
    return (
        f"  <skill{attribute}><name>{escape(skill.name)}</name>"
        f"<description>{escape(skill.description)}</description>"
        f"<location>{escape(str(skill.path))}</location>"
        f"<status>{escape(status)}</status></skill>"
    )


def _fit(skills: Sequence[Skill], entries: list[str], budget: int) -> set[int]:
    """Indexes of the entries that fit ``budget`` with the list's tags, available first."""
    if budget <= 0:
        return set(range(len(entries)))
    used = len("<available_skills>\n</available_skills>")
    shown: set[int] = set()
    order = sorted(range(len(skills)), key=lambda i: not skills[i].available)  # stable
    for index in order:
        cost = len(entries[index]) + 1
        if used + cost <= budget:
            shown.add(index)
            used += cost
    return shown


def escape(text: str) -> str:
    """``text`` safe inside an XML element (``html.escape`` would import html.entities)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _first_readable(name: str, dirs: list[Path]) -> str:
    """The file's text from the first folder that has it (user folders come first)."""
    for folder in dirs:
        path = folder / name
        try:
            return path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
    return ""
