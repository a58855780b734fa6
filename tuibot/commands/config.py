"""``tuibot config``: the effective settings with their origins, the folders, one-key edits.

Why: with four layers (defaults, file, env, flags) "why is the model X?" needs a
one-command answer, and editing a key should not cost the user their comments. Values
that look like secrets are masked; credentials are keyring entry names and are shown.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``tuibot config show|path|set``."""
    parser = subparsers.add_parser(
        "config",
        help="show the effective settings, where files live, or set one key",
        description="Show the effective settings, where tuibot's files live, or set one key.",
    )
    actions = parser.add_subparsers(dest="config_action", metavar="ACTION", required=True)
    actions.add_parser(
        "show",
        help="print every effective value with where it came from",
        description="Print every effective value as TOML, each with a comment naming its "
        "origin: default, the config file, an env variable or a flag. Secrets are masked.",
    )
    actions.add_parser("path", help="print the config home, config file, data and log folders")
    put = actions.add_parser(
        "set",
        help="write one key to the config file (comments are kept)",
        description="Write one key to the config file in use (or create "
        "<config home>/config.toml). The value is read as TOML when it parses (5, true, "
        '["a", "b"]) and as text otherwise. A value equal to the default removes the key.',
    )
    put.add_argument("key", help="dotted key, e.g. agent.model or providers.local.base_url")
    put.add_argument("value", help="the new value")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run one ``config`` action; exit 0 ok, 2 for a config problem."""
    from tuibot.settings import ConfigError

    try:
        if args.config_action == "show":
            return _show(args)
        if args.config_action == "path":
            return _path(args)
        return _set(args)
    except ConfigError as exc:
        print(f"tuibot: {exc}", file=sys.stderr)
        return 2


def _show(args: argparse.Namespace) -> int:
    from tuibot.settings import load_settings

    settings = load_settings(getattr(args, "config", None))
    print("\n".join(render_settings(settings)))
    return 0


def _path(args: argparse.Namespace) -> int:
    from tuibot.settings.project import choose_config
    from tuibot.system import paths

    home = paths.config_home()
    choice = choose_config(getattr(args, "config", None), Path.cwd())
    found = choice.path
    print(f"config home: {home}")
    print(f"config file: {found if found else 'none (built-in defaults)'}")
    if choice.ignored is not None:
        print(f"ignored:     {ignored_line(choice.ignored)}")
    if found is None:
        print(f"searched:    {Path.cwd() / 'tuibot.toml'}, {home / 'config.toml'}")
    print(f"data dir:    {paths.data_home()}")
    print(f"log dir:     {paths.log_home()}")
    return 0


def _set(args: argparse.Namespace) -> int:
    from tuibot.settings import find_config_file, write_setting
    from tuibot.settings.values import format_value, mask
    from tuibot.system import paths

    target = find_config_file(getattr(args, "config", None)) or paths.config_home() / "config.toml"
    saved = write_setting(target, args.key, args.value)
    shown = mask(saved.value) if _is_secret_key(saved.key) else format_value(saved.value)
    if saved.removed:
        print(f"{saved.key} is back to its default {shown}; removed it from {saved.path}")
    else:
        print(f"{saved.key} = {shown} written to {saved.path}")
    var = "TUIBOT_" + "__".join(part.upper() for part in saved.key.split("."))
    shadow = next((name for name in os.environ if name.upper() == var), None)
    if shadow:
        print(f"tuibot: note: env {shadow} overrides this value", file=sys.stderr)
    return 0


def _is_secret_key(key: str) -> bool:
    """A free-form entry named like a secret, or a schema field marked secret."""
    from tuibot.settings import Settings
    from tuibot.settings.schema import resolve
    from tuibot.settings.values import is_secret_name

    target = resolve(Settings, key.split("."), lambda parts: [])
    if target.key.rules.get("secret"):
        return True
    return any(is_secret_name(part) for part in target.inner)


# --- rendering ----------------------------------------------------------------------


def render_settings(settings: Any) -> list[str]:
    """The effective settings as TOML lines, each value followed by ``# <origin>``."""
    from tuibot.settings.schema import schema

    files = ", ".join(str(f) for f in settings.files) or "none (built-in defaults)"
    lines = [f"# config file: {files}"]
    if settings.ignored_project is not None:
        lines.append(f"# ignored: {ignored_line(settings.ignored_project)}")
    for name, key in schema(type(settings)).items():
        value = getattr(settings, name)
        if key.kind == "named":
            if not value:
                lines += ["", f"# [{name}] has no entries"]
            for entry, obj in value.items():
                lines += _table_lines((name, entry), obj, settings.origins)
        elif key.kind == "section":
            lines += _table_lines((name,), value, settings.origins)
    return lines


def ignored_line(project: Any) -> str:
    """``/x/tuibot.toml (not trusted; run `tuibot trust` to use it)``, characters visible."""
    from tuibot.settings.project import spelled

    return f"{spelled(str(project.path))} ({project.reason()}; run `tuibot trust` to use it)"


def _table_lines(parts: tuple[str, ...], obj: Any, origins: dict[str, str]) -> list[str]:
    """One ``[table]`` of leaves, then its free-form sub-tables."""
    from tuibot.settings.schema import dotted, schema
    from tuibot.settings.values import format_key, format_value, mask

    lines = ["", f"[{_header(parts)}]"]
    later: list[list[str]] = []
    for name, key in schema(type(obj)).items():
        value, path = getattr(obj, name), (*parts, name)
        if key.kind == "section":
            later.append(_table_lines(path, value, origins))
        elif key.kind == "table" and value:
            later.append(_free_table_lines(path, value, origins))
        else:
            shown = mask(value) if key.rules.get("secret") else value
            text = format_value(shown, 10**6)
            origin = origins.get(dotted(path), "default")
            lines.append(f"{format_key(name)} = {text}  # {origin}")
    for block in later:
        lines += block
    return lines


def _free_table_lines(
    path: tuple[str, ...], table: dict[str, Any], origins: dict[str, str]
) -> list[str]:
    from tuibot.settings.schema import dotted
    from tuibot.settings.values import format_key, format_value

    lines = ["", f"[{_header(path)}]"]
    for name, value in table.items():
        origin = origins.get(dotted((*path, name)), "default")
        lines.append(f"{format_key(name)} = {format_value(masked(name, value), 10**6)}  # {origin}")
    return lines


def masked(name: str, value: Any) -> Any:
    """``value`` with every secret-looking key's value (at any depth) masked."""
    from tuibot.settings.values import is_secret_name, mask

    if is_secret_name(name):
        return mask(value)
    if isinstance(value, dict):
        return {k: masked(k, v) for k, v in value.items()}
    if isinstance(value, list):
        return [masked("", v) for v in value]
    return value


def _header(parts: tuple[str, ...]) -> str:
    from tuibot.settings.values import format_key

    return ".".join(format_key(p) for p in parts)
