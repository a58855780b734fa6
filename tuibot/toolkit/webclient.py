"""The one HTTP client the web tools use: checked addresses only, capped, timed, re-checked.

Every hop of a fetch goes through ``netguard``: the URL is parsed, the host resolved and
checked, and the request is sent to the *checked IP* with the original name in the
``Host`` header and, for https, as the TLS server name (SNI and certificate check). The
name is never looked up again, so DNS rebinding has no second answer to exploit. The
request URL handed to httpx only ever holds an IP literal, so httpx's own URL parsing
cannot disagree with the guard about where it goes. Redirects are followed here, one hop
at a time, each re-checked; credentials do not cross origins. httpx is imported lazily
because it costs ~0.2 s and start-up is measured.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from tuibot.toolkit.netguard import IPAddress, Refused, Resolver, Target, parse_url
from tuibot.toolkit.netguard import resolve_checked as _resolve_checked

if TYPE_CHECKING:
    import httpx

REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "tuibot/0.1 (terminal assistant; web tools)"
RESERVED_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "upgrade",
        "te",
        "trailer",
        "proxy-connection",
        "accept-encoding",
    }
)
"""Headers the client sets itself; letting the model set them would let it steer framing."""
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})
_CREDENTIAL_WORDS = ("token", "api-key", "apikey", "api_key", "secret", "x-auth", "session")
_MAX_ADDRESSES = 3
"""Checked addresses tried in turn when one refuses the connection."""


class FetchError(Exception):
    """A fetch that failed for a reason worth telling the model in one line."""


@dataclass(frozen=True)
class FetchPolicy:
    """Limits and switches for one fetch; the tools build it, tests shrink it."""

    allow_loopback: bool = False
    """Let URLs reach this machine (127.0.0.0/8, ::1, localhost) for local services."""
    follow_redirects: bool = True
    """Follow 3xx responses (each hop re-checked); off returns the 3xx itself."""
    max_redirects: int = 5
    """Hops after which the chain is abandoned."""
    redirect_ok: Callable[[str, str], bool] | None = None
    """(first host, next host), each ``name[:port]``, -> whether a redirect may go there;
    None follows any.
    The tools let a redirect stay on the host the person allowed (or an allowed host)."""
    connect_timeout: float = 10.0
    """Seconds to establish a connection (and TLS)."""
    read_timeout: float = 20.0
    """Seconds without a byte from the server before giving up."""
    total_timeout: float = 60.0
    """Seconds for the whole fetch, redirects and body included."""
    resolver: Resolver | None = None
    """Name lookup; ``None`` is the system resolver (tests pass a fake one)."""
    transport: Callable[[], httpx.AsyncBaseTransport] | None = None
    """Builds the httpx transport per hop; ``None`` is httpx's own (tests record dials)."""


@dataclass
class Fetched:
    """The final response of a fetch, its body still on the wire until read."""

    url: str
    """The final URL (after redirects), canonical form."""
    status: int
    """HTTP status code."""
    reason: str
    """HTTP reason phrase."""
    headers: httpx.Headers
    """Response headers."""
    address: IPAddress
    """The address that was dialled for the final hop (the checked one)."""
    redirects: list[str] = field(default_factory=list)
    """URLs redirected from, in order."""
    bytes_read: int = 0
    """Raw bytes received so far (before decompression)."""
    truncated: bool = False
    """Whether ``iter_bytes`` stopped at its limit with more data left."""
    _response: Any = None

    @property
    def content_type(self) -> str:
        """The media type, lower case, without parameters (``""`` when absent)."""
        header: str = self.headers.get("content-type", "")
        return header.split(";", 1)[0].strip().lower()

    @property
    def charset(self) -> str | None:
        """The ``charset`` parameter of ``Content-Type``, if given."""
        for param in self.headers.get("content-type", "").split(";")[1:]:
            key, _, value = param.partition("=")
            if key.strip().lower() == "charset" and value.strip():
                charset: str = value.strip().strip("\"'")
                return charset
        return None

    async def iter_bytes(self, limit: int) -> AsyncGenerator[bytes, None]:
        """The decoded body, at most ``limit`` bytes, stopping the download at the limit.

        Decompression is bounded too, so a small gzip bomb cannot expand in memory.
        """
        import httpx

        decoder = _Decoder(self.headers.get("content-encoding", ""))
        total = 0
        try:
            async for raw in self._response.aiter_raw():
                self.bytes_read += len(raw)
                data = decoder.feed(raw, limit - total + 1)
                if total + len(data) > limit:
                    self.truncated = True
                    yield data[: limit - total]
                    return
                total += len(data)
                if data:
                    yield data
        except httpx.HTTPError as exc:
            raise FetchError(_describe_http_error(exc, self.url)) from None


