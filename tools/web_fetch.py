"""Bundled tool: fetch a web page and return its readable text.

The model gets words, not markup, and never more than 50 000 characters: the download
stops as soon as the page has yielded enough. Every URL, and every redirect hop, goes
through the SSRF guard (``tuibot.toolkit.netguard``), so a page cannot steer the model
into this machine, the local network or a cloud metadata service. The result is marked
as untrusted, because a page is a stranger's text. Reaching a host asks first (once, for
this chat, or always), unless ``tools.allowed_hosts`` lists it, and a redirect to another
host is not followed: the model must fetch that URL itself, which asks again.
"""

from __future__ import annotations

from typing import Annotated, Any

from tuibot import Param, tool
from tuibot.approvals.permissions import Permission
from tuibot.toolkit.permits import fetch_permission


def _confirm(arguments: dict[str, Any]) -> Permission | None:
    """Ask before the first request to a host (``tools.allowed_hosts`` need not ask)."""
    return fetch_permission(arguments.get("url"))


@tool(confirm=_confirm, timeout=90)
async def web_fetch(
    url: str,
    max_chars: Annotated[int, Param(ge=1, le=50_000)] = 50_000,
) -> str:
    """Fetch a public web page (http/https) and return its readable text (HTML, text or JSON).

    Args:
        url: The page to fetch, e.g. https://example.com/docs.
        max_chars: Return at most this many characters of text.
    """
    from tuibot.toolkit.webtools import fetch_page  # lazily: httpx costs ~0.2 s to import

    return await fetch_page(url, max_chars)
