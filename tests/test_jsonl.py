"""The JSONL layer: whole-line durable appends, atomic rewrites, bad lines set aside."""

from __future__ import annotations

import errno
import json
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import pytest

from tuibot.store import jsonl
from tuibot.store.jsonl import (
    StorageError,
    append_lines,
    read_lines,
    rewrite_lines,
    sidecar_path,
)
from tuibot.store.traces import TraceLog


@contextmanager
def full_disk() -> Iterator[None]:
    """File writes fail like a full disk: half of the first write lands, then ENOSPC."""
    real = os.write
    state = {"calls": 0}

    def write(fd: int, data: bytes) -> int:
        if fd in (0, 1, 2):
            return real(fd, data)
        state["calls"] += 1
        if state["calls"] == 1 and len(data) > 1:
            return real(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "write", write)
        yield


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder holding only what the test writes."""
    path = tmp_path / "files"
    path.mkdir()
    return path


def sidecar_records(path: Path) -> list[dict]:
    return [json.loads(line) for line in sidecar_path(path).read_text("utf-8").splitlines()]


def test_round_trip_keeps_order_across_batches(folder: Path) -> None:
    path = folder / "sub" / "log.jsonl"
    append_lines(path, [{"n": 1}, {"n": 2}])
    append_lines(path, [{"n": 3, "nested": {"a": [1, None, True]}}])
    result = read_lines(path)
    assert result.records == [{"n": 1}, {"n": 2}, {"n": 3, "nested": {"a": [1, None, True]}}]
    assert result.problems == []
    assert path.read_bytes().endswith(b"\n")


def test_a_batch_is_one_write_call(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = folder / "log.jsonl"
    append_lines(path, [{"first": True}])
    real, calls = os.write, []

    def write(fd: int, data: bytes) -> int:
        calls.append(bytes(data))
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)
    append_lines(path, [{"n": i} for i in range(3)])
    assert len(calls) == 1
    assert calls[0].count(b"\n") == 3 and calls[0].endswith(b"\n")


def test_appends_and_rewrites_are_fsynced_before_returning(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = folder / "log.jsonl"
    real_fsync, synced = os.fsync, []

    def fsync(fd: int) -> None:
        synced.append(os.fstat(fd).st_size)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    append_lines(path, [{"n": 1}])
    assert path.stat().st_size in synced  # the file itself, with the new line in it
    synced.clear()
    rewrite_lines(path, [{"n": 2}, {"n": 3}])
    assert path.stat().st_size in synced and len(synced) >= 2  # the new file and the folder


def test_unicode_and_embedded_line_breaks_survive(folder: Path) -> None:
    path = folder / "log.jsonl"
    texts = [
        "a\nb",
        "crlf\r\nend",
        "sep\u2028par\u2029",
        "nel\x85x",
        "nul\x00",
        "日本語 ✓ 🎉",
        "\ud800",
    ]
    append_lines(path, [{"text": t} for t in texts])
    assert path.read_bytes().count(b"\n") == len(texts)
    result = read_lines(path)
    assert [r["text"] for r in result.records] == texts
    assert result.problems == []


def test_torn_last_line_is_set_aside_and_kept(folder: Path) -> None:
    path = folder / "log.jsonl"
    append_lines(path, [{"n": 1}])
    with open(path, "ab") as handle:
        handle.write(b'{"n": 2, "text": "cut o')
    result = read_lines(path)
    assert result.records == [{"n": 1}]
    [problem] = result.problems
    assert problem.line == 2
    assert problem.text == '{"n": 2, "text": "cut o'
    assert "incomplete last line" in problem.reason
    assert path.read_bytes() == b'{"n":1}\n'
    [kept] = sidecar_records(path)
    assert kept["line"] == 2 and kept["text"] == problem.text
    assert datetime.fromisoformat(kept["found"]).tzinfo is not None
    append_lines(path, [{"n": 3}])
    assert read_lines(path).records == [{"n": 1}, {"n": 3}]


def test_append_after_a_torn_line_starts_a_fresh_line(folder: Path) -> None:
    path = folder / "log.jsonl"
    path.write_bytes(b'{"n":1}\n{"n": 2, "te')
    append_lines(path, [{"n": 3}])
    result = read_lines(path)
    assert result.records == [{"n": 1}, {"n": 3}]
    assert [p.text for p in result.problems] == ['{"n": 2, "te']
    assert read_lines(path).problems == []


def test_complete_last_line_without_newline_is_kept(folder: Path) -> None:
    path = folder / "log.jsonl"
    path.write_bytes(b'{"n":1}\n{"n":2}')
    assert read_lines(path).records == [{"n": 1}, {"n": 2}]
    append_lines(path, [{"n": 3}])
    assert read_lines(path).records == [{"n": 1}, {"n": 2}, {"n": 3}]


def test_corrupt_middle_line_is_set_aside_and_loading_continues(folder: Path) -> None:
    path = folder / "log.jsonl"
    path.write_bytes(b'{"n":1}\nnot json at all\n[1, 2]\n\n{"n":4}\n')
    result = read_lines(path)
    assert result.records == [{"n": 1}, {"n": 4}]
    assert [(p.line, p.text) for p in result.problems] == [(2, "not json at all"), (3, "[1, 2]")]
    assert "invalid JSON" in result.problems[0].reason
    assert "not a JSON object" in result.problems[1].reason
    assert path.read_bytes() == b'{"n":1}\n{"n":4}\n'
    assert [r["text"] for r in sidecar_records(path)] == ["not json at all", "[1, 2]"]
    again = read_lines(path)
    assert again.records == result.records and again.problems == []


def test_invalid_utf8_is_set_aside_byte_for_byte(folder: Path) -> None:
    path = folder / "log.jsonl"
    bad = b'{"text": "\xff\xfe"}'
    path.write_bytes(b'{"n":1}\n' + bad + b"\n")
    result = read_lines(path)
    assert result.records == [{"n": 1}]
    assert "UTF-8" in result.problems[0].reason
    [kept] = sidecar_records(path)
    assert kept["text"].encode("utf-8", "surrogateescape") == bad


def test_without_set_aside_nothing_is_touched(folder: Path) -> None:
    path = folder / "log.jsonl"
    original = b'{"n":1}\ngarbage\n{"n":3'
    path.write_bytes(original)
    result = read_lines(path, set_aside=False)
    assert result.records == [{"n": 1}]
    assert [p.line for p in result.problems] == [2, 3]
    assert path.read_bytes() == original
    assert not sidecar_path(path).exists()


def test_check_rejects_records_into_the_sidecar(folder: Path) -> None:
    path = folder / "log.jsonl"
    append_lines(path, [{"ok": 1}, {"bad": 2}, {"ok": 3}])
    result = read_lines(path, check=lambda r: None if "ok" in r else "no ok key")
    assert result.records == [{"ok": 1}, {"ok": 3}]
    assert [(p.line, p.reason) for p in result.problems] == [(2, "no ok key")]
    assert read_lines(path).records == [{"ok": 1}, {"ok": 3}]


EDGE_LINES = [
    b' {"lead": 1}',  # whitespace around a value: json.loads takes it
    b'{"trail": 2} \t',
    b'{"cr": 3}\r',
    b'\xef\xbb\xbf{"bom": 4}',  # json.loads refuses a BOM in text
    b'{"nan": NaN, "big": 123456789012345678901234567890}',
    b'{"dup": 1, "dup": 2}',
    b'{"sep": "a\xe2\x80\xa8b"}',  # U+2028 inside a string
    b"[1, 2]",
    b'"text"',
    b'{"a": 1} {"b": 2}',  # two values on one line
    b'{"cut": ',
    b"\xff\xfe{}",
]


def test_each_line_reads_as_json_loads_reads_it(folder: Path) -> None:
    """The loader's short path for ordinary lines agrees with json.loads on odd ones."""
    path = folder / "odd.jsonl"
    path.write_bytes(b"\n".join(EDGE_LINES) + b"\n")
    expected = []
    for raw in EDGE_LINES:
        try:
            value = json.loads(raw.decode("utf-8"))
        except ValueError:
            continue
        if isinstance(value, dict):
            expected.append(value)

    result = read_lines(path, set_aside=False)

    assert json.dumps(result.records) == json.dumps(expected)  # NaN != NaN: compare text
    assert [p.line for p in result.problems] == [4, 8, 9, 10, 11, 12]


