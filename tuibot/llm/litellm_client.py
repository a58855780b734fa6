"""The client for cloud models through ``litellm`` — imported only when used.

Importing litellm costs seconds and, by default, fetches a price map from the network
(retrying with sleeps); we make it use the bundled map and keep its logging off the
terminal, where it would garble the app.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from tuibot.llm.openai_client import NO_KEY
from tuibot.llm.parts import StreamPart
from tuibot.llm.streaming import chat_request, stream_parts

if TYPE_CHECKING:
    from tuibot.settings import ProviderSettings


def import_litellm() -> Any:
    """Import litellm quietly and offline-safe, once."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.propagate = True  # to tuibot's log file, never the terminal
    return litellm


class LiteLLMClient:
    """Streams chat completions through ``litellm.acompletion``."""

    def __init__(self, provider: ProviderSettings, api_key: str | None) -> None:
        self._litellm = import_litellm()
        self._provider = provider
        self._api_key = api_key
        self.where = provider.base_url or f"the {provider.name} API"

    async def stream(
        self,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        params: dict[str, Any],
    ) -> AsyncIterator[StreamPart]:
        """Stream one completion as parts; every failure becomes a ModelError."""
        request = chat_request(model, messages, tools, params)
        request["timeout"] = self._provider.stream_timeout
        request["num_retries"] = self._provider.max_retries
        if self._provider.base_url:
            request["api_base"] = self._provider.base_url
        if self._api_key:
            request["api_key"] = self._api_key
        elif self._provider.base_url:
            # A keyless self-hosted server: litellm's OpenAI route refuses to send a request
            # without some key. Cloud providers without base_url keep litellm's own env vars.
            request["api_key"] = NO_KEY

        async def open_stream() -> Any:
            return await self._litellm.acompletion(**request)

        async for part in stream_parts(open_stream, self.where):
            yield part

    async def list_models(self) -> list[str]:
        """litellm has no portable listing; report the models it knows for this provider."""
        return []

    async def close(self) -> None:
        """Nothing to release: litellm manages its own clients."""


def litellm_cost_micros(model: str, prompt_tokens: int, completion_tokens: int) -> int:
    """Cost from litellm's bundled price map; 0 when the model has no price."""
    litellm = import_litellm()
    try:
        prompt_usd, completion_usd = litellm.cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:
        return 0
    micros: int = round((prompt_usd + completion_usd) * 1_000_000)
    return micros
