"""The one atomic-write implementation: old file or new file, never a mix, nothing left."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tuibot.store.atomic import NotRegularFile, replace_file, write_into


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """An empty folder of its own (the suite's fixtures put homes into ``tmp_path``)."""
    path = tmp_path / "atomic"
    path.mkdir()
    return path


def test_new_file_gets_the_mode_and_missing_folders(folder: Path) -> None:
    target = folder / "a" / "b" / "f.json"
    assert replace_file(target, b"new", new_mode=0o600) is False
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert os.listdir(target.parent) == ["f.json"]


def test_existing_file_keeps_its_mode(folder: Path) -> None:
    target = folder / "f"
    target.write_bytes(b"old")
    target.chmod(0o640)
    assert replace_file(target, b"new", new_mode=0o600) is True
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_symlink_at_the_target_is_replaced_not_followed(folder: Path) -> None:
    outside = folder / "outside"
    outside.write_bytes(b"untouched")
    link = folder / "data" / "f"
    link.parent.mkdir()
    link.symlink_to(outside)
    replace_file(link, b"new")
    assert outside.read_bytes() == b"untouched"
    assert not link.is_symlink() and link.read_bytes() == b"new"


def test_a_fifo_at_the_target_is_refused(folder: Path) -> None:
    fifo = folder / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile, match="pipe"):
        replace_file(fifo, b"new")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert os.listdir(folder) == ["pipe"]


def test_a_check_that_raises_cancels_and_leaves_nothing(folder: Path) -> None:
    target = folder / "f"
    target.write_bytes(b"old")

    def changed() -> None:
        raise RuntimeError("changed since read")

    with pytest.raises(RuntimeError, match="changed since read"):
        replace_file(target, b"new", before_replace=changed)
    assert target.read_bytes() == b"old"
    assert os.listdir(folder) == ["f"]


def test_write_into_works_inside_a_folder_descriptor(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        assert write_into(fd, "f", b"one", 0o600) is False
        assert write_into(fd, "f", b"two", 0o600) is True
    finally:
        os.close(fd)
    assert (folder / "f").read_bytes() == b"two"
    assert os.listdir(folder) == ["f"]
