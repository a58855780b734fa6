"""The bundled file tools, loaded as plugins, and the workspace guard they stand on.

Everything runs against real files and real symlinks under ``tmp_path``; the tools are
loaded from the repository's ``tools/`` folder the way the engine loads them. Pipes,
sockets and devices where a file is expected are refused, never opened, and every bundled
tool has a timeout.
"""

from __future__ import annotations

import asyncio
import os
import socket
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuibot.system.paths import bundled_dir
from tuibot.toolkit import (
    ERROR_HINT,
    ToolRegistry,
    current_workspace,
    load_tool_folder,
    resolve_in_workspace,
    use_workspace,
)
from tuibot.toolkit.decorator import make_spec

# --- the guard ----------------------------------------------------------------------------


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret", encoding="utf-8")
    with use_workspace(root) as real_root:
        yield real_root


def test_workspace_defaults_to_cwd_and_nests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert current_workspace() == tmp_path.resolve()
    with use_workspace(tmp_path / "a") as a:
        with use_workspace(tmp_path / "b"):
            assert current_workspace() == tmp_path.resolve() / "b"
        assert current_workspace() == a
    assert current_workspace() == tmp_path.resolve()


def test_inside_paths_resolve(workspace: Path) -> None:
    (workspace / "docs").mkdir()
    assert resolve_in_workspace("docs/new.md") == workspace / "docs" / "new.md"
    assert resolve_in_workspace("./docs/../docs") == workspace / "docs"
    assert resolve_in_workspace(str(workspace / "docs")) == workspace / "docs"
    assert resolve_in_workspace(".") == workspace


def test_dotdot_escape_is_refused(workspace: Path) -> None:
    with pytest.raises(PermissionError) as info:
        resolve_in_workspace("../outside/secret.txt")
    assert str(info.value) == (f"path '../outside/secret.txt' is outside the workspace {workspace}")
    with pytest.raises(PermissionError):
        resolve_in_workspace("docs/../../outside")


def test_absolute_path_outside_is_refused(workspace: Path) -> None:
    with pytest.raises(PermissionError, match="is outside the workspace"):
        resolve_in_workspace("/etc/passwd")
    with pytest.raises(PermissionError):
        resolve_in_workspace(str(workspace.parent / "outside" / "secret.txt"))


def test_symlink_pointing_out_is_refused(workspace: Path) -> None:
    (workspace / "link").symlink_to(workspace.parent / "outside")
    (workspace / "file_link").symlink_to(workspace.parent / "outside" / "secret.txt")
    with pytest.raises(PermissionError, match="a symlink leads to"):
        resolve_in_workspace("link/secret.txt")
    with pytest.raises(PermissionError, match="a symlink leads to"):
        resolve_in_workspace("file_link")


def test_symlink_inside_is_followed(workspace: Path) -> None:
    (workspace / "real").mkdir()
    (workspace / "alias").symlink_to(workspace / "real")
    assert resolve_in_workspace("alias/x.txt") == workspace / "real" / "x.txt"


def test_dangling_symlink_is_judged_by_its_target(workspace: Path) -> None:
    (workspace / "out").symlink_to(workspace.parent / "outside" / "not_yet.txt")
    (workspace / "in").symlink_to(workspace / "later.txt")
    with pytest.raises(PermissionError):
        resolve_in_workspace("out")
    assert resolve_in_workspace("in") == workspace / "later.txt"
    with pytest.raises(FileNotFoundError, match="path 'in' does not exist"):
        resolve_in_workspace("in", must_exist=True)


def test_nul_byte_and_empty_path_are_refused(workspace: Path) -> None:
    with pytest.raises(ValueError, match="NUL byte"):
        resolve_in_workspace("a\0b")
    with pytest.raises(ValueError, match="path is empty"):
        resolve_in_workspace("  ")


def test_home_outside_the_workspace_is_refused(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(workspace.parent / "outside"))
    with pytest.raises(PermissionError, match=r"path '~/secret\.txt' is outside"):
        resolve_in_workspace("~/secret.txt")


def test_home_inside_the_workspace_is_allowed(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(workspace))
    assert resolve_in_workspace("~/notes.md") == workspace / "notes.md"


# --- the bundled tools --------------------------------------------------------------------


@pytest.fixture
def tools() -> ToolRegistry:
    specs, errors = load_tool_folder(bundled_dir("tools"), "bundled")
    assert errors == []
    registry = ToolRegistry()
    for spec in specs:
        registry.register(spec)
    assert {"read_file", "list_dir"} <= set(registry.names())
    assert all(s.source == "bundled" for s in specs)
    return registry


async def read(tools: ToolRegistry, **args: object) -> str:
    result = await tools.execute("read_file", dict(args))
    return result.output


def numbered(start: int, stop: int, fmt: str = "line {}") -> str:
    return "\n".join(f"{n:>6}\t{fmt.format(n)}" for n in range(start, stop + 1))


