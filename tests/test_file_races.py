"""Attacks on the file tools that race them: a folder and a symlink exchanged mid-call.

A racer thread keeps exchanging two names in the workspace (``renameat2`` with
``RENAME_EXCHANGE`` where the kernel and filesystem have it, else a three-step rename)
while the real bundled tools run through the registry, as the engine runs them. The
assertions are about where bytes landed and what was left behind, never about speed.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from engine_helpers import bundled_registry

from tuibot.attachments import reading
from tuibot.attachments.refs import AttachmentError
from tuibot.toolkit import ToolRegistry, use_workspace

RENAME_EXCHANGE = 2
AT_FDCWD = -100
_libc = ctypes.CDLL(None, use_errno=True)


def _exchange(a: Path, b: Path) -> None:
    """Swap the names ``a`` and ``b`` atomically, or as near as this system allows."""
    renameat2 = getattr(_libc, "renameat2", None)
    pair = (AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b))
    if renameat2 is not None and renameat2(*pair, RENAME_EXCHANGE) == 0:
        return
    spare = a.with_name(a.name + ".swap")
    os.rename(a, spare)
    os.rename(b, a)
    os.rename(spare, b)


@contextmanager
def racing(a: Path, b: Path) -> Iterator[list[int]]:
    """Exchange ``a`` and ``b`` in a thread until the block ends; yields the swap count."""
    stop = threading.Event()
    swaps = [0]

    def race() -> None:
        while not stop.is_set():
            _exchange(a, b)
            swaps[0] += 1

    racer = threading.Thread(target=race, daemon=True)
    racer.start()
    try:
        yield swaps
    finally:
        stop.set()
        racer.join()


@pytest.fixture(scope="module")
def tools() -> ToolRegistry:
    return bundled_registry()


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    with use_workspace(root) as real_root:
        yield real_root


def residue(base: Path) -> list[str]:
    """Temporary files left anywhere under ``base``."""
    return sorted(str(p) for p in base.rglob("*tuibot-tmp*"))


async def test_a_folder_swapped_for_a_symlink_never_lets_a_write_out(
    tools: ToolRegistry, workspace: Path
) -> None:
    outside = workspace.parent / "outside"
    (workspace / "d").mkdir()
    (workspace / "flip").symlink_to(outside)
    results = []
    with racing(workspace / "d", workspace / "flip") as swaps:
        for i in range(1000):
            path = f"d/f{i}.txt" if i % 2 else f"d/new{i % 10}/f{i}.txt"  # folders made too
            results.append(await tools.execute("write_file", {"path": path, "content": "x"}))
    escaped = sorted(p.name for p in outside.iterdir())
    assert swaps[0] > 0
    temps = [name for name in escaped if name.endswith(".tuibot-tmp")]
    assert escaped == [], f"{len(escaped) - len(temps)} files and {len(temps)} temp files outside"
    assert residue(workspace.parent) == []
    written = [r for r in results if r.ok]
    inside = [p for p in workspace.rglob("f*.txt") if p.is_file()]
    assert len(inside) == len(written) > 0  # every write that said so landed, inside
    refused = [r.output for r in results if not r.ok]
    assert all("symlink" in out for out in refused), [o for o in refused if "symlink" not in o][:2]


async def test_a_file_swapped_for_a_fifo_is_refused_never_opened(
    tools: ToolRegistry, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("hello\n")
    os.mkfifo(workspace / "pipe")
    outputs = []
    with racing(workspace / "notes.txt", workspace / "pipe") as swaps:
        for _ in range(300):
            for name in ("read_file", "grep"):
                args = {"path": "notes.txt"} | ({"pattern": "hello"} if name == "grep" else {})
                outputs.append((await tools.execute(name, args)).output)
    assert swaps[0] > 0
    for out in outputs:
        assert "hello" in out or "not a regular file" in out or "No matches" in out, out


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("read_file", {"path": "d/notes.txt"}),
        ("edit_file", {"path": "d/notes.txt", "old_text": "notes", "new_text": "NOTES"}),
        ("list_dir", {"path": "d"}),
        ("grep", {"pattern": "notes|SECRET", "path": "d"}),
        ("find_files", {"pattern": "**/*", "path": "d"}),
    ],
)
async def test_a_folder_swapped_for_a_symlink_never_shows_or_changes_what_is_outside(
    tools: ToolRegistry, workspace: Path, tool: str, args: dict[str, str]
) -> None:
    outside = workspace.parent / "outside"
    (outside / "notes.txt").write_text("SECRET notes\n")
    (outside / "secret-name.txt").write_text("")
    (workspace / "d").mkdir()
    (workspace / "d" / "notes.txt").write_text("my notes\n")
    (workspace / "flip").symlink_to(outside)
    outputs = []
    with racing(workspace / "d", workspace / "flip") as swaps:
        for _ in range(300):
            outputs.append((await tools.execute(tool, args)).output)
    assert swaps[0] > 0
    leaked = [out for out in outputs if "SECRET" in out or "secret-name" in out]
    assert leaked == [], f"{len(leaked)} of 300 calls showed the outside folder: {leaked[0]}"
    assert (outside / "notes.txt").read_text() == "SECRET notes\n"
    assert residue(workspace.parent) == []


def test_an_attachment_read_never_follows_a_folder_swapped_for_a_symlink(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = workspace.parent / "outside"
    (outside / "notes.txt").write_text("SECRET notes\n")
    (workspace / "d").mkdir()
    (workspace / "d" / "notes.txt").write_text("my notes\n")
    (workspace / "flip").symlink_to(outside)
    checked = reading.resolve_in_workspace

    def check_then_swap(raw: str, **options: bool) -> Path:
        """The race lost on purpose: the path is checked, then the folder is swapped."""
        target = checked(raw, **options)
        _exchange(workspace / "d", workspace / "flip")
        return target

    monkeypatch.setattr(reading, "resolve_in_workspace", check_then_swap)
    with pytest.raises(AttachmentError, match="symlink"):
        reading.read_below("d/notes.txt", 1000)
    assert (workspace / "d").is_symlink()  # the swap did happen before the open
