"""Themes in the app: bundled and user files, bad files reported, hot reload, remembered."""

from __future__ import annotations

import tomllib
from pathlib import Path

from scripted_server import ScriptedServer
from textual.color import Color
from tui_helpers import SIZE, Notes, make_app, ready, until

from tuibot.system.paths import bundled_dir, config_home
from tuibot.tui.themes import css_problem, load_theme_file

COMMENTED = """\
# my own settings, do not lose this comment
[tui]
bell = true  # ring when something needs me
"""


def user_theme(file: str, body: str) -> Path:
    path = config_home() / "themes" / file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")
    return path


async def test_bundled_themes_load_the_default_is_active_and_all_apply(
    server: ScriptedServer,
) -> None:
    bundled = {path.stem for path in bundled_dir("themes").glob("*.toml")}
    assert {"tuibot-dark", "tuibot-light", "tuibot-contrast"} <= bundled
    notes = Notes()
    app = make_app(server)
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await ready(pilot)
        assert app.theme == "tuibot-dark"
        assert bundled <= set(app.available_themes)
        dark = load_theme_file(bundled_dir("themes") / "tuibot-dark.toml")
        assert app.screen.styles.background == Color.parse(dark.background or "")
        for name in sorted(bundled):
            assert css_problem(app, app.available_themes[name]) is None, name
            app.theme = name
            await pilot.pause()
            assert app.current_theme.name == name
        assert notes.about("theme") == []


async def test_a_user_theme_is_picked_in_the_palette_and_remembered_with_comments(
    server: ScriptedServer,
) -> None:
    user_theme("mine.toml", 'name = "mine"\ndark = false\nprimary = "#AA3366"\n')
    app = make_app(server, config=COMMENTED)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.get_theme("mine") is not None
        assert app.theme_files["mine"].source == "user"
        await pilot.press("ctrl+p")
        await pilot.press(*"theme")
        await until(pilot, lambda: "Theme" in _palette_options(app))
        await pilot.press("down", "enter")
        await until(pilot, lambda: "mine" in _palette_options(app))
        await pilot.press(*"mine")
        await pilot.press("down", "enter")
        await until(pilot, lambda: app.theme == "mine")
        assert app.has_class("-light-mode")
        config = Path("tuibot.toml")
        await until(pilot, lambda: "mine" in config.read_text(encoding="utf-8"))
    text = config.read_text(encoding="utf-8")
    assert tomllib.loads(text)["tui"] == {"bell": True, "theme": "mine"}
    assert "# my own settings, do not lose this comment" in text
    assert "# ring when something needs me" in text


def _palette_options(app: object) -> str:
    from textual.command import CommandList

    screen = app.screen  # type: ignore[attr-defined]
    found = screen.query(CommandList)
    if not found:
        return ""
    options = found.first()
    return " ".join(str(options.get_option_at_index(i).prompt) for i in range(options.option_count))


async def test_broken_theme_files_are_reported_by_name_and_the_rest_load(
    server: ScriptedServer,
) -> None:
    broken = {
        "syntax.toml": ('primary = "#fff', "invalid TOML"),
        "noprimary.toml": ('secondary = "#fff"\n', "missing the required colour 'primary'"),
        "badcolour.toml": ('primary = "notacolour"\n', "is not a colour"),
        "unknown.toml": ('primary = "#fff"\nsparkle = 1\n', "unknown key 'sparkle'"),
        "badvar.toml": (
            'primary = "#fff"\n[variables]\n"footer-background" = "bold"\n',
            "footer-background",
        ),
    }
    for file, (body, _reason) in broken.items():
        user_theme(file, body)
    user_theme("fine.toml", 'primary = "#336699"\n')
    notes = Notes()
    app = make_app(server)
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await ready(pilot)
        assert "fine" in app.available_themes
        for file, (_body, reason) in broken.items():
            found = notes.about(file)
            assert found, file
            assert found[0][0] == "error" and reason in found[0][1], found
            assert Path(file).stem not in app.available_themes
        assert app.theme == "tuibot-dark"


async def test_editing_a_user_theme_while_running_reloads_and_reapplies_it(
    server: ScriptedServer,
) -> None:
    path = user_theme("live.toml", 'primary = "#336699"\nbackground = "#101010"\n')
    notes = Notes()
    app = make_app(server, config='[tui]\ntheme = "live"\n')
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await ready(pilot)
        assert app.theme == "live"
        assert app.screen.styles.background == Color.parse("#101010")
        await until(pilot, app.themes_watching.is_set)

        path.write_text('primary = "#336699"\nbackground = "#203040"\n', encoding="utf-8")
        await until(pilot, lambda: app.screen.styles.background == Color.parse("#203040"))
        assert app.get_theme("live").background == "#203040"  # type: ignore[union-attr]

        path.write_text('primary = "#33669"\n', encoding="utf-8")
        await until(pilot, lambda: bool(notes.about("live.toml")))
        assert "is not a colour" in notes.about("live.toml")[0][1]
        assert app.theme == "live"
        assert app.get_theme("live").background == "#203040"  # type: ignore[union-attr]

        user_theme("fresh.toml", 'primary = "#00AA00"\n')
        await until(pilot, lambda: "fresh" in app.available_themes)


async def test_a_user_file_overrides_a_bundled_theme_of_the_same_name(
    server: ScriptedServer,
) -> None:
    user_theme("my-dark.toml", 'name = "tuibot-dark"\nprimary = "#123456"\n')
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.theme == "tuibot-dark"
        assert app.current_theme.primary == "#123456"
        assert app.theme_files["tuibot-dark"].source == "user"


async def test_an_unknown_theme_in_config_falls_back_with_a_warning_and_is_not_saved(
    server: ScriptedServer,
) -> None:
    notes = Notes()
    app = make_app(server, tui__theme="no-such-theme")
    async with app.run_test(size=SIZE, message_hook=notes) as pilot:
        await ready(pilot)
        assert app.theme == "tuibot-dark"
        found = notes.about("no-such-theme")
        assert found and found[0][0] == "warning"
    assert not (config_home() / "config.toml").exists()
    assert not Path("tuibot.toml").exists()
