"""``tuibot keys``: in-process against the real keyring, and subprocesses for the failures.

Every test also checks that the secret never reaches stdout or stderr.
"""

from __future__ import annotations

import argparse
import io
import os
import select
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tuibot.commands import keys
from tuibot.system.secrets import SecretStore, mask

REPO = Path(__file__).resolve().parents[1]

RUN_KEYS = (
    "import argparse, sys\n"
    "from tuibot.commands import keys\n"
    "parser = argparse.ArgumentParser(prog='tuibot')\n"
    "keys.add_parser(parser.add_subparsers())\n"
    "sys.exit(keys.run(parser.parse_args(sys.argv[1:])))\n"
)
"""A stand-in for ``tuibot`` that runs only the keys command, for subprocess tests."""


def canary() -> str:
    return f"sk-canary-{uuid.uuid4().hex}"


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tuibot")
    keys.add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["keys", *argv])


def run_keys(store: SecretStore, *argv: str) -> int:
    return keys.run(parse("--service", store.service, *argv))


def child_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, TUIBOT_HOME=str(tmp_path / "home"), TUIBOT_DATA=str(tmp_path / "data"))
    env.update(extra)
    return env


# --- the real keyring -----------------------------------------------------------------


def test_set_reads_stdin_and_never_prints_the_value(
    secret_store: SecretStore, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    value = canary()
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(value + "\r\n"))
    assert run_keys(secret_store, "set", "openai") == 0
    out, err = capsys.readouterr()
    assert secret_store.get("openai") == value
    assert value not in out + err
    assert out == f"stored openai ({mask(value)}) in SecretService Keyring\n"
    assert err == ""


def test_set_warns_when_the_env_var_takes_precedence(
    secret_store: SecretStore, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    monkeypatch.setattr(sys, "stdin", io.StringIO(canary()))
    assert run_keys(secret_store, "set", "openai") == 0
    assert "OPENAI_API_KEY is set and takes precedence" in capsys.readouterr().err


@pytest.mark.parametrize("given", ["", "\n", "  \n\n"])
def test_set_with_no_value_is_a_usage_error(
    given: str,
    secret_store: SecretStore,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(given))
    assert run_keys(secret_store, "set", "openai") == 2
    assert capsys.readouterr().err == "tuibot: no value given for 'openai'; nothing stored\n"
    assert secret_store.names() == []


def test_set_with_a_bad_name_is_a_usage_error(
    secret_store: SecretStore, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin = io.StringIO(canary())
    monkeypatch.setattr(sys, "stdin", stdin)
    assert run_keys(secret_store, "set", "my key") == 2
    assert capsys.readouterr().err.startswith("tuibot: invalid key name 'my key'")
    assert stdin.tell() == 0
    assert secret_store.names() == []


def test_list_shows_names_with_masked_values(
    secret_store: SecretStore, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_keys(secret_store, "list") == 0
    assert capsys.readouterr().out == "no keys stored\n"
    long_value, short_value = canary(), "short"
    secret_store.set("openai", long_value)
    secret_store.set("ai", short_value)
    assert run_keys(secret_store, "list") == 0
    out = capsys.readouterr().out
    assert out == f"ai      ****\nopenai  {mask(long_value)}\n"
    assert long_value not in out


def test_delete(secret_store: SecretStore, capsys: pytest.CaptureFixture[str]) -> None:
    secret_store.set("openai", canary())
    assert run_keys(secret_store, "delete", "openai") == 0
    assert capsys.readouterr().out == "deleted openai\n"
    assert secret_store.get("openai") is None
    assert run_keys(secret_store, "delete", "openai") == 1
    assert capsys.readouterr().err == "tuibot: no key named 'openai' is stored in the keyring\n"


def _read_until(fd: int, marker: bytes, deadline: float) -> bytes:
    seen = b""
    while marker not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 1024)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
    return seen


def test_set_on_a_terminal_prompts_without_echo(secret_store: SecretStore, tmp_path: Path) -> None:
    value = canary()
    master, slave = os.openpty()
    args = ["--service", secret_store.service, "set", "openai"]
    child = subprocess.Popen(
        [sys.executable, "-c", RUN_KEYS, "keys", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=REPO,
        env=child_env(tmp_path),
        start_new_session=True,
    )
    os.close(slave)
    try:
        deadline = time.monotonic() + 20
        shown = _read_until(master, b"(input hidden): ", deadline)
        assert b"Value for openai" in shown
        os.write(master, value.encode() + b"\n")
        shown += _read_until(master, b"SecretService Keyring", deadline)
        assert child.wait(timeout=20) == 0
    finally:
        os.close(master)
        if child.poll() is None:
            child.kill()
    assert value.encode() not in shown
    assert mask(value).encode() in shown
    assert secret_store.get("openai") == value


# --- no usable keyring ----------------------------------------------------------------


def test_no_backend_in_process_is_one_line_of_advice(
    fail_backend: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin = io.StringIO(canary())
    monkeypatch.setattr(sys, "stdin", stdin)
    assert keys.run(parse("set", "openai")) == 2
    err = capsys.readouterr().err
    assert err.startswith("tuibot: no usable OS keyring: keyring found no backend")
    assert "set OPENAI_API_KEY instead" in err
    assert err.count("\n") == 1
    assert stdin.tell() == 0, "the secret must not be asked for when it cannot be stored"


def test_no_backend_in_a_subprocess_has_no_traceback(tmp_path: Path) -> None:
    env = child_env(tmp_path, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    for argv in (["list"], ["delete", "openai"]):
        done = subprocess.run(
            [sys.executable, "-c", RUN_KEYS, "keys", *argv],
            capture_output=True,
            text=True,
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            timeout=30,
        )
        assert done.returncode == 2
        assert done.stdout == ""
        assert done.stderr.startswith("tuibot: no usable OS keyring")
        assert "dbus-run-session" in done.stderr
        assert "Traceback" not in done.stderr
        assert done.stderr.count("\n") == 1


@pytest.mark.skipif(
    not (REPO / "tuibot" / "__main__.py").exists(), reason="tuibot/__main__.py is not written yet"
)
def test_no_backend_through_the_real_cli(tmp_path: Path) -> None:
    env = child_env(tmp_path, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    done = subprocess.run(
        [sys.executable, "-m", "tuibot", "keys", "list"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=30,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith("tuibot: no usable OS keyring")
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(
    not (shutil.which("dbus-run-session") and shutil.which("gnome-keyring-daemon")),
    reason="needs dbus-run-session and gnome-keyring-daemon (apt-get install dbus gnome-keyring)",
)
def test_locked_secret_service_is_a_clear_message(tmp_path: Path) -> None:
    env = child_env(tmp_path, HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "xdg"))
    env.pop("PYTHON_KEYRING_BACKEND", None)
    create = "echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null"
    locked = "gnome-keyring-daemon --start --components=secrets >/dev/null"
    keys_list = f'"{sys.executable}" -c "$RUN_KEYS" keys list'
    results = []
    for start in (create, locked):
        results.append(
            subprocess.run(
                ["dbus-run-session", "--", "sh", "-c", f"{start}; {keys_list}"],
                capture_output=True,
                text=True,
                cwd=REPO,
                env={**env, "RUN_KEYS": RUN_KEYS},
                stdin=subprocess.DEVNULL,
                timeout=60,
            )
        )
    unlocked, after = results
    assert unlocked.returncode == 0, unlocked.stderr
    assert unlocked.stdout == "no keys stored\n"
    assert after.returncode == 2
    assert "tuibot: no usable OS keyring: the keyring collection is locked" in after.stderr
    assert "Traceback" not in after.stderr