async def test_read_whole_small_file(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\r\ngamma", encoding="utf-8")
    assert await read(tools, path="a.txt") == "     1\talpha\n     2\tbeta\n     3\tgamma"


async def test_read_paginates_with_offset_and_limit(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 101)))
    first = await read(tools, path="big.txt", limit=10)
    assert first == numbered(1, 10) + (
        "\n[showing lines 1-10 of 100; call read_file with offset=10 to continue]"
    )
    middle = await read(tools, path="big.txt", offset=10, limit=5)
    assert middle.startswith("    11\tline 11\n")
    assert middle.endswith(
        "[showing lines 11-15 of 100; call read_file with offset=15 to continue]"
    )
    assert await read(tools, path="big.txt", offset=95) == numbered(96, 100)


async def test_read_caps_a_page_at_50_kb(tools: ToolRegistry, workspace: Path) -> None:
    row = "x" * 92  # each numbered line is 6 + 1 + 92 + 1 = 100 bytes
    (workspace / "wide.txt").write_text("".join(f"{row}\n" for _ in range(5000)))
    page = await read(tools, path="wide.txt")
    body, note = page.rsplit("\n", 1)
    assert len(page.encode()) <= 50 * 1024 + 200
    assert len(body.splitlines()) == 512  # 512 * 100 bytes = 51200 = exactly 50 KB
    assert (
        note
        == "[truncated: showing lines 1-512 of 5000; call read_file with offset=512 to continue]"
    )
    follow = await read(tools, path="wide.txt", offset=512)
    assert follow.startswith(f"   513\t{row}\n")


async def test_read_single_huge_line_shows_its_start(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "min.js").write_text("y" * 200_000 + "\nsecond\n")
    page = await read(tools, path="min.js")
    assert page.startswith("     1\tyyyy")
    assert "[line cut at 50 KB]" in page
    assert page.endswith(
        "[truncated: showing lines 1-1 of 2; call read_file with offset=1 to continue]"
    )
    assert len(page.encode()) < 52 * 1024


async def test_read_refuses_binary(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(100))
    result = await tools.execute("read_file", {"path": "img.png"})
    assert result.ok is False
    assert result.output.startswith("Error: 'img.png' looks like a binary file")
    assert result.output.endswith(ERROR_HINT)


async def test_read_decodes_bad_utf8_with_replacement(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "latin.txt").write_bytes(b"\xef\xbb\xbfcaf\xe9\n")
    assert await read(tools, path="latin.txt") == "     1\tcaf\ufffd"


async def test_read_errors(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "dir").mkdir()
    (workspace / "empty.txt").write_text("")
    (workspace / "two.txt").write_text("a\nb\n")
    missing = await tools.execute("read_file", {"path": "nope.txt"})
    assert missing.ok is False
    assert missing.output == f"Error: file not found: nope.txt\n\n{ERROR_HINT}"
    assert (await read(tools, path="dir")).startswith("Error: 'dir' is a directory; use list_dir")
    assert await read(tools, path="empty.txt") == "(empty file)"
    assert (await read(tools, path="two.txt", offset=2)).startswith(
        "Error: offset 2 is past the end of the file (2 lines)"
    )
    outside = await read(tools, path="../outside/secret.txt")
    assert outside.startswith("Error: path '../outside/secret.txt' is outside the workspace")
    os.mkfifo(workspace / "pipe")
    assert (await read(tools, path="pipe")).startswith("Error: 'pipe' is not a regular file")
    bad = await read(tools, path="two.txt", limit=0)
    assert bad.startswith("Error: invalid arguments for read_file: argument 'limit' must be >= 1")


async def test_list_dir(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "README.md").write_text("x" * 2048)
    (workspace / "a.txt").write_text("hi")
    (workspace / ".hidden").write_text("")
    (workspace / "to_src").symlink_to(workspace / "src")
    (workspace / "gone").symlink_to(workspace / "missing.txt")
    result = await tools.execute("list_dir", {})
    assert result.ok
    assert result.output.splitlines() == [
        ".hidden (0 B)",
        "a.txt (2 B)",
        "gone -> " + str(workspace / "missing.txt") + " (broken)",
        "README.md (2.0 KB)",
        "src/",
        "to_src/ -> " + str(workspace / "src"),
    ]


async def test_list_dir_says_nothing_about_what_a_link_out_points_at(
    tools: ToolRegistry, workspace: Path
) -> None:
    outside = workspace.parent / "outside"
    (workspace / "leak").symlink_to(outside / "secret.txt")
    (workspace / "leak_dir").symlink_to(outside)
    (workspace / "alias").symlink_to(workspace / "kept.txt")
    (workspace / "kept.txt").write_text("12345")
    lines = (await tools.execute("list_dir", {})).output.splitlines()
    assert lines == [
        "alias (5 B) -> " + str(workspace / "kept.txt"),
        "kept.txt (5 B)",
        "leak -> " + str(outside / "secret.txt") + " (outside the workspace)",
        "leak_dir -> " + str(outside) + " (outside the workspace)",
    ]


