"""The one call the engine makes when a person's message is sent: attach what it mentions.

Kept out of the engine so the engine's part is a few lines of wiring: it hands over the
settings, the bot's scope, the route and its approval and key look-ups, and stores the
references this returns on the user's message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from tuibot.attachments.attach import Approve, AttachRules, attach_mentioned
from tuibot.attachments.request import takes_images
from tuibot.attachments.transcribe import transcriber
from tuibot.llm.select import Route
from tuibot.settings import ProviderSettings, Settings
from tuibot.toolkit.scope import ToolScope

if TYPE_CHECKING:
    from tuibot.attachments.refs import AttachmentRef


async def attachments_for(
    text: str,
    settings: Settings,
    scope: ToolScope,
    route: Route,
    approve: Approve,
    key_for: Callable[[ProviderSettings], str | None],
    note: Callable[[str], None],
    sees: Callable[[], Awaitable[bool]] | None = None,
) -> list[AttachmentRef]:
    """The references of the files ``text`` mentions, for the model ``route`` picks.

    Raises :class:`~tuibot.attachments.refs.AttachmentError` when one is refused;
    ``note`` receives what the person should know (a path-looking word that was no file);
    ``sees`` is asked, only when an image is attached and the config does not say the
    model takes images, whether it does (the server's word, see llm/vision_probe.py).
    """
    if "@" not in text:
        return []
    provider = route.provider
    rules = AttachRules(
        scope=scope,
        limits=settings.attachments,
        vision=takes_images(provider.vision, provider.vision_models, route.model),
        model=route.model,
        approve=approve,
        transcribe=transcriber(settings, key_for),
        sees=sees,
    )
    attached = await attach_mentioned(text, rules)
    for line in attached.notes:
        note(line)
    return attached.refs
