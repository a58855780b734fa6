"""A chat's own model and provider: listing what a provider serves, and switching to it.

The app's picker, ``/model`` and ``/provider`` (in the app and in ``tuibot ask``), and
``tuibot ask --model/--provider`` all switch through :func:`choose`, so every front end
applies the same checks: the name is a plausible model name, the provider is configured,
and the model is among those the provider lists (a llama.cpp server's single model
serves any name; a cloud provider has no list, so only the name is checked). A check
that fails changes nothing. The choice is kept in the chat's header, so reopening the
chat, ``ask --chat`` and ``ask -c`` go on with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from tuibot.llm.errors import ModelError
from tuibot.llm.model_list import bad_name, check_model_name, is_served, served_models
from tuibot.settings import ConfigError

if TYPE_CHECKING:
    from tuibot.bots import Bot, BotDirectory
    from tuibot.llm.parts import ModelClient
    from tuibot.llm.select import Route
    from tuibot.settings import ProviderSettings, Settings
    from tuibot.store.chats import ChatMeta, ChatStore

DEFAULT = "default"
"""``/model default`` and ``/provider default`` go back to the bot's own."""
USAGE = {
    "model": "/model [NAME|default]",
    "provider": "/provider [NAME|default] [MODEL]",
}
"""The two commands' forms, as /help shows them."""
SHOWN = 8
"""Model names a refusal lists before "and N more"."""


class ChoiceError(ValueError):
    """A switch that was refused; ``str(error)`` is one line fit to show a person."""

    def __init__(self, message: str, *, unreachable: bool = False) -> None:
        super().__init__(message)
        self.unreachable = unreachable
        """The provider could not list its models (down, garbage, empty)."""


class ChoiceHost(Protocol):
    """What switching needs of the engine."""

    settings: Settings
    chats: ChatStore
    bots: BotDirectory

    def route_for(self, model: str, provider: str | None = None) -> Route: ...
    def client_for(self, provider: ProviderSettings) -> ModelClient: ...
    def bot_of_chat(self, meta: ChatMeta) -> Bot: ...


@dataclass(frozen=True)
class Listing:
    """What a chat's provider serves, and what the chat uses now."""

    provider: str
    current: str
    """The model name the chat's turns send."""
    models: list[str]
    """Sorted; empty for a provider with no model list (a cloud provider)."""


def chat_model(meta: ChatMeta, bot: Bot) -> tuple[str, str]:
    """(model, provider) for the chat's turns: the chat's choice, else its bot's.

    A stored name that is no valid name (a hand-edited header) is ignored rather than
    sent to a server or drawn on the screen.
    """
    model = meta.model if meta.model and bad_name(meta.model) is None else bot.model
    provider = meta.provider if meta.provider and bad_name(meta.provider) is None else ""
    return model, provider or bot.provider


async def listing(host: ChoiceHost, chat: str, provider: str | None = None) -> Listing:
    """The models the chat's provider (or ``provider``) serves; ChoiceError when they
    cannot be listed."""
    model, current = _current(host, chat)
    route = _route(
        host, model, current if provider is None else _provider_name(host.settings, provider)
    )
    return Listing(route.provider.name, route.model, await _served(host, route.provider))


async def choose(
    host: ChoiceHost, chat: str, model: str | None = None, provider: str | None = None
) -> str:
    """Switch the chat to ``model`` and/or ``provider``; returns what to tell the person.

    None keeps the chat's current one; :data:`DEFAULT` goes back to the bot's (for a
    provider: both, since the bot's model belongs with the bot's provider). Raises
    ChoiceError, having changed nothing, when any check fails.
    """
    new_model, new_provider, message = await checked(host, _meta(host, chat), model, provider)
    host.chats.set_choice(chat, new_model, new_provider)
    return message


async def checked(
    host: ChoiceHost, meta: ChatMeta, model: str | None = None, provider: str | None = None
) -> tuple[str, str, str]:
    """What :func:`choose` would keep for the chat of ``meta`` and say, nothing saved:
    (model, provider, message). A chat about to be made passes its draft ``meta``
    (``ask --model`` writes the choice into the header it creates)."""
    bot = host.bot_of_chat(meta)
    new_model, new_provider = meta.model, meta.provider
    if provider == DEFAULT:
        new_model, new_provider = "", ""
    elif provider is not None:
        new_provider = _provider_name(host.settings, provider)
    if model == DEFAULT:
        new_model = ""
    elif model is not None:
        try:
            new_model = check_model_name(model)
        except ValueError as error:
            raise ChoiceError(str(error)) from None
    shown = replace_choice(meta, new_model, new_provider)
    sent, via = chat_model(shown, bot)
    route = _route(host, sent, via)
    try:
        note = await _check_served(host, route)
    except ChoiceError as error:
        if new_model or new_provider:
            raise
        note = f". Note: {error}"  # the bot's own setup is the config's, never refused
    message = f"This chat now uses {route.model} on {route.provider.name}{note}".rstrip(".")
    return new_model, new_provider, message + "."


