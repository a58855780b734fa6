"""``tuibot doctor``: is everything in place? One line per check, and what to do."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tuibot.engine import Engine
    from tuibot.settings import ProviderSettings, Settings

OK, WARN, BAD = "ok  ", "warn", "FAIL"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``doctor``."""
    parser = subparsers.add_parser("doctor", help="check config, keyring, providers and tools")
    from tuibot.commands.ask import add_provider_options

    add_provider_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run every check; exit 1 when any failed."""
    import asyncio

    from tuibot.commands.ask import provider_overrides
    from tuibot.settings import ConfigError, load_settings

    try:
        settings = load_settings(args.config, overrides=provider_overrides(args))
    except ConfigError as error:
        _line(BAD, "config", str(error))
        return 2
    return asyncio.run(_checks(settings, args.base_url))


def _line(mark: str, what: str, detail: str) -> None:
    """One result line."""
    print(f"{mark} {what:<22} {detail}", file=sys.stdout)


async def _checks(settings: Settings, base_url: str | None) -> int:
    """Config, keyring, providers, tools."""
    from tuibot.engine import Engine
    from tuibot.system.paths import DataPaths

    failed = False
    files = ", ".join(str(path) for path in settings.files) or "none (built-in defaults)"
    _line(OK, "config", files)
    if settings.ignored_project is not None:
        from tuibot.commands.config import ignored_line

        _line(WARN, "project config", "ignored: " + ignored_line(settings.ignored_project))
    paths = DataPaths.default()
    _line(OK, "data", str(paths.root))
    keys_needed = any(p.credential for p in settings.providers.values())
    failed |= not _keyring_check(BAD if keys_needed else WARN) and keys_needed
    engine = Engine(settings, paths=paths)
    try:
        if base_url:
            engine.with_provider_override("--base-url", base_url=base_url)
        routed = _routed_provider(engine)
        for provider in engine.view.settings.providers.values():
            model = settings.agent.model if provider.name == routed else None
            reached = await _provider_check(engine, provider, model)
            failed |= not reached
            if reached and model is not None:
                await _window_check(engine, provider, model)
        errors: list[str] = []
        engine.events.listen(lambda event: errors.append(getattr(event, "message", "")))
        engine.load_tools()
        names = engine.view.tool_names()
        _line(OK, "tools", f"{len(names)} loaded: {', '.join(names)}")
        for message in filter(None, errors):
            failed |= message.startswith("tool not loaded")
            _line(BAD if message.startswith("tool not loaded") else OK, "tools", message)
        failed |= not await _mcp_checks(engine)
    finally:
        await engine.close()
    return 1 if failed else 0


async def _mcp_checks(engine: Engine) -> bool:
    """Each enabled MCP server started and listing its tools; False when one failed."""
    from tuibot.commands.mcp import failure_details

    await engine.settle_mcp()
    good = True
    for server in engine.view.mcp_servers():
        if server.state == "disabled":
            continue
        if server.state == "ready":
            _line(OK, f"mcp {server.name}", f"ready, {server.tools} tools")
            continue
        good = False
        _line(BAD, f"mcp {server.name}", server.state)
        print(failure_details(server), file=sys.stdout)
    return good


async def _window_check(engine: Engine, provider: ProviderSettings, model: str) -> None:
    """The model's context window and where it was found (probed and cached now)."""
    route = await engine.resolve_route(model)  # Ollama behind an openai kind: native
    name = route.model  # as turns send it (a routing prefix stripped)
    if route.provider.kind != provider.kind:
        _line(OK, f"provider {provider.name}", "Ollama detected: speaking /api/chat (num_ctx)")
    window = await engine.discover_window(route.provider, name)
    if window.known:
        _line(OK, "context window", f"{name}: {window.tokens} tokens (from {window.source})")
    else:
        _line(
            WARN,
            "context window",
            f"{name}: unknown, assuming {window.tokens} tokens; set "
            f"providers.{provider.name}.context_window",
        )


def _keyring_check(mark_if_missing: str) -> bool:
    """Whether a secure keyring backend answers (only a failure when a provider needs it)."""
    from tuibot.system.secrets import KeyringUnavailable, SecretStore

    try:
        _line(OK, "keyring", SecretStore().backend_name())
        return True
    except KeyringUnavailable as error:
        _line(mark_if_missing, "keyring", str(error))
        return False


def _routed_provider(engine: Engine) -> str | None:
    """The provider the configured model routes to (None when none can serve it)."""
    from tuibot.settings import ConfigError

    try:
        return str(engine.route_for(engine.view.settings.agent.model).provider.name)
    except ConfigError:
        return None


async def _provider_check(engine: Engine, provider: ProviderSettings, model: str | None) -> bool:
    """Reach the provider with a short models.list probe; look for the model it serves."""
    from tuibot.llm.errors import ModelError
    from tuibot.settings import ConfigError

    label = f"provider {provider.name}"
    if provider.kind == "litellm":  # no portable listing; importing litellm costs seconds
        _line(OK, label, "litellm (cloud; not probed)")
        return True
    try:
        models = await engine.client_for(provider).list_models()
    except (ConfigError, ModelError) as error:
        _line(BAD, label, str(error))
        return False
    where = provider.base_url
    if model is None:
        _line(OK, label, f"{where}: reachable, {len(models)} models")
        return True
    prefix, _, rest = model.partition("/")
    bare = rest if rest and prefix in (provider.prefixes or [provider.name]) else model
    present = bare in models or any(m.split(":")[0] == bare for m in models)
    detail = f"{where}: reachable, {len(models)} models; {model!r} " + (
        "present" if present else "NOT FOUND"
    )
    _line(OK if present else BAD, label, detail)
    return present
