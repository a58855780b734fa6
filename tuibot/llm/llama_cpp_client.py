"""The embedded provider (``kind = "llama-cpp"``): a GGUF file run in-process.

Why: a model with no server to install or start. ``llama-cpp-python`` (the ``local``
extra) is imported and the model loaded only on first use, in a worker thread, so neither
costs start-up. Its window is exactly the ``n_ctx`` it was loaded with: the config's
``context_window``, else the model's trained length capped at 8192 tokens (a 128k window
would reserve gigabytes of KV cache). Generation is blocking C code, so each call runs
in a thread that hands chunks to the event loop; one model serves one call at a time.
The prompt's exact token count comes from the model itself (tokens in its context after
the call), so the estimate calibrates against the real tokenizer.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuibot.llm.errors import ErrorKind, ModelError
from tuibot.llm.parts import StreamPart, TextPart, UsagePart, parts_from_chunk
from tuibot.llm.windows import configured

if TYPE_CHECKING:
    from tuibot.settings import ProviderSettings

DEFAULT_MOST_CTX = 8192
"""The largest ``n_ctx`` chosen without a configured ``context_window``."""
INSTALL_HINT = "install the local extra: pip install 'tuibot[local]'"
_END = object()


class _Fields:
    """A chunk dict read by attribute, as :func:`parts_from_chunk` reads the SDK's."""

    def __init__(self, values: dict[str, Any]) -> None:
        for key, value in values.items():
            setattr(self, key, _wrap(value))

    def __getattr__(self, name: str) -> Any:
        return None  # a field llama.cpp left out


def _wrap(value: Any) -> Any:
    """Dicts (also inside lists) as :class:`_Fields`."""
    if isinstance(value, dict):
        return _Fields(value)
    if isinstance(value, list):
        return [_wrap(item) for item in value]
    return value


class LlamaCppClient:
    """Streams ``Llama.create_chat_completion`` as tuibot's parts."""

    def __init__(self, provider: ProviderSettings) -> None:
        self._provider = provider
        self.where = "the embedded model"
        self._llama: Any = None
        self._loading = asyncio.Lock()
        self._busy = threading.Lock()

    def model_file(self, model: str) -> Path:
        """The GGUF file: ``model_path``, else the model name read as a path."""
        return Path(self._provider.model_path or model).expanduser()

    async def _model(self, model: str) -> Any:
        """The loaded model, loading it on first use (in a thread)."""
        async with self._loading:
            if self._llama is None:
                path = self.model_file(model)
                self.where = f"the embedded model {path.name}"
                self._llama = await asyncio.to_thread(self._load, path, model)
        return self._llama

    def _load(self, path: Path, model: str) -> Any:
        """Load ``path`` with its n_ctx (see module docstring); errors said in words."""
        if not path.is_file():
            raise ModelError(
                f"The GGUF model file {path} does not exist (set "
                f"providers.{self._provider.name}.model_path).",
                "unreachable",
            )
        try:
            from llama_cpp import Llama
        except ImportError as error:
            message = f"kind = 'llama-cpp' needs llama-cpp-python: {INSTALL_HINT}."
            raise ModelError(message, "unreachable") from error
        try:
            n_ctx = configured(self._provider, model) or _trained(Llama, path)
            return Llama(model_path=str(path), n_ctx=n_ctx, verbose=False)
        except (ValueError, RuntimeError, OSError) as error:
            message = f"Cannot load the model file {path}: {error}"
            raise ModelError(message, "unreachable") from error

    async def context_window(self, model: str) -> int | None:
        """The window the model is loaded with (loads it on first use)."""
        llama = await self._model(model)
        return int(llama.n_ctx())

    async def stream(
        self,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        params: dict[str, Any],
    ) -> AsyncIterator[StreamPart]:
        """Stream one completion; generation runs in a thread (see module docstring)."""
        llama = await self._model(model)
        request = {**params, "messages": messages, "stream": True}
        if tools:
            request["tools"] = tools
        request.pop("stream_options", None)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        stop = threading.Event()
        worker = threading.Thread(
            target=self._generate, args=(llama, request, loop, queue, stop), daemon=True
        )
        worker.start()
        try:
            async for part in self._parts(queue):
                yield part
        finally:
            stop.set()  # the consumer left (cancelled, or done): end the generation

    async def _parts(self, queue: asyncio.Queue[Any]) -> AsyncIterator[StreamPart]:
        """Parts from the worker's chunks, then the exact usage."""
        completion = 0
        while (item := await queue.get()) is not _END:
            if isinstance(item, BaseException):
                raise self._error(item, completion > 0) from item
            if isinstance(item, UsagePart):
                yield UsagePart(max(item.prompt_tokens - completion, 0), completion)
                continue
            try:
                parts = parts_from_chunk(_wrap(item))
            except ValueError as error:
                raise self._error(error, completion > 0) from error
            completion += any(isinstance(part, TextPart) for part in parts)
            for part in parts:
                yield part

    def _generate(
        self,
        llama: Any,
        request: dict[str, Any],
        loop: asyncio.AbstractEventLoop,
        queue: asyncio.Queue[Any],
        stop: threading.Event,
    ) -> None:
        """The worker: one call at a time on the model, chunks to the loop's queue."""

        def put(item: Any) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, item)

        with self._busy:
            try:
                chunks: Iterator[Any] = llama.create_chat_completion(**request)
                for chunk in chunks:
                    if stop.is_set():
                        break
                    put(chunk)
                put(UsagePart(int(getattr(llama, "n_tokens", 0) or 0), 0))
            except BaseException as error:  # every failure reaches the caller, none is lost
                put(error)
            finally:
                put(_END)

    def _error(self, error: BaseException, started: bool) -> ModelError:
        """A llama.cpp failure as a ModelError; too big a prompt is a rejection for size."""
        if isinstance(error, ModelError):
            return error
        text = str(error)
        if "exceed context window" in text or "context window" in text:
            return ModelError(f"{self.where} rejected the request: {text}", "rejected", 400)
        kind: ErrorKind = "interrupted" if started else "protocol"
        return ModelError(f"{self.where} failed: {type(error).__name__}: {text}", kind)

    async def list_models(self) -> list[str]:
        """The one model this provider runs (its file must exist; nothing is loaded)."""
        name = self._provider.model_path or ""
        if name and not self.model_file(name).is_file():
            raise ModelError(f"The GGUF model file {name} does not exist.", "unreachable")
        return [Path(name).name] if name else []

    async def close(self) -> None:
        """Free the model (its memory goes when the last reference does)."""
        self._llama = None


def _trained(llama_class: Any, path: Path) -> int:
    """The model's trained window from its metadata (vocabulary only: fast), capped."""
    probe = llama_class(model_path=str(path), vocab_only=True, verbose=False)
    metadata = getattr(probe, "metadata", {}) or {}
    lengths = [int(v) for k, v in metadata.items() if k.endswith(".context_length")]
    del probe
    return min(lengths[0], DEFAULT_MOST_CTX) if lengths else DEFAULT_MOST_CTX
