"""Is the server at a provider's address Ollama? Asked once by ``/api/version``, cached.

Why: through its OpenAI-compatible endpoint Ollama silently cuts every prompt to its
default window; only the native ``/api/chat`` takes ``num_ctx``. So a provider whose
``kind`` was left at its default (the built-in ``local`` provider, ``--base-url
http://localhost:11434/v1``) speaks Ollama's native API when the server is Ollama, and
stays OpenAI-compatible, exactly as before, when it is not. A person who writes
``kind = "openai"`` keeps the OpenAI endpoint.

The answer is cached on disk per base URL (``servers.json`` beside ``windows.json``), so
only the first run against an address pays for the probe (one loopback GET); a server
that cannot be reached is not cached, so it is asked again once it runs.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from tuibot.llm.window_probe import sdk_http, server_root
from tuibot.store.json_cache import read_cache, save_cache

log = logging.getLogger("tuibot.llm")

PROBE_TIMEOUT = 1.0
"""Seconds ``/api/version`` may take; a server that is slower is not taken for Ollama."""
TRUSTED_FOR = 24 * 3600.0
"""Seconds an answer is trusted: another server may take the address later."""


def is_ollama_version(status: int, payload: Any) -> bool:
    """Whether an ``/api/version`` answer is Ollama's (``{"version": "0.12.6"}``)."""
    version = payload.get("version") if isinstance(payload, dict) else None
    return status == 200 and isinstance(version, str) and bool(version.strip())


class ServerKinds:
    """Which base URLs are Ollama, known to this process and cached on disk."""

    def __init__(self, cache: Path | None) -> None:
        self._cache = cache
        self._known: dict[str, dict[str, Any]] | None = None

    def known(self, base_url: str) -> bool | None:
        """True (Ollama), False (another server) or None (not asked yet)."""
        entry = self._entries().get(server_root(base_url))
        return None if entry is None else bool(entry["ollama"])

    async def probe(self, base_url: str, api_key: str | None = None) -> bool | None:
        """Ask ``/api/version`` once; None when nothing answered (not cached)."""
        httpx = sdk_http()  # the openai SDK's transport: the model call imports it anyway

        root = server_root(base_url)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        verify = root.startswith("https:")  # plain http: no CA bundle to load
        try:
            async with httpx.AsyncClient(
                timeout=PROBE_TIMEOUT, trust_env=False, headers=headers, verify=verify
            ) as client:
                answer = await client.get(f"{root}/api/version")
            payload = answer.json() if answer.status_code == 200 else None
        except ValueError:
            payload = None  # it answered, and not with JSON: not Ollama
        except Exception as error:  # unreachable or silent: say nothing, ask next time
            log.debug("ollama probe %s: %s", root, error)
            return None
        found = is_ollama_version(answer.status_code, payload)
        self._remember(root, found)
        return found

    def forget(self, base_url: str) -> None:
        """Drop an answer (the server at the address changed)."""
        if self._entries().pop(server_root(base_url), None) is not None:
            self._save()

    def _remember(self, root: str, ollama: bool) -> None:
        self._entries()[root] = {"ollama": ollama, "at": time.time()}
        self._save()

    def _entries(self) -> dict[str, dict[str, Any]]:
        if self._known is None:
            self._known = _read(self._cache)
        return self._known

    def _save(self) -> None:
        """Write the cache atomically; a failure only costs a probe next time."""
        save_cache(self._cache, self._entries(), "server cache")


def _read(path: Path | None) -> dict[str, dict[str, Any]]:
    """Fresh, well-formed entries of the cache file."""
    now, fresh = time.time(), {}
    for root, entry in read_cache(path).items():
        if not isinstance(entry, dict) or not isinstance(entry.get("ollama"), bool):
            continue
        at = entry.get("at")
        if isinstance(at, int | float) and 0 <= now - at <= TRUSTED_FOR:
            fresh[root] = {"ollama": entry["ollama"], "at": at}
    return fresh
