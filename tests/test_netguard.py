"""The SSRF guard, attacked: every encoding of a forbidden address must be refused.

No traffic leaves the process: literals are judged without DNS, and names are resolved
by a fake resolver (or a monkeypatched ``socket.getaddrinfo``) that returns what an
attacker's DNS server would.
"""

from __future__ import annotations

import ipaddress
import socket

import pytest

from tuibot.toolkit.netguard import (
    Refused,
    address_problem,
    parse_ipv4_loose,
    parse_url,
    resolve_checked,
)


@pytest.fixture(autouse=True)
def no_real_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any real lookup fails the test: the guard must not need DNS for literals."""

    def boom(*args: object, **kwargs: object) -> object:
        raise AssertionError(f"real DNS lookup attempted: {args}")

    monkeypatch.setattr(socket, "getaddrinfo", boom)


def public(host: str, port: int) -> list[str]:
    return ["93.184.216.34"]


async def check(url: str, *, allow_loopback: bool = False, resolver=public) -> list[str]:
    target = parse_url(url)
    found = await resolve_checked(target, allow_loopback=allow_loopback, resolver=resolver)
    return [str(a) for a in found]


LOOPBACK_FORMS = [
    "http://127.0.0.1/",
    "http://127.0.0.1./",
    "http://127.8.9.10/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0X7F000001/",
    "http://0177.0.0.1/",
    "http://0177.0000.0000.0001/",
    "http://0x7f.0x0.0x0.0x1/",
    "http://0x7f.1/",
    "http://127.1/",
    "http://127.0.1/",
    "http://017700000001/",
    "http://[::1]/",
    "http://[0:0:0:0:0:0:0:1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[0:0:0:0:0:ffff:127.0.0.1]/",
    "http://localhost/",
    "http://LOCALHOST./",
    "http://api.localhost/",
    "http://evil.com@127.0.0.1/",
    "http://１２７.０.０.１/",
    "http://127。0。0。1/",
    "https://127.0.0.1:8443/admin",
]


@pytest.mark.parametrize("url", LOOPBACK_FORMS)
async def test_loopback_in_any_encoding_is_refused(url: str) -> None:
    with pytest.raises(Refused) as info:
        await check(url)
    message = str(info.value)
    assert "loopback" in message or "credentials" in message


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://10.0.0.1/", "private"),
        ("http://192.168.1.1/", "private"),
        ("http://172.16.5.4/", "private"),
        ("http://0xa000001/", "private"),
        ("http://012.0.0.1/", "private"),
        ("http://3232235777/", "private"),
        ("http://169.254.169.254/latest/meta-data/", "metadata"),
        ("http://0xa9fea9fe/", "metadata"),
        ("http://[::ffff:169.254.169.254]/", "metadata"),
        ("http://[fd00:ec2::254]/", "metadata"),
        ("http://metadata.google.internal/computeMetadata/v1/", "metadata"),
        ("http://metadata.google.internal./", "metadata"),
        ("http://169.254.1.1/", "link-local"),
        ("http://[fe80::1]/", "link-local"),
        ("http://100.64.0.1/", "carrier-grade NAT"),
        ("http://100.127.255.254/", "carrier-grade NAT"),
        ("http://224.0.0.1/", "multicast"),
        ("http://239.255.255.250/", "multicast"),
        ("http://[ff02::1]/", "multicast"),
        ("http://240.0.0.1/", "reserved"),
        ("http://255.255.255.255/", "reserved"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://0/", "unspecified"),
        ("http://[::]/", "unspecified"),
        ("http://[fc00::1]/", "private"),
        ("http://[fd12:3456::1]/", "private"),
        ("http://[::ffff:10.0.0.1]/", "IPv4-mapped"),
        ("http://[::ffff:a00:1]/", "IPv4-mapped"),
        ("http://[::10.0.0.1]/", "IPv4-compatible"),
        ("http://[::127.0.0.1]/", "IPv4-compatible"),
        ("http://[64:ff9b::10.0.0.1]/", "NAT64"),
        ("http://[64:ff9b::7f00:1]/", "NAT64"),
        ("http://[64:ff9b:1::1]/", "NAT64"),
        ("http://[2002:7f00:1::1]/", "6to4"),
        ("http://[2002:c0a8:101::]/", "6to4"),
        ("http://[2002:a9fe:a9fe::1]/", "6to4"),
        ("http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "Teredo"),
        ("http://192.0.2.1/", "private"),
        ("http://198.18.0.1/", "private"),
    ],
)
async def test_non_global_addresses_are_refused_with_the_reason(url: str, reason: str) -> None:
    with pytest.raises(Refused) as info:
        await check(url)
    assert reason in str(info.value)


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/",
        "file:///etc/passwd",
        "gopher://example.com/",
        "javascript:alert(1)",
        "example.com",
        "//example.com/",
        "http:///path",
        "http://",
        "",
        "http://exa mple.com/",
        "http://example.com\\@127.0.0.1/",
        "http://example.com\t/",
        "http://exam\nple.com/",
        "http://user:pass@example.com/",
        "http://@example.com/",
        "http://example.com:0/",
        "http://example.com:65536/",
        "http://example.com:80x/",
        "http://example.com:-1/",
        "http://[::1/",
        "http://[::1]x/",
        "http://[fe80::1%25eth0]/",
        "http://[not-ipv6]/",
        "http://::1/",
        "http://%31%32%37.0.0.1/",
        "http://1.2.3.4.5/",
        "http://256.0.0.1/",
        "http://1.2.3.0x/",
        "http://08.0.0.1/",
        "http://4294967296/",
        "http://example..com/",
        "http://example.com../",
        "http://exa_mple!.com/",
    ],
)
def test_malformed_or_tricky_urls_are_refused_before_any_lookup(url: str) -> None:
    with pytest.raises(Refused):
        parse_url(url)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("127.0.1", "127.0.0.1"),
        ("127.65535", "127.0.255.255"),
        ("1.2.65535", "1.2.255.255"),
        ("0", "0.0.0.0"),
        ("8.8.8.8", "8.8.8.8"),
    ],
)
def test_ipv4_is_decoded_the_way_inet_aton_decodes_it(text: str, expected: str) -> None:
    assert str(parse_ipv4_loose(text)) == expected
    assert str(parse_ipv4_loose(text)) == socket.inet_ntoa(socket.inet_aton(text))


@pytest.mark.parametrize("text", ["1.2.3.4.5", "256.1.1.1", "1.256.1.1", "127.16777216", "09"])
def test_invalid_ipv4_numbers_are_not_addresses(text: str) -> None:
    assert parse_ipv4_loose(text) is None


async def test_public_literals_and_names_pass() -> None:
    assert await check("http://8.8.8.8/x?q=1#frag") == ["8.8.8.8"]
    assert await check("http://134744072/") == ["8.8.8.8"]
    assert await check("https://[2606:4700:4700::1111]/") == ["2606:4700:4700::1111"]
    assert await check("https://[::ffff:8.8.8.8]/") == ["::ffff:808:808"]
    assert await check("https://Example.COM./docs") == ["93.184.216.34"]
    target = parse_url("https://Example.COM./docs?a=b#frag")
    assert (target.host, target.port, target.path) == ("example.com", 443, "/docs?a=b")
    assert target.host_header == "example.com"
    assert parse_url("http://example.com:8080").host_header == "example.com:8080"


@pytest.mark.parametrize(
    "answers",
    [
        ["127.0.0.1"],
        ["10.1.2.3"],
        ["93.184.216.34", "192.168.0.10"],
        ["169.254.169.254"],
        ["::1"],
        ["93.184.216.34", "::ffff:127.0.0.1"],
        ["fd00:ec2::254"],
        ["fe80::1%eth0"],
        ["100.64.3.4"],
    ],
)
async def test_a_name_is_refused_when_any_answer_is_not_public(answers: list[str]) -> None:
    with pytest.raises(Refused) as info:
        await check("https://rebind.attacker.example/", resolver=lambda h, p: answers)
    assert "rebind.attacker.example resolves to it" in str(info.value)


async def test_the_system_resolver_is_used_and_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[object, ...]] = []

    def fake_getaddrinfo(host: str, port: int, *args: object, **kwargs: object) -> list:
        calls.append((host, port))
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.7", port)),
        ]

    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    with pytest.raises(Refused) as info:
        await check("http://intranet.example:8080/", resolver=None)
    assert "10.0.0.7 is a private-network address" in str(info.value)
    assert calls == [("intranet.example", 8080)]


async def test_lookup_failures_are_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> list:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", fail)
    with pytest.raises(Refused, match=r"cannot resolve nowhere\.example"):
        await check("http://nowhere.example/", resolver=None)
    with pytest.raises(Refused, match="did not resolve"):
        await check("http://empty.example/", resolver=lambda h, p: [])
    with pytest.raises(Refused, match="resolver returned"):
        await check("http://junk.example/", resolver=lambda h, p: ["not-an-ip"])


async def test_allow_loopback_opens_loopback_only() -> None:
    assert await check("http://127.0.0.1:8000/", allow_loopback=True) == ["127.0.0.1"]
    assert await check("http://127.1/", allow_loopback=True) == ["127.0.0.1"]
    assert await check("http://[::1]/", allow_loopback=True) == ["::1"]
    assert await check("http://[::ffff:127.0.0.1]/", allow_loopback=True) == ["::ffff:7f00:1"]
    # localhost is pinned to 127.0.0.1 without asking DNS (the fixture would fail a lookup).
    assert await check("http://localhost:3000/", allow_loopback=True) == ["127.0.0.1"]
    loopback_answer = lambda h, p: ["127.0.0.1"]  # noqa: E731
    assert await check("http://dev.test/", allow_loopback=True, resolver=loopback_answer) == [
        "127.0.0.1"
    ]
    for still_refused in (
        "http://10.0.0.1/",
        "http://169.254.169.254/",
        "http://0.0.0.0/",
        "http://[64:ff9b::7f00:1]/",
        "http://[2002:7f00:1::]/",
        "http://metadata.google.internal/",
    ):
        with pytest.raises(Refused):
            await check(still_refused, allow_loopback=True)


def test_address_problem_is_none_only_for_public_addresses() -> None:
    assert address_problem(ipaddress.ip_address("1.1.1.1")) is None
    assert address_problem(ipaddress.ip_address("2a00:1450::1")) is None
    assert address_problem(ipaddress.ip_address("127.0.0.1"), allow_loopback=True) is None
    assert "loopback" in (address_problem(ipaddress.ip_address("127.0.0.1")) or "")
