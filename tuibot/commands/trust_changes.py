"""What a project config file would change: the keys whose values differ with it.

Why: trusting a file is only a real decision when the person sees what it does — which
provider it sends their key to, which folder becomes the workspace — not a wall of TOML.
Both sides are full effective settings (env overrides and flags included), so what is
listed is exactly what would be different. Secrets are masked as ``config show`` masks
them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tuibot.settings.project import ProjectFile, spelled

ABSENT = "(absent)"
"""Shown for a key one side does not have (a free-form entry, a new provider's key)."""
REMOVED = "(removed)"


@dataclass(frozen=True)
class Change:
    """One dotted key whose shown value differs with the project file."""

    key: str
    before: str
    """As shown (masked when secret); :data:`ABSENT` when the key does not exist without it."""
    after: str
    """As shown; :data:`REMOVED` for a whole table entry (a provider, a bot) it drops."""


def project_changes(
    project: ProjectFile,
    *,
    overrides: Mapping[str, tuple[Any, str]] | None = None,
    env: Mapping[str, str] | None = None,
) -> list[Change]:
    """The changes ``project`` would make to the config in effect without it.

    A table entry it adds (``[providers.x]``) lists the values that differ from a fresh
    entry's defaults; one it drops is one line. Raises ``ConfigError`` when the project
    file itself is not a valid config.
    """
    from tuibot.settings import load_settings, settings_from

    folder = project.path.parent
    before = load_settings(None, env=env, overrides=overrides, cwd=folder, project=False)
    after = settings_from(project.path, project.data, env=env, overrides=overrides, cwd=folder)
    old, new = flat_settings(before), flat_settings(after)
    old_entries, new_entries = named_entries(before), named_entries(after)
    changes = [
        Change(key, old.get(key, ABSENT), value)
        for key, value in new.items()
        if old.get(key) != value and not _fresh_default(key, value, old_entries, new_entries)
    ]
    if _workspace(before) != _workspace(after):
        changes.append(Change(WORKSPACE, str(_workspace(before)), str(_workspace(after))))
    gone = [entry for entry in old_entries if entry not in new_entries]
    changes += [Change(entry, "defined", REMOVED) for entry in gone]
    changes += [
        Change(key, value, ABSENT)
        for key, value in old.items()
        if key not in new and not any(key.startswith(f"{entry}.") for entry in gone)
    ]
    return changes


WORKSPACE = "(workspace)"


def _fresh_default(
    key: str, value: str, old: dict[str, dict[str, str]], new: dict[str, dict[str, str]]
) -> bool:
    """Whether ``key`` belongs to an entry only the project file has, at its default."""
    for entry, defaults in new.items():
        if key.startswith(f"{entry}.") and entry not in old:
            return defaults.get(key) == value
    return False


def render_changes(project: ProjectFile, changes: list[Change]) -> list[str]:
    """The lines listing ``changes`` (or saying there are none), every character visible."""
    where = spelled(str(project.path))
    if not changes:
        return [f"{where} changes nothing in the config in effect without it."]
    lines = [f"{where} would change:"]
    for change in changes:
        if change.key == WORKSPACE:
            lines.append(f"  the file tools' workspace: {change.after}  (now {change.before})")
        elif change.after == REMOVED:
            lines.append(f"  {change.key}: removed, with all its keys")
        elif change.after == ABSENT:
            lines.append(f"  {change.key}: removed  (now {change.before})")
        elif change.before == ABSENT:
            lines.append(f"  {change.key} = {change.after}  (new)")
        else:
            lines.append(f"  {change.key} = {change.after}  (now {change.before})")
    return [spelled(line) for line in lines]


def named_entries(settings: Any) -> dict[str, dict[str, str]]:
    """Each table entry (``providers.local``) with the values a fresh entry would have."""
    from tuibot.settings.schema import derived_fields, schema

    entries: dict[str, dict[str, str]] = {}
    for name, key in schema(type(settings)).items():
        if key.kind != "named":
            continue
        for entry, obj in getattr(settings, name).items():
            kind = type(obj)
            try:
                fresh = kind(**{f: getattr(obj, f) for f in derived_fields(kind)})
            except TypeError:  # no defaults for some keys: every value counts as a change
                entries[f"{name}.{entry}"] = {}
                continue
            entries[f"{name}.{entry}"] = dict(_leaves((name, entry), fresh))
    return entries


def flat_settings(settings: Any) -> dict[str, str]:
    """Every effective value by dotted key, formatted as TOML, secrets masked."""
    from tuibot.settings.schema import schema

    flat: dict[str, str] = {}
    for name, key in schema(type(settings)).items():
        value = getattr(settings, name)
        if key.kind == "named":
            for entry, obj in value.items():
                flat.update(_leaves((name, entry), obj))
        elif key.kind == "section":
            flat.update(_leaves((name,), value))
    return flat


def _leaves(parts: tuple[str, ...], obj: Any) -> Iterator[tuple[str, str]]:
    from tuibot.commands.config import masked
    from tuibot.settings.schema import dotted, schema
    from tuibot.settings.values import format_value, mask

    for name, key in schema(type(obj)).items():
        value, path = getattr(obj, name), (*parts, name)
        if key.kind == "section":
            yield from _leaves(path, value)
        elif key.kind == "table":
            for inner, item in value.items():
                yield dotted((*path, inner)), format_value(masked(inner, item), 10**6)
        else:
            shown = mask(value) if key.rules.get("secret") else value
            yield dotted(path), format_value(shown, 10**6)


def _workspace(settings: Any) -> Path:
    return Path(settings.workspace_path()).resolve()
