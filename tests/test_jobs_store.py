"""jobs.json: strict reading, errors that name the file, nothing lost or overwritten."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tuibot.delegation.records import Limits
from tuibot.jobs.records import Job
from tuibot.jobs.schedule import Schedule, cron, every
from tuibot.jobs.store import JobNotFound, JobStore, JobStoreError


def job(job_id: str, **changes: object) -> Job:
    base = Job(
        id=job_id,
        name="backups",
        schedule=every(3600),
        message="Check the backups.",
        bot="Assistant",
        chat=None,
        limits=Limits(600_000, 20),
        created=1000.0,
        since=1000.0,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def test_jobs_round_trip_and_a_missing_file_is_no_jobs(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "jobs.json")
    assert store.all() == []
    first = job("job_0000000a", schedule=cron("0 9 * * 1-5", "Europe/Lisbon"))
    store.add(first)
    store.add(job("job_0000000b", created=2000.0))
    again = JobStore(tmp_path / "jobs.json")
    assert [j.id for j in again.all()] == ["job_0000000a", "job_0000000b"]
    assert again.get("0000000a") == first  # a prefix without job_ finds it
    assert oct((tmp_path / "jobs.json").stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "invalid JSON"),
        ('{"version": 9, "jobs": []}', "unsupported version 9"),
        ('{"version": 1, "jobs": {}}', '"jobs" to be a list'),
        ('{"version": 1, "jobs": [{"id": "nope"}]}', "job 0: id must be"),
        (
            '{"version": 1, "jobs": [{"id": "job_0000000a", "schedule": {"cron": "0 9 * * 9",'
            ' "tz": "UTC"}, "limits": {"timeMs": 60000}}]}',
            r"job 0 \(job_0000000a\): bad cron expression '0 9 \* \* 9': bad day of week '9'",
        ),
    ],
)
def test_a_malformed_file_is_an_error_naming_it_and_is_never_overwritten(
    tmp_path: Path, content: str, says: str
) -> None:
    path = tmp_path / "jobs.json"
    path.write_text(content, encoding="utf-8")
    store = JobStore(path)
    with pytest.raises(JobStoreError, match=says) as caught:
        store.all()
    assert str(path) in str(caught.value)
    with pytest.raises(JobStoreError):
        store.add(job("job_0000000c"))
    assert path.read_text(encoding="utf-8") == content


def test_changes_from_two_processes_to_one_job_both_survive(tmp_path: Path) -> None:
    path = tmp_path / "jobs.json"
    mine, theirs = JobStore(path), JobStore(path)
    mine.add(job("job_0000000a"))
    assert theirs.all()[0].paused is False
    theirs.change("job_0000000a", lambda j: replace(j, paused=True))
    assert mine.changed()  # the scheduler's poll sees another process wrote
    mine.change("job_0000000a", lambda j: replace(j, note="ran late"))
    [stored] = json.loads(path.read_text(encoding="utf-8"))["jobs"]
    assert stored["paused"] is True and stored["note"] == "ran late"


def test_unknown_and_ambiguous_ids_list_the_choices(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "jobs.json")
    store.add(job("job_0000000a"))
    store.add(job("job_0000000b"))
    with pytest.raises(JobNotFound, match="matches more than one job"):
        store.get("0000000")
    with pytest.raises(JobNotFound, match="known jobs: job_0000000a, job_0000000b"):
        store.get("job_ffffffff")
    store.change("job_0000000a", lambda _: None)
    assert [j.id for j in store.all()] == ["job_0000000b"]


def test_a_job_that_would_not_read_back_is_refused_and_the_others_stay_readable(
    tmp_path: Path,
) -> None:
    path = tmp_path / "jobs.json"
    store = JobStore(path)
    store.add(job("job_0000000a"))
    before = path.read_text(encoding="utf-8")
    when = datetime(2030, 1, 1, 9, tzinfo=UTC)
    unreadable = job("job_0000000b", schedule=Schedule("at", "Atlantis/Capital", at=when))
    with pytest.raises(JobStoreError, match=r"cannot be read back: .*Atlantis/Capital"):
        store.add(unreadable)
    assert path.read_text(encoding="utf-8") == before
    assert [j.id for j in JobStore(path).all()] == ["job_0000000a"]
