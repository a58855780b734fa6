"""``tuibot delegations list`` and ``show``: the journal read back without an engine."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Any

import pytest

from tuibot.cli import main
from tuibot.delegation.journal import DelegationJournal
from tuibot.delegation.records import Delegation, Limits, Parent, Pause, Usage
from tuibot.store.chats import ChatStore
from tuibot.store.jsonl import sidecar_path
from tuibot.system.paths import DataPaths

DAY = 24 * 3600


def journal() -> DelegationJournal:
    return DelegationJournal(DataPaths.default().delegations)


def build(
    *,
    given_in: str = "c_top",
    bot: str = "Coder",
    giver: str = "Assistant",
    task: str = "Write the parser",
    age: float = 0,
    **changes: Any,
) -> Delegation:
    """A record given in chat ``given_in``, created and updated ``age`` seconds ago."""
    when = time.time() - age
    record = Delegation.new(
        parent=Parent(given_in, "t_1", "call_1"),
        giver_bot=giver,
        bot=bot,
        task=task,
        reason="needs a specialist",
        limits=Limits(60_000, steps=10, budget_micros=5_000),
        now=when,
    )
    return replace(record, updated=when, **changes)


def stored(**fields: Any) -> Delegation:
    """:func:`build`, written to the journal as revision 1."""
    return journal().create(build(**fields))


def out_lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_list_when_empty(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["delegations"]) == 0  # bare `tuibot delegations` lists
    assert capsys.readouterr().out == "No delegations.\n"
    assert not DataPaths.default().delegations.exists()


def test_list_puts_open_work_first_and_hides_old_ended_work(
    capsys: pytest.CaptureFixture[str],
) -> None:
    old_open = stored(task="old open", age=3 * DAY, status="running", chat="c_a")
    new_open = stored(task="new open", age=60, status="queued")
    ended = stored(task="ended today", age=3600, status="completed", result="done")
    old_ended = stored(task="ended long ago", age=3 * DAY, status="failed")

    assert main(["delegations", "list"]) == 0
    lines = out_lines(capsys)
    assert [line.split()[0] for line in lines[:3]] == [new_open.id, old_open.id, ended.id]
    assert old_ended.id not in "\n".join(lines)
    assert lines[3] == "(1 delegation ended over 24 h ago not shown; --all lists them)"
    assert lines[0].split()[1] == "queued" and lines[0].endswith("new open")

    assert main(["delegations", "list", "--all"]) == 0
    lines = out_lines(capsys)
    assert [line.split()[0] for line in lines] == [new_open.id, old_open.id, ended.id, old_ended.id]


def test_list_chat_shows_the_tree_indented(capsys: pytest.CaptureFixture[str]) -> None:
    chats = ChatStore(DataPaths.default().chats)
    top = chats.create(bot="Assistant").id
    child = stored(given_in=top, task="child", status="running", age=30)
    child = journal().update(replace(child, chat="c_child_task"), expected_rev=1)
    grandchild = stored(given_in="c_child_task", bot="Reviewer", giver="Coder", task="grandchild")
    sibling = stored(given_in=top, task="sibling", status="completed", age=10)
    elsewhere = stored(given_in="c_other", task="not in this tree")

    assert main(["delegations", "list", "--chat", top[:-2]]) == 0
    lines = out_lines(capsys)
    assert lines[0].startswith(child.id)
    assert lines[1].startswith("  " + grandchild.id)
    assert lines[2].startswith(sibling.id)
    assert len(lines) == 3 and elsewhere.id not in "\n".join(lines)


def test_list_chat_keeps_a_parent_above_shown_work(capsys: pytest.CaptureFixture[str]) -> None:
    parent = stored(given_in="c_root", status="completed", chat="c_mid", age=3 * DAY)
    below = stored(given_in="c_mid", task="still going", status="running")
    lonely = stored(given_in="c_root", task="old and alone", status="failed", age=3 * DAY)

    assert main(["delegations", "list", "--chat", "c_root"]) == 0
    lines = out_lines(capsys)
    assert lines[0].startswith(parent.id) and lines[1].startswith("  " + below.id)
    assert lonely.id not in "\n".join(lines)
    assert lines[-1].startswith("(1 delegation ended")


def test_list_chat_prefix_matches_chats_the_journal_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    gone = stored(given_in="c_20260301T0915_aaaa", task="its chat file is gone")
    stored(given_in="c_20260302T1000_bbbb", task="other day")
    stored(given_in="c_20260302T1100_cccc", task="other hour")
    saved = ChatStore(DataPaths.default().chats).create(bot="Assistant").id

    assert main(["delegations", "list", "--chat", "20260301"]) == 0
    assert [line.split()[0] for line in out_lines(capsys)] == [gone.id]
    assert main(["delegations", "list", "--chat", "c_20260302"]) == 2
    err = capsys.readouterr().err
    assert "ambiguous" in err and "c_20260302T1000_bbbb" in err and "c_20260302T1100_cccc" in err
    assert main(["delegations", "list", "--chat", saved]) == 0  # a saved chat that gave nothing
    assert capsys.readouterr().out == "No delegations.\n"


def test_list_json_is_the_records(capsys: pytest.CaptureFixture[str]) -> None:
    first = stored(task="one", age=5)
    second = stored(task="two", status="running")
    assert main(["delegations", "list", "--json"]) == 0
    records = [json.loads(line) for line in out_lines(capsys)]
    assert records == [second.to_json(), first.to_json()]


def test_list_unknown_chat_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    stored()
    assert main(["delegations", "list", "--chat", "c_nothing"]) == 2
    assert capsys.readouterr().err == "tuibot: no chat matches 'c_nothing'\n"


def test_show_by_prefix_prints_every_field(capsys: pytest.CaptureFixture[str]) -> None:
    record = stored(
        status="completed",
        chat="c_task",
        task="Write the parser\nwith tests",
        result="Done: parser.py\nand test_parser.py",
        usage=Usage(45_500, 7, 3_400),
        window=Usage(30_000, 4, 1_200),
    )
    given = stored(given_in="c_task", bot="Reviewer", giver="Coder", status="cancelled")
    assert main(["delegations", "show", record.id[4:10]]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == record.id
    assert "status     completed" in lines
    assert "bot        Coder" in lines
    assert "given by   Assistant in chat c_top" in lines
    assert "           turn t_1, tool call call_1" in lines
    assert "task chat  c_task" in lines
    assert "  time       15.5 s / 60 s" in lines
    assert "  steps      3 / 10" in lines
    assert "  budget     2200 µ$ ($0.0022) / 5000 µ$ ($0.005)" in lines
    assert "in all     45.5 s, 7 steps, 3400 µ$ ($0.0034) (limits restarted since)" in lines
    assert "rev        1" in lines
    assert "task\n  Write the parser\n  with tests\n" in out
    assert "reason\n  needs a specialist\n" in out
    assert "result\n  Done: parser.py\n  and test_parser.py\n" in out
    gave = lines[lines.index("gave") + 1]
    assert gave.startswith(f"  {given.id}  cancelled")


def test_show_paused_names_the_pause_and_what_it_waits_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    at = time.time() - 120
    above = stored(status="paused", chat="c_task", pause=Pause("budget", "req_7", None, at))
    below = stored(
        given_in="c_task",
        status="paused",
        bot="Reviewer",
        pause=Pause("budget", None, above.id, at),
    )
    assert main(["delegations", "show", above.id]) == 0
    lines = out_lines(capsys)
    assert "status     paused" in lines
    assert any(
        line.startswith("paused     since ") and line.endswith(": its budget limit was reached")
        for line in lines
    )
    assert "waits on   a person's answer to request req_7" in lines
    assert "result     (none yet)" in lines

    assert main(["delegations", "show", f"dlg_{below.id[4:12]}"]) == 0
    lines = out_lines(capsys)
    assert any(f"{above.id}, the work above it is paused (budget)" in line for line in lines)
    assert f"waits on   the decision about {above.id}" in lines
    assert f"given by   Assistant in chat c_task (task chat of {above.id})" in lines


def test_show_json(capsys: pytest.CaptureFixture[str]) -> None:
    record = stored()
    assert main(["delegations", "show", "--json", record.id]) == 0
    assert json.loads(capsys.readouterr().out) == record.to_json()


def test_show_unknown_ambiguous_and_invalid(capsys: pytest.CaptureFixture[str]) -> None:
    first = journal().create(build(id="dlg_abc0000000000001"))
    second = journal().create(build(id="dlg_abc0000000000002"))
    journal().create(build(id="dlg_0000000000000003"))
    assert main(["delegations", "show", "abd"]) == 2
    assert capsys.readouterr().err.startswith("tuibot: no delegation matches 'abd'")
    assert main(["delegations", "show", "dlg_abc"]) == 2
    err = capsys.readouterr().err
    assert "ambiguous" in err
    assert f"{first.id} (authorizing, Coder)" in err and second.id in err
    assert main(["delegations", "show", "../x"]) == 2
    assert capsys.readouterr().err.startswith("tuibot: invalid delegation id '../x'")


def test_torn_last_line_is_reported_and_left_alone(capsys: pytest.CaptureFixture[str]) -> None:
    first = stored(task="first")
    second = stored(task="second", status="running")
    path = DataPaths.default().delegations
    with open(path, "ab") as handle:
        handle.write(b'{"id":"dlg_0123456789abcdef","parent":{"ch')
    before = path.read_bytes()

    assert main(["delegations", "list"]) == 0
    captured = capsys.readouterr()
    assert [line.split()[0] for line in captured.out.splitlines()] == [second.id, first.id]
    assert f"tuibot: warning: {path}, line 3: incomplete last line" in captured.err
    assert main(["delegations", "show", first.id]) == 0
    assert "line 3: incomplete last line" in capsys.readouterr().err
    assert path.read_bytes() == before
    assert not sidecar_path(path).exists()


def test_records_made_in_the_same_millisecond_list_newest_written_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    when = time.time()
    first = journal().create(replace(build(task="first"), created=when, updated=when))
    second = journal().create(replace(build(task="second"), created=when, updated=when))
    done = [
        journal().create(replace(build(task=name, status="completed"), created=when, updated=when))
        for name in ("done one", "done two")
    ]
    assert main(["delegations", "list"]) == 0
    listed = [line.split()[0] for line in out_lines(capsys)]
    assert listed == [second.id, first.id, done[1].id, done[0].id]


def test_reading_takes_no_lock(capsys: pytest.CaptureFixture[str]) -> None:
    path = DataPaths.default().delegations
    record = Delegation.new(
        parent=Parent("c_top"),
        giver_bot="Assistant",
        bot="Coder",
        task="by hand",
        reason="",
        limits=Limits(60_000),
    )
    path.write_text(json.dumps(record.to_json()) + "\n", encoding="utf-8")
    assert main(["delegations", "list"]) == 0
    assert capsys.readouterr().out.startswith(record.id)
    assert not journal().lock_path.exists()
