"""``tuibot ask`` with delegation: the real binary waits for results, within its limits.

The scripted server answers by the text of each request's last message (a
:class:`Script`), because delegated turns run concurrently.
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

from ask_helpers import ask_argv, json_lines, of_type, read_until, run_ask, start
from delegation_helpers import Script, delegate_call
from scripted_server import ScriptedServer, silent, text, tool_calls
from trust_helpers import write_trusted

TEN_MIN = {"timeMs": 600_000}


def helper_script(server: ScriptedServer, limits: dict[str, int] = TEN_MIN) -> Script:
    return Script(
        server,
        [
            ("Find hotels", delegate_call("Find three hotels.", limits)),
            ('"status": "queued"', text("Asked a helper.")),
            ("gives you this task: Find three hotels.", tool_calls([("list_dir", "{}", "l")])),
            ("(empty directory)", text("Hotel A, B, C.")),
            ("is done.", text("Your hotels: A, B, C.")),
        ],
    )


def test_ask_waits_for_delegated_work_and_prints_the_answer_that_follows(
    server: ScriptedServer, hermetic: Path
) -> None:
    helper_script(server)
    ran = run_ask(server, "Find hotels")
    assert ran.code == 0, ran.stderr
    assert ran.stdout == "Asked a helper.\nYour hotels: A, B, C.\n"
    assert "↳ dlg_" in ran.stderr and "Assistant: completed" in ran.stderr


def test_ask_json_reports_delegation_records(server: ScriptedServer, hermetic: Path) -> None:
    helper_script(server)
    ran = run_ask(server, "--json", "Find hotels")
    assert ran.code == 0, ran.stderr
    events = json_lines(ran)
    records = [e["record"] for e in of_type(events, "delegation")]
    assert records[0]["status"] == "queued" and records[-1]["status"] == "completed"
    assert records[-1]["result"] == "Hotel A, B, C."
    assert records[-1]["usage"]["steps"] == 2
    done = of_type(events, "done")
    assert [d["text"] for d in done] == ["Asked a helper.", "Your hotels: A, B, C."]


def test_a_limit_nobody_can_answer_exits_4_and_yes_alone_does_not_extend_it(
    server: ScriptedServer, hermetic: Path
) -> None:
    helper_script(server, {"timeMs": 600_000, "steps": 1})
    server.responder.rules.append(("was stopped", text("The helper was stopped.")))  # type: ignore[union-attr]
    plain = run_ask(server, "--json", "Find hotels")
    assert plain.code == 4, plain.stderr
    [request] = of_type(json_lines(plain), "approval")
    assert request["kind"] == "delegations.continue" and request["details"]["limit"] == "steps"
    [decided] = of_type(json_lines(plain), "approval_decided")
    assert decided["allowed"] is False and "--continue-at-limits" in decided["reason"]

    with_yes = run_ask(server, "--yes", "Find hotels")
    assert with_yes.code == 4, with_yes.stderr

    extended = run_ask(server, "--yes", "--continue-at-limits", "Find hotels")
    assert extended.code == 0, extended.stderr
    assert extended.stdout.endswith("Your hotels: A, B, C.\n")


def test_max_steps_stops_the_ask_with_exit_4(server: ScriptedServer, hermetic: Path) -> None:
    Script(
        server,
        [
            ("Keep going", tool_calls([("list_dir", "{}", "a")])),
            ("(empty directory)", tool_calls([("list_dir", '{"path": "."}', "b")])),
        ],
    )
    ran = run_ask(server, "--max-steps", "1", "Keep going")
    assert ran.code == 4, ran.stderr
    assert "--max-steps was reached" in ran.stderr
    chat_requests = [r for r in server.requests if r.path.endswith("/chat/completions")]
    assert len(chat_requests) == 1


def test_max_time_stops_hanging_delegated_work(server: ScriptedServer, hermetic: Path) -> None:
    Script(
        server,
        [
            ("Slow work", delegate_call("Wait forever", TEN_MIN)),
            ('"status": "queued"', text("Delegated.")),
            ("gives you this task: Wait forever", silent(60)),
        ],
    )
    started = time.monotonic()
    ran = run_ask(server, "--json", "--max-time", "2", "Slow work")
    assert ran.code == 4, ran.stderr
    assert time.monotonic() - started < 20
    records = [e["record"] for e in of_type(json_lines(ran), "delegation")]
    assert records[-1]["status"] == "cancelled"
    # Stopping is not news for the model: no turn starts after the stop.
    assert len(of_type(json_lines(ran), "done")) == 1


def test_yes_authorizes_work_for_another_bot(server: ScriptedServer, hermetic: Path) -> None:
    write_trusted("tuibot.toml", '[[bots]]\nname = "Coder"\ndescription = "Writes code"\n')
    Script(
        server,
        [
            ("Code it", delegate_call("Write x.py", TEN_MIN, bot="Coder", reason="code")),
            ('"status": "authorizing"', text("Asked the Coder.")),
            ("gives you this task: Write x.py", text("Written.")),
            ("is done.", text("The Coder wrote it.")),
        ],
    )
    denied = run_ask(server, "--bot", "Assistant", "Code it")
    assert denied.code == 4, denied.stderr
    allowed = run_ask(server, "--bot", "Assistant", "--yes", "--json", "Code it")
    assert allowed.code == 0, allowed.stderr
    records = [e["record"] for e in of_type(json_lines(allowed), "delegation")]
    assert records[0]["status"] == "authorizing" and records[-1]["status"] == "completed"
    assert json.dumps(records[-1]["bot"]) == '"Coder"'


def test_max_steps_with_delegated_work_stops_at_once(
    server: ScriptedServer, hermetic: Path
) -> None:
    Script(
        server,
        [
            ("Hand off", delegate_call("Wait forever", TEN_MIN)),
            ('"status": "queued"', text("Delegated.")),
            ("gives you this task: Wait forever", silent(60)),
        ],
    )
    started = time.monotonic()
    ran = run_ask(server, "--max-steps", "1", "--max-time", "60", "Hand off")
    assert ran.code == 4, ran.stderr
    assert time.monotonic() - started < 20
    assert "--max-steps was reached" in ran.stderr and "--max-time" not in ran.stderr


def test_ctrl_c_while_waiting_for_delegated_work_exits_130(
    server: ScriptedServer, hermetic: Path
) -> None:
    Script(
        server,
        [
            ("Hand off", delegate_call("Wait forever", TEN_MIN)),
            ('"status": "queued"', text("Delegated.")),
            ("gives you this task: Wait forever", silent(60)),
        ],
    )
    proc = start(ask_argv(server, "Hand off"))
    assert proc.stderr is not None
    read_until(proc.stderr, b"Assistant: running")
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=20) == 130


async def test_yes_resumes_work_after_a_restart_but_not_past_a_limit(
    server: ScriptedServer, hermetic: Path
) -> None:
    from delegation_helpers import make_engine

    from tuibot.frontends.ask import Approver

    engine = make_engine(server)
    approver = Approver(engine, "c_root", yes=True, interactive=False)
    engine.events.listen(approver)

    async def decide(limit: str) -> bool:
        details = {"delegation": "dlg_0000000000000000", "limit": limit}
        kind = "delegations.continue"
        return (await engine.approvals.ask("c_root", kind, "go on?", details, timeout=5)).allowed

    assert await decide("restart") is True
    assert await decide("steps") is False
    assert approver.unanswered == ["delegations.continue"]  # ask will exit 4 for that one
    await engine.close()
