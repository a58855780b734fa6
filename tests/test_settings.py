"""Settings: search order, layers, checks, provenance, and saving without losing comments.

Every test uses real files under tmp_path; the conftest points TUIBOT_HOME and
TUIBOT_DATA at temporary folders and starts each test in a temporary workspace.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

import pytest
from trust_helpers import trust_file

from tuibot.settings import (
    AgentSettings,
    ConfigError,
    ProviderSettings,
    Settings,
    find_config_file,
    load_settings,
    save_setting,
    write_setting,
)
from tuibot.settings.layers import Layers
from tuibot.settings.schema import Builder, rules
from tuibot.system import paths

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def no_env_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own TUIBOT_X__Y variables must not leak into these tests."""
    for name in list(os.environ):
        if name.startswith("TUIBOT_") and "__" in name:
            monkeypatch.delenv(name)


def write(path: Path, text: str) -> Path:
    """Write a config file; a ``tuibot.toml`` is trusted, as the person's own would be."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return trust_file(path) if path.name == "tuibot.toml" else path


def home_config() -> Path:
    return paths.config_home() / "config.toml"


def load(**kwargs: object) -> Settings:
    kwargs.setdefault("env", {})
    return load_settings(**kwargs)  # type: ignore[arg-type]


# --- defaults and search order ---------------------------------------------------------


def test_no_config_gives_built_in_defaults() -> None:
    settings = load()
    assert settings.files == []
    assert settings.config_dir == Path.cwd()
    assert settings.agent.model == "llama3.2"
    assert settings.agent.max_rounds == 10
    assert list(settings.providers) == ["local"]
    local = settings.providers["local"]
    assert (local.name, local.kind, local.base_url) == (
        "local",
        "openai",
        "http://localhost:11434/v1",
    )
    assert settings.workspace_path() == Path.cwd()
    assert set(settings.origins.values()) == {"default"}
    assert settings.origins["agent.model"] == "default"
    assert settings.origins["providers.local.base_url"] == "default"


def test_settings_constructed_directly_match_loaded_defaults() -> None:
    assert Settings().as_dict() == load().as_dict()


def test_as_dict_is_plain_and_leaves_out_derived_names() -> None:
    data = load().as_dict()
    assert set(data) == {
        "agent",
        "providers",
        "bots",
        "delegation",
        "tasks",
        "tools",
        "jobs",
        "heartbeat",
        "logging",
        "tui",
        "mcp",
        "attachments",
        "transcription",
    }
    assert "name" not in data["providers"]["local"]
    assert data["agent"]["params"] == {}


def test_search_order(tmp_path: Path) -> None:
    home = write(home_config(), '[agent]\nmodel = "from-home"\n')
    assert load().agent.model == "from-home"
    assert load().files == [home]

    local = write(Path.cwd() / "tuibot.toml", '[agent]\nmodel = "from-cwd"\n')
    assert load().agent.model == "from-cwd"
    assert load().files == [local]

    explicit = write(tmp_path / "elsewhere" / "mine.toml", '[agent]\nmodel = "explicit"\n')
    settings = load(config_file=explicit)
    assert settings.agent.model == "explicit"
    assert settings.files == [explicit]
    assert find_config_file(None) == local


def test_explicit_config_relative_to_cwd(tmp_path: Path) -> None:
    write(Path.cwd() / "conf" / "a.toml", '[agent]\nmodel = "rel"\n')
    assert load(config_file=Path("conf/a.toml")).agent.model == "rel"


def test_missing_explicit_config_is_an_error(tmp_path: Path) -> None:
    write(home_config(), '[agent]\nmodel = "from-home"\n')
    missing = tmp_path / "nope.toml"
    with pytest.raises(ConfigError, match="config file not found") as info:
        load(config_file=missing)
    assert str(missing) in str(info.value)


# --- environment and flags -------------------------------------------------------------


def test_env_overrides_with_nesting_and_types() -> None:
    env = {
        "TUIBOT_AGENT__MODEL": "qwen3",
        "TUIBOT_AGENT__MAX_ROUNDS": "20",
        "TUIBOT_PROVIDERS__LOCAL__BASE_URL": "http://x/v1",
        "TUIBOT_PROVIDERS__LOCAL__PROMPT_CACHING": "true",
        "TUIBOT_PROVIDERS__LOCAL__KEYWORDS": '["llama", "qwen"]',
        "TUIBOT_PROVIDERS__LOCAL__CONNECT_TIMEOUT": "5",
        "TUIBOT_TOOLS__CONFIRM_TIMEOUT": "1.5",
    }
    settings = load(env=env)
    assert settings.agent.model == "qwen3"
    assert settings.agent.max_rounds == 20
    local = settings.providers["local"]
    assert local.base_url == "http://x/v1"
    assert local.prompt_caching is True
    assert local.keywords == ["llama", "qwen"]
    assert local.connect_timeout == 5.0 and isinstance(local.connect_timeout, float)
    assert settings.tools.confirm_timeout == 1.5
    assert settings.origins["providers.local.base_url"] == "env TUIBOT_PROVIDERS__LOCAL__BASE_URL"


def test_env_key_names_are_case_insensitive_and_strings_stay_strings() -> None:
    settings = load(env={"TUIBOT_agent__Model": "3", "TUIBOT_LOGGING__LEVEL": "debug"})
    assert settings.agent.model == "3"
    assert settings.logging.level == "DEBUG"


def test_env_matches_an_existing_provider_name_case_insensitively() -> None:
    write(Path.cwd() / "tuibot.toml", '[providers.MyBox]\nbase_url = "http://box/v1"\n')
    settings = load(env={"TUIBOT_PROVIDERS__MYBOX__MAX_RETRIES": "5"})
    assert list(settings.providers) == ["MyBox"]
    assert settings.providers["MyBox"].max_retries == 5
    assert settings.providers["MyBox"].base_url == "http://box/v1"


def test_env_can_add_a_provider_and_keeps_the_built_in_one() -> None:
    settings = load(env={"TUIBOT_PROVIDERS__GROQ__KIND": "litellm"})
    assert list(settings.providers) == ["local", "groq"]
    assert settings.providers["groq"].kind == "litellm"
    assert settings.providers["groq"].name == "groq"


def test_env_params_merge_into_file_params_or_replace_them() -> None:
    write(Path.cwd() / "tuibot.toml", "[agent.params]\ntemperature = 0.3\n")
    merged = load(env={"TUIBOT_AGENT__PARAMS__MAX_TOKENS": "100"})
    assert merged.agent.params == {"temperature": 0.3, "max_tokens": 100}
    assert merged.origins["agent.params.max_tokens"] == "env TUIBOT_AGENT__PARAMS__MAX_TOKENS"
    assert merged.origins["agent.params.temperature"].endswith("tuibot.toml")
    replaced = load(env={"TUIBOT_AGENT__PARAMS": "{ top_p = 0.9 }"})
    assert replaced.agent.params == {"top_p": 0.9}
    assert "agent.params.temperature" not in replaced.origins


def test_variables_without_double_underscore_are_not_overrides() -> None:
    env = {"TUIBOT_HOME": "/somewhere", "TUIBOT_DATA": "/else", "TUIBOT_LOCAL_API_KEY": "x"}
    assert load(env=env).as_dict() == load().as_dict()


def test_env_defaults_to_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUIBOT_AGENT__MODEL", "from-os-env")
    assert load_settings().agent.model == "from-os-env"


def test_unknown_env_key_is_an_error_naming_the_variable() -> None:
    with pytest.raises(ConfigError) as info:
        load(env={"TUIBOT_AGENT__MODLE": "x"})
    message = str(info.value)
    assert message.startswith("env TUIBOT_AGENT__MODLE: ")
    assert '"agent.modle"' in message and 'did you mean "agent.model"' in message
    with pytest.raises(ConfigError, match='unknown section "agnet"'):
        load(env={"TUIBOT_AGNET__MODEL": "x"})


def test_bad_env_value_names_variable_key_value_and_expectation() -> None:
    with pytest.raises(ConfigError) as info:
        load(env={"TUIBOT_AGENT__MAX_ROUNDS": "ten"})
    assert str(info.value) == (
        'env TUIBOT_AGENT__MAX_ROUNDS: agent.max_rounds = "ten": '
        "expected an integer >= 1 and <= 200"
    )


def test_flags_beat_env_and_file() -> None:
    write(Path.cwd() / "tuibot.toml", '[agent]\nmodel = "file"\nmax_rounds = 3\n')
    settings = load(
        env={"TUIBOT_AGENT__MODEL": "env", "TUIBOT_AGENT__MAX_ROUNDS": "4"},
        overrides={"agent.model": ("flag", "--model"), "agent.max_rounds": ("7", "--rounds")},
    )
    assert settings.agent.model == "flag"
    assert settings.agent.max_rounds == 7
    assert settings.origins["agent.model"] == "--model"
    assert settings.origins["agent.max_rounds"] == "--rounds"


def test_bad_flag_value_names_the_flag() -> None:
    with pytest.raises(ConfigError, match=r'^--provider: agent.provider = "nope": expected'):
        load(overrides={"agent.provider": ("nope", "--provider")})


# --- checks ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[agent]\nmax_rounds = "ten"', 'agent.max_rounds = "ten": expected an integer >= 1'),
        ("[agent]\nmax_rounds = 0", "agent.max_rounds = 0: expected an integer >= 1 and <= 200"),
        ("[agent]\nmax_rounds = 201", "agent.max_rounds = 201: expected an integer >= 1"),
        ("[agent]\nmax_rounds = 2.5", "agent.max_rounds = 2.5: expected an integer"),
        ("[agent]\nmax_rounds = true", "agent.max_rounds = true: expected an integer"),
        ("[agent]\nhistory_limit = 1", "agent.history_limit = 1: expected an integer >= 2"),
        ('[agent]\nmodel = ""', 'agent.model = "": expected a non-empty string'),
        ("[agent]\nmodel = 3", "agent.model = 3: expected a non-empty string"),
        ('[logging]\nlevel = "LOUD"', 'logging.level = "LOUD": expected one of DEBUG, INFO'),
        ('[providers.x]\nkind = "azure"', 'providers.x.kind = "azure": expected one of openai'),
        (
            "[providers.x]\nconnect_timeout = 0",
            "providers.x.connect_timeout = 0: expected a number > 0 and <= 60",
        ),
        ("[providers.x]\nmax_retries = 11", "providers.x.max_retries = 11: expected an integer"),
        ("[providers.x]\nprice_input = -1", "providers.x.price_input = -1: expected a number >= 0"),
        ("[providers.x]\nprefixes = [1]", "providers.x.prefixes = [1]: expected a list of strings"),
        ('[providers.x]\nprefixes = "a"', 'providers.x.prefixes = "a": expected a list of strings'),
        ('[agent]\nparams = "hot"', 'agent.params = "hot": expected a table'),
        ("agent = 5", "agent = 5: expected a table"),
        ("providers = 5", "providers = 5: expected a table"),
        ("[providers]\nx = 1", "providers.x = 1: expected a table"),
        ("[tools]\nconfirm_timeout = 0", "tools.confirm_timeout = 0: expected a number > 0"),
        (
            "[heartbeat]\ninterval = 30",
            "heartbeat.interval = 30: expected 0 (off) or at least 60 seconds",
        ),
        (
            "[heartbeat]\ninterval = -1",
            "heartbeat.interval = -1: expected 0 (off) or at least 60 seconds",
        ),
    ],
)
def test_bad_values_name_key_value_and_expectation(toml: str, message: str) -> None:
    config = write(Path.cwd() / "tuibot.toml", toml + "\n")
    with pytest.raises(ConfigError) as info:
        load()
    assert str(info.value).startswith(f"{config}: ")
    assert message in str(info.value)


@pytest.mark.parametrize("value", [0, 60, 90.5, 1800])
def test_a_heartbeat_is_off_or_at_least_a_minute_apart(value: float) -> None:
    write(Path.cwd() / "tuibot.toml", f"[heartbeat]\ninterval = {value}\n")
    assert load().heartbeat.interval == value


def test_a_heartbeat_set_in_minutes_by_mistake_is_refused_from_env_and_config_set(
    tmp_path: Path,
) -> None:
    with pytest.raises(ConfigError) as info:
        load(env={"TUIBOT_HEARTBEAT__INTERVAL": "59"})
    assert str(info.value) == (
        "env TUIBOT_HEARTBEAT__INTERVAL: heartbeat.interval = 59: "
        "expected 0 (off) or at least 60 seconds"
    )
    config = write(tmp_path / "c.toml", "")
    with pytest.raises(ConfigError, match=r"heartbeat.interval = 30: expected 0 \(off\)"):
        save_setting(config, "heartbeat.interval", "30")
    assert config.read_text(encoding="utf-8") == ""


def test_choices_are_case_insensitive_and_stored_canonically() -> None:
    write(
        Path.cwd() / "tuibot.toml",
        '[logging]\nlevel = "warning"\n[providers.x]\nkind = "LiteLLM"\n',
    )
    settings = load()
    assert settings.logging.level == "WARNING"
    assert settings.providers["x"].kind == "litellm"


@pytest.mark.parametrize(
    ("toml", "parts"),
    [
        (
            '[agent]\nmodle = "x"',
            ['unknown key "agent.modle"', 'did you mean "agent.model"', "name, model, provider"],
        ),
        (
            '[agnet]\nmodel = "x"',
            [
                'unknown section "agnet"',
                "agent, providers, bots, delegation, tasks, tools, jobs, heartbeat, tui, logging",
            ],
        ),
        (
            '[providers.x]\nbase = "x"',
            ['unknown key "providers.x.base"', "kind, base_url", "max_retries"],
        ),
        ('[providers.x]\nname = "y"', ['unknown key "providers.x.name"']),
        ('[tools]\nworkspace = "a"\nfoo = 1', ['unknown key "tools.foo"', "workspace"]),
    ],
)
def test_unknown_keys_are_errors_listing_the_valid_ones(toml: str, parts: list[str]) -> None:
    write(Path.cwd() / "tuibot.toml", toml + "\n")
    with pytest.raises(ConfigError) as info:
        load()
    for part in parts:
        assert part in str(info.value)


@pytest.mark.parametrize(
    ("toml", "line", "column"),
    [
        ('[agent]\nmodel = "x"\nmax_rounds = \n', 3, 14),
        ('[agent]\nmodel = "x\n', 2, 11),
        ('[agent]\nmodel = "a"\nmodel = "b"\n', 3, 1),
        ("[agent\n", 1, 7),
    ],
)
def test_malformed_toml_names_file_line_and_column(toml: str, line: int, column: int) -> None:
    config = write(Path.cwd() / "tuibot.toml", toml)
    with pytest.raises(ConfigError) as info:
        load()
    assert str(info.value).startswith(f"{config}: invalid TOML at line {line}, column {column}: ")


def test_file_that_is_not_utf8_is_a_config_error() -> None:
    config = Path.cwd() / "tuibot.toml"
    config.write_bytes(b'[agent]\nmodel = "\xff"\n')
    trust_file(config)
    with pytest.raises(ConfigError, match="not UTF-8"):
        load()


def test_providers_table_replaces_the_built_in_set() -> None:
    write(
        Path.cwd() / "tuibot.toml",
        '[providers.cloud]\nkind = "litellm"\ncredential = "anthropic"\nprefixes = ["anthropic"]\n',
    )
    settings = load()
    assert list(settings.providers) == ["cloud"]
    cloud = settings.providers["cloud"]
    assert cloud == ProviderSettings(
        name="cloud", kind="litellm", credential="anthropic", prefixes=["anthropic"]
    )
    assert cloud.routing_prefixes() == ["anthropic"]
    assert ProviderSettings(name="x").routing_prefixes() == ["x"]


def test_an_empty_providers_table_is_an_error() -> None:
    write(Path.cwd() / "tuibot.toml", "[providers]\n")
    with pytest.raises(ConfigError, match="no provider is defined"):
        load()


def test_agent_provider_must_name_a_provider() -> None:
    config = write(Path.cwd() / "tuibot.toml", '[agent]\nprovider = "vllm"\n')
    with pytest.raises(ConfigError) as info:
        load()
    assert str(info.value) == (
        f'{config}: agent.provider = "vllm": expected a defined provider: local'
    )


# --- paths and provenance --------------------------------------------------------------


def test_relative_workspace_is_anchored_to_the_config_files_folder(tmp_path: Path) -> None:
    project = tmp_path / "project"
    config = write(project / "tuibot.toml", '[tools]\nworkspace = "src"\n')
    settings = load(config_file=config)
    assert settings.tools.workspace == str(project / "src")
    assert settings.workspace_path() == project / "src"
    assert settings.config_dir == project
    assert Path.cwd() != project


def test_relative_workspace_from_env_is_anchored_to_cwd(tmp_path: Path) -> None:
    write(tmp_path / "project" / "tuibot.toml", "[agent]\nmax_rounds = 3\n")
    settings = load(
        config_file=tmp_path / "project" / "tuibot.toml",
        env={"TUIBOT_TOOLS__WORKSPACE": "sub/../ws"},
    )
    assert settings.workspace_path() == Path.cwd() / "ws"


def test_absolute_and_home_workspaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    assert load(env={"TUIBOT_TOOLS__WORKSPACE": str(tmp_path)}).workspace_path() == tmp_path
    expanded = load(env={"TUIBOT_TOOLS__WORKSPACE": "~/code"}).workspace_path()
    assert expanded == tmp_path / "me" / "code"


def test_cwd_argument_is_the_default_workspace(tmp_path: Path) -> None:
    settings = load(cwd=tmp_path)
    assert settings.workspace_path() == tmp_path
    assert settings.config_dir == tmp_path


def test_provenance_of_every_leaf() -> None:
    config = write(
        Path.cwd() / "tuibot.toml",
        '[agent]\nmodel = "qwen3"\n[agent.params]\ntemperature = 0.2\n'
        '[providers.local]\nbase_url = "http://a/v1"\n',
    )
    settings = load(
        env={"TUIBOT_AGENT__MAX_ROUNDS": "4"},
        overrides={"agent.name": ("Bob", "--name")},
    )
    origins = settings.origins
    assert origins["agent.model"] == str(config)
    assert origins["agent.params.temperature"] == str(config)
    assert origins["providers.local.base_url"] == str(config)
    assert origins["providers.local.kind"] == "default"
    assert origins["agent.max_rounds"] == "env TUIBOT_AGENT__MAX_ROUNDS"
    assert origins["agent.name"] == "--name"
    assert origins["logging.level"] == "default"
    leaves = {
        f"{section}.{key}"
        for section, values in settings.as_dict().items()
        if section != "providers"
        for key, value in values.items()
        if not isinstance(value, dict)
    }
    assert leaves <= set(origins)


# --- saving ----------------------------------------------------------------------------

COMMENTED = """\
# My tuibot config.
[agent]
# Which model to use.
model = "qwen3"  # fast enough
max_rounds = 5

