"""The client for Ollama's native API (``kind = "ollama"``), over plain httpx.

Why native: only ``/api/chat`` honours ``options.num_ctx``; through the OpenAI endpoint
Ollama cuts every prompt to its default window without a word. Each request gets a
``num_ctx`` big enough for the fitted prompt plus the reply reserve, within the model's
trained length (``/api/show``, else ``/api/ps``) and the config's ``context_window``.
It only grows per model, in powers of two, because every new ``num_ctx`` makes Ollama
reload the model.

Why httpx and not the ``ollama`` package: httpx is already imported by the openai SDK,
while ``import ollama`` adds ~350 ms (pydantic models) to every start (measured with
``python -X importtime``; see docs/providers.md).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from tuibot.llm.errors import ModelError, describe_status, unreachable
from tuibot.llm.ollama_wire import LineReader, chat_body, set_num_ctx
from tuibot.llm.parts import StreamPart
from tuibot.llm.window_probe import (
    loaded_length,
    num_ctx_parameter,
    server_root,
    trained_length,
)
from tuibot.llm.windows import configured

if TYPE_CHECKING:
    from tuibot.settings import ProviderSettings

OLLAMA_ROOT = "http://localhost:11434"
"""Where Ollama listens when the provider names no ``base_url``."""
SMALLEST_NUM_CTX = 4096
"""The least ``num_ctx`` sent: Ollama's own default, so a short chat never shrinks it."""
CHARS_PER_TOKEN = 3.0
"""For a call made without a fitted count (a summary): erring high on tokens is safe."""
FALLBACK_RESERVE = 1024
"""Reply tokens added to such an estimate."""
IMAGE_CHARS = 3072
"""An image in that estimate: about 1,024 tokens (as ``agent.tokens`` counts one)."""
RETRIED = (429, 500, 502, 503, 504)


def num_ctx_for(needed: int, cap: int | None) -> int:
    """The smallest power-of-two multiple of 4096 that holds ``needed``, within ``cap``."""
    size = SMALLEST_NUM_CTX
    while size < needed:
        size *= 2
    return min(size, cap) if cap else size


