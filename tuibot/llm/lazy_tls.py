"""An HTTP transport that reads the CA bundle on the first https request, not at start.

httpx builds its verified TLS context (loading the system's or certifi's CA bundle, ~20
ms) when a client is made, even when every request goes to a local ``http://`` server.
This transport sends ``http://`` requests through a pool whose TLS context holds no
trust anchors and still demands a valid certificate — so it could never complete a TLS
handshake, and it never does one: plain HTTP has none. The first ``https://`` request
(a cloud base URL, or a redirect) makes the ordinary verified transport, with the same
settings the client would have used; TLS is never weaker than before, only later.
Proxies from the environment are unaffected: httpx routes them through its own mounts.
"""

from __future__ import annotations

import ssl
from types import ModuleType
from typing import Any


class LazyTLSTransport:
    """Plain HTTP at once; a verified TLS transport made on the first ``https`` request.

    Duck-typed to the transport interface of whichever httpx the SDK is built on
    (``httpx`` or its fork ``httpx2``), so the class itself imports neither.
    """

    def __init__(self, httpx: ModuleType, limits: Any) -> None:
        self._httpx = httpx
        self._limits = limits
        self._plain = httpx.AsyncHTTPTransport(verify=_no_trust_context(), limits=limits)
        self._secure: Any = None

    async def handle_async_request(self, request: Any) -> Any:
        """Send ``request`` through the pool its scheme calls for."""
        if request.url.scheme == "http":
            return await self._plain.handle_async_request(request)
        if self._secure is None:
            self._secure = self._httpx.AsyncHTTPTransport(limits=self._limits)  # verify=True
        return await self._secure.handle_async_request(request)

    async def aclose(self) -> None:
        """Close both pools."""
        await self._plain.aclose()
        if self._secure is not None:
            await self._secure.aclose()

    async def __aenter__(self) -> LazyTLSTransport:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _no_trust_context() -> ssl.SSLContext:
    """A client TLS context that verifies and trusts nothing: any handshake fails closed."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # check_hostname on, CERT_REQUIRED


def sdk_httpx(client_class: type) -> ModuleType:
    """The httpx module ``client_class`` (the SDK's default client) is built on."""
    import sys

    for base in client_class.__mro__:
        if base.__name__ == "AsyncClient":
            return sys.modules[base.__module__.partition(".")[0]]
    raise TypeError(f"{client_class!r} is not an httpx AsyncClient")
