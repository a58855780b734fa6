"""Getting the engine up after the first paint, and checking the model server.

The app paints before any of this runs: importing the engine and the ``openai`` SDK and
loading plugins all happen here, in a worker, so ``tuibot`` shows its window at once.
"""

from __future__ import annotations

import asyncio
import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tuibot.engine import Engine, Runner
    from tuibot.settings import Settings
    from tuibot.system.paths import DataPaths

HEALTH_TIMEOUT_S = 5.0
"""How long the health probe waits for the model server's model list."""
WARM_LANGUAGES = (
    "python", "bash", "json", "javascript", "typescript", "yaml", "toml", "rust", "go",
    "c", "cpp", "java", "html", "css", "sql", "diff",
)  # fmt: skip
"""Code fence languages whose highlighting is made ready at start (the common ones).

Pygments compiles a language's patterns the first time it highlights it (Python's take
about 20 ms, CSS's 30): paid on the main thread by the first answer or chat that shows
such a fence, unless done here first. Unlabelled fences are not warmed: guessing their
language imports every lexer Pygments has (18 MiB more for everyone)."""
WARM_MARKDOWN = "# T\n\n*a* `b` [c](http://d)\n\n- e\n\n1. f\n\n| g |\n|---|\n| h |\n\n> i\n"
"""Markdown with each kind of block, parsed once at start (the parser's first parse
compiles its patterns)."""


def _import_engine() -> None:
    importlib.import_module("tuibot.engine")


def _import_sdk() -> None:
    """Import the openai SDK off the event loop (about a second on a slow machine)."""
    importlib.import_module("openai")


async def build_engine(
    settings: Settings, paths: DataPaths, runner: Runner, base_url: str | None
) -> Engine:
    """Import and build the engine off the first paint; raises ConfigError for bad flags."""
    await asyncio.to_thread(_import_engine)
    from tuibot.engine import Engine

    engine = Engine(settings, paths=paths, runner=runner)
    if base_url:
        engine.with_provider_override("--base-url", base_url=base_url)
    return engine


async def warm_sdk() -> None:
    """Import the SDK in a thread so the first message does not stall the screen."""
    await asyncio.to_thread(_import_sdk)


def _warm_drawing() -> None:
    from markdown_it import MarkdownIt
    from textual.highlight import highlight

    MarkdownIt("gfm-like").parse(WARM_MARKDOWN)
    for language in WARM_LANGUAGES:
        highlight("x\n", language=language)


async def warm_drawing() -> None:
    """Make Markdown parsing and code highlighting ready in a thread, after start-up, so
    the first chat opened (or answer shown) does not compile their patterns meanwhile."""
    await asyncio.to_thread(_warm_drawing)


@dataclass(frozen=True)
class Health:
    """What the last probe of the model server found."""

    ok: bool
    where: str
    """The provider and its address, or the model's provider for a cloud model."""
    problem: str = ""
    """Why it failed, in words a person can act on."""
    advice: str = ""
    """What to do about it (provider flags, `tuibot keys set`, `tuibot doctor`)."""


async def check_health(engine: Engine) -> Health:
    """Probe the default bot's provider with a short model listing."""
    from tuibot.llm.errors import ModelError
    from tuibot.settings import ConfigError

    try:
        route = engine.route_for(engine.view.settings.agent.model)
    except ConfigError as error:
        return Health(False, "config", str(error), _advice(engine, None))
    provider = route.provider
    where = f"{provider.name} {provider.base_url}".strip()
    if provider.kind == "litellm":
        return Health(True, f"{provider.name} (cloud, not probed)")
    from tuibot.llm.model_list import is_served, served_models

    try:
        async with asyncio.timeout(HEALTH_TIMEOUT_S):  # ids with escapes are dropped there
            models = await served_models(engine.client_for(provider), provider.base_url)
    except (ConfigError, ModelError, TimeoutError, OSError) as error:
        problem = str(error) or type(error).__name__
        return Health(False, where, problem, _advice(engine, provider))
    model = route.model
    if models and not is_served(model, models):
        shown = ", ".join(models[:5])
        problem = f"the server does not list the model {model!r} (it has: {shown})"
        return Health(True, where, problem, "Pick one with /model, --model or `tuibot config set`.")
    if len(models) == 1 and model not in models:  # llama.cpp: it answers any name
        return Health(True, f"{where} (serves {models[0]})")
    return Health(True, where)


def _advice(engine: Engine, provider: Any) -> str:
    if provider is None:
        return "Check the provider settings with `tuibot doctor` and `tuibot config show`."
    lines = [
        f"tuibot talks to {provider.base_url or provider.name!r} (provider {provider.name}).",
        "Start that server, or point tuibot elsewhere: "
        "`tuibot --base-url http://host:port/v1 --model NAME`, "
        "or `tuibot config set providers.<name>.base_url URL`.",
    ]
    if provider.credential or provider.api_key_env:
        name = provider.credential or provider.name
        lines.append(f"If it needs a key: `tuibot keys set {name}`.")
    lines.append("`tuibot doctor` checks everything. Slash commands (/help) work meanwhile.")
    return "\n".join(lines)
