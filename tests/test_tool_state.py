"""Enable/disable: the state file, the registry's refusal, and ``tuibot tools``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tuibot.cli import main
from tuibot.delegation.tools import BUILTIN_TOOLS
from tuibot.toolkit.decorator import tool
from tuibot.toolkit.registry import ToolRegistry
from tuibot.toolkit.state import ToolStateError, read_disabled, state_path, write_disabled

USER_TOOL = """\
from tuibot import tool

@tool(confirm=True, requires=["tuibot-no-such-binary-xyz"])
def gpu() -> str:
    '''Show the GPU.'''
    return "gpu"

@tool
def hello() -> str:
    '''Say hi.'''
    return "hi"
"""


def _user_tools() -> Path:
    folder = Path(os.environ["TUIBOT_HOME"]) / "tools"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mine.py").write_text(USER_TOOL)
    (folder / "broken.py").write_text("x = 1\nimport tuibot_no_such_module\n")
    return folder


async def test_disabled_tool_is_hidden_and_refuses() -> None:
    @tool
    def hello() -> str:
        """Hi."""
        return "hi"

    registry = ToolRegistry()
    registry.register(hello.__tool_meta__)  # type: ignore[attr-defined]
    registry.set_disabled({"hello"})
    assert registry.definitions() == [] and registry.names() == ["hello"]
    result = await registry.execute("hello", {})
    assert not result.ok
    assert result.output == (
        "Error: tool hello is disabled; enable it with `tuibot tools enable hello`"
    )


def test_state_round_trip_and_bad_files(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "tool_state.json"
    assert read_disabled(path) == set()
    write_disabled(path, {"b", "a"})
    assert json.loads(path.read_text()) == {"disabled": ["a", "b"]}
    assert read_disabled(path) == {"a", "b"}
    assert [p.name for p in path.parent.iterdir()] == ["tool_state.json"]  # no temp left
    for bad in ("{not json", '{"disabled": "x"}', "[1]", '{"disabled": [1]}'):
        path.write_text(bad)
        with pytest.raises(ToolStateError, match=str(path)):
            read_disabled(path)


def test_tools_list_shows_source_state_gate_confirm_and_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = _user_tools()
    write_disabled(state_path(), {"hello"})
    assert main(["tools", "list"]) == 0
    out = capsys.readouterr().out
    gpu = next(line for line in out.splitlines() if line.startswith("gpu "))
    assert "user" in gpu and "enabled" in gpu and "yes" in gpu
    assert "needs tuibot-no-such-binary-xyz on PATH" in gpu
    hello = next(line for line in out.splitlines() if line.startswith("hello "))
    assert "disabled" in hello
    assert any(line.startswith("read_file ") and "bundled" in line for line in out.splitlines())
    assert f"{folder / 'broken.py'}:2: ModuleNotFoundError" in out


def test_enable_disable_persist(capsys: pytest.CaptureFixture[str]) -> None:
    _user_tools()
    assert main(["tools", "disable", "hello"]) == 0
    assert read_disabled(state_path()) == {"hello"}
    assert main(["tools", "disable", "hello"]) == 0
    assert main(["tools", "enable", "hello"]) == 0
    assert read_disabled(state_path()) == set()
    assert "hello: enabled" in capsys.readouterr().out


def test_unknown_tool_and_corrupt_state_are_one_line_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["tools", "disable", "tuibot_nope"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tuibot: no tool named 'tuibot_nope'") and err.count("\n") == 1
    state_path().parent.mkdir(parents=True, exist_ok=True)
    state_path().write_text("{oops")
    assert main(["tools", "enable", "read_file"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tuibot: ") and "not valid JSON" in err
    assert state_path().read_text() == "{oops"  # nothing lost


def test_engine_applies_state_at_load() -> None:
    from tuibot.engine import Engine
    from tuibot.settings import Settings

    _user_tools()
    write_disabled(state_path(), {"hello"})
    engine = Engine(Settings())
    engine.load_tools()
    assert engine.tools.is_disabled("hello")
    names = [d["function"]["name"] for d in engine.tools.snapshot().definitions()]
    assert "hello" not in names and "gpu" in names


def _tool_names(server: object, index: int) -> list[str]:
    body = server.requests[index].body  # type: ignore[attr-defined]
    return sorted(t["function"]["name"] for t in (body or {}).get("tools", []))


async def test_whitelist_filters_what_the_model_sees_and_runs(server: object) -> None:
    from engine_helpers import ask, make_engine
    from scripted_server import text, tool_calls

    engine = make_engine(server, agent__tools=["read_file"])  # type: ignore[arg-type]
    server.enqueue(  # type: ignore[attr-defined]
        tool_calls([("list_dir", '{"path": "."}')], mode="whole"), text("done")
    )
    chat = engine.new_chat().id
    await ask(engine, chat, "hi")
    assert _tool_names(server, 0) == sorted(["read_file", *BUILTIN_TOOLS])  # + every bot's
    tool_message = server.requests[1].body["messages"][-1]  # type: ignore[attr-defined]
    assert tool_message["role"] == "tool" and "unknown tool 'list_dir'" in tool_message["content"]
    await engine.close()


async def test_whitelist_from_config_file_and_disabled_hidden(
    server: object, hermetic: Path
) -> None:
    from engine_helpers import ask
    from scripted_server import text

    from tuibot.engine import Engine
    from tuibot.settings import load_settings

    config = hermetic / "bot.toml"
    config.write_text(
        f'[agent]\nmodel = "test-model"\ntools = ["read_file", "list_dir"]\n'
        f'[providers.local]\nbase_url = "{server.url}"\nmax_retries = 0\n'  # type: ignore[attr-defined]
    )
    write_disabled(state_path(), {"list_dir"})
    engine = Engine(load_settings(config))
    engine.load_tools()
    server.enqueue(text("ok"))  # type: ignore[attr-defined]
    await ask(engine, engine.new_chat().id, "hi")
    assert _tool_names(server, 0) == sorted(["read_file", *BUILTIN_TOOLS])
    await engine.close()


async def test_disabled_confirm_tool_is_refused_without_asking(server: object) -> None:
    from engine_helpers import Recorder, ask, make_engine
    from scripted_server import text, tool_calls

    from tuibot.events import ApprovalRequested

    folder = Path(os.environ["TUIBOT_HOME"]) / "tools"
    folder.mkdir(parents=True)
    (folder / "danger.py").write_text(
        "from tuibot import tool\n@tool(confirm=True)\ndef danger() -> str:\n"
        "    '''D.'''\n    return 'ran'\n"
    )
    write_disabled(state_path(), {"danger"})
    engine = make_engine(server)  # type: ignore[arg-type]
    seen = Recorder(engine)
    server.enqueue(tool_calls([("danger", "{}")], mode="whole"), text("ok"))  # type: ignore[attr-defined]
    await ask(engine, engine.new_chat().id, "hi")
    assert seen.of(ApprovalRequested) == []
    tool_message = server.requests[1].body["messages"][-1]  # type: ignore[attr-defined]
    assert "tool danger is disabled" in tool_message["content"]
    await engine.close()
