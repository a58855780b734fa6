"""Which servers refused a request's ``tools`` field, remembered across runs.

A server started without a tool parser (vLLM without ``--enable-auto-tool-choice``,
llama.cpp without ``--jinja``) refuses every request with ``tools``. Once one did, its
provider gets the tools in the prompt (:mod:`tuibot.llm.prompt_tools`). Each
``tuibot ask`` is a new process, so kept in memory only the switch would cost a refused
request and a warning on every run; the book keeps it in a small JSON file instead,
keyed by provider name, base URL and model (the same name pointed at another server is
asked natively again, and Ollama refuses per model: ``gemma3:4b does not support
tools``) and trusted for :data:`REMEMBERED_FOR`, so a server restarted with its parser
gets native calls back within a day.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tuibot.store.json_cache import read_cache, save_cache

if TYPE_CHECKING:
    from tuibot.settings import ProviderSettings

log = logging.getLogger("tuibot.llm")

REMEMBERED_FOR = 24 * 3600.0
"""Seconds a refusal is trusted before native tools are tried again."""


def refusal_key(provider: ProviderSettings, model: str) -> str:
    """The book's key: a model as one server serves it, under the provider's name."""
    return f"{provider.name}|{provider.base_url or provider.kind}|{model}"


class ToolRefusals:
    """Providers whose server refused native tools: in this process, and on disk."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._known: dict[str, float] | None = None

    def refused(self, provider: ProviderSettings, model: str) -> bool:
        """Whether ``provider``'s server is known to refuse ``tools`` for ``model``."""
        return refusal_key(provider, model) in self._entries()

    def remember(self, provider: ProviderSettings, model: str) -> bool:
        """Note a refusal; False when it was known already (then nothing is said again)."""
        entries = self._entries()
        key = refusal_key(provider, model)
        if key in entries:
            return False
        entries[key] = time.time()
        self._save(entries)
        return True

    def _entries(self) -> dict[str, float]:
        if self._known is None:
            self._known = _read(self._path)
        return self._known

    def _save(self, entries: dict[str, float]) -> None:
        """Write the file atomically; a failure only costs one refused request next run."""
        save_cache(self._path, {key: {"at": at} for key, at in entries.items()}, "tool refusals")


def _read(path: Path | None) -> dict[str, float]:
    """The fresh, well-formed entries of the file (a bad or missing file is empty)."""
    now, fresh = time.time(), {}
    for key, entry in read_cache(path).items():
        at = entry.get("at") if isinstance(entry, dict) else None
        if not isinstance(at, int | float) or isinstance(at, bool):
            continue
        if 0 <= now - at <= REMEMBERED_FOR:
            fresh[key] = float(at)
    return fresh
