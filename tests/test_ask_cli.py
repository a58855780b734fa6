"""``tuibot ask`` end to end: a real process against the scripted server on loopback.

What a script relies on is checked from the outside: stdout holds the answer and only the
answer, stderr the status, ``--json`` one event per line, exit codes tell failures apart,
tool confirmations are never silently granted, and nothing prints a traceback.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest
from ask_helpers import (
    Ran,
    ask_argv,
    assert_clean_stderr,
    chat_bodies,
    chat_store,
    child_env,
    closed_port_url,
    json_lines,
    load_chat,
    of_type,
    run,
    run_ask,
    run_on_terminal,
    sent,
    tuibot_argv,
    write_user_tool,
)
from scripted_server import ScriptedServer, cut, error, text, tool_calls
from trust_helpers import write_trusted

# --- plain mode ---------------------------------------------------------------------------


def test_plain_mode_prints_only_the_answer(server: ScriptedServer) -> None:
    server.enqueue(text("The answer is 42.", reasoning="let me think"))

    ran = run_ask(server, "What is six times seven?")

    assert ran.code == 0, ran.stderr
    assert ran.stdout == "The answer is 42.\n"
    assert ran.stderr.startswith(f"tuibot: chat {ran.chat}\n")
    assert "let me think" not in ran.stderr  # reasoning is shown on a terminal only
    messages = load_chat(ran.chat).messages
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "What is six times seven?"),
        ("assistant", "The answer is 42."),
    ]
    assert messages[1]["reasoning"] == "let me think"


def test_an_answer_ending_in_a_newline_gets_no_second_one(server: ScriptedServer) -> None:
    server.enqueue(text("- one\n- two\n"))

    ran = run_ask(server, "list")

    assert ran.code == 0, ran.stderr
    assert ran.stdout == "- one\n- two\n"


def test_tool_status_goes_to_stderr_not_stdout(server: ScriptedServer) -> None:
    Path("notes.txt").write_text("hello", encoding="utf-8")
    server.enqueue(tool_calls([("list_dir", '{"path": "."}')]), text("One file."))

    ran = run_ask(server, "what is here?")

    assert ran.code == 0, ran.stderr
    assert ran.stdout == "One file.\n"
    assert '→ list_dir(path=".")' in ran.stderr
    assert "✓ list_dir" in ran.stderr
    tool_message = sent(server)[-1]
    assert tool_message["role"] == "tool" and "notes.txt (5 B)" in tool_message["content"]


# --- stdin --------------------------------------------------------------------------------


def test_piped_stdin_alone_is_the_prompt(server: ScriptedServer) -> None:
    server.enqueue(text("ok"))

    ran = run_ask(server, stdin="Summarise this please.\n")

    assert ran.code == 0, ran.stderr
    assert sent(server)[-1] == {"role": "user", "content": "Summarise this please."}


def test_piped_stdin_is_appended_to_the_prompt_as_context(server: ScriptedServer) -> None:
    server.enqueue(text("It defines f."))

    ran = run_ask(server, "Explain this code:", stdin="def f():\n    return 1\n")

    assert ran.code == 0, ran.stderr
    assert sent(server)[-1]["content"] == "Explain this code:\n\ndef f():\n    return 1"


def test_no_prompt_and_empty_stdin_is_a_usage_error(server: ScriptedServer) -> None:
    ran = run_ask(server, stdin="")

    assert ran.code == 2
    assert ran.stderr == "tuibot: nothing to ask: give a PROMPT or pipe text on stdin\n"
    assert ran.stdout == ""
    assert server.requests == []


# --- continuing a chat ----------------------------------------------------------------------


@pytest.mark.parametrize("how", ["id", "prefix", "prefix without c_"])
def test_chat_flag_continues_the_chat(server: ScriptedServer, how: str) -> None:
    server.enqueue(text("Paris."), text("About 2 million."))
    first = run_ask(server, "Capital of France?")
    assert first.code == 0, first.stderr
    chat = first.chat
    given = {"id": chat, "prefix": chat[:12], "prefix without c_": chat[2:12]}[how]

    second = run_ask(server, "--chat", given, "How many people live there?")

    assert second.code == 0, second.stderr
    assert second.stdout == "About 2 million.\n"
    assert "tuibot: chat" not in second.stderr  # no new chat was started
    conversation = [(m["role"], m["content"]) for m in sent(server)[1:]]
    assert conversation == [
        ("user", "Capital of France?"),
        ("assistant", "Paris."),
        ("user", "How many people live there?"),
    ]
    assert len(load_chat(chat).messages) == 4


@pytest.mark.parametrize(
    ("given", "said"),
    [("c_19990101T000000_dead", "no chat matches"), ("../etc/passwd", "invalid chat id")],
)
def test_unknown_chat_is_a_usage_error(server: ScriptedServer, given: str, said: str) -> None:
    ran = run_ask(server, "--chat", given, "hello")

    assert ran.code == 2
    assert ran.stderr.count("\n") == 1 and ran.stderr.startswith("tuibot: ")
    assert said in ran.stderr
    assert_clean_stderr(ran)
    assert server.requests == []


def test_an_ambiguous_prefix_names_the_candidates(server: ScriptedServer) -> None:
    server.enqueue(text("a"), text("b"))
    chats = [run_ask(server, "one").chat, run_ask(server, "two").chat]

    ran = run_ask(server, "--chat", "c_", "three")

    assert ran.code == 2
    assert "ambiguous" in ran.stderr and all(chat in ran.stderr for chat in chats)


# --- --json -------------------------------------------------------------------------------


def test_json_reports_every_step_of_a_turn(server: ScriptedServer) -> None:
    Path("a.txt").write_text("x", encoding="utf-8")
    server.enqueue(
        tool_calls([("list_dir", '{"path": "."}', "call_ls")], usage=(30, 7)),
        text("There is a.txt.", reasoning="The listing shows one file.", usage=(50, 9)),
    )

    ran = run_ask(server, "--json", "What is in the folder?")

    assert ran.code == 0, ran.stderr
    records = json_lines(ran)
    (call,) = of_type(records, "tool_call")
    assert call == {
        "type": "tool_call",
        "id": "call_ls",
        "name": "list_dir",
        "arguments": {"path": "."},
    }
    (result,) = of_type(records, "tool_result")
    assert result["id"] == "call_ls" and result["name"] == "list_dir"
    assert result["ok"] is True and result["output"] == "a.txt (1 B)"
    assert isinstance(result["duration_s"], float)
    reasoning = "".join(r["delta"] for r in of_type(records, "reasoning"))
    assert reasoning == "The listing shows one file."
    answer = "".join(r["delta"] for r in of_type(records, "text"))
    assert answer == "There is a.txt."
    done = records[-1]
    context = done.pop("context")  # the last request's size against the window (issue 15)
    assert context["window"] == 8192 and 0 < context["used"] <= context["window"]
    assert done == {
        "type": "done",
        "chat": ran.chat,
        "text": "There is a.txt.",
        "usage": {"prompt_tokens": 80, "completion_tokens": 16, "cost_micros": 0},
    }
    kinds = [r["type"] for r in records]
    assert kinds.index("tool_call") < kinds.index("tool_result") < kinds.index("reasoning")
    assert kinds.index("reasoning") < kinds.index("text")


def test_json_done_text_is_the_whole_streamed_answer(server: ScriptedServer) -> None:
    """Text the model wrote before a tool call is part of the answer a script receives."""
    server.enqueue(
        tool_calls([("list_dir", "{}")], content="Let me look. "),
        text("The folder is empty."),
    )

    ran = run_ask(server, "--json", "What is here?")

    assert ran.code == 0, ran.stderr
    records = json_lines(ran)
    streamed = "".join(r["delta"] for r in of_type(records, "text"))
    assert streamed == "Let me look. The folder is empty."
    assert records[-1]["type"] == "done"
    assert records[-1]["text"] == streamed


def test_json_reports_a_failed_turn_as_an_error_event(server: ScriptedServer) -> None:
    server.enqueue(cut("This answer will not finish", after=3))

    ran = run_ask(server, "--json", "go")

    assert ran.code == 1
    records = json_lines(ran)
    error_event = records[-1]
    assert error_event["type"] == "error"
    assert error_event["chat"] == ran.chat and error_event["status"] == "interrupted"
    assert "broke mid-answer" in error_event["message"]
    partial = "".join(r["delta"] for r in of_type(records, "text"))
    assert partial and error_event["text"] == partial
    assert_clean_stderr(ran)


def test_json_reports_a_rejected_request(server: ScriptedServer) -> None:
    server.enqueue(error(401, message="bad key"))

    ran = run_ask(server, "--json", "go")

    assert ran.code == 3
    (event,) = of_type(json_lines(ran), "error")
    assert event["kind"] == "rejected" and "bad key" in event["message"]


# --- exit codes -----------------------------------------------------------------------------


def test_a_stream_cut_mid_answer_exits_1_and_keeps_the_partial(server: ScriptedServer) -> None:
    server.enqueue(cut("The first half and the second half", after=3))

    ran = run_ask(server, "go")

    assert ran.code == 1
    assert ran.stdout.startswith("The first half"[:8])
    assert "broke mid-answer" in ran.stderr and "partial answer was kept" in ran.stderr
    assistant = load_chat(ran.chat).messages[-1]
    assert assistant["status"] == "interrupted"
    assert ran.stdout.rstrip("\n") == assistant["content"]
    assert_clean_stderr(ran)


def test_the_round_limit_exits_1(server: ScriptedServer) -> None:
    write_trusted("tuibot.toml", "[agent]\nmax_rounds = 1\n")
    server.enqueue(tool_calls([("list_dir", "{}")]))

    ran = run_ask(server, "keep going")

    assert ran.code == 1, ran.stderr
    assert "limit of 1 model calls" in ran.stdout
    assert len(chat_bodies(server)) == 1
    assert_clean_stderr(ran)


def test_json_explains_the_round_limit_in_words(server: ScriptedServer) -> None:
    server.enqueue(tool_calls([("list_dir", "{}")]))

    ran = run_ask(server, "--json", "keep going", TUIBOT_AGENT__MAX_ROUNDS="1")

    assert ran.code == 1, ran.stderr
    event = json_lines(ran)[-1]
    assert event["type"] == "error" and event["status"] == "round_limit"
    assert "limit of 1 model calls" in event["message"]


@pytest.mark.parametrize(
    ("setup", "args", "said"),
    [
        ("broken_toml", [], "invalid TOML"),
        ("", ["--config", "missing.toml"], "config file not found"),
        ("bad_value", [], "agent.max_rounds"),
        ("", ["--provider", "nosuchprovider"], "nosuchprovider"),
    ],
)
def test_config_errors_exit_2_with_one_line(
    server: ScriptedServer, setup: str, args: list[str], said: str
) -> None:
    if setup == "broken_toml":
        write_trusted("tuibot.toml", "[agent\nmodel = 1\n")
    elif setup == "bad_value":
        write_trusted("tuibot.toml", '[agent]\nmax_rounds = "ten"\n')

    ran = run_ask(server, *args, "hello")

    assert ran.code == 2, ran.stderr
    assert ran.stderr.startswith("tuibot: ") and ran.stderr.count("\n") == 1, ran.stderr
    assert said in ran.stderr
    assert ran.stdout == ""
    assert server.requests == []


def test_a_closed_port_exits_3() -> None:
    ran = run_ask(closed_port_url(), "hello")

    assert ran.code == 3
    assert "Cannot reach the model server" in ran.stderr
    assert ran.stdout == ""
    assert_clean_stderr(ran)


def test_a_closed_port_exits_3_with_the_default_retries() -> None:
    ran = run(ask_argv(closed_port_url(), "hello"), env=_env_without_retry_override())

    assert ran.code == 3
    assert_clean_stderr(ran)


def _env_without_retry_override() -> dict[str, str]:
    """The child environment with the provider's default retries (two, with backoff)."""
    env = child_env()
    del env["TUIBOT_PROVIDERS__LOCAL__MAX_RETRIES"]
    return env