class _Decoder:
    """Bounded gzip/deflate decoding; identity passes through."""

    def __init__(self, encoding: str) -> None:
        kind = encoding.strip().lower()
        if kind in ("", "identity"):
            self._zlib = None
        elif kind in ("gzip", "x-gzip", "deflate"):
            self._zlib = zlib.decompressobj(31 if "gzip" in kind else 15)
        else:
            raise FetchError(f"unsupported content encoding {encoding!r}")
        self._deflate = kind == "deflate"
        self._started = False

    def feed(self, raw: bytes, max_length: int) -> bytes:
        if self._zlib is None:
            return raw
        try:
            out = self._zlib.decompress(raw, max_length)
        except zlib.error:
            if not (self._deflate and not self._started):
                raise FetchError("the response body is not valid compressed data") from None
            self._zlib = zlib.decompressobj(-15)  # raw deflate, as some servers send
            return self.feed(raw, max_length)
        self._started = True
        return out


def prepare_headers(headers: Mapping[str, str] | None) -> dict[str, str]:
    """The caller's headers, checked: no CR/LF/NUL, no framing headers the client owns."""
    clean: dict[str, str] = {}
    for name, value in (headers or {}).items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise FetchError("header names and values must be strings")
        if not name or any(c in name for c in ' \t\r\n\0:()<>@,;="/[]?{}\\'):
            raise FetchError(f"invalid header name {name!r}")
        if any(c in value for c in "\r\n\0"):
            raise FetchError(f"header {name} contains a line break or NUL byte")
        if name.lower() in RESERVED_HEADERS:
            raise FetchError(f"header {name} is set by the client and cannot be overridden")
        clean[name] = value
    return clean


def is_credential_header(name: str) -> bool:
    """Headers that carry credentials and must not follow a redirect to another origin."""
    lower = name.lower()
    return lower in CREDENTIAL_HEADERS or any(word in lower for word in _CREDENTIAL_WORDS)


@asynccontextmanager
async def open_url(
    url: str,
    *,
    policy: FetchPolicy,
    method: str = "GET",
    headers: Mapping[str, str] | None = None,
    body: bytes = b"",
) -> AsyncIterator[Fetched]:
    """Fetch ``url`` through the guard and yield the final response, body unread.

    Raises ``Refused`` when the guard stops a hop and ``FetchError`` for network and
    protocol failures, too many redirects and the total timeout.
    """
    try:
        async with asyncio.timeout(policy.total_timeout):
            client, fetched = await _follow(url, policy, method, prepare_headers(headers), body)
            try:
                yield fetched
            finally:
                await fetched._response.aclose()
                await client.aclose()
    except TimeoutError:
        raise FetchError(f"gave up on {url} after {policy.total_timeout:g} s") from None


