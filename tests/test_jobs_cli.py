"""``tuibot jobs``: the whole life of a job from the command line, and bad input refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tuibot.cli import main


def jobs_file(hermetic: Path) -> Path:
    return hermetic / "data" / "jobs.json"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["jobs", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_add_list_pause_resume_run_remove(
    hermetic: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schedule = ["--cron", "0 9 * * 1-5", "--tz", "Europe/Lisbon", "--name", "inbox"]
    limits = ["--steps", "5", "--budget", "0.05", "--time", "10m"]
    code, out, _ = run(capsys, "add", "Summarise my inbox.", *schedule, *limits)
    assert code == 0 and out.startswith("added job_")
    job_id = out.split()[1].rstrip(":")
    assert "no tuibot runs jobs now" in out
    [stored] = json.loads(jobs_file(hermetic).read_text(encoding="utf-8"))["jobs"]
    assert stored["limits"] == {"timeMs": 600_000, "steps": 5, "budgetMicros": 50_000}
    assert stored["schedule"] == {"cron": "0 9 * * 1-5", "tz": "Europe/Lisbon"}
    assert stored["chat"] is None and stored["bot"] == "Assistant"

    code, out, _ = run(capsys, "list")
    assert code == 0 and job_id in out and "cron 0 9 * * 1-5 (Europe/Lisbon)" in out
    assert run(capsys, "pause", job_id[4:])[0] == 0  # a prefix without job_ will do
    code, out, _ = run(capsys, "list", "--json")
    line = json.loads(out)
    assert line["paused"] is True and line["nextRun"] is None
    code, out, _ = run(capsys, "resume", job_id)
    assert code == 0 and "next run:" in out
    code, out, _ = run(capsys, "run", job_id)
    assert code == 0 and "will run when tuibot next starts" in out
    assert json.loads(jobs_file(hermetic).read_text())["jobs"][0]["runRequested"] is not None
    code, out, _ = run(capsys, "remove", job_id)
    assert code == 0 and out.startswith(f"removed {job_id}")
    assert run(capsys, "list")[1].startswith("No jobs.")


def test_results_to_a_chat_and_a_missing_chat(
    hermetic: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tuibot.store.chats import ChatStore

    chat = ChatStore(hermetic / "data" / "chats").create().id
    assert run(capsys, "add", "Ping me.", "--every", "1h", "--chat", chat[:12])[0] == 0
    assert json.loads(jobs_file(hermetic).read_text())["jobs"][0]["chat"] == chat
    code, _, err = run(capsys, "add", "Ping me.", "--every", "1h", "--chat", "c_19990101")
    assert code == 2 and "no chat matches" in err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--cron", "0 9 * * 8"], "bad day of week '8'"),
        (["--cron", "0 9 * *"], "5 fields"),
        (["--cron", "0 9 * * *", "--tz", "Atlantis/Capital"], "unknown time zone"),
        (["--at", "+20m", "--tz", "Atlantis/Capital"], "unknown time zone"),
        (["--every", "5s"], "between 60 s"),
        (["--at", "2001-01-01T09:00"], "already passed"),
        (["--every", "1h", "--bot", "Nobody"], "Nobody"),
        (["--every", "1h", "--delete-after-run"], "one-time (at) jobs"),
        (["--every", "1h", "--time", "100ms"], "not a duration"),
    ],
)
def test_bad_input_is_refused_with_a_clear_error_and_nothing_written(
    hermetic: Path, capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    code, out, err = run(capsys, "add", "Do something.", *argv)
    assert code == 2 and says in err and out == ""
    assert not jobs_file(hermetic).exists()


def test_a_malformed_file_is_reported_and_left_alone(
    hermetic: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = jobs_file(hermetic)
    path.write_text('{"version": 1, "jobs": [', encoding="utf-8")
    code, _, err = run(capsys, "list")
    assert code == 1 and str(path) in err and "invalid JSON" in err
    code, _, err = run(capsys, "add", "Do something.", "--every", "1h")
    assert code == 1 and str(path) in err
    assert path.read_text(encoding="utf-8") == '{"version": 1, "jobs": ['


def test_an_unknown_id_lists_the_known_ones(
    hermetic: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "add", "Do something.", "--every", "1h")
    code, _, err = run(capsys, "pause", "job_deadbeef")
    assert code == 2 and "no job 'job_deadbeef'" in err and "known jobs: job_" in err


def test_run_asks_the_process_that_holds_the_lock(
    hermetic: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tuibot.system.instance import InstanceLock

    lock = InstanceLock(hermetic / "data" / "tuibot.lock")
    assert lock.acquire("headless") is None
    try:
        run(capsys, "add", "Do something.", "--every", "1h")
        job_id = json.loads(jobs_file(hermetic).read_text())["jobs"][0]["id"]
        code, out, _ = run(capsys, "run", job_id)
        assert code == 0 and "asked a headless tuibot (pid" in out
        assert "Jobs run in a headless tuibot" in run(capsys, "list")[1]
    finally:
        lock.release()
