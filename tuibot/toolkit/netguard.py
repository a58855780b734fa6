"""The web tools' SSRF guard: a URL may only lead to public addresses on the internet.

A model that can fetch URLs can be talked (by a page it read) into fetching
``http://169.254.169.254/`` or a router's admin page. So every URL is parsed here, once,
by one strict parser; its host is decoded the way the OS would decode it (``0x7f000001``,
``127.1`` and ``[::ffff:127.0.0.1]`` are all 127.0.0.1), resolved, and refused if *any*
address is not global. The caller then connects to the address checked here, never to the
name again, so a DNS answer that changes between check and connect (rebinding) cannot
slip through. Only stdlib is imported: this runs for every fetch and costs nothing to load.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]
"""``(host, port) -> addresses`` as text; blocking, so it runs in a worker thread."""

_METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200")
)
_METADATA_NAMES = frozenset({"metadata.google.internal", "metadata.goog", "metadata"})
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_HOST_CHARS = re.compile(r"^[a-z0-9_.-]+$")
_BAD_URL_CHARS = re.compile(r"[\x00-\x20\x7f\\]")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class Refused(ValueError):
    """A URL the guard will not let a tool reach; the message says why, in one line."""


@dataclass(frozen=True)
class Target:
    """A parsed, normalised URL: what to check, where to connect, what to send as Host."""

    scheme: str
    """``http`` or ``https``."""
    host: str
    """The host in canonical ASCII form (IDNA, lower case, no trailing dot, no brackets)."""
    port: int
    """The port, defaulted from the scheme."""
    path: str
    """Path and query as written (``/`` when empty); the fragment is dropped."""
    literal: IPAddress | None
    """The address when the host is an IP literal in any encoding, else ``None``."""

    @property
    def origin(self) -> tuple[str, str, int]:
        """What decides whether credentials may follow a redirect."""
        return (self.scheme, self.host, self.port)

    @property
    def host_header(self) -> str:
        """The ``Host`` header value: the name, bracketed for IPv6, port when not default."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if _DEFAULT_PORTS[self.scheme] == self.port else f"{host}:{self.port}"

    @property
    def url(self) -> str:
        """The URL in canonical form (what is shown to the user and the model)."""
        return f"{self.scheme}://{self.host_header}{self.path}"

    def url_for(self, address: IPAddress) -> str:
        """The same URL pointed at ``address``: what the HTTP client actually dials."""
        host = f"[{address}]" if address.version == 6 else str(address)
        return f"{self.scheme}://{host}:{self.port}{self.path}"


def parse_url(url: str) -> Target:
    """Parse ``url`` strictly; raise ``Refused`` for anything but a plain http(s) URL.

    Refused outright, before any lookup: other schemes, whitespace, control characters
    and backslashes (parsers disagree about them), credentials in the URL (``user@host``
    is the classic way to make a URL read as one host and go to another), a bad port,
    an IPv6 zone, and a numeric-looking host that is not a valid address (``1.2.3.4.5``).
    """
    if not isinstance(url, str) or not url.strip():
        raise Refused("the URL is empty")
    if _BAD_URL_CHARS.search(url):
        raise Refused(f"URL {url!r} contains whitespace, a control character or a backslash")
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in _DEFAULT_PORTS:
        raise Refused(f"URL {url!r} is not http:// or https:// (only web URLs can be fetched)")
    authority, path = _split_authority(rest)
    if "@" in authority:
        raise Refused(f"URL {url!r} contains credentials (user@host); they are not allowed")
    host_text, port = _split_port(authority, scheme, url)
    host, literal = normalise_host(host_text)
    return Target(scheme=scheme, host=host, port=port, path=path, literal=literal)


def _split_authority(rest: str) -> tuple[str, str]:
    """``host:port`` and ``/path?query`` (fragment dropped)."""
    cut = len(rest)
    for mark in "/?#":
        index = rest.find(mark)
        if index != -1:
            cut = min(cut, index)
    authority, tail = rest[:cut], rest[cut:]
    tail = tail.split("#", 1)[0]
    if tail.startswith("?") or not tail:
        tail = "/" + tail
    return authority, tail


