"""One chat, one turn at a time, across processes: real ``tuibot ask --chat`` processes.

Three processes that continue the same chat at once must take turns: the chat file reads
user, assistant, user, assistant, … and every model request carries the turns before it.
A process that cannot get the chat within ``--wait`` exits 2 and stores nothing.
"""

from __future__ import annotations

from typing import Any

from ask_helpers import (
    ask_argv,
    chat_bodies,
    chat_store,
    child_env,
    finish,
    load_chat,
    read_until,
    run_ask,
    start,
)
from scripted_server import ScriptedServer, silent, text


def _answer_each(body: dict[str, Any]) -> Any:
    """Answer every request slowly, naming the last user message (so turns can overlap)."""
    last = body["messages"][-1]["content"]
    return text(f"answer to {last}", pieces=4, delay=0.15)


def _roles_and_contents(chat: str) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in load_chat(chat).messages]


def test_three_processes_on_one_chat_take_turns(server: ScriptedServer) -> None:
    chat = chat_store().create(title="shared").id
    server.responder = _answer_each
    processes = [
        start(ask_argv(server, "--chat", chat, f"question {n}"), env=child_env()) for n in range(3)
    ]

    results = [finish(process, timeout=60) for process in processes]

    assert [code for code, _, _ in results] == [0, 0, 0], results
    pairs = _roles_and_contents(chat)
    assert [role for role, _ in pairs] == ["user", "assistant"] * 3, pairs
    for (_, question), (_, answer) in zip(pairs[::2], pairs[1::2], strict=True):
        assert answer == f"answer to {question}"
    bodies = chat_bodies(server)
    assert len(bodies) == 3
    for turn, body in enumerate(bodies):  # each turn saw every earlier one
        seen = [(m["role"], m["content"]) for m in body["messages"] if m["role"] != "system"]
        assert seen == pairs[: 2 * turn + 1], (turn, seen)


def test_a_waiting_process_says_who_holds_the_chat(server: ScriptedServer) -> None:
    chat = chat_store().create(title="shared").id
    server.enqueue(silent(60), text("second"))
    first = start(ask_argv(server, "--chat", chat, "first"))
    server.wait_for_requests(1, timeout=20)  # the first holds the chat, waiting on the model

    second = start(ask_argv(server, "--chat", chat, "--wait", "30", "second"))
    assert second.stderr is not None
    seen = read_until(second.stderr, b"waiting")

    assert f"chat {chat} is in use by another tuibot (pid {first.pid}); waiting".encode() in seen
    first.kill()  # the kernel drops a dead holder's lock: the second goes on at once
    first.wait()
    code, stdout, stderr = finish(second, timeout=30)
    assert code == 0, stderr
    assert stdout == "second\n"


def test_past_the_wait_ask_exits_2_and_stores_nothing(server: ScriptedServer) -> None:
    chat = chat_store().create(title="shared").id
    server.enqueue(silent(60))
    holder = start(ask_argv(server, "--chat", chat, "first"))
    try:
        server.wait_for_requests(1, timeout=20)

        ran = run_ask(server, "--chat", chat, "--wait", "0.3", "second")
        as_json = run_ask(server, "--chat", chat, "--wait", "0", "--json", "third")
    finally:
        holder.kill()
        holder.wait()

    assert ran.code == 2, ran.stderr
    assert f"chat {chat} is in use by another tuibot (pid {holder.pid})" in ran.stderr
    assert "--wait" in ran.stderr  # says how to wait longer
    assert ran.stdout == ""
    assert as_json.code == 2, as_json.stderr
    assert f"(pid {holder.pid})" in as_json.stderr  # the wait is told on stderr in --json too
    assert '"type": "error"' in as_json.stdout and '"kind": "busy"' in as_json.stdout
    contents = [content for _, content in _roles_and_contents(chat)]
    assert "second" not in contents and "third" not in contents


def test_wait_must_be_a_number_of_seconds(server: ScriptedServer) -> None:
    ran = run_ask(server, "--wait", "-1", "hello")

    assert ran.code == 2
    assert "--wait" in ran.stderr and "Traceback" not in ran.stderr
