"""The frontmatter fields tuibot acts on, checked for type with the line they are on.

YAML types values by their look (``name: 2024`` is a number, ``always: "true"`` a string),
so a field tuibot uses is checked before it is used: a wrong type skips the skill with a
message naming the field, what it holds and what was expected, instead of being coerced
into something the writer did not mean. Fields tuibot does not use are never checked.
"""

from __future__ import annotations

import os
import reprlib
import shutil
from dataclasses import dataclass
from typing import Any

from tuibot.skills.frontmatter import Frontmatter, FrontmatterError


@dataclass(frozen=True)
class SkillFields:
    """What tuibot reads from a skill's frontmatter; ``extra`` is everything else."""

    name: str
    description: str
    always: bool
    missing: tuple[str, ...]
    extra: dict[Any, Any]


def check_fields(front: Frontmatter, folder_name: str) -> SkillFields:
    """The checked fields of one skill; raise FrontmatterError naming a bad field."""
    fields = dict(front.fields)
    line = front.lines.get
    description = fields.pop("description", None)
    if description is None or (isinstance(description, str) and not description.strip()):
        raise FrontmatterError(line("description", 1), "missing description")
    if not isinstance(description, str):
        raise _wrong("description", description, "text", line("description", 1))
    name = fields.pop("name", None)
    if name is not None and not isinstance(name, str):
        raise _wrong("name", name, "text (quote it)", line("name", 1))
    vendor, where = _vendor_section(fields.get("metadata"))
    if "always" in fields:
        always = _flag(fields.pop("always"), "always", line("always", 1))
    else:
        always = _flag(vendor.get("always"), f"{where}.always", line("metadata", 1))
    if "requires" in fields:
        missing = _missing(fields.pop("requires"), "requires", line("requires", 1))
    else:
        missing = _missing(vendor.get("requires"), f"{where}.requires", line("metadata", 1))
    name = name.strip() if name else ""
    return SkillFields(name or folder_name, description.strip(), always, missing, fields)


def _flag(value: Any, label: str, line: int) -> bool:
    """A yes/no field: YAML's booleans only (a missing or empty one is false)."""
    if value is None:
        return False
    if not isinstance(value, bool):
        raise _wrong(label, value, "true or false", line)
    return value


def _vendor_section(metadata: Any) -> tuple[dict[Any, Any], str]:
    """``metadata.<tool>`` of a skill written for another assistant (OpenClaw keeps
    ``requires`` and ``always`` there) and its dotted name; top-level fields win."""
    if isinstance(metadata, dict):
        for key, value in metadata.items():
            if isinstance(value, dict) and ("requires" in value or "always" in value):
                return value, f"metadata.{key}"
    return {}, "metadata"


def _missing(requires: Any, label: str, line: int) -> tuple[str, ...]:
    """What ``requires`` names (``bins``: programs, ``env``: variables) that is absent."""
    if requires is None:
        return ()
    if not isinstance(requires, dict):
        raise _wrong(label, requires, "a map with 'bins' and 'env'", line)
    bins = _names(requires.get("bins"), f"{label}.bins", line)
    envs = _names(requires.get("env"), f"{label}.env", line)
    return tuple(
        [f"binary {b}" for b in bins if not shutil.which(b)]
        + [f"env {e}" for e in envs if not os.environ.get(e)]
    )


def _names(value: Any, label: str, line: int) -> list[str]:
    """A name or a list of names (``bins: gh`` or ``bins: [gh, git]``)."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(item, str) and item for item in value):
        return list(value)
    raise _wrong(label, value, "a name or a list of names", line)


def _wrong(label: str, value: Any, expected: str, line: int) -> FrontmatterError:
    """The error for a field of the wrong type: the field, what it holds, what it needs."""
    shown = reprlib.repr(value)  # bounded: YAML aliases can nest a list a billion wide
    kind = type(value).__name__
    return FrontmatterError(line, f"{label} must be {expected}, got {kind} {shown}")