def _split_port(authority: str, scheme: str, url: str) -> tuple[str, int]:
    """Split off the port; bracketed IPv6 hosts keep their brackets for ``normalise_host``."""
    if authority.startswith("["):
        end = authority.find("]")
        if end == -1:
            raise Refused(f"URL {url!r} has an unclosed IPv6 bracket")
        host, after = authority[: end + 1], authority[end + 1 :]
        if after and not after.startswith(":"):
            raise Refused(f"URL {url!r} has text after the IPv6 address")
        port_text = after[1:] if after else ""
    else:
        host, _, port_text = authority.partition(":")
        if ":" in port_text:
            raise Refused(f"URL {url!r} has a malformed host (IPv6 needs brackets)")
    if not host:
        raise Refused(f"URL {url!r} has no host")
    if not port_text:
        return host, _DEFAULT_PORTS[scheme]
    if not port_text.isascii() or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise Refused(f"URL {url!r} has an invalid port {port_text!r}")
    return host, int(port_text)


def normalise_host(raw: str) -> tuple[str, IPAddress | None]:
    """The canonical host and, if it is an IP literal in any encoding, its address.

    Names go through IDNA (so full-width digits become ASCII ones and are then caught as
    numbers), lose one trailing dot and are lower-cased. A last label that is a number
    makes the whole host an IPv4 literal in ``inet_aton`` syntax, as the OS reads it.
    """
    if raw.startswith("[") and raw.endswith("]"):
        inner = raw[1:-1]
        if "%" in inner:
            raise Refused(f"IPv6 zone identifiers are not allowed ({raw})")
        try:
            address = ipaddress.IPv6Address(inner)
        except ValueError:
            raise Refused(f"host {raw} is not a valid IPv6 address") from None
        return str(address), address
    if "%" in raw:
        raise Refused(f"host {raw!r} contains percent-encoding")
    try:
        host = raw.encode("idna").decode("ascii") if not raw.isascii() else raw
    except UnicodeError:
        raise Refused(f"host {raw!r} is not a valid domain name") from None
    host = host.lower()
    host = host.removesuffix(".")
    labels = host.split(".")
    if not host or "" in labels or not _HOST_CHARS.match(host):
        raise Refused(f"host {raw!r} is not a valid domain name")
    if _is_number(labels[-1]):
        v4 = parse_ipv4_loose(host)
        if v4 is None:
            raise Refused(f"host {raw!r} looks numeric but is not a valid IPv4 address")
        return str(v4), v4
    return host, None


def _is_number(label: str) -> bool:
    if label.startswith("0x"):
        return all(c in "0123456789abcdef" for c in label[2:])
    return label.isdigit()


def parse_ipv4_loose(text: str) -> ipaddress.IPv4Address | None:
    """IPv4 the way ``inet_aton`` reads it: 1-4 parts, each decimal, ``0``-octal or ``0x``-hex.

    ``2130706433``, ``0x7f000001``, ``0177.0.0.1``, ``127.1`` and ``127.0.1`` all mean
    127.0.0.1; the last part fills the bytes that remain. ``None`` when it is not valid.
    """
    parts = text.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    values: list[int] = []
    for part in parts:
        value = _parse_part(part)
        if value is None:
            return None
        values.append(value)
    *head, last = values
    if any(v > 255 for v in head) or last >= 1 << (8 * (4 - len(head))):
        return None
    number = 0
    for index, value in enumerate(head):
        number |= value << (24 - 8 * index)
    return ipaddress.IPv4Address(number | last)


def _parse_part(part: str) -> int | None:
    try:
        if part.startswith("0x"):
            return int(part[2:], 16) if part[2:] else None
        if len(part) > 1 and part.startswith("0"):
            return int(part, 8)
        return int(part, 10) if part else None
    except ValueError:
        return None


def address_problem(address: IPAddress, *, allow_loopback: bool = False) -> str | None:
    """Why a tool must not connect to ``address``, or ``None`` when it is a public address.

    IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) are
    judged by the address they carry too, so ``::ffff:127.0.0.1`` is as loopback as it gets.
    """
    if address in _METADATA_ADDRESSES:
        return f"{address} is a cloud metadata endpoint"
    if isinstance(address, ipaddress.IPv6Address):
        problem = _embedded_problem(address, allow_loopback)
        if problem is not None or address.ipv4_mapped is not None:
            return problem
    if address.is_loopback:
        return None if allow_loopback else f"{address} is a loopback address (this machine)"
    checks = (
        (address.is_unspecified, "an unspecified address"),
        (address.is_multicast, "a multicast address"),
        (address.is_link_local, "a link-local address"),
        (address in _CGNAT, "a carrier-grade NAT address (100.64.0.0/10)"),
        (address.is_reserved, "a reserved address"),
        (address.is_private, "a private-network address"),
        (getattr(address, "is_site_local", False), "a site-local address"),
        (not address.is_global, "not a public internet address"),
    )
    for failed, what in checks:
        if failed:
            return f"{address} is {what}"
    return None


