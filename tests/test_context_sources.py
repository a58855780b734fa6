"""Where a model's window comes from: config, the server's own report, litellm, an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripted_server import ScriptedServer

from tuibot.llm.window_probe import probe_server
from tuibot.llm.windows import WindowBook, is_overflow, overflow_window
from tuibot.settings import ConfigError, ProviderSettings, load_settings


def provider(url: str, **fields: object) -> ProviderSettings:
    return ProviderSettings(name="local", base_url=url, **fields)  # type: ignore[arg-type]


SHOW = {
    "model_info": {"general.architecture": "llama", "llama.context_length": 131072},
    "parameters": 'num_ctx                        8192\nstop "<|eot_id|>"',
}


async def test_ollama_counts_the_loaded_context_not_the_trained_length(
    server: ScriptedServer,
) -> None:
    server.routes["/api/show"] = SHOW
    server.routes["/api/ps"] = {"models": [{"name": "test-model:latest", "context_length": 16384}]}
    assert await probe_server(server.url, "test-model") == 16384


async def test_ollama_without_a_loaded_model_uses_num_ctx_then_its_default(
    server: ScriptedServer,
) -> None:
    server.routes["/api/show"] = SHOW
    assert await probe_server(server.url, "test-model") == 8192
    server.routes["/api/show"] = {"model_info": SHOW["model_info"], "parameters": ""}
    assert await probe_server(server.url, "test-model") == 4096  # what its /v1 really uses


@pytest.mark.parametrize(
    ("path", "payload", "window"),
    [
        ("/props", {"default_generation_settings": {"n_ctx": 2048}}, 2048),
        ("/v1/models", {"data": [{"id": "test-model", "max_model_len": 32768}]}, 32768),
        (
            "/api/v0/models",
            {
                "data": [
                    {"id": "test-model", "loaded_context_length": 4096, "max_context_length": 32768}
                ]
            },
            4096,
        ),
    ],
)
async def test_each_server_kind_reports_its_window(
    server: ScriptedServer, path: str, payload: dict, window: int
) -> None:
    server.routes[path] = payload
    assert await probe_server(server.url, "test-model") == window


async def test_a_server_that_reports_nothing_gives_the_default_said_once(
    server: ScriptedServer, tmp_path: Path
) -> None:
    book = WindowBook(tmp_path / "windows.json", 8192)
    window = await book.discover(provider(server.url), "test-model")
    assert (window.tokens, window.known) == (8192, False)
    assert book.first_default(provider(server.url), "test-model")
    assert not book.first_default(provider(server.url), "test-model")
    asked = len(server.requests)
    await book.discover(provider(server.url), "test-model")
    assert len(server.requests) == asked  # probed once per process


async def test_a_probed_window_is_cached_on_disk_for_the_next_run(
    server: ScriptedServer, tmp_path: Path
) -> None:
    server.routes["/props"] = {"n_ctx": 2048}
    first = WindowBook(tmp_path / "windows.json", 8192)
    assert (await first.discover(provider(server.url), "test-model")).tokens == 2048
    asked = len(server.requests)
    second = WindowBook(tmp_path / "windows.json", 8192)
    window = await second.discover(provider(server.url), "test-model")
    assert (window.tokens, window.source, len(server.requests)) == (2048, "server", asked)


def test_a_stale_or_broken_cache_is_ignored(tmp_path: Path) -> None:
    cache = tmp_path / "windows.json"
    cache.write_text(
        json.dumps(
            {
                "http://x/v1|old": {"tokens": 2048, "source": "server", "at": 0},
                "http://x/v1|bad": {"tokens": "many", "source": "server", "at": 1e12},
                "http://x/v1|err": {"tokens": 3000, "source": "error", "at": 0},
            }
        )
    )
    book = WindowBook(cache, 8192)
    assert book.lookup(provider("http://x/v1"), "old").source == "default"
    assert book.lookup(provider("http://x/v1"), "bad").source == "default"
    assert book.lookup(provider("http://x/v1"), "err").tokens == 3000
    cache.write_text("{not json")
    assert WindowBook(cache, 8192).lookup(provider("http://x/v1"), "old").source == "default"


def test_the_config_wins_per_model_then_per_provider(tmp_path: Path) -> None:
    book = WindowBook(tmp_path / "windows.json", 8192)
    served = provider("http://x/v1", context_window=16384, context_windows={"qwen2.5": 32768})
    assert book.lookup(served, "qwen2.5:7b").tokens == 32768
    assert book.lookup(served, "llama3.2").tokens == 16384
    assert book.learn(served, "llama3.2", 2048, "error").tokens == 16384


def test_a_bad_window_in_the_config_names_the_key() -> None:
    values = {"providers.local.context_windows": ({"m": "big"}, "test")}
    with pytest.raises(ConfigError, match=r"context_windows.m = .big.: expected an integer >= 256"):
        load_settings(None, overrides=values, env={})
    with pytest.raises(ConfigError, match="context_window"):
        load_settings(None, overrides={"providers.local.context_window": (100, "t")}, env={})


@pytest.mark.parametrize(
    ("text", "window"),
    [
        ("This model's maximum context length is 2048 tokens. However, you requested 3031", 2048),
        ("the request exceeds the available context size, try increasing it", None),
        ('{"n_ctx": 4096, "n_prompt_tokens": 5000}', 4096),
    ],
)
def test_overflow_errors_are_recognised_and_their_window_read(
    text: str, window: int | None
) -> None:
    assert is_overflow(text) or "n_ctx" in text
    assert overflow_window(text) == window


def test_a_rate_limit_is_not_an_overflow() -> None:
    assert not is_overflow("The model server is rate limiting requests; try again later")


def test_litellm_knows_cloud_windows(tmp_path: Path) -> None:
    from tuibot.llm.windows import litellm_window

    assert (litellm_window("gpt-4o") or 0) >= 100_000
    assert litellm_window("no-such-model-xyz") is None


def test_doctor_reports_the_window_and_caches_it(server: ScriptedServer, hermetic: Path) -> None:
    import os
    import subprocess
    import sys

    server.routes["/props"] = {"default_generation_settings": {"n_ctx": 2048}}
    env = {**os.environ, "TUIBOT_PROVIDERS__LOCAL__CONTEXT_WINDOW": "0"}
    argv = [sys.executable, "-m", "tuibot", "doctor", "--base-url", server.url]
    argv += ["--model", "test-model"]
    ran = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "context window         test-model: 2048 tokens (from server)" in ran.stdout
    cache = json.loads((hermetic / "data" / "windows.json").read_text())
    assert cache[f"{server.url}|test-model"]["tokens"] == 2048
