"""The engine is headless and cheap to import, checked in fresh interpreters.

``tuibot ask`` start-up time is measured, and the engine must run without a terminal,
so importing the core must not pull in Textual, litellm or (for the bare package) the
openai SDK. A module already imported by the test process would hide a regression, so
every check runs in a new interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("textual", "litellm", "openai", "keyring")


def imported_after(code: str) -> dict[str, bool]:
    """Which heavy modules are in ``sys.modules`` after running ``code`` in a new process."""
    probe = (
        f"import json, sys\n{code}\n"
        f"print(json.dumps({{name: name in sys.modules for name in {HEAVY!r}}}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", "importing must print nothing"
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_engine_and_ask_import_neither_textual_nor_litellm() -> None:
    loaded = imported_after("import tuibot.engine, tuibot.frontends.ask")
    assert loaded["textual"] is False
    assert loaded["litellm"] is False


def test_engine_import_defers_the_openai_sdk_and_the_keyring() -> None:
    loaded = imported_after("import tuibot.engine, tuibot.frontends.ask")
    assert loaded["openai"] is False, "openai is imported when the first client is made"
    assert loaded["keyring"] is False, "the keyring is opened only for a provider with a key"


def test_the_bare_package_imports_nothing_heavy() -> None:
    loaded = imported_after("import tuibot")
    assert not any(loaded.values()), loaded


def test_an_openai_provider_client_never_imports_litellm() -> None:
    loaded = imported_after(
        "from tuibot.llm.select import make_client\n"
        "from tuibot.settings import ProviderSettings\n"
        "make_client(ProviderSettings(name='local', base_url='http://127.0.0.1:9/v1'), None)"
    )
    assert loaded["openai"] is True
    assert loaded["litellm"] is False
    assert loaded["textual"] is False


def test_a_whole_engine_builds_without_textual() -> None:
    loaded = imported_after(
        "import os, tempfile\n"
        "d = tempfile.mkdtemp()\n"
        "os.environ['TUIBOT_HOME'], os.environ['TUIBOT_DATA'] = d + '/h', d + '/d'\n"
        "os.chdir(d)\n"
        "from tuibot.engine import Engine\n"
        "from tuibot.settings import load_settings\n"
        "engine = Engine(load_settings())\n"
        "engine.load_tools()\n"
        "engine.new_chat()"
    )
    assert loaded["textual"] is False
    assert loaded["litellm"] is False
