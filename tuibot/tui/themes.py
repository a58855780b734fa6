"""Theme files: TOML in the bundled ``themes/`` folder and the user's, as Textual themes.

Why files rather than Python: a theme is data a user copies and edits while the app
runs. Every file is checked here (TOML syntax, known keys, colours through
``Color.parse``) so a bad one becomes a :class:`ThemeProblem` naming the file and the
reason, and never reaches Textual, whose stylesheet would fail on it. The format::

    name = "my-theme"          # optional, defaults to the file name without .toml
    dark = true                # optional, default true
    primary = "#5FA8D3"        # required; the other colours are optional
    secondary = "#62B6CB"
    accent = "#F4A259"
    warning = "#F4A259"
    error = "#E15554"
    success = "#7BC950"
    foreground = "#E3E7EB"
    background = "#14181F"
    surface = "#1C222B"
    panel = "#262E3A"
    boost = "#FFFFFF0A"

    [variables]                # optional: Textual CSS variables, name -> CSS value
    "footer-key-foreground" = "#5FA8D3"
"""

from __future__ import annotations

import inspect
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.color import Color, ColorParseError
from textual.content import Content
from textual.css.errors import StylesheetError
from textual.css.stylesheet import CSSLocation, StylesheetParseError
from textual.dom import DOMNode
from textual.theme import Theme

from tuibot.tui import compat

if TYPE_CHECKING:
    from textual.app import App

