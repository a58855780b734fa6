"""``tuibot mcp list | tools | add | remove`` and ``tuibot doctor``'s MCP lines, as processes."""

from __future__ import annotations

import sys
from pathlib import Path

from ask_helpers import config_home, data_home, run, tuibot_argv
from mcp_helpers import FAULT_SERVER, toml_server
from scripted_server import ScriptedServer


def _config() -> str:
    return (config_home() / "config.toml").read_text(encoding="utf-8")


def test_add_and_remove_keep_the_persons_comments() -> None:
    (config_home() / "config.toml").write_text('# mine\n[agent]\nmodel = "m"  # keep\n')
    added = run(
        tuibot_argv("mcp", "add", "time", "--", "mcp-server-time", "--local-timezone", "UTC")
    )
    assert added.code == 0, added.stderr
    web = run(tuibot_argv("mcp", "add", "web", "--url", "http://127.0.0.1:9/mcp"))
    assert web.code == 0, web.stderr
    text = _config()
    assert text.startswith('# mine\n[agent]\nmodel = "m"  # keep\n')
    assert (
        '[mcp.servers.time]\ncommand = "mcp-server-time"\nargs = ["--local-timezone", "UTC"]'
        in text
    )
    assert '[mcp.servers.web]\nurl = "http://127.0.0.1:9/mcp"' in text
    assert run(tuibot_argv("mcp", "remove", "web")).code == 0
    assert "web" not in _config() and "# keep" in _config()


def test_bad_adds_are_refused_and_change_nothing() -> None:
    (config_home() / "config.toml").write_text("# mine\n")
    for argv in (["add", "a_b", "--", "x"], ["add", "ok"], ["add", "ok", "--url", "ftp://x"]):
        ran = run(tuibot_argv("mcp", *argv))
        assert ran.code == 2 and ran.stderr.startswith("tuibot: "), (argv, ran.stderr)
        assert "Traceback" not in ran.stderr
    assert _config() == "# mine\n"
    gone = run(tuibot_argv("mcp", "remove", "nothing"))
    assert gone.code == 2 and "no MCP server 'nothing'" in gone.stderr


def _two_servers() -> None:
    good = toml_server("good", sys.executable, [str(FAULT_SERVER)], startup_timeout=120.0)
    bad = toml_server("bad", sys.executable, [str(FAULT_SERVER), "--exit-at-start"])
    (config_home() / "config.toml").write_text(good + "\n" + bad)


def test_list_shows_states_tool_counts_and_a_failures_stderr() -> None:
    _two_servers()
    ran = run(tuibot_argv("mcp", "list"), timeout=240)
    assert ran.code == 1, ran.stdout + ran.stderr
    lines = ran.stdout.splitlines()
    assert any(line.startswith("good") and "ready" in line and "8 tools" in line for line in lines)
    assert any(line.startswith("bad") and "failed" in line for line in lines), lines
    assert "    fatal: cannot open the database" in lines
    assert list((data_home() / "mcp" / "tools").glob("good-*.json")), "good's list was cached"


def test_tools_shows_which_ask_first() -> None:
    _two_servers()
    ran = run(tuibot_argv("mcp", "tools", "good"), timeout=240)
    assert ran.code == 0, ran.stderr
    rows = {line.split()[0]: line for line in ran.stdout.splitlines()}
    assert "no prompt" in rows["good__echo"] and " asks " in rows["good__wipe"]
    unknown = run(tuibot_argv("mcp", "tools", "nope"))
    assert unknown.code == 1 and "configured: good, bad" in unknown.stderr


def test_doctor_checks_each_server(server: ScriptedServer) -> None:
    _two_servers()
    ran = run(tuibot_argv("doctor", "--base-url", server.url, "--model", "test-model"), timeout=240)
    assert ran.code == 1
    assert any(line.startswith("ok") and "mcp good" in line for line in ran.stdout.splitlines())
    assert any(line.startswith("FAIL") and "mcp bad" in line for line in ran.stdout.splitlines())


def test_tools_list_shows_mcp_tools_from_their_cache_without_starting_them() -> None:
    from tuibot.mcp.cache import ToolCache
    from tuibot.settings.mcp import McpServerSettings

    marker = "import pathlib; pathlib.Path('STARTED').touch()"
    (config_home() / "config.toml").write_text(
        toml_server("slow", sys.executable, ["-c", marker])
        + toml_server("fresh", sys.executable, ["-c", marker])
    )
    slow = McpServerSettings(name="slow", command=sys.executable, args=["-c", marker])
    wipe = {"name": "wipe", "inputSchema": {"type": "object"},
            "annotations": {"destructiveHint": True}}  # fmt: skip
    ToolCache(data_home() / "mcp" / "tools").save(slow, [wipe])
    ran = run(tuibot_argv("tools", "list"))
    assert ran.code == 0, ran.stderr
    row = next(line for line in ran.stdout.splitlines() if line.startswith("slow__wipe"))
    assert row.split()[1:4] == ["mcp:slow", "enabled", "yes"]  # destructive: it asks
    assert "MCP server fresh: no tool list yet (`tuibot mcp tools fresh` fetches it)" in ran.stdout
    assert not Path("STARTED").exists()  # listing never starts a server
