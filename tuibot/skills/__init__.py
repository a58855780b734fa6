"""Skills: folders with a SKILL.md that teach the assistant a task, loaded from disk."""

from __future__ import annotations

from tuibot.skills.loader import Skill, SkillProblem, load_skills, parse_frontmatter

__all__ = ["Skill", "SkillProblem", "load_skills", "parse_frontmatter"]
