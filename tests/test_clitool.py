"""CLITool: argv fixed at definition, values never reach a shell, timeouts kill the group."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from tuibot import CLITool
from tuibot.toolkit.clitool import OUTPUT_LIMIT
from tuibot.toolkit.loader import load_tool_file
from tuibot.toolkit.registry import ToolRegistry

pytestmark = pytest.mark.skipif(os.name != "posix", reason="uses POSIX programs")


def _registry(*tools: CLITool) -> ToolRegistry:
    registry = ToolRegistry()
    for item in tools:
        registry.register(item.__tool_meta__)
    return registry


async def test_value_is_one_argv_element_never_shell() -> None:
    echo = CLITool("say", "printf %s|{text}")
    result = await _registry(echo).execute("say", {"text": "a; touch pwned $(id) `id` | x"})
    assert result.ok
    assert result.output == "|a; touch pwned $(id) `id` | x"
    assert not Path("pwned").exists()


async def test_schema_inferred_and_declared() -> None:
    inferred = CLITool("ping", "ping -c 3 {host}")
    params = inferred.__tool_meta__.parameters
    assert params["required"] == ["host"] and params["additionalProperties"] is False
    declared = CLITool("ping2", "ping -c 3 {host}", params={"host": "the host"})
    assert declared.__tool_meta__.parameters["properties"]["host"]["description"] == "the host"
    with pytest.raises(ValueError, match="do not match"):
        CLITool("bad", "ping {host}", params={"hostname": "x"})


async def test_standalone_option_value_refused_but_embedded_allowed() -> None:
    tool = CLITool("p", "printf '%s\\n' {word} --x={opt}")
    registry = _registry(tool)
    refused = await registry.execute("p", {"word": "--help", "opt": "y"})
    assert not refused.ok and "may not start with '-'" in refused.output
    embedded = await registry.execute("p", {"word": "w", "opt": "-y"})
    assert embedded.ok and embedded.output == "w\n--x=-y\n"
    allowed = CLITool("q", "printf %s {flag}", allow_options=["flag"])
    assert (await _registry(allowed).execute("q", {"flag": "-n"})).output == "-n"


@pytest.mark.parametrize(
    "template",
    ["{prog} x", "echo {a.b}", "echo {0}", "echo {x!r}", "echo {x:>5}", "echo 'unclosed", ""],
)
def test_bad_templates_fail_at_definition(template: str) -> None:
    with pytest.raises(ValueError):
        CLITool("t", template)


async def test_nul_and_wrong_type_refused() -> None:
    registry = _registry(CLITool("e", "echo {x}"))
    assert not (await registry.execute("e", {"x": "a\0b"})).ok
    assert not (await registry.execute("e", {"x": 3})).ok
    assert not (await registry.execute("e", {})).ok


async def test_timeout_kills_the_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    tool = CLITool("slow", f"sh -c 'sleep 60 & echo $! > {pidfile}; wait'", timeout=0.5)
    started = time.monotonic()
    result = await _registry(tool).execute("slow", {})
    assert time.monotonic() - started < 5
    assert not result.ok and "timed out after 0.5 s" in result.output
    child = int(pidfile.read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the grandchild survived the timeout")


async def test_output_is_tail_capped_and_exit_code_reported() -> None:
    big = CLITool("big", f"{sys.executable} -c {{code}}")
    code = f"print('a' * {OUTPUT_LIMIT * 2}, end=''); print('END', end='')"
    result = await _registry(big).execute("big", {"code": code})
    assert result.output.endswith("END") and len(result.output) < OUTPUT_LIMIT + 100
    assert "characters cut" in result.output
    failing = await _registry(big).execute("big", {"code": "import sys; sys.exit(3)"})
    assert not failing.ok and "exited with code 3" in failing.output


async def test_missing_program_is_an_error_result() -> None:
    result = await _registry(CLITool("nope", "tuibot-no-such-program-xyz")).execute("nope", {})
    assert not result.ok and "cannot run" in result.output


def test_confirm_shows_the_exact_command() -> None:
    spec = CLITool("ping", "ping -c 3 {host}", confirm=True).__tool_meta__
    assert spec.confirmation_prompt({"host": "a b"}) == "Run `ping -c 3 'a b'`?"
    assert CLITool("x", "echo").__tool_meta__.confirmation_prompt({}) is None


async def test_gating_applies_to_cli_tools() -> None:
    tool = CLITool("gpu", "nvidia-smi", requires=["tuibot-no-such-binary-xyz"])
    result = await _registry(tool).execute("gpu", {})
    assert result.output == (
        "Error: gpu is not available here: needs tuibot-no-such-binary-xyz on PATH"
    )


def test_loader_collects_module_level_cli_tools(tmp_path: Path) -> None:
    path = tmp_path / "net.py"
    path.write_text(
        "from tuibot import CLITool, tool\n"
        "ping = CLITool('ping', 'ping -c 3 {host}', description='Ping a host.')\n"
        "@tool\n"
        "def hello() -> str:\n"
        "    '''Say hi.'''\n"
        "    return 'hi'\n"
    )
    specs = load_tool_file(path, "user")
    assert sorted(s.name for s in specs) == ["hello", "ping"]
    ping = next(s for s in specs if s.name == "ping")
    assert ping.source == "user" and ping.path == path and ping.description == "Ping a host."
