"""Each model's context window: from the config, the server, litellm's map or an error.

Why: a request bigger than the window fails (llama.cpp, vLLM, OpenAI) or is silently cut
from the start (Ollama's OpenAI endpoint drops the system prompt and the tools). tuibot
must know the window before it sends. The sources, in order: the config; what was
learnt before (cached on disk per base URL and model); the server's own report (probed
lazily, once, all endpoints at once — see :mod:`tuibot.llm.window_probe`); litellm's
model map for cloud models; else a documented conservative default, said once.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuibot.llm.window_probe import probe_server
from tuibot.store.json_cache import read_cache, save_cache

if TYPE_CHECKING:
    from tuibot.settings import ProviderSettings

log = logging.getLogger("tuibot.llm")

PROBED_FOR = 24 * 3600.0
"""Seconds a server's reported window is trusted before it is asked again (a server may
reload a model with another ``num_ctx``); learnt-from-error windows are kept as long."""

_OVERFLOW_NUMBER = (
    re.compile(r"maximum context length is (\d+)", re.I),
    re.compile(r"context (?:window|length|size)[^\d]{0,20}(\d{3,7})", re.I),
    re.compile(r"\bn_ctx\b\D{0,5}(\d{3,7})"),
)
_OVERFLOW_WORDS = (
    "context_length_exceeded",
    "maximum context length",
    "exceeds the available context size",
    "exceed_context_size",
    "context window",
    "too many tokens",
    "prompt is too long",
)


NATIVE_KINDS = ("ollama", "llama-cpp")
"""Provider kinds whose client reports the window itself (``context_window(model)``)."""
Reporter = Callable[["ProviderSettings", str], Awaitable[int | None]]


@dataclass(frozen=True)
class Window:
    """A model's window in tokens and where that number came from."""

    tokens: int
    source: str
    """``config``, ``server``, ``litellm``, ``error``, ``truncation`` or ``default``."""

    @property
    def known(self) -> bool:
        """Whether the number is the model's own, not the fallback."""
        return self.source != "default"


def overflow_window(text: str) -> int | None:
    """The window an overflow error names ("maximum context length is 2048 tokens")."""
    for pattern in _OVERFLOW_NUMBER:
        found = pattern.search(text)
        if found and 256 <= int(found.group(1)) <= 10_000_000:
            return int(found.group(1))
    return None


def is_overflow(text: str) -> bool:
    """Whether a server's error text says the request was too big for the window."""
    lowered = text.lower()
    return any(words in lowered for words in _OVERFLOW_WORDS)


def configured(provider: ProviderSettings, model: str) -> int | None:
    """The window the config sets for this model on this provider, if any."""
    per_model = provider.context_windows.get(model)
    if per_model is None and ":" in model:  # Ollama's "name:tag" also matches "name"
        per_model = provider.context_windows.get(model.split(":", 1)[0])
    return per_model or provider.context_window or None


def litellm_window(model: str) -> int | None:
    """The input window litellm's bundled model map gives a cloud model (None: unknown)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch it
    try:
        import litellm

        info = litellm.get_model_info(model)
    except Exception:  # unknown model, or litellm missing: not an error, just unknown
        return None
    tokens = info.get("max_input_tokens") or info.get("max_tokens")
    return int(tokens) if isinstance(tokens, int) and tokens > 0 else None


def window_key(provider: ProviderSettings, model: str) -> str:
    """The cache key: a window belongs to a model as one server serves it."""
    return f"{provider.base_url or provider.kind}|{model}"


class WindowBook:
    """Windows known to this process, backed by a small JSON file shared across runs."""

    def __init__(
        self,
        cache: Path | None,
        default: int,
        key: Callable[[ProviderSettings], str | None] | None = None,
        report: Reporter | None = None,
    ) -> None:
        self.default = default
        self._key = key
        """The provider's API key for the probe (the engine's keyring lookup)."""
        self._report = report
        """The window a native client knows itself (ollama and llama-cpp kinds)."""
        self._cache = cache
        self._learnt: dict[str, dict[str, Any]] | None = None
        self._probed: set[str] = set()
        self._said: set[str] = set()

    def lookup(self, provider: ProviderSettings, model: str) -> Window:
        """What is known now, without asking anyone: config, then cache, else the default."""
        tokens = configured(provider, model)
        if tokens:
            return Window(tokens, "config")
        entry = self._entries().get(window_key(provider, model))
        if entry is not None:
            return Window(int(entry["tokens"]), str(entry["source"]))
        return Window(self.default, "default")

    async def discover(self, provider: ProviderSettings, model: str) -> Window:
        """The window, asking the server (or litellm's map) once when nothing is known."""
        window = self.lookup(provider, model)
        key = window_key(provider, model)
        if window.known or key in self._probed:
            return window
        self._probed.add(key)
        tokens, source = await self._ask(provider, model)
        if tokens is None:
            return window
        return self.learn(provider, model, tokens, source)

    async def _ask(self, provider: ProviderSettings, model: str) -> tuple[int | None, str]:
        """The server's report, or for a cloud model litellm's map."""
        if provider.kind in NATIVE_KINDS:
            found = await self._report(provider, model) if self._report is not None else None
            return found, "server"
        if provider.kind == "openai" and provider.base_url:
            key = self._key(provider) if self._key is not None else None
            return await probe_server(provider.base_url, model, key), "server"
        bare = model if provider.kind == "litellm" else f"openai/{model}"
        return litellm_window(bare) or litellm_window(model), "litellm"

    def first_default(self, provider: ProviderSettings, model: str) -> bool:
        """True once per model: the caller says the default is assumed."""
        key = window_key(provider, model)
        if key in self._said:
            return False
        self._said.add(key)
        return True

    def learn(self, provider: ProviderSettings, model: str, tokens: int, source: str) -> Window:
        """Remember a window (from a probe, an error, a truncation) here and on disk."""
        if configured(provider, model):
            return self.lookup(provider, model)  # the config wins over anything learnt
        entries = self._entries()
        entries[window_key(provider, model)] = {
            "tokens": tokens,
            "source": source,
            "at": time.time(),
        }
        self._save(entries)
        return Window(tokens, source)

    def _entries(self) -> dict[str, dict[str, Any]]:
        """The cached windows (read once; a bad or stale entry is dropped)."""
        if self._learnt is None:
            self._learnt = _read_cache(self._cache)
        return self._learnt

    def _save(self, entries: dict[str, dict[str, Any]]) -> None:
        """Write the cache atomically; a failure only costs a probe next time."""
        save_cache(self._cache, entries, "context-window cache")


def _read_cache(path: Path | None) -> dict[str, dict[str, Any]]:
    """Entries of the cache file that are well formed and still fresh."""
    now, fresh = time.time(), {}
    for key, entry in read_cache(path).items():
        tokens = entry.get("tokens") if isinstance(entry, dict) else None
        if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 256:
            continue
        at = entry.get("at")
        stale = not isinstance(at, int | float) or now - at > PROBED_FOR
        if entry.get("source") == "server" and stale:
            continue
        fresh[key] = {"tokens": tokens, "source": str(entry.get("source")), "at": at}
    return fresh
