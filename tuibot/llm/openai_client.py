"""The client for any OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio, OpenAI).

The SDK's own retry logic already does what we want for transient failures — connection
errors, 408/409/429 (honouring ``Retry-After``) and 5xx, with bounded backoff — so we set
``max_retries`` and a timeout whose read part turns a silent stream into an error.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from tuibot.llm.errors import from_openai_error
from tuibot.llm.parts import StreamPart
from tuibot.llm.streaming import chat_request, stream_parts

if TYPE_CHECKING:
    from tuibot.settings import ProviderSettings

NO_KEY = "not-needed"
"""Local servers ignore the key, but the SDK insists on having one."""


def import_openai() -> Any:
    """Import the SDK without its optional aiohttp transport, its types deferred.

    When aiohttp is installed (litellm brings it), ``import openai`` also imports it to
    offer an alternative transport we never use, which costs ~140 ms of every
    ``tuibot ask``. Hiding it for the duration of that one import skips the cost; the
    entry is removed afterwards, so litellm can still import aiohttp normally. The
    models of the SDK's other APIs load when first used (:mod:`tuibot.llm.lazy_types`).
    """
    if "openai" not in sys.modules:
        from tuibot.llm import lazy_types

        lazy_types.install()
    if "openai" in sys.modules or "aiohttp" in sys.modules:
        import openai

        return openai
    sys.modules["aiohttp"] = None  # type: ignore[assignment]
    try:
        import openai
    finally:
        if sys.modules.get("aiohttp", 0) is None:
            del sys.modules["aiohttp"]
    return openai


def _http_client(openai: Any, base_url: str) -> Any:
    """For an ``http://`` server, the SDK's client minus the CA bundle read at start.

    None (the SDK's own client) for ``https://``, which needs the bundle anyway.
    """
    if not base_url.lower().startswith("http://"):
        return None
    from tuibot.llm.lazy_tls import LazyTLSTransport, sdk_httpx

    client_class = openai.DefaultAsyncHttpxClient
    limits = openai.DEFAULT_CONNECTION_LIMITS
    return client_class(transport=LazyTLSTransport(sdk_httpx(client_class), limits))


class OpenAIClient:
    """Streams chat completions through ``openai.AsyncOpenAI``."""

    def __init__(self, provider: ProviderSettings, api_key: str | None) -> None:
        openai = import_openai()
        self.where = provider.base_url or "https://api.openai.com/v1"
        self._client = openai.AsyncOpenAI(
            base_url=provider.base_url or None,
            api_key=api_key or NO_KEY,
            timeout=openai.Timeout(provider.stream_timeout, connect=provider.connect_timeout),
            max_retries=provider.max_retries,
            http_client=_http_client(openai, self.where),
        )

    async def stream(
        self,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        params: dict[str, Any],
    ) -> AsyncIterator[StreamPart]:
        """Stream one completion as parts; every failure becomes a ModelError."""
        request = chat_request(model, messages, tools, params)

        async def open_stream() -> Any:
            return await self._client.chat.completions.create(**request)

        async for part in stream_parts(open_stream, self.where):
            yield part

    async def list_models(self) -> list[str]:
        """Model ids from ``GET /models``."""
        try:
            page = await self._client.models.list(timeout=5.0)
        except Exception as error:
            raise from_openai_error(error, self.where, False) from error
        return [model.id for model in page.data]

    async def close(self) -> None:
        """Close the HTTP connection pool."""
        await self._client.close()