COLOURS = (
    "primary",
    "secondary",
    "accent",
    "warning",
    "error",
    "success",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
"""The colour keys a theme file may set; only ``primary`` is required."""
KEYS = frozenset({"name", "dark", "variables", *COLOURS})
"""Every top-level key a theme file may have."""
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
"""A theme name: no spaces or commas (Textual reads a comma as a list of names)."""
VARIABLE = re.compile(r"[a-z0-9][a-z0-9-]*")
"""A CSS variable name as Textual writes them (``footer-key-foreground``)."""
DEFAULT_THEME = "tuibot-dark"
"""The theme used when ``tui.theme`` names one that is not there."""


class ThemeError(ValueError):
    """A theme file that cannot be used; the message is the reason."""


@dataclass(frozen=True)
class ThemeProblem:
    """A theme file that was skipped, and why."""

    path: Path
    reason: str

    def __str__(self) -> str:
        return f"theme skipped: {self.path}: {self.reason}"


@dataclass(frozen=True)
class ThemeFile:
    """A theme loaded from a file, with where it came from."""

    theme: Theme
    path: Path
    source: str
    """``bundled`` or ``user``."""


def theme_folders() -> list[tuple[Path, str]]:
    """The bundled ``themes/`` folder, then the user's, so a user file overrides by name."""
    from tuibot.system.paths import bundled_dir

    return [(bundled_dir("themes"), "bundled"), (user_folder(), "user")]


def user_folder() -> Path:
    """The config home's ``themes/`` folder (watched for changes while the app runs)."""
    from tuibot.system.paths import config_home

    return config_home() / "themes"


def theme_paths(folder: Path) -> list[Path]:
    """The theme files in ``folder``, sorted; hidden and editor temp files left out."""
    try:
        found = [path for path in folder.glob("*.toml") if not path.name.startswith(".")]
    except OSError:
        return []
    return sorted(path for path in found if path.is_file())


def load_theme_file(path: Path) -> Theme:
    """The theme in ``path``; any problem is a :class:`ThemeError` with the reason."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ThemeError("not UTF-8 text") from None
    except OSError as error:
        raise ThemeError(f"cannot read it: {error.strerror or error}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ThemeError(f"invalid TOML: {error}") from None
    return parse_theme(data, default_name=path.stem)


def parse_theme(data: dict[str, Any], *, default_name: str) -> Theme:
    """A checked :class:`Theme` from a parsed theme file."""
    unknown = sorted(set(data) - KEYS)
    if unknown:
        allowed = ", ".join(sorted(KEYS))
        raise ThemeError(f"unknown key {unknown[0]!r} (allowed: {allowed})")
    name = data.get("name", default_name)
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ThemeError(f"name {name!r} is not a theme name (letters, digits, - _ .)")
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ThemeError(f"dark must be true or false, not {dark!r}")
    if "primary" not in data:
        raise ThemeError("missing the required colour 'primary'")
    colours = {key: _colour(key, data[key]) for key in COLOURS if key in data}
    get = colours.get
    return Theme(
        name=name,
        dark=dark,
        primary=colours["primary"],
        secondary=get("secondary"),
        accent=get("accent"),
        warning=get("warning"),
        error=get("error"),
        success=get("success"),
        foreground=get("foreground"),
        background=get("background"),
        surface=get("surface"),
        panel=get("panel"),
        boost=get("boost"),
        variables=_variables(data.get("variables", {})),
    )


def _colour(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ThemeError(f"{key} must be a colour string, not {value!r}")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeError(f"{key} = {value!r} is not a colour") from None
    return value


def _variables(table: Any) -> dict[str, str]:
    if not isinstance(table, dict):
        raise ThemeError("variables must be a table of name = value")
    for name, value in table.items():
        if not VARIABLE.fullmatch(name):
            raise ThemeError(f"variables: {name!r} is not a CSS variable name")
        if not isinstance(value, str) or not value.strip():
            raise ThemeError(f"variables: {name} must be a non-empty string, not {value!r}")
    return dict(table)


def load_themes(
    folders: list[tuple[Path, str]] | None = None,
) -> tuple[dict[str, ThemeFile], list[ThemeProblem]]:
    """Every good theme by name (later folders win) and the files that were skipped."""
    themes: dict[str, ThemeFile] = {}
    problems: list[ThemeProblem] = []
    for folder, source in folders if folders is not None else theme_folders():
        for path in theme_paths(folder):
            try:
                theme = load_theme_file(path)
            except ThemeError as error:
                problems.append(ThemeProblem(path, str(error)))
                continue
            themes[theme.name] = ThemeFile(theme, path, source)
    return themes, problems


def css_problem(app: App[Any], theme: Theme) -> str | None:
    """Why ``theme``'s variables would break the app's CSS, or None when they would not.

    A bad variable value (``footer-background = "bold"``) is only found when Textual
    parses CSS that uses it, and then the app stops. So the app's stylesheet, plus the
    default CSS of every widget class loaded (screens not shown yet included), is parsed
    once with the theme's variables before the theme is registered.
    """
    if not theme.variables:
        return None
    sheet = app.stylesheet.copy()
    for location, css, scope in _widget_css():
        if location not in sheet.source:
            sheet.add_source(css, read_from=location, is_default_css=True, scope=scope)
    generated = theme.to_color_system().generate()
    sheet.set_variables({**app.get_theme_variable_defaults(), **generated, **theme.variables})
    try:
        sheet.reparse()
    except StylesheetParseError as error:
        return _describe(error, theme)
    except StylesheetError as error:
        return f"its variables break the app's CSS: {error}"
    return None


def _widget_css() -> list[tuple[CSSLocation, str, str]]:
    """(location, DEFAULT_CSS, scope) of every widget class loaded, as Textual keys them.

    The scope is the class's own name: what Textual keeps in ``_css_type_name``.
    """
    found: list[tuple[CSSLocation, str, str]] = []
    for cls in compat.node_classes():
        css = cls.__dict__.get("DEFAULT_CSS", "")
        if css:
            scope = cls.__name__ if cls.__dict__.get("SCOPED_CSS", True) else ""
            found.append((_location(cls), css, scope))
    return found


@cache
def _location(cls: type[DOMNode]) -> CSSLocation:
    try:
        return (inspect.getfile(cls), f"{cls.__name__}.DEFAULT_CSS")
    except (TypeError, OSError):
        return ("", f"{cls.__name__}.DEFAULT_CSS")


def _describe(error: StylesheetParseError, theme: Theme) -> str:
    """The first bad variable and what Textual says about it."""
    for rule in error.errors.rules:
        for token, message in rule.errors:
            name = token.referenced_by.name if token.referenced_by else None
            if name in theme.variables:
                summary = getattr(message, "summary", str(message))
                plain = Content.from_markup(summary).plain
                return f"variables: {name} = {theme.variables[name]!r}: {plain}"
    return "its variables break the app's CSS"
