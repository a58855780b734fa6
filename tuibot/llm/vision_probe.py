"""Whether a local server says a model takes images, asked once and remembered.

Why: a person with a vision model on Ollama or LM Studio should not have to list it in
``vision_models`` — both servers say so themselves. Ollama's ``POST /api/show`` answers
``capabilities`` (``["completion", "vision", …]``); LM Studio's ``GET /api/v0/models``
gives each model a ``type`` (``"vlm"`` for vision, ``"llm"`` for text only). Both are
asked at once with a short timeout; a server that has neither says nothing (None). The
answer, a "no" or "says nothing" too, is kept per base URL and model in a small JSON file
for a day, so one probe covers every turn and every ``ask`` run. Only asked when an image
is about to be sent and the config does not decide (see ``Providers.sees_images``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuibot.llm.window_probe import PROBE_TIMEOUT, server_root
from tuibot.store.json_cache import read_cache, save_cache

if TYPE_CHECKING:
    from tuibot.settings import ProviderSettings

log = logging.getLogger("tuibot.llm")

ASKED_FOR = 24 * 3600.0
"""Seconds an answer is trusted before the server is asked again (models get swapped)."""
PROBED_KINDS = ("openai", "ollama")
"""Provider kinds that talk to a server which may say (a cloud ``litellm`` route never)."""


def says_vision(show: Any, lmstudio: Any, model: str) -> bool | None:
    """What the answers say: Ollama's ``capabilities``, else LM Studio's ``type``."""
    capabilities = show.get("capabilities") if isinstance(show, dict) else None
    if isinstance(capabilities, list):
        return "vision" in capabilities
    entries = lmstudio.get("data") if isinstance(lmstudio, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and entry.get("id") == model and "type" in entry:
            return bool(entry["type"] == "vlm")
    return None


async def probe_vision(base_url: str, model: str, api_key: str | None = None) -> bool | None:
    """Whether the server at ``base_url`` says ``model`` takes images (None: it says not)."""
    import httpx  # the openai SDK's own transport: already imported

    root = server_root(base_url)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    timeout = httpx.Timeout(PROBE_TIMEOUT)
    async with httpx.AsyncClient(timeout=timeout, trust_env=False, headers=headers) as client:
        show, lmstudio = await asyncio.gather(
            _json(client, "POST", f"{root}/api/show", {"model": model}),
            _json(client, "GET", f"{root}/api/v0/models"),
        )
    return says_vision(show, lmstudio, model)


async def _json(client: Any, method: str, url: str, body: Any = None) -> Any:
    """One endpoint's JSON answer, or None for any failure (absent, slow, not JSON)."""
    try:
        answer = await client.request(method, url, json=body)
        return answer.json() if answer.status_code == 200 else None
    except Exception as error:
        log.debug("vision probe %s %s: %s", method, url, error)
        return None


class VisionBook:
    """Servers' answers about vision, in this process and in a JSON file across runs."""

    def __init__(self, cache: Path | None, key: Any = None) -> None:
        self._cache = cache
        self._key = key
        """``key(provider)``: the provider's API key for the probe (or None)."""
        self._answers: dict[str, dict[str, Any]] | None = None

    async def detect(self, provider: ProviderSettings, model: str) -> bool | None:
        """What the provider's server says about ``model``, asked once a day at most."""
        base = _base_url(provider)
        if base is None:
            return None
        entry_key = f"{base}|{model}"
        answers = self._entries()
        if entry_key in answers:
            return answers[entry_key]["vision"]  # type: ignore[no-any-return]
        key = self._key(provider) if self._key is not None else None
        found = await probe_vision(base, model, key)
        answers[entry_key] = {"vision": found, "at": time.time()}
        self._save(answers)
        return found

    def _entries(self) -> dict[str, dict[str, Any]]:
        """The remembered answers (read once; stale and malformed entries dropped)."""
        if self._answers is None:
            self._answers = _read(self._cache)
        return self._answers

    def _save(self, answers: dict[str, dict[str, Any]]) -> None:
        """Write the file atomically; a failure only costs a probe next run."""
        save_cache(self._cache, answers, "vision cache")


def _base_url(provider: ProviderSettings) -> str | None:
    """The server to ask: the provider's base URL; Ollama's default when it names none."""
    if provider.kind not in PROBED_KINDS:
        return None
    if provider.kind == "ollama" and not provider.base_url:
        from tuibot.llm.ollama_client import OLLAMA_ROOT

        return OLLAMA_ROOT
    return provider.base_url or None


def _read(path: Path | None) -> dict[str, dict[str, Any]]:
    """Entries of the cache file that are well formed and younger than ``ASKED_FOR``."""
    now, fresh = time.time(), {}
    for key, entry in read_cache(path).items():
        if not isinstance(entry, dict) or entry.get("vision") not in (True, False, None):
            continue
        at = entry.get("at")
        if isinstance(at, int | float) and 0 <= now - at <= ASKED_FOR:
            fresh[key] = {"vision": entry["vision"], "at": at}
    return fresh