def test_a_write_during_a_repair_is_not_lost(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = folder / "log.jsonl"
    path.write_bytes(b'{"n":1}\ngarbage\n')
    real_parse, calls = jsonl._parse, []

    def parse_then_someone_appends(data: bytes, check: object) -> object:
        parsed = real_parse(data, check)  # type: ignore[arg-type]
        if not calls:
            calls.append(1)
            append_lines(path, [{"n": "late"}])
        return parsed

    monkeypatch.setattr(jsonl, "_parse", parse_then_someone_appends)
    read_lines(path)
    assert read_lines(path).records == [{"n": 1}, {"n": "late"}]


def test_missing_file_reads_empty(tmp_path: Path) -> None:
    result = read_lines(tmp_path / "nothing.jsonl")
    assert result.records == [] and result.problems == []


def test_sidecar_name() -> None:
    assert sidecar_path(Path("/d/c_1.jsonl")) == Path("/d/c_1.corrupt.jsonl")
    assert sidecar_path(Path("/d/traces.jsonl")) == Path("/d/traces.corrupt.jsonl")


def test_rewrite_replaces_everything(folder: Path) -> None:
    path = folder / "log.jsonl"
    append_lines(path, [{"n": i} for i in range(5)])
    rewrite_lines(path, [{"n": "only"}])
    assert read_lines(path).records == [{"n": "only"}]
    assert os.listdir(folder) == ["log.jsonl"]


def test_rewrite_is_atomic_when_replace_fails(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = folder / "log.jsonl"
    append_lines(path, [{"n": 1}, {"n": 2}])
    original = path.read_bytes()

    def crash(src: object, dst: object) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(StorageError, match=r"could not rewrite .*log\.jsonl: Input/output error"):
        rewrite_lines(path, [{"n": "new"}])
    assert path.read_bytes() == original
    assert os.listdir(folder) == ["log.jsonl"]


def test_full_disk_on_append_leaves_the_file_intact(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = folder / "log.jsonl"
    append_lines(path, [{"n": 1}])
    original = path.read_bytes()
    with full_disk(), pytest.raises(StorageError) as caught:
        append_lines(path, [{"n": 2, "pad": "x" * 1000}])
    assert str(path) in str(caught.value)
    assert "No space left on device" in str(caught.value)
    assert caught.value.errno == errno.ENOSPC
    assert path.read_bytes() == original
    assert read_lines(path).records == [{"n": 1}]


def test_failed_fsync_cuts_the_batch_back_off(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = folder / "log.jsonl"
    append_lines(path, [{"n": 1}])
    original = path.read_bytes()
    real_fsync, state = os.fsync, {"failed": False}

    def fsync(fd: int) -> None:
        if not state["failed"]:
            state["failed"] = True
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(StorageError, match="No space left on device"):
        append_lines(path, [{"n": 2}])
    assert path.read_bytes() == original


def test_full_disk_on_rewrite_leaves_the_file_intact(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = folder / "log.jsonl"
    append_lines(path, [{"n": 1}, {"n": 2}])
    original = path.read_bytes()
    with full_disk(), pytest.raises(StorageError, match="No space left on device"):
        rewrite_lines(path, [{"n": "new", "pad": "y" * 5000}])
    assert path.read_bytes() == original
    assert os.listdir(folder) == ["log.jsonl"]


def test_unserializable_record_writes_nothing(folder: Path) -> None:
    path = folder / "log.jsonl"
    append_lines(path, [{"n": 1}])
    with pytest.raises(StorageError, match="record 1 is not JSON-serializable"):
        append_lines(path, [{"n": 2}, {"n": {1, 2}}])
    assert read_lines(path).records == [{"n": 1}]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores modes")
def test_permission_denied_names_the_file(folder: Path) -> None:
    path = folder / "log.jsonl"
    append_lines(path, [{"n": 1}])
    path.chmod(0o400)
    with pytest.raises(StorageError, match="Permission denied"):
        append_lines(path, [{"n": 2}])
    assert read_lines(path, set_aside=False).records == [{"n": 1}]


def test_trace_log_writes_one_line_per_record(tmp_path: Path) -> None:
    traces = TraceLog(tmp_path / "traces.jsonl")
    traces.write({"turn": "t1", "status": "completed", "cwd": tmp_path})
    traces.write({"turn": "t2", "status": "failed"})
    records = read_lines(tmp_path / "traces.jsonl").records
    assert records == [
        {"turn": "t1", "status": "completed", "cwd": str(tmp_path)},
        {"turn": "t2", "status": "failed"},
    ]


def test_trace_log_never_raises_on_storage_trouble(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "traces.jsonl"
    blocked.mkdir()  # a folder where the file should be: every write fails
    with caplog.at_level(logging.WARNING, logger="tuibot.traces"):
        TraceLog(blocked).write({"turn": "t1"})
        with full_disk():
            TraceLog(tmp_path / "other.jsonl").write({"turn": "t2"})
    warnings = [r.getMessage() for r in caplog.records if r.name == "tuibot.traces"]
    assert len(warnings) == 2
    assert str(blocked) in warnings[0]
    assert "No space left on device" in warnings[1]


def test_rewrite_head_can_append_in_the_same_replace(tmp_path: Path) -> None:
    """A new header and the lines after it in one durable write; a torn last line stays
    a line of its own (set aside on load), as an append would leave it."""
    path = tmp_path / "chat.jsonl"
    path.write_bytes(b'{"type": "chat"}\n{"n": 1}\n{"torn')
    inode = path.stat().st_ino

    jsonl.rewrite_head(path, {"type": "chat", "title": "t"}, then=[{"n": 2}, {"n": 3}])

    lines = path.read_bytes().split(b"\n")
    assert [json.loads(lines[0]), json.loads(lines[1])] == [
        {"type": "chat", "title": "t"},
        {"n": 1},
    ]
    assert lines[2] == b'{"torn'
    assert [json.loads(line) for line in lines[3:5]] == [{"n": 2}, {"n": 3}] and lines[5] == b""
    assert path.stat().st_ino != inode  # replaced whole, not appended to