class OllamaClient:
    """Streams ``/api/chat`` as tuibot's parts; errors as the OpenAI path's ModelErrors."""

    def __init__(self, provider: ProviderSettings, api_key: str | None) -> None:
        import httpx

        self._provider = provider
        self.root = server_root(provider.base_url or OLLAMA_ROOT)
        self.where = self.root
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        timeout = httpx.Timeout(provider.stream_timeout, connect=provider.connect_timeout)
        self._http = httpx.AsyncClient(timeout=timeout, headers=headers, trust_env=False)
        self._num_ctx: dict[str, int] = {}
        self._trained: dict[str, int | None] = {}

    def plan_context(self, model: str, needed: int, window: int) -> None:
        """The fitted request needs ``needed`` tokens (prompt + reply) of ``window``."""
        size = num_ctx_for(needed, window)
        self._num_ctx[model] = max(self._num_ctx.get(model, 0), size)

    def _num_ctx_of(self, model: str, body_chars: int) -> int:
        """``num_ctx`` for this call: the planned size, or one from a rough estimate."""
        estimate = int(body_chars / CHARS_PER_TOKEN) + FALLBACK_RESERVE
        cap = configured(self._provider, model) or self._trained.get(model)
        size = max(self._num_ctx.get(model, 0), num_ctx_for(estimate, cap))
        self._num_ctx[model] = size
        return size

    async def stream(
        self,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        params: dict[str, Any],
    ) -> AsyncIterator[StreamPart]:
        """Stream one ``/api/chat`` call; every failure becomes a ModelError."""
        body = chat_body(model, messages, tools, params, None)
        chars = prompt_chars(body["messages"]) + len(json.dumps(tools))
        set_num_ctx(body, self._num_ctx_of(model, chars))
        reader = LineReader()
        started = False
        try:
            async for line in self._lines(body):
                for part in reader.parts(line):
                    started = True
                    yield part
        except ModelError:
            raise
        except Exception as error:
            raise self._error(error, started) from error
        if not reader.done:
            raise ModelError(f"The connection to {self.where} broke mid-answer.", "interrupted")

    async def _lines(self, body: dict[str, Any]) -> AsyncIterator[Any]:
        """The stream's NDJSON lines, after retrying what a retry can fix."""
        for attempt in range(self._provider.max_retries + 1):
            last = attempt == self._provider.max_retries
            try:
                async with self._http.stream("POST", f"{self.root}/api/chat", json=body) as answer:
                    if answer.status_code != 200:
                        detail = _detail(await answer.aread())
                        if answer.status_code in RETRIED and not last:
                            await asyncio.sleep(min(0.5 * 2**attempt, 4.0))
                            continue
                        raise ModelError(
                            describe_status(answer.status_code, detail, self.where),
                            "rejected",
                            answer.status_code,
                        )
                    async for text in answer.aiter_lines():
                        if text.strip():
                            line = json.loads(text)
                            if isinstance(line, dict) and line.get("error"):
                                raise ModelError(self._stopped(line["error"]), "interrupted")
                            yield line
                    return
            except Exception as error:
                if last or not _connect_failure(error):
                    raise
                await asyncio.sleep(min(0.5 * 2**attempt, 4.0))

    def _stopped(self, detail: Any) -> str:
        """The message for an error line in the middle of a stream."""
        return f"The model server at {self.where} stopped mid-answer: {str(detail)[:300]}"

    def _error(self, error: BaseException, started: bool) -> ModelError:
        """An httpx or parsing failure as the ModelError the OpenAI path would raise."""
        import httpx

        if isinstance(error, httpx.TimeoutException) and not _connect_failure(error):
            message = f"The model server at {self.where} went silent and the request timed out."
            return ModelError(message, "interrupted" if started else "timeout")
        if _connect_failure(error):
            return ModelError(unreachable(self.where), "unreachable")
        if started and isinstance(error, httpx.HTTPError):
            return ModelError(f"The connection to {self.where} broke mid-answer.", "interrupted")
        return ModelError(
            f"The model server at {self.where} sent an answer tuibot cannot read "
            f"(is it Ollama? {type(error).__name__}: {str(error)[:200]})",
            "protocol",
        )

    async def context_window(self, model: str) -> int | None:
        """The most ``num_ctx`` may be: the trained length (``/api/show``), else the
        loaded context (``/api/ps``), else the Modelfile's ``num_ctx`` (None: unknown)."""
        if model not in self._trained:
            show, ps = await asyncio.gather(
                self._json("POST", "/api/show", {"model": model}), self._json("GET", "/api/ps")
            )
            found = trained_length(show) or loaded_length(ps, model) or num_ctx_parameter(show)
            self._trained[model] = found
        return self._trained[model]

    async def _json(self, method: str, path: str, body: Any = None) -> Any:
        """One endpoint's JSON answer, or None for any failure (the next source decides)."""
        try:
            answer = await self._http.request(method, f"{self.root}{path}", json=body, timeout=5.0)
            return answer.json() if answer.status_code == 200 else None
        except Exception:
            return None

    async def list_models(self) -> list[str]:
        """Model names from ``GET /api/tags``."""
        try:
            answer = await self._http.get(f"{self.root}/api/tags", timeout=5.0)
        except Exception as error:
            raise self._error(error, False) from error
        if answer.status_code != 200:
            detail = _detail(answer.content)
            raise ModelError(
                describe_status(answer.status_code, detail, self.where),
                "rejected",
                answer.status_code,
            )
        models = answer.json().get("models") or []
        return [str(entry.get("name")) for entry in models if isinstance(entry, dict)]

    async def close(self) -> None:
        """Close the HTTP connection pool."""
        await self._http.aclose()


def prompt_chars(messages: list[dict[str, Any]]) -> int:
    """Characters of Ollama-shaped messages, each image at its token estimate (its
    base64 would count a 500 KB photo as 170k tokens and make ``num_ctx`` huge)."""
    size = 0
    for message in messages:
        images = message.get("images") or ()
        size += len(json.dumps({k: v for k, v in message.items() if k != "images"}))
        size += len(images) * IMAGE_CHARS
    return size


def _detail(raw: bytes) -> str:
    """Ollama's ``{"error": "..."}`` text, else the body as text."""
    try:
        payload = json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")[:300]
    inner = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(inner, dict):
        inner = inner.get("message")
    return str(inner) if inner else ""


def _connect_failure(error: BaseException) -> bool:
    """Whether the request never reached the server (so a retry may help)."""
    import httpx

    return isinstance(error, httpx.ConnectError | httpx.ConnectTimeout)
