"""An approval leaves out only the arguments its rule has shown under their own name.

The attack: an argument whose value merely equals what is shown elsewhere (the subject,
a field) used to be dropped as a repeat. A ``write_file`` whose ``content`` is the
hook's own path then asked "Write the git hook …? Path: …" and never showed what would
be written (a hook that runs itself, forever). The app's pane and ``ask``'s prompt are
built from the same details and must both show it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ask_helpers import ask_argv, run_on_terminal
from scripted_replies import text, tool_calls
from scripted_server import Reply, ScriptedServer
from test_tui_approvals import cards, chat_of, finish, request, request_in
from tui_helpers import SIZE, make_app, ready

from tuibot.approvals.permissions import exec_permission, permission_details
from tuibot.approvals.request_text import request_lines
from tuibot.toolkit.decorator import tool
from tuibot.toolkit.permits import request_permission
from tuibot.toolkit.protect import confirm_protected
from tuibot.toolkit.workspace import use_workspace
from tuibot.tui.text.approval_text import describe

HOOK = ".git/hooks/pre-commit"


def hook_call(root: Path) -> dict[str, Any]:
    """write_file on a git hook whose content is the hook's resolved path (the subject)."""
    return {"path": HOOK, "content": str(root.resolve() / HOOK)}


def shown_both_ways(tool_name: str, arguments: dict[str, Any], permission: Any) -> list[str]:
    """The request as ``ask`` prints it and as the pane draws it, lines stripped."""
    details = {
        "tool": tool_name,
        "arguments": arguments,
        "prompt": permission.question,
        "permission": permission_details(permission),
    }
    terminal = [line.strip() for line in request_lines("tool", "s", details)]
    pane = [line.strip() for line in describe(request("tool", details)).plain.splitlines()]
    return [*terminal, "--", *pane]


def _deploy(target: str, environment: str) -> str:
    """Deploy ``target`` to ``environment`` (a user tool that asks with a plain True)."""
    return ""


CASES = [
    # exec whose timeout's text is the command: the timeout vanished
    ("exec", {"command": "600", "timeout": 600}, "timeout: 600"),
    # a user tool's plain question: its subject is the tool's name, never drawn
    ("deploy", {"target": "deploy", "environment": "prod"}, "target: deploy"),
    # an argument the schema does not know, equal to the method field shown above it
    ("http_request", {"url": "http://x.test/", "method": "POST", "body": "GET",
                      "note": "POST"}, "note: POST"),
]  # fmt: skip


@pytest.mark.parametrize(("tool_name", "arguments", "line"), CASES)
def test_an_argument_equal_to_a_shown_value_is_still_shown(
    tool_name: str, arguments: dict[str, Any], line: str
) -> None:
    if tool_name == "exec":
        permission = exec_permission(arguments["command"], "/w")
    elif tool_name == "deploy":
        spec = tool(name="deploy", confirm=True)(_deploy).__tool_meta__  # type: ignore[attr-defined]
        permission = spec.permission(arguments)
    else:
        permission = request_permission(arguments["url"], arguments["method"], None, "GET")
    assert permission is not None
    shown = shown_both_ways(tool_name, arguments, permission)
    split = shown.index("--")
    terminal, pane = shown[:split], [s[0].lower() + s[1:] for s in shown[split + 1 :] if s]
    assert line in terminal, terminal
    assert line in pane, pane


def test_the_hook_content_is_shown_even_when_it_is_the_path(tmp_path: Path) -> None:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    arguments = hook_call(tmp_path)
    with use_workspace(tmp_path):
        permission = confirm_protected("Write")(arguments)
    assert permission is not None and permission.shown_arguments == ("path",)
    content = f"content: {arguments['content']}"
    shown = shown_both_ways("write_file", arguments, permission)
    assert content in shown[: shown.index("--")], shown
    assert content in shown[shown.index("--") :], shown


def hook_responder(body: dict[str, Any]) -> Reply:
    """The first request asks to write the hook; anything after a tool result: "ok"."""
    if body["messages"][-1]["role"] == "user":
        return tool_calls([("write_file", json.dumps(hook_call(Path.cwd())))])
    return text("ok")


async def test_the_app_shows_the_content_it_would_write(server: ScriptedServer) -> None:
    (Path.cwd() / ".git" / "hooks").mkdir(parents=True)
    server.responder = hook_responder
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.engine is not None
        await app.engine.send(chat_of(app), "set up the hook")
        await request_in(pilot, app)
        [card] = cards(app)
        assert "content" in card.text and str(Path.cwd().resolve() / HOOK) in card.text
        lines = [line.strip() for line in card.text.splitlines()]
        assert f"content: {hook_call(Path.cwd())['content']}" in lines, card.text
        await finish(pilot, app)
    assert not (Path.cwd() / HOOK).exists()


def test_ask_shows_the_content_it_would_write(server: ScriptedServer) -> None:
    """On a pty, as a person reads it; ``n`` leaves the hook unwritten."""
    (Path.cwd() / ".git" / "hooks").mkdir(parents=True)
    arguments = hook_call(Path.cwd())
    server.enqueue(tool_calls([("write_file", json.dumps(arguments))]), text("Done."))
    code, _, screen = run_on_terminal(ask_argv(server, "hook"), prompt=b"[N]o: ", answer=b"n\n")
    assert code == 0, screen
    lines = [line.strip() for line in screen.splitlines()]
    assert f"content: {arguments['content']}" in lines, screen
    assert not (Path.cwd() / HOOK).exists()
