"""Bundled tool: send one HTTP request to a public API and show the response.

For APIs rather than pages: any method, headers and a text body; the answer shows the
status, the headers worth reading and at most 50 KB of body. A plain GET or HEAD asks
before the first request to a host (like ``web_fetch``); a request that carries data — any
other method, a body, any header — is shown whole and asks every time, since it could be
sending what the model read elsewhere. The same SSRF guard as ``web_fetch`` applies, and
only GET and HEAD follow redirects, so a confirmed request is never re-sent somewhere the
user did not see.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from tuibot import Param, tool
from tuibot.approvals.permissions import Permission
from tuibot.toolkit.permits import request_permission


def _confirm(arguments: dict[str, Any]) -> Permission | None:
    """A plain GET/HEAD asks per host; a request carrying data is shown whole, every time."""
    return request_permission(
        arguments.get("url"), arguments.get("method"), arguments.get("headers"),
        arguments.get("body"),
    )  # fmt: skip


@tool(confirm=_confirm, timeout=90)
async def http_request(
    url: str,
    method: Literal["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] = "GET",
    headers: dict[str, str] | None = None,
    body: Annotated[str, Param(max_length=1_000_000)] = "",
) -> str:
    """Send an HTTP request to a public URL and return the status, main headers and body.

    Args:
        url: The http/https URL to call.
        method: HTTP method; anything but GET and HEAD is shown and asked every time.
        headers: Extra request headers, e.g. {"Accept": "application/json"}.
        body: Request body as text (for POST, PUT, PATCH).
    """
    from tuibot.toolkit.webtools import http_call  # lazily: httpx costs ~0.2 s to import

    return await http_call(url, method, headers, body)
