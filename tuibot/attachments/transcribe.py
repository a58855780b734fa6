"""Audio to text through a provider's OpenAI-compatible ``/audio/transcriptions`` endpoint.

Why transcribe instead of sending audio: few chat models take sound, while Whisper-style
endpoints are common (OpenAI, Groq, LocalAI, speaches, vLLM), and a transcript works with
every model and stays readable in the chat file. The ``openai`` SDK sends the file as a
multipart form, as those servers expect.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from tuibot.attachments.refs import AttachmentError
from tuibot.llm.openai_client import NO_KEY, import_openai
from tuibot.settings import ProviderSettings, Settings
from tuibot.system.secrets import redact

Transcribe = Callable[[str, bytes, str], Awaitable[str]]
"""``(file name, bytes, MIME type) -> transcript``."""

NOT_SET_UP = (
    "audio is sent as its transcript, and no transcription is set up: set "
    "[transcription] provider (a provider with an /audio/transcriptions endpoint) and "
    "model in config.toml (see docs/attachments.md)"
)


def transcriber(
    settings: Settings, key_for: Callable[[ProviderSettings], str | None]
) -> Transcribe | None:
    """The transcription call ``[transcription]`` configures, or None when it is unset."""
    config = settings.transcription
    if not config.provider:
        return None
    provider = settings.providers[config.provider]  # checked when settings load

    async def transcribe(name: str, data: bytes, mime: str) -> str:
        """Send one file; every failure is an :class:`AttachmentError` that says so."""
        openai = import_openai()
        client = openai.AsyncOpenAI(
            base_url=provider.base_url or None,
            api_key=key_for(provider) or NO_KEY,
            timeout=config.timeout,
            max_retries=provider.max_retries,
        )
        extra: dict[str, Any] = {"language": config.language} if config.language else {}
        try:
            result = await client.audio.transcriptions.create(
                model=config.model, file=(name, data, mime), **extra
            )
        except Exception as error:
            where = provider.base_url or provider.name
            raise AttachmentError(
                f"cannot attach {name}: transcription at {where} failed: {redact(str(error))}"
            ) from error
        finally:
            await client.close()
        return str(getattr(result, "text", "") or "")

    return transcribe
