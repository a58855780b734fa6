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

import json
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuibot.store.atomic import replace_file

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
        if self._path is None:
            return
        data = json.dumps({key: {"at": at} for key, at in entries.items()}, indent=1)
        try:
            replace_file(self._path, data.encode("utf-8"))
        except OSError as error:
            log.warning("cannot save %s: %s", self._path, error)


def _read(path: Path | None) -> dict[str, float]:
    """The fresh, well-formed entries of the file (a bad or missing file is empty)."""
    if path is None:
        return {}
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    now, fresh = time.time(), {}
    for key, entry in raw.items() if isinstance(raw, dict) else ():
        at = entry.get("at") if isinstance(entry, dict) else None
        if not isinstance(at, int | float) or isinstance(at, bool):
            continue
        if 0 <= now - at <= REMEMBERED_FOR:
            fresh[key] = float(at)
    return fresh
