"""Start-up stays lean: the openai client is imported without aiohttp, and nothing breaks."""

from __future__ import annotations

import subprocess
import sys

import pytest


def run_python(code: str) -> str:
    """Run code in a fresh interpreter and return what it printed."""
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    return result.stdout.strip()


def test_openai_client_import_skips_aiohttp_but_leaves_it_importable() -> None:
    pytest.importorskip("aiohttp")
    printed = run_python(
        "import sys\n"
        "from tuibot.llm.openai_client import import_openai\n"
        "openai = import_openai()\n"
        "print('aiohttp' in sys.modules, hasattr(openai, 'AsyncOpenAI'))\n"
        "import aiohttp\n"
        "print(aiohttp.__name__)\n"
    )
    assert printed.splitlines() == ["False True", "aiohttp"]