@pytest.mark.parametrize(
    ("status", "said"), [(400, "rejected the request (400)"), (401, "rejected the credentials")]
)
def test_a_server_rejecting_the_request_exits_3(
    server: ScriptedServer, status: int, said: str
) -> None:
    server.enqueue(error(status, message="scripted refusal"))

    ran = run_ask(server, "hello")

    assert ran.code == 3
    assert said in ran.stderr and "scripted refusal" in ran.stderr
    assert_clean_stderr(ran)
    assert f"chat {ran.chat} not kept" in ran.stderr  # nothing was answered (issue 17)
    assert not chat_store().exists(ran.chat)


# --- tool confirmation ----------------------------------------------------------------------

DANGER = """\
from pathlib import Path

from tuibot import tool

MARKER = Path({marker!r})


@tool(confirm=True)
def danger(label: str = "x") -> str:
    \"\"\"Create the marker file (a stand-in for anything with side effects).\"\"\"
    MARKER.write_text(label, encoding="utf-8")
    return "created " + label
"""


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    """Where the confirm-only tool leaves its mark; the tool is installed as a user tool."""
    path = tmp_path / "marker.txt"
    write_user_tool("danger", DANGER.format(marker=str(path)))
    return path


def test_a_confirmed_tool_is_denied_when_not_interactive(
    server: ScriptedServer, marker: Path
) -> None:
    server.enqueue(tool_calls([("danger", '{"label": "boom"}')]), text("I was not allowed."))

    ran = run_ask(server, "--json", "do it")

    assert ran.code == 0, ran.stderr
    (result,) = of_type(json_lines(ran), "tool_result")
    assert result["ok"] is False
    assert "not interactive" in result["output"] and "--yes" in result["output"]
    assert not marker.exists()
    assert "not interactive" in sent(server)[-1]["content"]  # the model is told why