def _embedded_problem(address: ipaddress.IPv6Address, allow_loopback: bool) -> str | None:
    """The verdict on the IPv4 address an IPv6 address wraps, if it wraps one."""
    if address.scope_id:
        return f"{address} has a zone identifier"
    if address.ipv4_mapped is not None:
        inner = address_problem(address.ipv4_mapped, allow_loopback=allow_loopback)
        return None if inner is None else f"{address} is IPv4-mapped: {_which(inner)}"
    if address in _IPV4_COMPATIBLE and address.is_loopback:
        return None if allow_loopback else f"{address} is a loopback address (this machine)"
    if address in _IPV4_COMPATIBLE and not address.is_unspecified:
        return f"{address} is a deprecated IPv4-compatible address"
    if address in _NAT64_LOCAL:
        return f"{address} is a local-use NAT64 address"
    embedded: list[tuple[str, ipaddress.IPv4Address]] = []
    if address in _NAT64:
        embedded.append(("NAT64", ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)))
    if address.sixtofour is not None:
        embedded.append(("6to4", address.sixtofour))
    if address.teredo is not None:
        embedded.extend(("Teredo", part) for part in address.teredo)
    for kind, wrapped in embedded:
        problem = address_problem(wrapped, allow_loopback=False)
        if problem is not None:
            return f"{address} is {kind} for {_which(problem)}"
    return None


def _which(problem: str) -> str:
    """``"10.0.0.1 is private"`` as ``"10.0.0.1, which is private"`` (for nesting)."""
    return problem.replace(" is ", ", which is ", 1)


def name_problem(host: str, *, allow_loopback: bool) -> str | None:
    """Names refused (or pinned) without asking DNS: ``localhost`` and metadata services."""
    if host in _METADATA_NAMES:
        return f"{host} is a cloud metadata endpoint"
    if (host == "localhost" or host.endswith(".localhost")) and not allow_loopback:
        return f"{host} is this machine (loopback)"
    return None


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the OS resolves ``host`` to (blocking; run it in a thread)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


async def resolve_checked(
    target: Target, *, allow_loopback: bool = False, resolver: Resolver | None = None
) -> list[IPAddress]:
    """The addresses to connect to for ``target``, all checked; raise ``Refused`` otherwise.

    A literal is checked as is. ``localhost`` is pinned to loopback (never asked of DNS).
    Otherwise the name is resolved in a thread and refused if *any* answer is not public:
    a name with one private answer could be dialled to it by a different resolver order.
    """
    if target.literal is not None:
        _refuse_if(target, target.literal, allow_loopback)
        return [target.literal]
    problem = name_problem(target.host, allow_loopback=allow_loopback)
    if problem is not None:
        raise Refused(f"{target.url} refused: {problem}")
    if target.host == "localhost" or target.host.endswith(".localhost"):
        return [ipaddress.IPv4Address("127.0.0.1")]
    answers = await _lookup(target, resolver or system_resolver)
    addresses: list[IPAddress] = []
    for text in answers:
        try:
            address = ipaddress.ip_address(text)
        except ValueError:
            raise Refused(f"{target.url} refused: the resolver returned {text!r}") from None
        _refuse_if(target, address, allow_loopback)
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise Refused(f"{target.url}: {target.host} did not resolve to any address")
    return addresses


async def _lookup(target: Target, resolver: Resolver) -> list[str]:
    try:
        return await asyncio.to_thread(resolver, target.host, target.port)
    except socket.gaierror as exc:
        raise Refused(f"cannot resolve {target.host}: {exc.strerror or exc}") from None
    except OSError as exc:
        raise Refused(f"cannot resolve {target.host}: {exc}") from None


def _refuse_if(target: Target, address: IPAddress, allow_loopback: bool) -> None:
    problem = address_problem(address, allow_loopback=allow_loopback)
    if problem is not None:
        via = "" if target.literal is not None else f" ({target.host} resolves to it)"
        raise Refused(f"{target.url} refused: {problem}{via}")
