"""``tuibot ask`` details people hit in their first minutes (issue 17, item 8).

``-c`` continues the last direct chat; a failed ask keeps no chat that holds no answer;
``--base-url`` without a scheme is a usage error that says so; a mistyped flag gets the
command's own usage and a suggestion. All as real processes.
"""

from __future__ import annotations

import os
import time

from ask_helpers import chat_store, closed_port_url, run, run_ask, tuibot_argv
from scripted_server import ScriptedServer, text


def test_continue_goes_on_in_the_most_recent_direct_chat(server: ScriptedServer) -> None:
    store = chat_store()
    older = store.create(title="Older")
    store.append(older.id, [{"role": "user", "content": "old"}])
    newer = store.create(title="Newer")
    store.append(newer.id, [{"role": "user", "content": "new"}])
    task = store.create(kind="task", title="A task")
    then = time.time() - 60
    os.utime(store.path(older.id), (then, then))
    assert task.id  # a task chat updated later is not "the last chat"
    server.enqueue(text("Continued."))

    ran = run_ask(server, "-c", "and then?")

    assert ran.code == 0, ran.stderr
    contents = [m["content"] for m in store.load(newer.id).messages]
    assert contents == ["new", "and then?", "Continued."]
    assert len(store.list()) == 3  # no new chat


def test_continue_with_no_chat_yet_or_with_chat_is_a_usage_error(server: ScriptedServer) -> None:
    ran = run_ask(server, "--continue", "hi")
    assert ran.code == 2 and "no chat to continue" in ran.stderr
    ran = run_ask(server, "-c", "--chat", "c_x", "hi")
    assert ran.code == 2 and "--continue" in ran.stderr


def test_a_failed_ask_keeps_no_chat_without_an_answer() -> None:
    ran = run(tuibot_argv("ask", "--base-url", closed_port_url(), "--model", "m", "hello"))
    assert ran.code == 3, ran.stderr
    assert chat_store().list() == []
    assert "tuibot: chat" not in ran.stderr  # --model is checked first: no chat was made


def test_a_failed_ask_in_an_existing_chat_keeps_that_chat(server: ScriptedServer) -> None:
    chat = chat_store().create(title="Mine")
    url = closed_port_url()
    ran = run(tuibot_argv("ask", "--base-url", url, "--model", "m", "--chat", chat.id, "hi"))
    assert ran.code == 3
    assert chat_store().exists(chat.id)


def test_base_url_without_a_scheme_says_so() -> None:
    ran = run(tuibot_argv("ask", "--base-url", "localhost:11434/v1", "hello"))
    assert ran.code == 2
    assert "http://localhost:11434/v1" in ran.stderr and "Is it running" not in ran.stderr
    assert chat_store().list() == []


def test_a_flag_typo_gets_the_commands_usage_and_a_suggestion() -> None:
    ran = run(tuibot_argv("ask", "--jsno", "hello"))
    assert ran.code == 2
    assert "usage: tuibot ask" in ran.stderr
    assert "--json" in ran.stderr.splitlines()[-1]