# Tools come next.
[tools]
workspace = "ws"   # relative to this file
"""


def test_save_keeps_comments_and_order(tmp_path: Path) -> None:
    config = write(tmp_path / "c.toml", COMMENTED)
    save_setting(config, "agent.model", "llama3.1")
    save_setting(config, "agent.history_limit", "50")
    text = config.read_text()
    assert text == COMMENTED.replace('"qwen3"', '"llama3.1"').replace(
        "max_rounds = 5\n", "max_rounds = 5\nhistory_limit = 50\n"
    )
    assert load(config_file=config).agent.history_limit == 50


def test_setting_back_to_the_default_removes_the_key(tmp_path: Path) -> None:
    config = write(tmp_path / "c.toml", COMMENTED)
    saved = write_setting(config, "agent.max_rounds", 10)
    assert saved.removed and saved.key == "agent.max_rounds"
    text = config.read_text()
    assert "max_rounds" not in text
    assert "# Which model to use." in text and "# fast enough" in text
    assert load(config_file=config).origins["agent.max_rounds"] == "default"


def test_defaults_are_not_written(tmp_path: Path) -> None:
    config = tmp_path / "new" / "config.toml"
    save_setting(config, "agent.model", "llama3.2")
    save_setting(config, "logging.level", "info")
    assert "model" not in config.read_text()
    assert "level" not in config.read_text()
    save_setting(config, "agent.model", "qwen3")
    assert load(config_file=config).agent.model == "qwen3"
    assert config.read_text().count("qwen3") == 1


def test_save_new_tables_and_free_form_entries(tmp_path: Path) -> None:
    config = write(tmp_path / "c.toml", COMMENTED)
    save_setting(config, "agent.params.temperature", "0.2")
    save_setting(config, "logging.level", "debug")
    settings = load(config_file=config)
    assert settings.agent.params == {"temperature": 0.2}
    assert settings.logging.level == "DEBUG"
    assert config.read_text().startswith(COMMENTED)


def test_saving_a_provider_key_keeps_the_built_in_provider(tmp_path: Path) -> None:
    config = write(tmp_path / "c.toml", '[agent]\nmodel = "x"\n')
    save_setting(config, "providers.cloud.kind", "litellm")
    settings = load(config_file=config)
    assert list(settings.providers) == ["local", "cloud"]
    assert settings.providers["local"].base_url == "http://localhost:11434/v1"
    assert settings.providers["cloud"].kind == "litellm"


def test_setting_a_provider_value_edits_it_in_place(tmp_path: Path) -> None:
    source = '[providers.local]\nbase_url = "http://a/v1"  # my box\n\n[agent]\nmodel = "m"\n'
    config = write(tmp_path / "c.toml", source)
    save_setting(config, "providers.local.base_url", "http://b/v1")
    assert config.read_text() == source.replace("http://a/v1", "http://b/v1")


def test_save_into_dotted_keys_and_inline_tables(tmp_path: Path) -> None:
    config = write(tmp_path / "c.toml", 'agent.model = "x"\ntools = { workspace = "w" }\n')
    save_setting(config, "agent.max_rounds", 3)
    save_setting(config, "tools.confirm_timeout", 9)
    settings = load(config_file=config)
    assert (settings.agent.model, settings.agent.max_rounds) == ("x", 3)
    assert settings.tools.confirm_timeout == 9.0
    assert settings.tools.workspace == str(tmp_path / "w")


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("agent.max_rounds", "ten", 'agent.max_rounds = "ten": expected an integer >= 1'),
        ("agent.modle", "x", 'unknown key "agent.modle"'),
        ("agent.provider", "nope", 'agent.provider = "nope": expected a defined provider'),
        ("agent", "x", "agent is a table"),
        ("agent.model.x", "y", "agent.model is a value, not a table"),
    ],
)
def test_save_rejects_bad_input_and_leaves_the_file_alone(
    tmp_path: Path, key: str, value: str, message: str
) -> None:
    config = write(tmp_path / "conf" / "c.toml", COMMENTED)
    before = config.read_bytes()
    with pytest.raises(ConfigError, match=message):
        save_setting(config, key, value)
    assert config.read_bytes() == before
    assert [p.name for p in config.parent.iterdir()] == ["c.toml"]


def test_save_refuses_a_malformed_file(tmp_path: Path) -> None:
    config = write(tmp_path / "c.toml", "[agent\n")
    with pytest.raises(ConfigError, match="invalid TOML at line 1"):
        save_setting(config, "agent.model", "x")
    assert config.read_text() == "[agent\n"


def test_save_keeps_permissions_and_leaves_no_temp_file(tmp_path: Path) -> None:
    config = write(tmp_path / "conf" / "c.toml", COMMENTED)
    config.chmod(0o640)
    save_setting(config, "agent.model", "z")
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    assert [p.name for p in config.parent.iterdir()] == ["c.toml"]


def test_save_keeps_a_relative_path_as_written(tmp_path: Path) -> None:
    config = write(tmp_path / "proj" / "c.toml", "")
    save_setting(config, "tools.workspace", "src")
    assert 'workspace = "src"' in config.read_text()
    assert load(config_file=config).workspace_path() == tmp_path / "proj" / "src"


# --- the schema drives everything ------------------------------------------------------


def test_every_field_has_a_docstring_and_the_docs_are_current() -> None:
    from tuibot.settings.docs import BEGIN, END, field_docs, reference
    from tuibot.settings.schema import schema

    for cls in (Settings, AgentSettings, ProviderSettings):
        docs = field_docs(cls)
        for f in dataclasses.fields(cls):
            assert docs.get(f.name), f"{cls.__name__}.{f.name} has no docstring"
    for key in schema(Settings).values():
        if key.kind in ("section", "named"):
            assert all(field_docs(key.hint).get(name) for name in schema(key.hint))
    doc = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    block = doc.split(BEGIN, 1)[1].split(END, 1)[0]
    assert block.strip() == reference(Settings).strip(), "run python -m tuibot.settings.docs"


@dataclasses.dataclass(frozen=True)
class ToyUi:
    """A section a later issue might add."""

    theme: str = "dark"
    refresh: float = dataclasses.field(default=1.0, metadata=rules(gt=0))


@dataclasses.dataclass(frozen=True)
class ToyRoot:
    """A root with only that section."""

    ui: ToyUi = dataclasses.field(default_factory=ToyUi)


def test_a_new_section_needs_only_a_dataclass_field(tmp_path: Path) -> None:
    config = write(tmp_path / "c.toml", '[ui]\ntheme = "light"\n')
    layers = Layers.from_file(ToyRoot, {"ui": {"theme": "light"}}, config, tmp_path)
    layers.apply_env({"TUIBOT_UI__REFRESH": "0.5"}, tmp_path)
    builder = Builder(layers.origins, layers.default)
    root = builder.build(ToyRoot, layers.tree)
    assert root.ui == ToyUi(theme="light", refresh=0.5)
    assert builder.found == {"ui.theme": str(config), "ui.refresh": "env TUIBOT_UI__REFRESH"}
    layers.apply_env({"TUIBOT_UI__REFRESH": "0"}, tmp_path)
    with pytest.raises(ConfigError, match=r"ui.refresh = 0: expected a number > 0"):
        Builder(layers.origins, layers.default).build(ToyRoot, layers.tree)
    with pytest.raises(ConfigError, match=r'unknown key "ui\.them"'):
        Layers.from_file(ToyRoot, {"ui": {"them": "x"}}, config, tmp_path)


def test_transcription_must_name_a_defined_provider() -> None:
    with pytest.raises(ConfigError, match=r"transcription\.provider"):
        load(overrides={"transcription.provider": ("nowhere", "test")})