async def test_list_dir_caps_entries(tools: ToolRegistry, workspace: Path) -> None:
    for n in range(520):
        (workspace / f"f{n:04}").write_text("")
    lines = (await tools.execute("list_dir", {"path": "."})).output.splitlines()
    assert len(lines) == 501
    assert lines[0] == "f0000 (0 B)" and lines[499] == "f0499 (0 B)"
    assert lines[-1].startswith("[showing the first 500 of 520 entries")


async def test_list_dir_errors(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "file.txt").write_text("x")
    (workspace / "empty").mkdir()
    assert (await tools.execute("list_dir", {"path": "empty"})).output == "(empty directory)"
    missing = await tools.execute("list_dir", {"path": "nowhere"})
    assert missing.ok is False
    assert missing.output.startswith("Error: directory not found: nowhere")
    not_dir = (await tools.execute("list_dir", {"path": "file.txt"})).output
    assert not_dir.startswith("Error: 'file.txt' is a file, not a directory")
    escape = (await tools.execute("list_dir", {"path": ".."})).output
    assert escape.startswith("Error: path '..' is outside the workspace")


async def test_workspace_reaches_tools_running_in_threads(
    tools: ToolRegistry, tmp_path: Path
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for folder in (one, two):
        folder.mkdir()
        (folder / "who.txt").write_text(folder.name)

    async def read_in(folder: Path) -> str:
        with use_workspace(folder):
            await asyncio.sleep(0)
            return await read(tools, path="who.txt")

    assert await asyncio.gather(read_in(one), read_in(two)) == ["     1\tone", "     1\ttwo"]
    assert os.fspath(current_workspace()) == os.path.realpath(Path.cwd())


# --- pipes, sockets and devices -------------------------------------------------------------


@pytest.fixture
def specials(workspace: Path) -> Iterator[dict[str, str]]:
    """Name -> kind of a FIFO, a listening unix socket and (where allowed) a /dev/zero copy."""
    os.mkfifo(workspace / "pipe")
    made = {"pipe": "pipe", "sock": "socket"}
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(workspace / "sock"))
        sock.listen()
        try:
            os.mknod(workspace / "zero", stat.S_IFCHR | 0o600, os.makedev(1, 5))
            made["zero"] = "device"
        except PermissionError:  # not root, or a nodev mount
            pass
        yield made


async def test_read_file_refuses_pipes_sockets_and_devices(
    tools: ToolRegistry, workspace: Path, specials: dict[str, str]
) -> None:
    for name in specials:
        out = await read(tools, path=name)
        assert out.startswith(f"Error: '{name}' is not a regular file"), out


async def test_a_symlink_to_a_device_is_refused_not_read(
    tools: ToolRegistry, workspace: Path
) -> None:
    (workspace / "zeros").symlink_to("/dev/zero")
    assert (await read(tools, path="zeros")).startswith("Error: path 'zeros' is outside")
    with use_workspace("/"):  # a workspace that holds /dev itself
        out = await read(tools, path="/dev/zero")
    assert out.startswith("Error: '/dev/zero' is not a regular file"), out


async def test_list_dir_names_pipes_sockets_and_devices_without_opening_them(
    tools: ToolRegistry, workspace: Path, specials: dict[str, str]
) -> None:
    (workspace / "a.txt").write_text("hi")
    lines = (await tools.execute("list_dir", {})).output.splitlines()
    assert lines == ["a.txt (2 B)", *(f"{name} ({kind})" for name, kind in specials.items())]


async def test_disk_usage_of_a_pipe_or_socket_reads_the_filesystem_only(
    tools: ToolRegistry, workspace: Path, specials: dict[str, str]
) -> None:
    for name in specials:
        out = (await tools.execute("disk_usage", {"path": str(workspace / name)})).output
        assert out.startswith(f"{workspace / name} (filesystem mounted at "), out
        assert "free" in out


# --- timeouts -------------------------------------------------------------------------------


def test_every_bundled_tool_has_a_finite_timeout() -> None:
    specs, errors = load_tool_folder(bundled_dir("tools"), "bundled")
    assert errors == [] and len(specs) >= 15
    missing = sorted(spec.name for spec in specs if spec.timeout is None)
    assert missing == [], f"bundled tools without a timeout: {missing}"
    assert all(0 < spec.timeout <= 900 for spec in specs if spec.timeout is not None)


async def test_a_stuck_sync_tool_is_abandoned_at_its_timeout(workspace: Path) -> None:
    release = threading.Event()
    finished = threading.Event()

    def stuck() -> str:
        """Block until released, like a read from a pipe nobody writes to."""
        release.wait()
        finished.set()
        return "late"

    registry = ToolRegistry()
    registry.register(make_spec(stuck, timeout=0.2))
    result = await registry.execute("stuck", {})
    assert result.ok is False
    assert result.output.startswith("Error: tool 'stuck' timed out after 0.2 s")
    assert not finished.is_set()  # answered while the thread was still blocked: abandoned
    release.set()
    assert finished.wait(30)