async def _follow(
    url: str, policy: FetchPolicy, method: str, headers: dict[str, str], body: bytes
) -> tuple[httpx.AsyncClient, Fetched]:
    """Send the request and follow redirects hop by hop, re-checking each hop."""
    target = parse_url(url)
    redirects: list[str] = []
    while True:
        try:
            client, response, address = await _send(target, policy, method, headers, body)
        except Refused as exc:
            if not redirects:
                raise
            raise Refused(f"redirect from {redirects[-1]} to {exc}") from None
        location = response.headers.get("location")
        if not (policy.follow_redirects and response.status_code in REDIRECT_CODES and location):
            fetched = Fetched(
                url=target.url,
                status=response.status_code,
                reason=response.reason_phrase,
                headers=response.headers,
                address=address,
                redirects=redirects,
                _response=response,
            )
            return client, fetched
        await response.aclose()
        await client.aclose()
        redirects.append(target.url)
        if len(redirects) > policy.max_redirects:
            chain = " -> ".join(redirects)
            raise FetchError(f"too many redirects (more than {policy.max_redirects}): {chain}")
        next_target = _redirect_target(target, location)
        first = parse_url(url).host_header
        if policy.redirect_ok is not None and not policy.redirect_ok(
            first, next_target.host_header
        ):
            raise FetchError(
                f"{target.url} redirects to {next_target.url}, on another host; it was not "
                "followed: fetch that URL with a call of its own (a new host asks first)"
            )
        if next_target.origin != target.origin:
            headers = {k: v for k, v in headers.items() if not is_credential_header(k)}
        if response.status_code == 303 or (response.status_code in (301, 302) and method == "POST"):
            method, body = ("HEAD" if method == "HEAD" else "GET"), b""
        target = next_target


def _redirect_target(current: Target, location: str) -> Target:
    try:
        return parse_url(urljoin(current.url, location))
    except Refused as exc:
        raise Refused(f"redirect from {current.url} refused: {exc}") from None


async def _send(
    target: Target, policy: FetchPolicy, method: str, headers: dict[str, str], body: bytes
) -> tuple[httpx.AsyncClient, httpx.Response, IPAddress]:
    """One request to one checked address of ``target``; the next address on refusal."""
    import httpx

    addresses = await _resolve_checked(
        target, allow_loopback=policy.allow_loopback, resolver=policy.resolver
    )
    timeout = httpx.Timeout(
        connect=policy.connect_timeout,
        read=policy.read_timeout,
        write=policy.read_timeout,
        pool=policy.connect_timeout,
    )
    sent = {
        "User-Agent": USER_AGENT,
        "Accept": "*/*",
        **headers,
        "Host": target.host_header,
        "Accept-Encoding": "gzip",
    }
    named_tls = target.scheme == "https" and target.literal is None
    extensions = {"sni_hostname": target.host} if named_tls else {}
    failure: Exception | None = None
    for address in addresses[:_MAX_ADDRESSES]:
        transport = policy.transport() if policy.transport else None
        # trust_env=False: an HTTP(S)_PROXY variable would hand the name to a proxy to resolve.
        client = httpx.AsyncClient(transport=transport, timeout=timeout, trust_env=False)
        request = client.build_request(
            method,
            target.url_for(address),
            headers=sent,
            content=body or None,
            extensions=extensions,
        )
        try:
            return client, await client.send(request, stream=True), address
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            await client.aclose()
            failure = exc
        except httpx.HTTPError as exc:
            await client.aclose()
            raise FetchError(_describe_http_error(exc, target.url)) from None
        except BaseException:
            await client.aclose()
            raise
    assert failure is not None
    raise FetchError(_describe_http_error(failure, target.url)) from None


def _describe_http_error(exc: Exception, url: str) -> str:
    """One line for the model: what failed, where."""
    import httpx

    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ConnectTimeout):
        return f"timed out connecting to {url}"
    if isinstance(exc, httpx.ReadTimeout | httpx.WriteTimeout | httpx.PoolTimeout):
        return f"timed out waiting for {url} (the server sent nothing)"
    if isinstance(exc, httpx.ConnectError):
        return f"could not connect to {url}: {detail}"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"{url} broke the HTTP protocol: {detail}"
    return f"request to {url} failed: {detail}"
