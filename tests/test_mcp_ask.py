"""MCP tools end to end through ``tuibot ask``: real servers, real processes, real files.

``mcp-server-time`` and ``mcp-server-git`` are the reference servers from the package
index (nobody here wrote them); the model is the scripted OpenAI-compatible server.
Each server's tool list is cached first by ``tuibot mcp tools NAME``, the way a person's
earlier session would have left it, so ``ask`` offers the tools from its first request.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import scripted_replies as reply
from ask_helpers import (
    ask_argv,
    assert_clean_stderr,
    chat_bodies,
    config_home,
    run,
    run_ask,
    run_on_terminal,
    sent,
    tuibot_argv,
)
from mcp_helpers import FAULT_SERVER, console_script, toml_server
from scripted_server import ScriptedServer

from tuibot.mcp.cache import ToolCache
from tuibot.settings.mcp import McpServerSettings


def _configure(*blocks: str) -> None:
    (config_home() / "config.toml").write_text("\n".join(blocks), encoding="utf-8")


def _cache_tools(name: str) -> None:
    ran = run(tuibot_argv("mcp", "tools", name), timeout=180)
    assert ran.code == 0, ran.stderr + ran.stdout
    assert f"{name}__" in ran.stdout


def _tool_message(server: ScriptedServer, index: int = -1) -> str:
    messages = sent(server, index)
    tool = [m for m in messages if m.get("role") == "tool"]
    assert tool, messages
    return str(tool[-1]["content"])


def test_the_model_calls_the_real_time_server(server: ScriptedServer) -> None:
    _configure(toml_server("time", console_script("mcp-server-time"), ["--local-timezone", "UTC"]))
    _cache_tools("time")
    server.enqueue(
        reply.tool_calls([("time__get_current_time", json.dumps({"timezone": "UTC"}))]),
        reply.text("It is late."),
    )
    ran = run_ask(server, "what time is it?", TUIBOT_MCP__SERVERS__TIME__STARTUP_TIMEOUT="120")
    assert ran.code == 0, ran.stderr
    assert_clean_stderr(ran)
    offered = {t["function"]["name"]: t["function"] for t in chat_bodies(server)[0]["tools"]}
    assert "untrusted" in offered["time__get_current_time"]["description"]
    result = _tool_message(server)
    assert result.startswith("[untrusted content from MCP server 'time'")
    assert '"timezone": "UTC"' in result and '"datetime"' in result
    assert "It is late." in ran.stdout


def _git_repo(folder: Path) -> Path:
    repo = folder / "repo"
    for argv in (["init", "-q", str(repo)],):
        subprocess.run(["git", *argv], check=True)
    (repo / "new.txt").write_text("fresh\n", encoding="utf-8")
    return repo


def _staged(repo: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "diff", "--cached", "--name-only"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def _git_call(server: ScriptedServer, repo: Path) -> None:
    args = json.dumps({"repo_path": str(repo), "files": ["new.txt"]})
    server.enqueue(reply.tool_calls([("git__git_add", args)]), reply.text("done"))


def test_a_git_tool_that_writes_is_denied_without_a_person(
    server: ScriptedServer, tmp_path: Path
) -> None:
    repo = _git_repo(tmp_path)
    _configure(toml_server("git", console_script("mcp-server-git"), ["--repository", str(repo)]))
    _cache_tools("git")
    _git_call(server, repo)
    ran = run_ask(server, "stage it", TUIBOT_MCP__SERVERS__GIT__STARTUP_TIMEOUT="120")
    assert_clean_stderr(ran)
    assert _staged(repo) == ""  # not interactive and no --yes: denied, nothing ran
    assert "denied" in _tool_message(server).lower()


def test_a_git_tool_that_writes_runs_once_allowed(server: ScriptedServer, tmp_path: Path) -> None:
    repo = _git_repo(tmp_path)
    _configure(toml_server("git", console_script("mcp-server-git"), ["--repository", str(repo)]))
    _cache_tools("git")
    _git_call(server, repo)
    ran = run_ask(server, "--yes", "stage it", TUIBOT_MCP__SERVERS__GIT__STARTUP_TIMEOUT="120")
    assert ran.code == 0, ran.stderr
    assert _staged(repo) == "new.txt"


def test_a_person_allows_a_git_write_on_the_terminal(
    server: ScriptedServer, tmp_path: Path
) -> None:
    repo = _git_repo(tmp_path)
    args = ["--repository", str(repo)]
    _configure(toml_server("git", console_script("mcp-server-git"), args, startup_timeout=120.0))
    _cache_tools("git")
    _git_call(server, repo)
    code, _, screen = run_on_terminal(
        ask_argv(server, "stage it"), prompt=b"[N]o: ", answer=b"y\n", timeout=180
    )
    assert code == 0, screen
    assert "git__git_add" in screen  # the person is asked about that tool, by name
    assert _staged(repo) == "new.txt"


def test_a_read_only_git_tool_runs_unasked(server: ScriptedServer, tmp_path: Path) -> None:
    repo = _git_repo(tmp_path)
    _configure(toml_server("git", console_script("mcp-server-git"), ["--repository", str(repo)]))
    _cache_tools("git")
    args = json.dumps({"repo_path": str(repo)})
    server.enqueue(reply.tool_calls([("git__git_status", args)]), reply.text("clean"))
    ran = run_ask(server, "status?", TUIBOT_MCP__SERVERS__GIT__STARTUP_TIMEOUT="120")
    assert ran.code == 0, ran.stderr
    assert "new.txt" in _tool_message(server)  # ran: the server's readOnlyHint, not --yes


def test_a_failed_servers_cached_tools_refuse_in_one_line(server: ScriptedServer) -> None:
    args = [str(FAULT_SERVER), "--exit-at-start"]
    _configure(toml_server("faults", sys.executable, args, startup_timeout=120.0))
    settings = McpServerSettings(
        name="faults", command=sys.executable, args=args, startup_timeout=120.0
    )
    echo = {"name": "echo", "inputSchema": {"type": "object", "properties": {}},
            "annotations": {"readOnlyHint": True}}  # fmt: skip
    ToolCache(Path.cwd().parent / "data" / "mcp" / "tools").save(settings, [echo])
    server.enqueue(reply.tool_calls([("faults__echo", "{}")]), reply.text("ok"))
    ran = run_ask(server, "echo")
    assert_clean_stderr(ran)
    assert "faults__echo" in {t["function"]["name"] for t in chat_bodies(server)[0]["tools"]}
    result = _tool_message(server)
    assert "'faults' failed" in result, result
    assert result.splitlines()[0].startswith("Error:")


def test_ask_starts_no_server_whose_tools_it_does_not_call(server: ScriptedServer) -> None:
    args = ["-c", "touch started; exec sleep 30"]  # marks its start at once
    _configure(toml_server("probe", "/bin/sh", args))
    settings = McpServerSettings(name="probe", command="/bin/sh", args=args)
    echo = {"name": "echo", "inputSchema": {"type": "object", "properties": {}}}
    ToolCache(Path.cwd().parent / "data" / "mcp" / "tools").save(settings, [echo])
    server.enqueue(reply.text("hello", delay=1.5))  # time enough for a start to show
    ran = run_ask(server, "hi")
    assert ran.code == 0, ran.stderr
    assert "probe__echo" in {t["function"]["name"] for t in chat_bodies(server)[0]["tools"]}
    assert not Path("started").exists()  # offered from the cache, never started
