"""The one JSON text-field reader keeps each record format's exact wording."""

from __future__ import annotations

import pytest

from tuibot.delegation.records import Delegation, Limits, Parent, RecordError
from tuibot.jobs.records import JobRecordError
from tuibot.store.json_fields import FieldReader
from tuibot.tasks import TaskError

TASKS = FieldReader(TaskError, "{where}{key} must be {wanted}, got {kind}")
JOBS = FieldReader(JobRecordError, "{where}: {key} must be {wanted}")


def test_each_wording_and_error_type_is_kept() -> None:
    with pytest.raises(TaskError, match=r"^task 3: title must be a string, got int$"):
        TASKS.text({"title": 5}, "title", "task 3: ")
    with pytest.raises(TaskError, match=r"^x: parent must be a string or null, got list$"):
        TASKS.optional_text({"parent": []}, "parent", "x: ")
    with pytest.raises(JobRecordError, match=r"^job_1: bot must be a non-empty string$"):
        JOBS.text({"bot": "  "}, "bot", "job_1", nonempty=True, strip=True)


def test_empty_and_blank_are_told_apart() -> None:
    assert TASKS.text({"k": "  "}, "k", "", nonempty=True) == "  "
    with pytest.raises(TaskError, match="must be a non-empty string"):
        TASKS.text({"k": ""}, "k", "", nonempty=True)
    assert JOBS.text({}, "note", "j", default="") == ""
    assert JOBS.optional_text({"chat": None}, "chat", "j") is None


def test_a_delegation_record_shows_a_short_bad_value_and_a_null_kind() -> None:
    record = Delegation.new(
        parent=Parent("c_1", turn="t_1", tool_call="call_1"),
        giver_bot="Assistant",
        bot="Researcher",
        task="t",
        reason="r",
        limits=Limits(60_000),
    ).to_json()
    where = f"delegation {record['id']}: "
    with pytest.raises(RecordError) as bad:
        Delegation.from_json(record | {"giverBot": 7})
    assert str(bad.value) == f"{where}giverBot must be a non-empty string, got 7"
    with pytest.raises(RecordError) as bad:
        Delegation.from_json(record | {"result": ["x"]})
    assert str(bad.value) == f"{where}result must be a string or null, got list"
    assert Delegation.from_json(record | {"task": ""}).task == ""
