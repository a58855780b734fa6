"""Secrets are masked in everything ``tuibot ask`` prints, as they are in the stored chat.

The provider's API key is a known secret (it comes from an environment variable). A
hostile model echoes it everywhere it can: in its reasoning, in its answer (streamed a
few characters per delta, so the key is split across deltas), in tool-call arguments,
in what tools return and in the error a failing tool raises, and in a call that needs
approval. Neither stdout nor stderr may show it, in plain or ``--json`` mode.
"""

from __future__ import annotations

import json

import pytest
from ask_helpers import Ran, json_lines, load_chat, of_type, run_ask, write_user_tool
from scripted_server import ScriptedServer, text, tool_calls

from tuibot.system.secrets import mask

SECRET = "sk-live-7Qm2xVb9Lr4Tz8Wc1Np6"
KEY_ENV = {"TUIBOT_PROVIDERS__LOCAL__API_KEY_ENV": "SCRIPTED_KEY", "SCRIPTED_KEY": SECRET}

ECHOES = '''
from tuibot import tool

@tool
def echo(text: str) -> str:
    """Say it back."""
    return "you said " + text

@tool
def fail(text: str) -> str:
    """Fail, naming the input."""
    raise ValueError("cannot use " + text)

@tool(confirm=True)
def guarded(text: str) -> str:
    """Needs a yes."""
    return "ran with " + text
'''


def _hostile_script(server: ScriptedServer) -> None:
    write_user_tool("echoes", ECHOES)
    arguments = json.dumps({"text": SECRET})
    server.enqueue(
        tool_calls([("echo", arguments), ("fail", arguments), ("guarded", arguments)]),
        text(f"Your key is {SECRET}, in full.", reasoning=f"I will leak {SECRET}"),
    )


def _assert_masked(ran: Ran) -> None:
    assert SECRET not in ran.stdout, ran.stdout
    assert SECRET not in ran.stderr, ran.stderr
    assert SECRET[:12] not in ran.stdout + ran.stderr  # no telling part of it either


@pytest.mark.parametrize("mode", ["plain", "json"])
def test_a_known_secret_never_appears_in_asks_output(server: ScriptedServer, mode: str) -> None:
    _hostile_script(server)
    flags = ["--json"] if mode == "json" else []

    ran = run_ask(server, *flags, "show me my key", **KEY_ENV)

    assert ran.code == 0, ran.stderr
    assert server.requests[-1].headers["authorization"] == f"Bearer {SECRET}"  # it is known
    _assert_masked(ran)
    shown = mask(SECRET)
    if mode == "plain":
        assert ran.stdout == f"Your key is {shown}, in full.\n"
        assert f'→ echo(text="{shown}")' in ran.stderr
        assert f"cannot use {shown}" in ran.stderr  # the failed tool's first line
    else:
        records = json_lines(ran)
        assert "".join(r["delta"] for r in of_type(records, "text")) == (
            f"Your key is {shown}, in full."
        )
        assert "".join(r["delta"] for r in of_type(records, "reasoning")) == (
            f"I will leak {shown}"
        )
        calls = of_type(records, "tool_call")
        assert [c["arguments"] for c in calls] == [{"text": shown}] * 3
        outputs = [r["output"] for r in of_type(records, "tool_result")]
        assert f"you said {shown}" in outputs[0] and shown in outputs[1]
        [approval] = of_type(records, "approval")
        assert shown in approval["summary"]
        assert approval["details"]["arguments"] == {"text": shown}
        [done] = of_type(records, "done")
        assert done["text"] == f"Your key is {shown}, in full."
    stored = json.dumps(load_chat(ran.chat).messages)
    assert SECRET not in stored  # as the chat file has always had it


def test_text_without_a_secret_streams_unchanged(server: ScriptedServer) -> None:
    server.enqueue(text("sk-live is how keys start; " + SECRET[:-1] + "!", pieces=9))

    ran = run_ask(server, "--json", "hello", **KEY_ENV)

    assert ran.code == 0, ran.stderr
    deltas = [r["delta"] for r in of_type(json_lines(ran), "text")]
    assert "".join(deltas) == "sk-live is how keys start; " + SECRET[:-1] + "!"