def test_yes_allows_a_confirmed_tool(server: ScriptedServer, marker: Path) -> None:
    server.enqueue(tool_calls([("danger", '{"label": "boom"}')]), text("Done."))

    ran = run_ask(server, "--yes", "do it")

    assert ran.code == 0, ran.stderr
    assert marker.read_text(encoding="utf-8") == "boom"
    assert sent(server)[-1]["content"] == "created boom"
    assert ran.stdout == "Done.\n"


@pytest.mark.parametrize(("answer", "allowed"), [("y", True), ("n", False), ("", False)])
def test_a_terminal_prompt_asks_before_a_confirmed_tool(
    server: ScriptedServer, marker: Path, answer: str, allowed: bool
) -> None:
    server.enqueue(tool_calls([("danger", '{"label": "tty"}')]), text("Finished."))

    code, stdout, terminal = run_on_terminal(
        ask_argv(server, "do it"), prompt=b"[N]o: ", answer=answer.encode() + b"\n"
    )

    assert code == 0, terminal
    assert "wants to run danger" in terminal and "Run danger?" in terminal
    assert "label: tty" in terminal
    assert marker.exists() is allowed
    assert stdout == "Finished.\n"
    reply = sent(server)[-1]["content"]
    if allowed:
        assert reply == "created tty"
    else:
        assert "denied by the user" in reply


