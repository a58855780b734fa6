"""TLS for the OpenAI-compatible client: loaded only for https, and never loosened.

A local server on ``http://`` needs no certificates, so the client must not read the CA
bundle for it (that is ~20 ms of every ``ask``). Whatever reaches ``https://`` — a cloud
base URL, or a local server's redirect — is verified as before: an untrusted certificate
fails before any request is sent, and a trusted one (``SSL_CERT_FILE``) works.
"""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from scripted_server import ScriptedServer, text

from tuibot.llm.errors import ModelError
from tuibot.llm.openai_client import OpenAIClient
from tuibot.settings import ProviderSettings

MODELS = {"object": "list", "data": [{"id": "m", "object": "model", "created": 0, "owned_by": "x"}]}


def client_for(url: str) -> OpenAIClient:
    return OpenAIClient(ProviderSettings(name="local", base_url=url, max_retries=0), None)


class Served:
    """A loopback HTTP(S) server that answers the model list or redirects, and logs paths."""

    def __init__(self, context: ssl.SSLContext | None, redirect: str = "") -> None:
        self.paths: list[str] = []
        paths, location = self.paths, redirect

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                paths.append(self.path)
                if location:
                    self.send_response(307)
                    self.send_header("Location", location + self.path)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = json.dumps(MODELS).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if context is not None:
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        scheme = "https" if context is not None else "http"
        self.url = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, made by the openssl command."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture
def tls_server(certificate: tuple[Path, Path]) -> Iterator[Served]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    served = Served(context)
    yield served
    served.close()


async def test_an_http_server_needs_no_ca_bundle(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Reading the bundle for http would fail here: the file it names does not exist."""
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    server.enqueue(text("hello"))
    client = client_for(server.url)
    try:
        parts = [part async for part in client.stream("test-model", [], [], {})]
    finally:
        await client.close()
    assert "".join(getattr(part, "text", "") for part in parts) == "hello"


async def test_an_untrusted_https_server_gets_no_request(tls_server: Served) -> None:
    client = client_for(tls_server.url + "/v1")
    try:
        with pytest.raises(ModelError):
            await client.list_models()
    finally:
        await client.close()
    assert tls_server.paths == []


async def test_a_redirect_to_untrusted_https_gets_no_request(tls_server: Served) -> None:
    redirector = Served(None, redirect=tls_server.url)
    client = client_for(redirector.url + "/v1")
    try:
        with pytest.raises(ModelError):
            await client.list_models()
    finally:
        await client.close()
        redirector.close()
    assert redirector.paths == ["/v1/models"]
    assert tls_server.paths == []


async def test_a_trusted_https_server_works_also_after_http(
    tls_server: Served, certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
    redirector = Served(None, redirect=tls_server.url)
    client = client_for(redirector.url + "/v1")
    try:
        assert await client.list_models() == ["m"]
    finally:
        await client.close()
        redirector.close()
    assert tls_server.paths == ["/v1/models"]
