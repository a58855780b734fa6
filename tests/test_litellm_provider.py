"""The litellm kind: through the engine against the scripted server, quiet and offline.

litellm is slow to import (seconds), so all its tests live here and skip when it is not
installed. Importing it the default way fetches a price map from GitHub and logs to the
terminal; tuibot's ``import_litellm`` must prevent both, which is checked in a fresh
interpreter whose network is switched off.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from engine_helpers import Recorder, ask
from scripted_server import ScriptedServer, cut, error, text

from tuibot.engine import Engine
from tuibot.events import ReasoningDelta, TextDelta
from tuibot.llm.errors import ModelError
from tuibot.llm.parts import StreamPart, TextPart
from tuibot.settings import ProviderSettings, load_settings

KEY_VAR = "TUIBOT_TEST_CLOUD_KEY"
MESSAGES: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]


@pytest.fixture
def litellm(monkeypatch: pytest.MonkeyPatch) -> Any:
    """litellm imported the tuibot way (skips the test when litellm is not installed)."""
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # in case it is imported here
    pytest.importorskip("litellm")
    from tuibot.llm.litellm_client import import_litellm

    return import_litellm()


def cloud_engine(server: ScriptedServer, **extra: Any) -> Engine:
    """An engine whose chosen provider is a litellm one pointing at the scripted server."""
    values: dict[str, Any] = {
        "providers.cloud.kind": "litellm",
        "providers.cloud.base_url": server.url,
        "providers.cloud.api_key_env": KEY_VAR,
        "providers.cloud.max_retries": 0,
        "agent.provider": "cloud",
        "agent.model": "openai/test-model",
        **extra,
    }
    settings = load_settings(overrides={k: (v, "test") for k, v in values.items()})
    engine = Engine(settings)
    engine.load_tools()
    return engine


def litellm_client(server: ScriptedServer, key: str | None = "sk-test") -> Any:
    """A LiteLLMClient for the scripted server."""
    from tuibot.llm.litellm_client import LiteLLMClient

    provider = ProviderSettings(name="cloud", kind="litellm", base_url=server.url, max_retries=0)
    return LiteLLMClient(provider, key)


async def failure(client: Any) -> tuple[ModelError, list[StreamPart]]:
    """The ModelError a call ends in and the parts that came before it."""
    seen: list[StreamPart] = []
    with pytest.raises(ModelError) as caught:
        async for part in client.stream("openai/test-model", MESSAGES, [], {}):
            seen.append(part)
    return caught.value, seen


async def test_engine_streams_an_answer_through_litellm(
    litellm: Any, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_VAR, "sk-cloud-test-1234")
    engine = cloud_engine(server, **{"agent.params.temperature": 0.25})
    seen = Recorder(engine)
    server.enqueue(text("Streamed through litellm.", reasoning="thinking", usage=(11, 6)))
    chat = engine.new_chat().id

    outcome = await ask(engine, chat, "hi")

    assert outcome.status == "completed" and outcome.text == "Streamed through litellm."
    assert len(seen.of(TextDelta)) > 3, "the answer streams in pieces"
    assert "".join(d.delta for d in seen.of(ReasoningDelta)) == "thinking"
    assert (outcome.usage.prompt_tokens, outcome.usage.completion_tokens) == (11, 6)
    [request] = server.requests
    assert request.path == "/v1/chat/completions", "litellm used the provider's api_base"
    assert request.headers["authorization"] == "Bearer sk-cloud-test-1234"
    body = request.body
    assert body is not None
    assert body["model"] == "test-model", "litellm consumed its own routing prefix"
    assert body["stream"] is True and body["temperature"] == 0.25
    assert "tools" in body and body["messages"][0]["role"] == "system"
    await engine.close()


async def test_keyless_litellm_provider_with_a_base_url_works(
    litellm: Any, server: ScriptedServer
) -> None:
    """``credential = ""`` means no key is needed, as for a local LiteLLM-routed server.

    The openai kind sends a placeholder key for this; the litellm kind must too, or
    litellm's openai route refuses with "Missing credentials" before any request.
    """
    server.enqueue(text("no key needed"))
    client = litellm_client(server, key=None)
    parts = [p async for p in client.stream("openai/test-model", MESSAGES, [], {})]
    assert "".join(p.text for p in parts if isinstance(p, TextPart)) == "no key needed"


async def test_server_error_becomes_a_model_error_in_the_turn(
    litellm: Any, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_VAR, "sk-cloud-test-1234")
    engine = cloud_engine(server)
    server.enqueue(error(400, message="unsupported parameter: top_k"))
    chat = engine.new_chat().id

    outcome = await ask(engine, chat, "hi")

    assert outcome.status == "failed" and outcome.error_kind == "rejected"
    assert outcome.error is not None
    assert "rejected the request (400)" in outcome.error
    assert "unsupported parameter: top_k" in outcome.error
    assert "sk-cloud-test-1234" not in outcome.error
    await engine.close()


@pytest.mark.parametrize(
    ("status", "kind", "words"),
    [(401, "rejected", "rejected the credentials"), (500, "rejected", "internal error (500)")],
)
async def test_status_errors_map_to_model_errors(
    litellm: Any, server: ScriptedServer, status: int, kind: str, words: str
) -> None:
    server.enqueue(error(status))
    err, _ = await failure(litellm_client(server))
    assert (err.kind, err.status) == (kind, status)
    assert words in str(err) and server.url in str(err)


async def test_a_stream_cut_mid_answer_is_interrupted(litellm: Any, server: ScriptedServer) -> None:
    """A broken stream after text is an interruption, not a server error (500)."""
    server.enqueue(cut("abcdefghijklmnop", after=2))
    err, seen = await failure(litellm_client(server))
    assert "".join(p.text for p in seen if isinstance(p, TextPart)) == "abcdefgh"
    assert err.kind == "interrupted", str(err)


async def test_a_failing_call_prints_nothing(
    litellm: Any, server: ScriptedServer, capfd: pytest.CaptureFixture[str]
) -> None:
    server.enqueue(error(401), error(500))
    for _ in range(2):
        await failure(litellm_client(server))
    out, err = capfd.readouterr()
    for stream in (out, err):
        assert "LiteLLM" not in stream and "litellm" not in stream
        assert "Give Feedback" not in stream


def test_litellm_cost_comes_from_the_bundled_map(litellm: Any) -> None:
    from tuibot.llm.litellm_client import litellm_cost_micros
    from tuibot.llm.pricing import cost_micros

    known = litellm_cost_micros("gpt-4o-mini", 1_000_000, 1_000_000)
    assert known > 0 and isinstance(known, int)
    assert litellm_cost_micros("no-such-model-xyz", 1000, 1000) == 0
    provider = ProviderSettings(name="cloud", kind="litellm")
    assert cost_micros(provider, "gpt-4o-mini", 1_000_000, 1_000_000) == known
    local = ProviderSettings(name="local", kind="openai")
    assert cost_micros(local, "gpt-4o-mini", 1_000_000, 1_000_000) == 0


# --- a fresh interpreter, network off ------------------------------------------------

FRESH = r"""
import asyncio, json, os, socket, sys

