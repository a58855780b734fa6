"""An MCP tool's audio as text the model reads: its transcript, or a note saying why not.

Why transcribe: few chat models take sound, and a tool that answers with a voice note
(text to speech, a recorder, a phone bridge) would otherwise be only a file name to the
model. The clip is kept by hash first (:mod:`tuibot.attachments.kept`, which trusts only
bytes that are audio by their magic), then sent through the endpoint that transcribes a
person's attached audio (:mod:`tuibot.attachments.transcribe`). A failed transcription is
a note in the result, never a failed call: the tool itself did its work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from tuibot.attachments.refs import AttachmentError, AttachmentRef
from tuibot.attachments.request import fenced
from tuibot.attachments.transcribe import Transcribe
from tuibot.toolkit.sizes import clip_output

Transcriber = Callable[[], Transcribe | None]
"""The transcription ``[transcription]`` sets up now (None: none), asked per result so a
changed config applies."""
NOT_SET_UP = (
    "[tuibot: the audio {tool} returned is not transcribed: no [transcription] provider "
    "is set up (see docs/attachments.md)]"
)


async def audio_text(
    tool: str, clips: Sequence[tuple[AttachmentRef, bytes]], transcribe: Transcribe | None,
    limit: int,
) -> str:  # fmt: skip
    """What follows the result's text: each clip's transcript within ``limit``, or notes."""
    if not clips:
        return ""
    if transcribe is None:
        return NOT_SET_UP.format(tool=tool)
    blocks = []
    for ref, data in clips:
        where = ref.get("path", "")
        try:
            words = await transcribe(Path(where).name, data, ref.get("mime", "audio/wav"))
        except AttachmentError as error:
            blocks.append(f"[tuibot: the audio {tool} returned could not be transcribed: {error}]")
            continue
        title = f"Transcript of the audio {tool} returned (kept at {where}):"
        blocks.append(fenced(title, clip_output(words, limit)))
    return "\n\n".join(blocks)
