"""Bots in config: ``[[bots]]`` arrays and ``[bots.<name>]`` tables, and their errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuibot.settings import ConfigError, load_settings, write_setting

BOTS = """\
[agent]
name = "Assistant"

[[bots]]
name = "Coder"
description = "Writes and fixes code"
tools = ["read_file", "edit_file"]

[[bots]]
name = "Researcher"
description = "Finds things out"
model = "qwen3"
workspace = "notes"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tuibot.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_an_array_of_bots_loads_by_name(tmp_path: Path) -> None:
    settings = load_settings(write(tmp_path, BOTS), env={})
    assert list(settings.bots) == ["Coder", "Researcher"]
    coder, researcher = settings.bots["Coder"], settings.bots["Researcher"]
    assert coder.tools == ["read_file", "edit_file"] and coder.model == ""
    assert researcher.model == "qwen3"
    assert researcher.workspace == str(tmp_path / "notes")  # anchored to the file's folder
    assert settings.origins["bots.Coder.description"] == str(tmp_path / "tuibot.toml")


def test_named_tables_mean_the_same_and_env_overrides_reach_a_bot(tmp_path: Path) -> None:
    path = write(tmp_path, '[bots.Coder]\ndescription = "Writes code"\n')
    settings = load_settings(path, env={"TUIBOT_BOTS__CODER__MODEL": "qwen3-coder"})
    assert settings.bots["Coder"].model == "qwen3-coder"
    assert settings.origins["bots.Coder.model"] == "env TUIBOT_BOTS__CODER__MODEL"


def test_no_bots_configured_means_only_the_default_bot() -> None:
    assert load_settings(None, env={}).bots == {}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('[[bots]]\ndescription = "x"\n', '[[bots]] #1: needs a name, e.g. name = "Coder"'),
        ('[[bots]]\nname = "A"\n[[bots]]\nname = "A"\n', "[[bots]] #2: the name 'A' is used twice"),
        ('[[bots]]\nname = "Assistant"\n', "bot 'Assistant' has the default bot's name"),
        ('[[bots]]\nname = "A"\nprovider = "nowhere"\n', "bots.A.provider"),
        ('[[bots]]\nname = "A"\nmodle = "x"\n', 'unknown key "bots.A.modle"'),
        ("bots = [1, 2]\n", "[[bots]] #1: expected a table, got 1"),
    ],
)
def test_bad_bots_are_named_in_the_error(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings(write(tmp_path, body), env={})
    assert message in str(caught.value)


def test_config_set_edits_named_bots_but_not_an_array(tmp_path: Path) -> None:
    named = write(tmp_path, '[bots.Coder]\ndescription = "Writes code"\n')
    write_setting(named, "bots.Coder.model", "qwen3")
    assert load_settings(named, env={}).bots["Coder"].model == "qwen3"

    array = tmp_path / "array.toml"
    array.write_text(BOTS, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[\[bots\]\] is an array of tables"):
        write_setting(array, "bots.Coder.model", "qwen3")
    assert array.read_text(encoding="utf-8") == BOTS
