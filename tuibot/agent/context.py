"""The system prompt: who the bot is, when and where it works, and the user's prompt files.

The prompt files are read on every turn, so editing them takes effect at once.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

PROMPT_FILES = ("AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md")
IDENTITY = "You are tuibot, a personal AI assistant that runs in the user's terminal."


def build_system_prompt(
    *,
    bot: str,
    workspace: Path,
    prompt_dirs: list[Path],
    instructions: str = "",
    now: datetime | None = None,
) -> str:
    """Assemble the prompt; a user's prompt file overrides a bundled one of the same name."""
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
    if instructions.strip():
        sections.append(f"# Bot Instructions\n{instructions.strip()}")
    return "\n\n".join(sections)


def _first_readable(name: str, dirs: list[Path]) -> str:
    """The file's text from the first folder that has it (user folders come first)."""
    for folder in dirs:
        path = folder / name
        try:
            return path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
    return ""
