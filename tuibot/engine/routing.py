"""Which bot, model, provider and client a chat's turn runs on.

Delegation, jobs, the model picker and ``ask``'s flags ask the engine these questions;
the answers come from the bots, :mod:`tuibot.model_choice` and the engine's
:class:`~tuibot.engine.providers.Providers`. :class:`~tuibot.engine.Engine` inherits
these methods, so callers keep writing ``engine.route_for(...)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tuibot.model_choice import Listing, chat_model, choose
from tuibot.model_choice import listing as model_listing

if TYPE_CHECKING:
    from tuibot.bots import Bot, BotDirectory
    from tuibot.engine.providers import Providers
    from tuibot.llm.parts import ModelClient
    from tuibot.llm.select import Route
    from tuibot.settings import ProviderSettings, Settings
    from tuibot.store.chats import ChatMeta, ChatStore


class ModelRouting:
    """A chat's bot, model and route; mixed into the engine, which owns the parts named here."""

    if TYPE_CHECKING:
        settings: Settings
        chats: ChatStore
        bots: BotDirectory
        providers: Providers

    def bot_of_chat(self, meta: ChatMeta) -> Bot:
        """The bot a chat belongs to (the default bot when that one is gone)."""
        return self.bots.get(meta.bot) or self.bots.default

    def model_of(self, meta: ChatMeta) -> tuple[str, str]:
        """(model, provider) the chat's next turn uses; provider "" = chosen by the model."""
        return chat_model(meta, self.bot_of_chat(meta))

    async def chat_models(self, chat: str, provider: str | None = None) -> Listing:
        """What the chat's provider (or ``provider``) serves (ChoiceError when it cannot say)."""
        return await model_listing(self, chat, provider)

    async def choose_model(
        self, chat: str, model: str | None = None, provider: str | None = None
    ) -> str:
        """Switch the chat's model and/or provider, checked (see :mod:`tuibot.model_choice`)."""
        return await choose(self, chat, model, provider)

    def route_for(self, model: str, provider: str | None = None) -> Route:
        """The provider for ``model`` (raises ConfigError with the keyring's complaint).

        ``provider`` is a bot's: a name picks it outright, "" chooses by the model, and
        None keeps ``agent.provider``.
        """
        return self.providers.route_for(model, provider)

    async def resolve_route(self, model: str, provider: str | None = None) -> Route:
        """:meth:`route_for`, after asking the server once whether it is Ollama (then the
        route speaks Ollama's native API; see :mod:`tuibot.llm.ollama_detect`)."""
        return await self.providers.resolve(model, provider)

    def client_for(self, provider: ProviderSettings) -> ModelClient:
        """One client per provider, made on first use."""
        return self.providers.client_for(provider)

    def with_provider_override(self, origin: str, **changes: Any) -> None:
        """Apply CLI flags such as ``--base-url`` to the provider the model routes to."""
        self.settings = self.providers.overridden(origin, **changes)
