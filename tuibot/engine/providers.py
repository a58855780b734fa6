"""Which provider and client a model runs on: routes, API keys, clients, context windows.

The engine's turns, the router, compaction and consolidation all need "the client for
this model"; this module is the one place that answers it, so key lookups (asked once
per provider), the clients (made once per provider) and the cached context windows are
owned by one object instead of being spread over the composition root. So are the
servers' answers about vision.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from tuibot.agent.tokens import TokenCounter
from tuibot.llm.ollama_detect import ServerKinds
from tuibot.llm.parts import ModelClient
from tuibot.llm.select import Route, make_client, needs_key, reported_window, select_route
from tuibot.llm.tool_refusals import ToolRefusals
from tuibot.llm.vision_probe import VisionBook
from tuibot.llm.windows import WindowBook
from tuibot.settings import ConfigError, ProviderSettings, Settings

KeyLookup = Callable[[ProviderSettings], str | None]
"""A provider's API key, or None (the engine's default asks the env var, then the keyring)."""


class Providers:
    """Routes models to providers and hands out one client per provider."""

    def __init__(
        self,
        settings: Callable[[], Settings],
        windows_file: Path,
        key_lookup: KeyLookup | None = None,
    ) -> None:
        self._settings = settings
        """The engine's current settings (a provider override replaces them)."""
        self._key_lookup = key_lookup or self._keyring_lookup
        self._key_problem = ""
        self._keys: dict[str, str | None] = {}
        self._clients: dict[tuple[str, str], ModelClient] = {}
        self.kinds = ServerKinds(windows_file.with_name("servers.json"))
        """Which base URLs are Ollama (see :mod:`tuibot.llm.ollama_detect`)."""
        self.prompt_tools = ToolRefusals(windows_file.with_name("tool_refusals.json"))
        """Servers that refused native tools (kept a day on disk); their turns get the tools
        in the prompt."""
        self.tokens = TokenCounter()
        """Counts requests per model, calibrated by each call's reported usage."""
        self.windows = WindowBook(
            windows_file,
            settings().agent.default_context_window,
            key=lambda provider: self._key_lookup(provider),
            report=lambda provider, model: reported_window(self.client_for(provider), model),
        )
        """Each model's context window, cached on disk (see docs/context.md)."""
        self.vision = VisionBook(
            windows_file.with_name("vision.json"), key=lambda p: self._key_lookup(p)
        )
        """What servers say about models taking images, cached on disk for a day."""

    async def sees_images(self, route: Route) -> bool:
        """Whether the route's model takes images: the config when it says (``vision``,
        or ``vision_models`` naming it or listing others), else what the server says."""
        from tuibot.attachments.request import takes_images

        provider, model = route.provider, route.model
        if takes_images(provider.vision, provider.vision_models, model):
            return True
        if provider.vision_models:
            return False  # the config lists the ones that do
        return bool(await self.vision.detect(provider, model))

    def key_for(self, provider: ProviderSettings) -> str | None:
        """The provider's API key (env var or keyring), for calls made outside a client."""
        return self._key_lookup(provider)

    def route_for(self, model: str, provider: str | None = None) -> Route:
        """The provider for ``model`` (raises ConfigError with the keyring's complaint).

        ``provider`` is a bot's: a name picks it outright, "" chooses by the model, and
        None keeps ``agent.provider``.
        """
        settings = self._settings()
        if provider is not None and provider != settings.agent.provider:
            settings = replace(settings, agent=replace(settings.agent, provider=provider))
        try:
            route = select_route(settings, model, self._key_lookup)
        except ConfigError as error:
            if self._key_problem:
                raise ConfigError(f"{error}. {self._key_problem}") from error
            raise
        if self._may_detect(route.provider) and self.kinds.known(route.provider.base_url):
            return Route(replace(route.provider, kind="ollama"), route.model)
        return route

    async def resolve(self, model: str, provider: str | None = None) -> Route:
        """:meth:`route_for`, after asking the provider's server once whether it is Ollama.

        Turns, ``/compact``, the router and ``doctor`` call this first; every later
        ``route_for`` then knows the answer without asking.
        """
        route = self.route_for(model, provider)
        chosen = route.provider
        unknown = self._may_detect(chosen) and self.kinds.known(chosen.base_url) is None
        if unknown and await self.kinds.probe(chosen.base_url, self._key_lookup(chosen)):
            return self.route_for(model, provider)
        return route

    def router_room(self, route: Route) -> int:
        """Characters the router's request may take: a share of the model's window as
        known now (no probe: routing runs before every message of a multi-bot chat)."""
        from tuibot.agent.router import ROOM_SHARE

        window = self.windows.lookup(route.provider, route.model)
        return int(window.tokens * ROOM_SHARE * self.tokens.ratio(route.model))

    def _may_detect(self, provider: ProviderSettings) -> bool:
        """An OpenAI-kind provider with an address whose kind nobody set explicitly."""
        origin = self._settings().origins.get(f"providers.{provider.name}.kind", "default")
        return provider.kind == "openai" and bool(provider.base_url) and origin == "default"

    def client_for(self, provider: ProviderSettings) -> ModelClient:
        """One client per provider, made on first use."""
        client = self._clients.get((provider.name, provider.kind))
        if client is None:
            key = self._key_lookup(provider)
            if needs_key(provider) and not key:
                raise ConfigError(
                    f"provider {provider.name!r} needs an API key: store it with "
                    f"`tuibot keys set {provider.credential or provider.name}` or set "
                    f"its environment variable. {self._key_problem}".strip()
                )
            client = make_client(provider, key)
            self._clients[(provider.name, provider.kind)] = client
        return client

    def overridden(self, origin: str, **changes: Any) -> Settings:
        """The settings with CLI flags such as ``--base-url`` applied to the model's provider."""
        settings = self._settings()
        route = self.route_for(settings.agent.model)
        provider = replace(settings.providers[route.provider.name], **changes)  # as configured
        origins = {f"providers.{provider.name}.{key}": origin for key in changes}
        return replace(
            settings,
            providers={**settings.providers, provider.name: provider},
            origins={**settings.origins, **origins},
        )

    async def close(self) -> None:
        """Close every client's connections (the next use makes a new client)."""
        for client in self._clients.values():
            await client.close()
        self._clients.clear()

    def _keyring_lookup(self, provider: ProviderSettings) -> str | None:
        """The provider's key from its env var or the keyring; keyring only when named."""
        if not needs_key(provider):
            return None
        if provider.name in self._keys:  # the keyring is asked once per provider, not per turn
            return self._keys[provider.name]
        from tuibot.system.secrets import KeyringUnavailable, remember_secret, resolve_api_key

        try:
            key = resolve_api_key(provider.credential, provider.api_key_env)
        except KeyringUnavailable as error:
            self._key_problem = str(error)
            return None
        if key:
            remember_secret(key)
        self._keys[provider.name] = key
        return key
