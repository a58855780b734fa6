"""The permissions the bundled tools ask for: secrets, network hosts, data sent out.

A page the model fetched can tell it to read ``.env`` and send it somewhere. Two guards
stop that without a person in the loop being surprised: reading a file whose name looks
like a secret asks first (``tools.secret_files``), and the web tools ask before the first
request to each host (``tools.allowed_hosts`` lists hosts that need no question). A
request that carries data beyond a plain URL — a method other than GET/HEAD, a body, any
header — is shown whole and asks every time: no grant covers it.

Plugin files cannot import each other, so the rules live here; they run inside the
call's :class:`~tuibot.toolkit.scope.ToolScope` and never import httpx.
"""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path

from tuibot.approvals.permissions import Permission, host_key
from tuibot.toolkit.scope import hosts_allowed, secret_patterns
from tuibot.toolkit.workspace import resolve_in_workspace, spelled_plainly

SECRET_FOLDERS = frozenset({".ssh", ".gnupg", ".aws", ".kube", ".docker", ".password-store"})
"""Folders whose every file counts as secret-looking, whatever its name."""
PLAIN_METHODS = ("GET", "HEAD")


def is_secret_file(path: Path, patterns: tuple[str, ...] | None = None) -> bool:
    """Whether ``path``'s name (or a folder it lies in) looks like it holds secrets."""
    patterns = secret_patterns() if patterns is None else patterns
    name = path.name.lower()
    if any(fnmatch.fnmatchcase(name, pattern.lower()) for pattern in patterns):
        return True
    return any(part.lower() in SECRET_FOLDERS for part in path.parts[:-1])


def secret_read_permission(verb: str, raw: object) -> Permission | None:
    """Ask before ``verb``-ing a secret-looking file; None for any other path.

    A path the workspace guard refuses needs no question: the tool refuses it.
    """
    if not isinstance(raw, str):
        return None
    try:
        target = resolve_in_workspace(raw)
    except (OSError, ValueError):
        return None
    if not is_secret_file(target):
        return None
    return Permission(
        kind="read_secret",
        question=(
            f"{verb} a file that looks like it holds secrets (tools.secret_files)? Its "
            "content goes to the model."
        ),
        subject=str(target),
        grant_key=f"read-secret:{target}",
        covers="reading this file",
        shown_arguments=("path",) if spelled_plainly(raw, target) else (),
    )


def _host_of(url: object) -> str | None:
    """The host a grant names (``name[:port]``) of a URL the guard parses; else None."""
    from tuibot.toolkit.netguard import Refused, parse_url

    if not isinstance(url, str):
        return None
    try:
        target = parse_url(url)
    except (Refused, ValueError):
        return None
    return target.host_header


def host_allowed(host: str) -> bool:
    """Whether ``tools.allowed_hosts`` lets plain requests reach ``host`` unasked."""
    name = host.lower()
    return any(
        fnmatch.fnmatchcase(name, pattern.lower()) or name == pattern.lower()
        for pattern in hosts_allowed()
    )


def fetch_permission(url: object, what: str = "Fetch a page from") -> Permission | None:
    """Ask before the first plain request to a host not in ``tools.allowed_hosts``."""
    host = _host_of(url)
    if host is None:
        return None  # the tool refuses the URL itself
    if host_allowed(host):
        return None
    return Permission(
        kind="network",
        question=f"{what} {host}? (not in tools.allowed_hosts)",
        subject=str(url),
        grant_key=host_key(host),
        covers=f"plain GET/HEAD requests to {host}",
        shown_arguments=("url",),
    )


def request_permission(
    url: object, method: object, headers: object, body: object
) -> Permission | None:
    """``http_request``: a plain GET/HEAD asks per host; anything carrying data always asks."""
    written, method = method, str(method or "GET").upper()
    carries = method not in PLAIN_METHODS or bool(body) or bool(headers)
    if not carries:
        return fetch_permission(url, f"Send a {method} request to")
    host = _host_of(url) or "?"
    fields = [("method", method)]
    if headers:
        fields.append(("headers", json.dumps(headers, ensure_ascii=False, indent=2)))
    if body:
        fields.append(("body", str(body)))
    return Permission(
        kind="network",
        question=f"Send HTTP {method} to {host}, carrying the data shown?",
        subject=str(url),
        grant_key=None,
        fields=tuple(fields),
        why_once="it sends data (a method other than GET/HEAD, a body or headers)",
        shown_arguments=_shown_as_written(url, written, headers, body, method),
    )


def _shown_as_written(
    url: object, written: object, headers: object, body: object, method: str
) -> tuple[str, ...]:
    """The request's arguments shown above exactly as they would be listed: the URL as
    the subject, the method, headers and body as fields (``post`` shown as ``POST`` is
    not exactly the argument, so it is listed too)."""
    names = ["url"] if isinstance(url, str) else []
    if written == method:
        names.append("method")
    if headers and isinstance(headers, dict):
        names.append("headers")
    if body and isinstance(body, str):
        names.append("body")
    return tuple(names)


def redirect_allowed(origin_host: str, next_host: str) -> bool:
    """A redirect may go on within the host asked about, or to an allowed host."""
    return next_host.lower() == origin_host.lower() or host_allowed(next_host)