attempts = []
LOCAL = ("127.0.0.1", "localhost", "::1")
real_getaddrinfo, real_connect = socket.getaddrinfo, socket.socket.connect

def getaddrinfo(host, *args, **kwargs):
    if host not in LOCAL:
        attempts.append(str(host))
        raise socket.gaierror("network disabled by the test")
    return real_getaddrinfo(host, *args, **kwargs)

def connect(self, address):
    if isinstance(address, tuple) and address[0] not in LOCAL:
        attempts.append(str(address[0]))
        raise OSError("network disabled by the test")
    return real_connect(self, address)

socket.getaddrinfo, socket.socket.connect = getaddrinfo, connect

from tuibot.system.logs import configure_logging
from tuibot.system.paths import DataPaths
configure_logging(DataPaths.default())
from tuibot.llm.litellm_client import LiteLLMClient, import_litellm
from tuibot.settings import ProviderSettings

litellm = import_litellm()
report = {
    "env": os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP"),
    "models_priced": len(litellm.model_cost),
    "knows_gpt_4o_mini": "gpt-4o-mini" in litellm.model_cost,
}
provider = ProviderSettings(name="cloud", kind="litellm", base_url=sys.argv[1], max_retries=0)
client = LiteLLMClient(provider, "sk-test")

async def call():
    messages = [{"role": "user", "content": "hi"}]
    try:
        async for _ in client.stream("openai/test-model", messages, [], {}):
            pass
    except Exception as error:
        return [type(error).__name__, getattr(error, "kind", None)]

report["errors"] = [asyncio.run(call()) for _ in range(2)]
report["attempts"] = attempts
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def fresh_import(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Import litellm through tuibot in a new process and make two failing calls."""
    pytest.importorskip("litellm")
    folder = tmp_path_factory.mktemp("fresh")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM")}
    env.update(TUIBOT_HOME=str(folder / "home"), TUIBOT_DATA=str(folder / "data"))
    with ScriptedServer() as scripted:
        scripted.enqueue(error(401, message="bad key"), error(500))
        result = subprocess.run(
            [sys.executable, "-c", FRESH, scripted.url],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=folder,
        )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    yield {"report": json.loads(lines[-1]), "stdout": lines[:-1], "stderr": result.stderr}


def test_import_uses_the_bundled_price_map_without_network(fresh_import: dict[str, Any]) -> None:
    report = fresh_import["report"]
    assert report["env"] == "True"
    assert report["models_priced"] > 100 and report["knows_gpt_4o_mini"]
    assert report["attempts"] == [], "no connection to anything but loopback"


def test_failing_calls_leave_the_terminal_clean(fresh_import: dict[str, Any]) -> None:
    assert fresh_import["report"]["errors"] == [["ModelError", "rejected"]] * 2
    assert fresh_import["stderr"] == ""
    assert fresh_import["stdout"] == [], "litellm printed to stdout"
