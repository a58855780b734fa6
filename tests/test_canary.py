"""A canary API key goes to the model server and nowhere else.

A unique key (``sk-canary-<uuid>``) is handed to a provider defined in ``tuibot.toml``,
through its environment variable or through the real OS keyring. A series of real
``tuibot`` processes then answers, calls a tool, fails in several ways (one server error
echoes the key back, as OpenAI's "Incorrect API key provided: sk-…" does), continues a
chat and runs ``config show``, ``doctor`` and ``chats``. Afterwards every file under the
config home, the data home and the workspace, and everything the processes printed, is
searched for the key. The server must have received it, so the test cannot pass by the
key never being used.

The keyring run happens in a private D-Bus session with its own unlocked gnome-keyring
(as ``.ci/run`` does): the engine reads the fixed keyring service ``tuibot``, and this
way the test never touches a developer's real keyring, wherever it runs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from ask_helpers import child_env
from scripted_server import ScriptedServer, cut, error, text, tool_calls
from trust_helpers import trust_file

DRIVER = r'''
"""Run the canary scenario's commands in order and print what each one did, as JSON."""
import json, os, re, subprocess, sys

spec = json.load(open(sys.argv[1], encoding="utf-8"))
secret = os.environ.pop("CANARY_STDIN", "")
results, first_chat = [], ""
for step in spec:
    argv = [a.replace("{first_chat}", first_chat) for a in step["argv"]]
    feed = secret if step.get("stdin_secret") else ""
    done = subprocess.run([sys.executable, "-m", "tuibot", *argv], input=feed,
                          capture_output=True, text=True, timeout=120)
    found = re.search(r"tuibot: chat (c_\S+)", done.stderr)
    if found and not first_chat:
        first_chat = found.group(1)
    results.append({"argv": argv, "code": done.returncode,
                    "stdout": done.stdout, "stderr": done.stderr})
