"""The ``[attachments]`` and ``[transcription]`` tables: files a person attaches to a message.

Kept apart from ``tuibot.settings`` (which only declares the sections) so the keys of one
feature live together. Which models take images is a provider key (``vision``,
``vision_models`` on ``[providers.NAME]``), because it is a fact about a server's models.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tuibot.settings.schema import rules

MIB = 1024 * 1024


@dataclass(frozen=True)
class AttachmentSettings:
    """Size caps for ``@file`` attachments; a bigger file is refused, never cut."""

    max_text_bytes: int = field(default=256 * 1024, metadata=rules(ge=1, unit="bytes"))
    """Largest text file that goes into a message (256 KiB: about 64k tokens)."""
    max_image_bytes: int = field(default=10 * MIB, metadata=rules(ge=1, unit="bytes"))
    """Largest image sent to a vision model."""
    max_audio_bytes: int = field(default=25 * MIB, metadata=rules(ge=1, unit="bytes"))
    """Largest audio file sent for transcription (OpenAI's own limit is 25 MiB)."""


@dataclass(frozen=True)
class TranscriptionSettings:
    """Where audio attachments are transcribed: an OpenAI-compatible ``/audio/transcriptions``."""

    provider: str = ""
    """The provider (``[providers.NAME]``, kind ``openai``) that transcribes; "" = none,
    so an audio attachment is refused with a message saying how to set one up."""
    model: str = "whisper-1"
    """The transcription model the provider serves (``whisper-1``, a faster-whisper name)."""
    language: str = ""
    """An ISO-639-1 hint (``en``, ``de``) for the model; "" = let it detect."""
    timeout: float = field(default=120.0, metadata=rules(gt=0, le=3600))
    """Seconds one transcription may take."""