def test_always_in_this_chat_skips_the_second_prompt(server: ScriptedServer, marker: Path) -> None:
    server.enqueue(
        tool_calls([("danger", '{"label": "one"}', "c1"), ("danger", '{"label": "two"}', "c2")]),
        text("Both done."),
    )

    code, _, terminal = run_on_terminal(ask_argv(server, "twice"), prompt=b"[N]o: ", answer=b"a\n")

    assert code == 0, terminal
    assert terminal.count("[N]o: ") == 1
    assert marker.read_text(encoding="utf-8") == "two"
    results = [m["content"] for m in sent(server) if m["role"] == "tool"]
    assert results == ["created one", "created two"]


def test_ctrl_c_at_the_prompt_exits_130_promptly(server: ScriptedServer, marker: Path) -> None:
    """The prompt waits in a thread on stdin; Ctrl+C must not wait for Enter as well."""
    server.enqueue(tool_calls([("danger", '{"label": "never"}')]))

    code, _, terminal = run_on_terminal(
        ask_argv(server, "do it"), prompt=b"[N]o: ", answer=signal.SIGINT, timeout=15
    )

    assert code == 130, terminal
    assert not marker.exists()
    assert "Traceback" not in terminal


# --- slash commands ---------------------------------------------------------------------------


def test_a_tool_command_runs_without_a_server() -> None:
    Path("report.md").write_text("# hi\n", encoding="utf-8")

    ran = run_ask(closed_port_url(), "/list_dir path=.")

    assert ran.code == 0, ran.stderr
    assert ran.stdout == "report.md (5 B)\n"
    assert_clean_stderr(ran)


