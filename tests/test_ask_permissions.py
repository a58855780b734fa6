"""What ``tuibot ask`` shows on a terminal before a command runs, captured on a pty.

The attack: a command that hides ``; touch PWNED`` behind 85 spaces, an erase-line escape
and a carriage return, so that every line of the old prompt read ``ls -la``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from ask_helpers import ask_argv, run_ask, run_on_terminal, sent
from scripted_replies import text, tool_calls
from scripted_server import ScriptedServer

HOSTILE = "ls -la" + " " * 85 + "; touch PWNED # " + "\x1b[2K\r  ls -la"


def hostile_call(server: ScriptedServer, command: str = HOSTILE) -> None:
    server.enqueue(tool_calls([("exec", json.dumps({"command": command}))]), text("Done."))


@pytest.mark.parametrize(("answer", "runs"), [("y", True), ("c", False), ("a", False)])
def test_the_prompt_shows_the_whole_command_spelled_out(
    server: ScriptedServer, answer: str, runs: bool
) -> None:
    hostile_call(server)
    code, _, screen = run_on_terminal(
        ask_argv(server, "list files"), prompt=b"[N]o: ", answer=answer.encode() + b"\n"
    )
    assert code == 0, screen
    assert "\x1b[2K" not in screen  # the escape never reaches the terminal
    assert re.search(r"\r(?!\n)", screen) is None  # no bare carriage return either
    assert "; touch PWNED # \\x1b[2K\\x0d  ls -la" in screen  # whole and readable
    assert "contains hidden characters (\\x1b, \\x0d)" in screen
    assert "[y]es once / [N]o: " in screen  # no answer that would keep a grant is offered
    assert (Path.cwd() / "PWNED").exists() is runs


def test_a_plain_command_offers_what_each_answer_allows(server: ScriptedServer) -> None:
    hostile_call(server, "git status --short")
    code, _, screen = run_on_terminal(ask_argv(server, "status"), prompt=b"[N]o: ", answer=b"n\n")
    assert code == 0, screen
    assert "command: git status --short" in screen
    assert "[c] in this chat: running exactly: git status --short" in screen
    assert "[p] a prefix you choose, in this chat" in screen


def test_a_chosen_prefix_is_kept_and_covers_the_next_call(server: ScriptedServer) -> None:
    server.enqueue(
        tool_calls([("exec", json.dumps({"command": "echo one"}), "c1")]),
        tool_calls([("exec", json.dumps({"command": "echo two"}), "c2")]),
        tool_calls([("exec", json.dumps({"command": "echo x; touch PWNED"}), "c3")]),
        text("Done."),
    )
    answers = iter([b"p\n", b"echo\n", b"n\n"])
    code, _, screen = run_on_terminal(
        ask_argv(server, "echo"),
        prompt=(b"[N]o: ", b"offered): "),
        answer=lambda: next(answers, b"n\n"),
    )
    assert code == 0, screen
    results = [m["content"] for m in sent(server) if m["role"] == "tool"]
    assert results[0].startswith("one") and results[1].startswith("two")
    assert "Denied by the user" in results[2] and not (Path.cwd() / "PWNED").exists()


def test_yes_does_not_allow_what_hides_characters(server: ScriptedServer) -> None:
    hostile_call(server)
    ran = run_ask(server, "--yes", "list files")
    assert ran.code == 0, ran.stderr
    assert not (Path.cwd() / "PWNED").exists()
    assert "hidden characters" in sent(server)[-1]["content"]


def test_tool_call_lines_on_stderr_are_whole_and_escaped(server: ScriptedServer) -> None:
    hostile_call(server)
    ran = run_ask(server, "list files")  # not interactive: denied
    assert "\x1b" not in ran.stderr and "\r" not in ran.stderr
    assert '; touch PWNED # \\u001b[2K\\r  ls -la"' in ran.stderr  # JSON's escapes
