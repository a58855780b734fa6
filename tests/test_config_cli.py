"""``tuibot config show|path|set``, in process through the command module's own parser.

One subprocess test runs ``python -m tuibot`` to prove a broken config is one line on
stderr and exit 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest
from trust_helpers import trust_file

from tuibot.commands import config
from tuibot.settings import load_settings
from tuibot.system import paths

REPO = Path(__file__).resolve().parents[1]
SECRET = "sk-live-0123456789abcdefWXYZ"


@pytest.fixture(autouse=True)
def no_env_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own TUIBOT_X__Y variables must not leak into these tests."""
    for name in list(os.environ):
        if name.startswith("TUIBOT_") and "__" in name:
            monkeypatch.delenv(name)


def run(*argv: str, config_file: Path | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tuibot")
    parser.add_argument("--config", type=Path, default=None)
    config.add_parser(parser.add_subparsers())
    prefix = ["--config", str(config_file)] if config_file else []
    args = parser.parse_args([*prefix, "config", *argv])
    return int(args.handler(args))


def write(path: Path, text: str) -> Path:
    """Write a config file; a ``tuibot.toml`` is trusted, as the person's own would be."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return trust_file(path) if path.name == "tuibot.toml" else path


def test_show_defaults_with_origins(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("show") == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "# config file: none (built-in defaults)"
    assert "[agent]" in lines and "[providers.local]" in lines and "[logging]" in lines
    assert 'model = "llama3.2"  # default' in lines
    assert 'base_url = "http://localhost:11434/v1"  # default' in lines
    assert "max_rounds = 10  # default" in lines
    assert "price_input = (not set)  # default" in lines
    assert "params = {}  # default" in lines


def test_show_names_file_env_and_masks_secrets(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        Path.cwd() / "tuibot.toml",
        '[agent]\nmodel = "qwen3"\n\n'
        '[providers.x]\nbase_url = "http://x/v1"\ncredential = "my-cloud-key"\n'
        f'params = {{ api_key = "{SECRET}", token = "short", max_tokens = 512,'
        f' headers = {{ Authorization = "Bearer {SECRET}" }} }}\n',
    )
    monkeypatch.setenv("TUIBOT_AGENT__MAX_ROUNDS", "7")
    assert run("show") == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert SECRET not in out and "short" not in out
    assert f'api_key = "****{SECRET[-4:]}"  # {path}' in lines
    assert f'token = "****"  # {path}' in lines
    assert f"max_tokens = 512  # {path}" in lines
    assert f'headers = {{ Authorization = "****{SECRET[-4:]}" }}  # {path}' in lines
    assert f'credential = "my-cloud-key"  # {path}' in lines
    assert f'model = "qwen3"  # {path}' in lines
    assert "max_rounds = 7  # env TUIBOT_AGENT__MAX_ROUNDS" in lines
    assert "[providers.x.params]" in lines and "[providers.local]" not in lines


def test_show_with_explicit_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "other.toml", '[logging]\nlevel = "debug"\n')
    assert run("show", config_file=path) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# config file: {path}\n")
    assert f'level = "DEBUG"  # {path}' in out.splitlines()


def test_path_without_a_config_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("path") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"config home: {paths.config_home()}"
    assert lines[1] == "config file: none (built-in defaults)"
    assert f"data dir:    {paths.data_home()}" in lines
    assert f"log dir:     {paths.log_home()}" in lines
    assert str(paths.config_home()).startswith(os.environ["TUIBOT_HOME"])


def test_path_shows_the_file_in_use(capsys: pytest.CaptureFixture[str]) -> None:
    home = write(paths.config_home() / "config.toml", "")
    assert run("path") == 0
    assert f"config file: {home}" in capsys.readouterr().out.splitlines()
    local = write(Path.cwd() / "tuibot.toml", "")
    assert run("path") == 0
    assert f"config file: {local}" in capsys.readouterr().out.splitlines()


def test_set_creates_the_home_config(capsys: pytest.CaptureFixture[str]) -> None:
    target = paths.config_home() / "config.toml"
    assert not target.exists()
    assert run("set", "agent.max_rounds", "25") == 0
    assert f"agent.max_rounds = 25 written to {target}" in capsys.readouterr().out
    settings = load_settings(env={})
    assert settings.agent.max_rounds == 25
    assert settings.origins["agent.max_rounds"] == str(target)


def test_set_writes_to_the_file_in_use_and_back_to_default_removes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    local = write(Path.cwd() / "tuibot.toml", '# mine\n[agent]\nmodel = "qwen3"  # keep me\n')
    assert run("set", "Agent.Model", "llama3.1") == 0
    assert local.read_text() == '# mine\n[agent]\nmodel = "llama3.1"  # keep me\n'
    assert run("set", "agent.model", "llama3.2") == 0
    assert "agent.model is back to its default" in capsys.readouterr().out
    assert "model" not in local.read_text()
    assert "# mine" in local.read_text()
    assert not (paths.config_home() / "config.toml").exists()


def test_set_masks_a_secret_in_its_confirmation(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("set", "providers.local.params.api_key", SECRET) == 0
    out = capsys.readouterr().out
    assert SECRET not in out and f"****{SECRET[-4:]}" in out
    assert run("set", "providers.local.api_key_env", "MY_KEY") == 0
    assert '"MY_KEY"' in capsys.readouterr().out


def test_set_warns_when_an_env_variable_overrides(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TUIBOT_AGENT__MODEL", "env-model")
    assert run("set", "agent.model", "qwen3") == 0
    assert "env TUIBOT_AGENT__MODEL overrides this value" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("agent.max_rounds", "ten"), 'agent.max_rounds = "ten": expected an integer >= 1'),
        (("agent.modle", "x"), 'unknown key "agent.modle"'),
        (("logging.level", "loud"), "expected one of DEBUG, INFO, WARNING, ERROR"),
    ],
)
def test_set_bad_value_exits_2_and_leaves_the_file(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, str], message: str
) -> None:
    local = write(Path.cwd() / "tuibot.toml", "[agent]\nmax_rounds = 3\n")
    assert run("set", *argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tuibot: ") and message in err
    assert err.count("\n") == 1
    assert local.read_text() == "[agent]\nmax_rounds = 3\n"


def test_config_error_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    write(Path.cwd() / "tuibot.toml", "[agent]\nmax_rounds = \n")
    assert run("show") == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("tuibot: ")
    assert "invalid TOML at line 2, column 14" in captured.err


def test_missing_explicit_config_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("path", config_file=tmp_path / "missing.toml") == 2
    assert "config file not found" in capsys.readouterr().err


def test_python_m_tuibot_config_never_shows_a_traceback(tmp_path: Path) -> None:
    write(Path.cwd() / "tuibot.toml", '[agent]\nmax_rounds = "ten"\n')
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "tuibot", "config", "show"],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path.cwd(),
        timeout=60,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().endswith(
        'agent.max_rounds = "ten": expected an integer >= 1 and <= 200'
    )