def test_help_lists_commands_and_tools() -> None:
    ran = run_ask(closed_port_url(), "/help")

    assert ran.code == 0, ran.stderr
    assert ran.stdout.startswith("Commands:\n")
    assert "/list_dir path=…" in ran.stdout and "/read_file" in ran.stdout


def test_an_unknown_command_exits_1() -> None:
    ran = run_ask(closed_port_url(), "/nosuch thing=1")

    assert ran.code == 1
    assert ran.stdout == ""
    assert "Unknown command /nosuch" in ran.stderr
    assert_clean_stderr(ran)


def test_a_command_in_json_mode_is_one_command_event() -> None:
    ran = run_ask(closed_port_url(), "--json", "/list_dir")

    assert ran.code == 0, ran.stderr
    assert json_lines(ran) == [
        {"type": "command", "command": "/list_dir", "ok": True, "text": "(empty directory)"}
    ]


# --- start-up cost ------------------------------------------------------------------------------


def test_ask_with_an_openai_provider_imports_neither_litellm_nor_textual(
    server: ScriptedServer,
) -> None:
    server.enqueue(text("fast"))

    argv = tuibot_argv("ask", "--base-url", server.url, "--model", "test-model", "hi")
    ran = run([argv[0], "-X", "importtime", *argv[1:]])

    assert ran.code == 0, ran.stderr
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in ran.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    assert "openai" in imported and "tuibot.engine" in imported  # the parse found real lines
    heavy = {m for m in imported if m.split(".")[0] in ("litellm", "textual")}
    assert heavy == set()


# --- bad surroundings ---------------------------------------------------------------------------


@pytest.mark.parametrize("errors", ["strict", "surrogateescape"])
def test_stdin_that_is_not_utf8_is_refused_or_replaced_cleanly(
    server: ScriptedServer, errors: str
) -> None:
    """A UTF-8 locale reads stdin strictly, the C locale with surrogates; neither may crash."""
    server.enqueue(text("ok"))
    env = child_env(PYTHONIOENCODING=f"utf-8:{errors}")
    done = subprocess.run(
        ask_argv(server, "What is this?"),
        input=b"caf\xe9 \xff\xfe\n",
        capture_output=True,
        env=env,
        timeout=60,
    )
    ran = Ran(done.returncode, done.stdout.decode(), done.stderr.decode(errors="replace"))

    assert_clean_stderr(ran)
    if ran.code == 0:  # replaced: the model gets valid text
        assert "\ufffd" in sent(server)[-1]["content"]
    else:  # refused: one line that says what is wrong, nothing sent
        assert ran.code == 2, ran.stderr
        assert "UTF-8" in ran.stderr and ran.stderr.count("\n") == 1
        assert chat_bodies(server) == []


def test_a_broken_user_tool_is_reported_and_the_turn_still_runs(server: ScriptedServer) -> None:
    write_user_tool("broken", "def oops(:\n")
    server.enqueue(text("Still here."))

    ran = run_ask(server, "hello")

    assert ran.code == 0, ran.stderr
    assert ran.stdout == "Still here.\n"
    assert "tuibot: error: tool not loaded:" in ran.stderr and "broken.py" in ran.stderr
    assert_clean_stderr(ran)


def test_an_unwritable_data_home_exits_1_with_one_line(
    server: ScriptedServer, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")

    ran = run_ask(server, "hello", TUIBOT_DATA=str(blocker))

    assert ran.code == 1
    assert ran.stderr.startswith("tuibot: could not create chat") and ran.stderr.count("\n") == 1
    # --model is checked (GET /models) before the chat is made with it: nothing is sent
    assert [r.path for r in server.requests if r.method != "GET"] == []
