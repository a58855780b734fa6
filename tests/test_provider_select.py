"""Which provider serves a model: the cascade, with settings loaded the way tuibot loads them.

A wrong choice sends a prompt (and maybe a key) to the wrong server, so every step of
the cascade is checked with real TOML files in the temporary workspace.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from trust_helpers import trust_file

from tuibot.llm.select import make_client, needs_key, select_route
from tuibot.settings import ConfigError, ProviderSettings, Settings, load_settings

PROVIDERS = """
[providers.local]
base_url = "http://127.0.0.1:11434/v1"

[providers.anthropic]
kind = "litellm"
credential = "anthropic"

[providers.groq]
kind = "litellm"
credential = "groq"
prefixes = ["groq", "llama-cloud"]
keywords = ["Mixtral", "gemma"]

[providers.ollama-box]
base_url = "http://gpu-box:11434/v1"
prefixes = ["box"]
"""


def settings_from(toml: str, **overrides: Any) -> Settings:
    """Settings from a ``tuibot.toml`` in the working directory, plus overrides."""
    Path("tuibot.toml").write_text(toml, encoding="utf-8")
    trust_file()
    return load_settings(overrides={k: (v, "test") for k, v in overrides.items()})


def keys(*names: str) -> Callable[[ProviderSettings], str | None]:
    """A key lookup that has a key for the named providers only."""
    return lambda provider: f"sk-{provider.name}" if provider.name in names else None


def chosen(settings: Settings, model: str, *with_keys: str) -> tuple[str, str]:
    """(provider name, model as sent) for ``model``."""
    route = select_route(settings, model, keys(*with_keys))
    return route.provider.name, route.model


def test_explicit_provider_wins_over_prefix_and_keywords() -> None:
    settings = settings_from(PROVIDERS, **{"agent.provider": "local"})
    assert chosen(settings, "anthropic/claude-sonnet-4", "anthropic") == (
        "local",
        "anthropic/claude-sonnet-4",
    )


def test_explicit_provider_is_used_even_without_its_key() -> None:
    """The engine then says the key is missing, rather than silently going elsewhere."""
    settings = settings_from(PROVIDERS, **{"agent.provider": "anthropic"})
    assert chosen(settings, "claude-sonnet-4") == ("anthropic", "claude-sonnet-4")


def test_unknown_explicit_provider_is_a_config_error_naming_the_choices() -> None:
    Path("tuibot.toml").write_text(PROVIDERS, encoding="utf-8")
    trust_file()
    with pytest.raises(ConfigError) as caught:
        load_settings(overrides={"agent.provider": ("openrouter", "--provider")})
    message = str(caught.value)
    assert "--provider" in message and "openrouter" in message
    assert "local" in message and "anthropic" in message


def test_prefix_picks_the_provider_that_has_a_key() -> None:
    settings = settings_from(PROVIDERS)
    assert chosen(settings, "anthropic/claude-sonnet-4", "anthropic")[0] == "anthropic"


def test_configured_prefixes_replace_the_name() -> None:
    settings = settings_from(PROVIDERS)
    assert chosen(settings, "llama-cloud/llama-3.3-70b", "groq")[0] == "groq"
    assert chosen(settings, "box/qwen3")[0] == "ollama-box"
    # with its own prefixes set, the provider's name is no longer a prefix of its own
    assert chosen(settings, "ollama-box/qwen3")[0] == "local"


def test_prefix_provider_without_a_key_is_skipped() -> None:
    settings = settings_from(PROVIDERS)
    # no key for anthropic, no keyword matches: the first usable provider, prefix kept
    assert chosen(settings, "anthropic/claude-sonnet-4", "groq") == (
        "local",
        "anthropic/claude-sonnet-4",
    )


def test_keyword_match_is_case_insensitive_and_needs_a_key() -> None:
    toml = PROVIDERS.replace("[providers.local]", "[providers.zz-first]\ncredential = 'zz'\n")
    toml += "\n[providers.local]\n"
    settings = settings_from(toml)
    assert chosen(settings, "mixtral-8x7b", "groq", "zz-first")[0] == "groq"
    assert chosen(settings, "mixtral-8x7b", "zz-first")[0] == "zz-first"


def test_first_provider_with_a_key_serves_an_unrecognised_model() -> None:
    toml = """
[providers.one]
kind = "litellm"
credential = "one"

[providers.two]
kind = "litellm"
credential = "two"

[providers.three]
kind = "litellm"
api_key_env = "THREE_KEY"
"""
    settings = settings_from(toml)
    assert chosen(settings, "some-model", "two", "three")[0] == "two"
    assert chosen(settings, "some-model", "three")[0] == "three"


def test_keyless_local_provider_is_always_usable() -> None:
    toml = """
[providers.cloud]
kind = "litellm"
credential = "cloud"

[providers.local]
base_url = "http://127.0.0.1:11434/v1"
"""
    settings = settings_from(toml)
    assert not needs_key(settings.providers["local"])
    assert chosen(settings, "qwen3") == ("local", "qwen3")


def test_default_settings_route_to_the_builtin_local_provider() -> None:
    settings = load_settings()
    route = select_route(settings, settings.agent.model, keys())
    assert (route.provider.name, route.model) == ("local", "llama3.2")
    assert route.provider.base_url == "http://localhost:11434/v1"


def test_no_usable_provider_is_a_config_error_with_advice() -> None:
    toml = """
[providers.cloud]
kind = "litellm"
credential = "cloud"
"""
    settings = settings_from(toml)
    with pytest.raises(ConfigError) as caught:
        select_route(settings, "gpt-4o", keys())
    message = str(caught.value)
    assert "gpt-4o" in message
    assert "tuibot keys set" in message and "env var" in message


def test_routing_prefix_is_stripped_for_openai_kind_only() -> None:
    settings = settings_from(PROVIDERS)
    assert chosen(settings, "local/qwen3:8b") == ("local", "qwen3:8b")
    assert chosen(settings, "box/qwen3") == ("ollama-box", "qwen3")
    assert chosen(settings, "anthropic/claude-sonnet-4", "anthropic") == (
        "anthropic",
        "anthropic/claude-sonnet-4",
    ), "litellm needs the prefix to find the API"


def test_a_slash_that_is_part_of_the_model_name_is_kept() -> None:
    """vLLM serves Hugging Face names such as ``Qwen/Qwen3-8B``: not a routing prefix."""
    settings = settings_from(PROVIDERS)
    assert chosen(settings, "Qwen/Qwen3-8B") == ("local", "Qwen/Qwen3-8B")


def test_flags_and_env_layer_over_the_file() -> None:
    Path("tuibot.toml").write_text(PROVIDERS, encoding="utf-8")
    trust_file()
    env = {"TUIBOT_AGENT__MODEL": "box/qwen3"}
    settings = load_settings(env=env)
    route = select_route(settings, settings.agent.model, keys())
    assert (route.provider.name, route.model) == ("ollama-box", "qwen3")
    settings = load_settings(env=env, overrides={"agent.provider": ("local", "--provider")})
    assert select_route(settings, settings.agent.model, keys()).provider.name == "local"


def test_make_client_builds_the_kind_asked_for() -> None:
    settings = settings_from(PROVIDERS)
    client = make_client(settings.providers["local"], None)
    assert type(client).__name__ == "OpenAIClient"
    assert client.where == "http://127.0.0.1:11434/v1"  # type: ignore[attr-defined]
