"""``tuibot delegations cancel ID``: a person stops work from the shell.

The records are real journal lines and the giver's chat a real chat file: the command
must cancel the work and everything open below it and tell the giver's chat, both when
no tuibot runs and when one is running the work (it stops at its next step).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from delegation_helpers import Script, delegate_call, make_engine, messages_of, until
from scripted_server import Reply, ScriptedServer, text, tool_calls
from test_delegations_cli import journal, stored

from tuibot.cli import main
from tuibot.events import Notice
from tuibot.store.chats import ChatStore
from tuibot.system.paths import DataPaths


def test_cancel_stops_the_work_and_the_work_below_and_tells_the_giver(
    capsys: pytest.CaptureFixture[str],
) -> None:
    chats = ChatStore(DataPaths.default().chats)
    giver = chats.create(kind="direct", bot="Assistant").id
    work = stored(given_in=giver, status="running", chat="c_task")
    below = stored(given_in="c_task", status="paused", chat="c_deeper")
    done = stored(given_in="c_task", status="completed", result="fine")

    assert main(["delegations", "cancel", work.id[:10]]) == 0
    assert work.id in capsys.readouterr().out
    records = journal()
    records.load()
    assert records.get(work.id).status == "cancelled"  # type: ignore[union-attr]
    assert records.get(below.id).status == "cancelled"  # type: ignore[union-attr]
    assert records.get(done.id).status == "completed"  # type: ignore[union-attr]
    [notice] = [m for m in chats.load(giver, readonly=True).messages if m.get("notice")]
    assert notice["content"].startswith(f"[tuibot] The work {work.id} that you gave to Coder")
    assert "was stopped" in notice["content"]


def test_cancel_of_ended_or_unknown_work_says_so_and_changes_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ended = stored(status="completed", result="fine")
    assert main(["delegations", "cancel", ended.id]) == 1
    assert "already ended" in capsys.readouterr().err
    assert main(["delegations", "cancel", "dlg_ffffffffffffffff"]) == 2
    records = journal()
    records.load()
    assert records.get(ended.id).rev == 1  # type: ignore[union-attr]


async def test_a_running_tuibot_stops_work_cancelled_from_the_shell(
    server: ScriptedServer, hermetic: Path
) -> None:
    """The engine here stands for the other process: it shares only the files."""
    engine = make_engine(server)
    count = itertools.count()

    def look_again(body: dict[str, Any]) -> Reply:
        n = next(count)
        return tool_calls([("list_dir", json.dumps({"path": "." + "/." * n}), f"l{n}")])

    Script(
        server,
        [
            ("Look around", delegate_call("Keep looking.", {"timeMs": 600_000})),
            ('"status": "queued"', text("Asked a helper.")),
            ("", look_again),
        ],
    )
    errors: list[str] = []
    engine.events.listen(
        lambda e: errors.append(e.message) if isinstance(e, Notice) and e.level == "error" else None
    )
    chat = engine.new_chat(bot="Assistant").id
    await engine.send(chat, "Look around")
    await until(lambda: bool(engine.delegations.given_by(chat)))
    [work] = engine.delegations.given_by(chat)
    await until(lambda: (engine.delegations.get(work.id) or work).usage.steps >= 2)

    assert main(["delegations", "cancel", work.id]) == 0
    sent = len(server.requests)
    await until(lambda: not engine.busy(work.chat or ""))
    assert len(server.requests) <= sent + 1  # only a call already on its way
    [notice] = [m for m in messages_of(engine, chat) if m.get("notice")]
    assert "was stopped" in notice["content"]
    assert errors == []  # seen as cancelled, not as a conflicting write
    await engine.close()
