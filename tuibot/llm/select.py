"""Which provider serves a model: the seed's cascade, then a client for it.

An explicit provider wins. Otherwise: the model's ``prefix/`` names a provider that has
a key → keyword match → the first provider with a key. A provider that names no
credential needs no key (a local server), so it is always usable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tuibot.settings import ConfigError

if TYPE_CHECKING:
    from tuibot.llm.parts import ModelClient
    from tuibot.settings import ProviderSettings, Settings

KeyLookup = Callable[["ProviderSettings"], "str | None"]


@dataclass(frozen=True)
class Route:
    """A model bound to the provider that serves it."""

    provider: ProviderSettings
    model: str
    """The model name as the provider expects it (a routing prefix stripped for openai kind)."""


def needs_key(provider: ProviderSettings) -> bool:
    """Whether the provider can only be used with an API key."""
    return bool(provider.credential or provider.api_key_env)


def select_route(settings: Settings, model: str, key_of: KeyLookup) -> Route:
    """Pick the provider for ``model`` (see module docstring)."""
    providers = list(settings.providers.values())
    if not providers:
        raise ConfigError("no providers configured: add a [providers.<name>] table")
    if settings.agent.provider:
        chosen = settings.providers.get(settings.agent.provider)
        if chosen is None:
            names = ", ".join(settings.providers)
            raise ConfigError(
                f"agent.provider = {settings.agent.provider!r}: no such provider "
                f"(configured: {names})"
            )
        return _route(chosen, model)

    def usable(provider: ProviderSettings) -> bool:
        return not needs_key(provider) or bool(key_of(provider))

    if "/" in model:
        prefix = model.split("/", 1)[0]
        for provider in providers:
            if prefix in (provider.prefixes or [provider.name]) and usable(provider):
                return _route(provider, model)
    lowered = model.lower()
    for provider in providers:
        if any(word.lower() in lowered for word in provider.keywords) and usable(provider):
            return _route(provider, model)
    for provider in providers:
        if usable(provider):
            return _route(provider, model)
    raise ConfigError(
        f"no provider can serve model {model!r}: every provider needs an API key and none "
        "is set (store one with `tuibot keys set NAME` or set the provider's env var)"
    )


def _route(provider: ProviderSettings, model: str) -> Route:
    """Strip a routing prefix an OpenAI-compatible server would not understand."""
    if provider.kind != "litellm" and "/" in model:
        prefix, rest = model.split("/", 1)
        if prefix in (provider.prefixes or [provider.name]):
            model = rest
    return Route(provider, model)


def make_client(provider: ProviderSettings, api_key: str | None) -> ModelClient:
    """A client of the provider's kind; litellm is imported only here, only when asked."""
    if provider.kind == "litellm":
        from tuibot.llm.litellm_client import LiteLLMClient

        return LiteLLMClient(provider, api_key)
    if provider.kind == "ollama":
        from tuibot.llm.ollama_client import OllamaClient

        return OllamaClient(provider, api_key)
    if provider.kind == "llama-cpp":
        from tuibot.llm.llama_cpp_client import LlamaCppClient

        return LlamaCppClient(provider)
    from tuibot.llm.openai_client import OpenAIClient

    return OpenAIClient(provider, api_key)


async def reported_window(client: ModelClient, model: str) -> int | None:
    """The window a client knows itself (Ollama's ``/api/show``, an embedded model's n_ctx)."""
    ask = getattr(client, "context_window", None)
    return await ask(model) if ask is not None else None