async def model_command(
    host: ChoiceHost, chat: str, name: str, args: list[str]
) -> tuple[bool, str]:
    """``/model [NAME|default]`` and ``/provider NAME|default [MODEL]``: (ok, message)."""
    usage = USAGE[name]
    try:
        if name == "model" and not args:
            return True, describe(await listing(host, chat))
        if name == "model" and len(args) == 1:
            return True, await choose(host, chat, model=args[0])
        if name == "provider" and not args:
            return True, _providers_text(host, chat)
        if name == "provider" and len(args) <= 2:
            model = args[1] if len(args) == 2 else None
            return True, await choose(host, chat, model=model, provider=args[0])
    except ChoiceError as error:
        return False, f"/{name}: {error} Nothing was changed."
    return False, f"Usage: {usage}"


def _providers_text(host: ChoiceHost, chat: str) -> str:
    """``/provider`` without a name: the configured providers, the chat's marked."""
    current = _route(host, *_current(host, chat)).provider.name
    lines = ["Providers (/provider NAME [MODEL] switches this chat):"]
    for provider in host.settings.providers.values():
        where = provider.base_url or f"{provider.kind}, cloud"
        lines.append(f" {'*' if provider.name == current else ' '} {provider.name}  {where}")
    return "\n".join(lines)


def replace_choice(meta: ChatMeta, model: str, provider: str) -> ChatMeta:
    """``meta`` with another choice (nothing saved)."""
    from dataclasses import replace

    return replace(meta, model=model, provider=provider)


def describe(listing: Listing) -> str:
    """``/model`` without a name: the list, the current one marked."""
    if not listing.models:
        return (
            f"{listing.current} on {listing.provider}. That provider has no model list; "
            "switch with /model NAME."
        )
    match = _match(listing)
    lines = [f"Models on {listing.provider} (/model NAME switches this chat):"]
    lines += [f" {'*' if name == match else ' '} {name}" for name in listing.models]
    if match is None:
        lines.append(f"This chat uses {listing.current}, which the server does not list.")
    return "\n".join(lines)


def _match(listing: Listing) -> str | None:
    """The listed name the chat's model reaches, if any."""
    if listing.current in listing.models:
        return listing.current
    tagless = [m for m in listing.models if m.split(":")[0] == listing.current]
    if tagless:
        return tagless[0]
    return listing.models[0] if is_served(listing.current, listing.models) else None


def _current(host: ChoiceHost, chat: str) -> tuple[str, str]:
    """(model, provider) of the chat's turns; the default bot's when no chat is open."""
    if not chat:
        return host.bots.default.model, host.bots.default.provider
    meta = _meta(host, chat)
    return chat_model(meta, host.bot_of_chat(meta))


def _meta(host: ChoiceHost, chat: str) -> ChatMeta:
    from tuibot.store.chats import ChatNotFound

    if not chat:
        raise ChoiceError("No chat is open: start one first.")
    try:
        return host.chats.load(chat, readonly=True).meta
    except ChatNotFound as error:
        raise ChoiceError(str(error)) from None


def _provider_name(settings: Settings, name: str) -> str:
    """A configured provider's name, or ChoiceError listing the configured ones."""
    name = name.strip()
    if name in settings.providers:
        return name
    names = ", ".join(settings.providers) or "none"
    shown = ascii(name)[:60] if bad_name(name) else repr(name)
    raise ChoiceError(f"No provider {shown} is configured (configured: {names}).")


def _route(host: ChoiceHost, model: str, provider: str) -> Route:
    try:
        return host.route_for(model, provider)
    except ConfigError as error:
        raise ChoiceError(str(error)) from None


async def _served(host: ChoiceHost, provider: ProviderSettings) -> list[str]:
    """The provider's list; [] for a provider kind that has none."""
    if provider.kind == "litellm":
        return []
    try:
        client = host.client_for(provider)
        return await served_models(client, provider.base_url or provider.name)
    except (ModelError, ConfigError) as error:
        raise ChoiceError(
            f"Cannot list the models of {provider.name}: {error}", unreachable=True
        ) from None


async def _check_served(host: ChoiceHost, route: Route) -> str:
    """ "" when the route's model is served; a note when it cannot be checked; else raise."""
    served = await _served(host, route.provider)
    if not served:
        return " (not checked: that provider has no model list)"
    if is_served(route.model, served):
        return ""
    import difflib  # only for a model the server does not serve

    close = difflib.get_close_matches(route.model, served, n=1)
    hint = f" Did you mean {close[0]}?" if close else ""
    more = f" and {len(served) - SHOWN} more" if len(served) > SHOWN else ""
    names = ", ".join(served[:SHOWN]) + more
    raise ChoiceError(
        f"{route.provider.name} does not serve {route.model} (it serves: {names}).{hint}"
    )
