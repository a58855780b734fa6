"""Ask a local model server how big its context window is.

Each kind of server reports it somewhere else, and none is found by the OpenAI API, so
every known endpoint is asked at once with a short timeout; a server answers the ones it
has and 404s the rest. Ollama is special: its OpenAI-compatible endpoint cuts the prompt
to the *loaded* context (``/api/ps``) or the model's ``num_ctx`` parameter, else its own
default of 4096 — never the model's trained length — so that is what counts there.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

log = logging.getLogger("tuibot.llm")

PROBE_TIMEOUT = 2.0
"""Seconds each probe may take; a slow or absent endpoint just counts as unknown."""
OLLAMA_DEFAULT = 4096
"""Ollama's window when neither the loaded model nor its parameters say (docs: 4k below
24 GiB of VRAM)."""

_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)", re.M)


def sdk_http() -> Any:
    """The HTTP library the openai SDK runs on (``httpx2`` in openai 3, else ``httpx``):
    a probe made with it imports nothing the model call does not import anyway."""
    try:
        import httpx2

        return httpx2
    except ImportError:
        import httpx

        return httpx


def server_root(base_url: str) -> str:
    """The server's address without the ``/v1`` of its OpenAI-compatible API."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


async def probe_server(base_url: str, model: str, api_key: str | None = None) -> int | None:
    """The window the server at ``base_url`` reports for ``model`` (None: it says none).

    ``api_key`` is sent as the SDK sends it, so a server behind a key answers too.
    """
    httpx = sdk_http()

    root = server_root(base_url)
    timeout = httpx.Timeout(PROBE_TIMEOUT)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    async with httpx.AsyncClient(timeout=timeout, trust_env=False, headers=headers) as client:
        show, ps, props, models, lmstudio = await asyncio.gather(
            _json(client, "POST", f"{root}/api/show", {"model": model}),
            _json(client, "GET", f"{root}/api/ps"),
            _json(client, "GET", f"{root}/props"),
            _json(client, "GET", f"{base_url.rstrip('/')}/models"),
            _json(client, "GET", f"{root}/api/v0/models"),
        )
    if show is not None:
        return _ollama(show, ps, model)
    for found in (_llama_cpp(props), _listed(models, model, "max_model_len")):
        if found:
            return found
    return _listed(lmstudio, model, "loaded_context_length") or _listed(
        lmstudio, model, "max_context_length"
    )


async def _json(client: Any, method: str, url: str, body: Any = None) -> Any:
    """The JSON answer of one endpoint, or None for any failure."""
    try:
        answer = await client.request(method, url, json=body)
        return answer.json() if answer.status_code == 200 else None
    except Exception as error:  # absent, slow, not JSON: this endpoint says nothing
        log.debug("window probe %s %s: %s", method, url, error)
        return None


def _count(value: Any) -> int | None:
    """A positive whole number, else None."""
    ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
    return value if ok else None


def _ollama(show: Any, ps: Any, model: str) -> int | None:
    """Ollama's effective window: loaded context, else ``num_ctx``, else its default."""
    trained = trained_length(show)
    window = loaded_length(ps, model) or num_ctx_parameter(show) or OLLAMA_DEFAULT
    return min(window, trained) if trained else window


def trained_length(show: Any) -> int | None:
    """``model_info["<arch>.context_length"]`` of an ``/api/show`` answer."""
    info = show.get("model_info") if isinstance(show, dict) else None
    for key, value in info.items() if isinstance(info, dict) else ():
        if key.endswith(".context_length") and _count(value):
            return int(value)
    return None


def loaded_length(ps: Any, model: str) -> int | None:
    """``context_length`` of ``model`` as ``/api/ps`` lists it loaded (None: not loaded)."""
    for entry in ps.get("models") or () if isinstance(ps, dict) else ():
        names = {entry.get("name"), entry.get("model")} if isinstance(entry, dict) else set()
        if model in names or f"{model}:latest" in names:
            return _count(entry.get("context_length"))
    return None


def num_ctx_parameter(show: Any) -> int | None:
    """The ``num_ctx`` a Modelfile sets (``/api/show``'s ``parameters`` text)."""
    parameters = show.get("parameters") if isinstance(show, dict) else None
    found = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
    return int(found.group(1)) if found else None


def _llama_cpp(props: Any) -> int | None:
    """``llama-server``'s ``n_ctx`` from ``/props``."""
    if not isinstance(props, dict):
        return None
    settings = props.get("default_generation_settings")
    inner = settings.get("n_ctx") if isinstance(settings, dict) else None
    return _count(inner) or _count(props.get("n_ctx"))


def _listed(listing: Any, model: str, key: str) -> int | None:
    """``key`` of ``model``'s entry in an OpenAI-style ``{"data": [...]}`` listing."""
    entries = listing.get("data") if isinstance(listing, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and entry.get("id") == model:
            return _count(entry.get(key))
    return None