print(json.dumps(results))
'''


def tuibot_toml(server: ScriptedServer) -> str:
    """A project config whose only provider needs the canary key."""
    return (
        "[agent]\n"
        'model = "test-model"\n'
        "\n"
        "[providers.canaryprov]\n"
        'kind = "openai"\n'
        f'base_url = "{server.url}"\n'
        'credential = "canaryprov"\n'
        'api_key_env = "CANARY_KEY"\n'
        "max_retries = 0\n"
    )


def scenario(server: ScriptedServer, key: str, *, keyring: bool) -> list[dict[str, Any]]:
    """Queue the replies and list the commands; ``{first_chat}`` is the first chat's id."""
    echo = f"Incorrect API key provided: {key}. You can find your API key in your account."
    server.enqueue(
        text("Hello!"),
        tool_calls([("list_dir", '{"path": "."}')]),
        text("Here is the listing."),
        error(401, message=echo),
        error(401, message=echo),
        cut("An answer that breaks off", after=2),
        error(500, message=f"upstream failed for key {key}"),
        text("Continued."),
    )
    steps: list[dict[str, Any]] = []
    if keyring:
        steps.append({"argv": ["keys", "set", "canaryprov"], "stdin_secret": True})
    steps += [
        {"argv": ["ask", "hello"]},
        {"argv": ["ask", "what is in this folder?"]},
        {"argv": ["ask", "rejected"]},
        {"argv": ["ask", "--json", "rejected again"]},
        {"argv": ["ask", "this will break"]},
        {"argv": ["ask", "server error"]},
        {"argv": ["ask", "--chat", "{first_chat}", "go on"]},
        {"argv": ["config", "show"]},
        {"argv": ["doctor"]},
        {"argv": ["chats", "list"]},
        {"argv": ["chats", "show", "{first_chat}"]},
    ]
    if keyring:
        steps.append({"argv": ["keys", "list"]})
    return steps


def run_scenario(
    tmp_path: Path, steps: list[dict[str, Any]], env: dict[str, str], wrap: list[str]
) -> tuple[list[dict[str, Any]], str]:
    """Run the steps through the driver; (each step's result, the driver's own stderr)."""
    folder = tmp_path / "driver"
    folder.mkdir()
    (folder / "drive.py").write_text(DRIVER, encoding="utf-8")
    (folder / "spec.json").write_text(json.dumps(steps), encoding="utf-8")
    argv = [*wrap, sys.executable, str(folder / "drive.py"), str(folder / "spec.json")]
    done = subprocess.run(
        argv, capture_output=True, text=True, env=env, cwd=Path.cwd(), timeout=600
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stdout + done.stderr


def private_keyring(tmp_path: Path) -> list[str]:
    """The command prefix that runs inside a fresh D-Bus session with an unlocked keyring."""
    missing = [n for n in ("dbus-run-session", "gnome-keyring-daemon") if not shutil.which(n)]
    if missing:
        message = (
            f"a private keyring needs {' and '.join(missing)} (apt install dbus gnome-keyring)"
        )
        if os.environ.get("TUIBOT_REQUIRE_KEYRING") == "1":
            pytest.fail(message)
        pytest.skip(message)
    store = tmp_path / "keyring"  # the daemon's encrypted files: not swept, they hold the key
    store.mkdir()
    start = (
        f"printf %s canary-test | XDG_DATA_HOME={str(store)!r} "
        'gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"'
    )
    return ["dbus-run-session", "--", "bash", "-c", start, "bash"]


def sweep(tmp_path: Path, needles: list[str]) -> list[str]:
    """Files under the homes, the workspace and the driver folder containing a needle."""
    found = []
    for top in ("home", "data", "work", "driver"):
        for path in sorted((tmp_path / top).rglob("*")):
            if path.is_file():
                content = path.read_bytes()
                if any(n.encode() in content for n in needles):
                    found.append(str(path.relative_to(tmp_path)))
    return found


@pytest.mark.parametrize("source", ["env", "keyring"])
def test_the_key_reaches_the_server_and_nothing_else(
    server: ScriptedServer, tmp_path: Path, source: str
) -> None:
    secret = uuid.uuid4().hex
    key = f"sk-canary-{secret}"
    Path("tuibot.toml").write_text(tuibot_toml(server), encoding="utf-8")
    trust_file()
    steps = scenario(server, key, keyring=source == "keyring")
    env = child_env()
    env.pop("CANARY_KEY", None)
    if source == "env":
        env["CANARY_KEY"] = key
        wrap: list[str] = []
    else:
        env["CANARY_STDIN"] = key
        wrap = private_keyring(tmp_path)

    results, driver_output = run_scenario(tmp_path, steps, env, wrap)

    codes = [(" ".join(r["argv"][:2]), r["code"]) for r in results]
    asks = [code for name, code in codes if name.startswith("ask")]
    assert asks == [0, 0, 3, 3, 1, 3, 0], results
    if source == "keyring":
        assert results[0]["code"] == 0, results[0]
    # The key was used: every chat request and the doctor's model listing carried it.
    chat_requests = [r for r in server.requests if r.path.endswith("/chat/completions")]
    assert len(chat_requests) == 8
    listing = [r for r in server.requests if r.path.endswith("/models")]
    assert listing, "doctor did not reach the server"
    for request in chat_requests + listing:
        assert request.headers.get("authorization") == f"Bearer {key}"
    # ... and it is nowhere else: not in a file, not in anything printed.
    data = tmp_path / "data"
    # Six asks start chats; the three that failed before any answer keep none (issue 17).
    assert len(list((data / "chats").glob("*.jsonl"))) == 3 and (data / "traces.jsonl").is_file()
    log = (data / "logs" / "tuibot.log").read_text(encoding="utf-8")
    assert "Incorrect API key provided: ****" + key[-4:] in log  # the echo was logged, masked
    assert sweep(tmp_path, [secret]) == []
    printed = driver_output + "".join(r["stdout"] + r["stderr"] for r in results)
    assert secret not in printed
    assert "****" + key[-4:] in printed  # the echoed key was masked, not dropped silently
