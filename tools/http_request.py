"""Bundled tool: send one HTTP request to a public API and show the response.

For APIs rather than pages: any method, headers and a text body; the answer shows the
status, the headers worth reading and at most 50 KB of body. GET and HEAD run unasked;
anything that can change something elsewhere (POST, PUT, PATCH, DELETE, OPTIONS) asks
the user first. The same SSRF guard as ``web_fetch`` applies, and only GET and HEAD
follow redirects, so a confirmed request is never re-sent somewhere the user did not see.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from tuibot import Param, tool

SAFE_METHODS = ("GET", "HEAD")
"""Methods that only read, and so need no confirmation."""


def _confirm(arguments: dict[str, Any]) -> str | bool:
    """Ask before any method that may change state on the server."""
    method = arguments.get("method", "GET")
    if method in SAFE_METHODS:
        return False
    body = arguments.get("body") or ""
    size = f" with a {len(body.encode('utf-8'))}-byte body" if body else ""
    return f"Send HTTP {method} to {arguments.get('url', '?')}{size}?"


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
        method: HTTP method; anything but GET and HEAD asks the user first.
        headers: Extra request headers, e.g. {"Accept": "application/json"}.
        body: Request body as text (for POST, PUT, PATCH).
    """
    from tuibot.toolkit.webtools import http_call  # lazily: httpx costs ~0.2 s to import

    return await http_call(url, method, headers, body)
