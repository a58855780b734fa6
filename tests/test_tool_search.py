"""``find_files`` and ``grep``, loaded as plugins from the bundled ``tools/`` folder.

Real trees under ``tmp_path`` with real symlinks. Besides what each tool finds, every
way out of the workspace is tried: ``..``, absolute paths, ``~``, NUL bytes, symlinked
folders and files that lead outside, a symlink loop and a dangling link. A FIFO, a unix
socket and a device in the searched tree must be left out, never opened.
"""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from engine_helpers import bundled_registry

from tuibot.toolkit import ERROR_HINT, ToolRegistry, use_workspace
from tuibot.toolkit.walk import glob_matcher


@pytest.fixture(scope="module")
def tools() -> ToolRegistry:
    return bundled_registry()


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "ws"
    for rel, body in {
        "README.md": "# Project\nTODO: write docs\n",
        "src/app.py": "def main():\n    return 1\n",
        "src/pkg/util.py": "import os\n# TODO tidy\n",
        "src/pkg/data.txt": "plain\n",
        "notes/todo.md": "- todo one\n",
        ".git/config": "TODO in git\n",
        "node_modules/lib/index.js": "// TODO in deps\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body, encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("TODO secret\n", encoding="utf-8")
    with use_workspace(root) as real_root:
        yield real_root


async def call(tools: ToolRegistry, name: str, **args: object) -> str:
    return (await tools.execute(name, dict(args))).output


# --- glob semantics ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.py", "app.py", True),
        ("*.py", "src/app.py", False),
        ("**/*.py", "app.py", True),
        ("**/*.py", "src/pkg/util.py", True),
        ("src/**", "src/pkg/util.py", True),
        ("src/*/util.py", "src/pkg/util.py", True),
        ("src/?pp.py", "src/app.py", True),
        ("src/?pp.py", "src/a/p.py", False),
        ("[!a]*.py", "app.py", False),
        ("[ab]*.py", "app.py", True),
        ("a+b(c).py", "a+b(c).py", True),
        ("a+b(c).py", "aab(c).py", False),
    ],
)
def test_glob_semantics(pattern: str, path: str, matches: bool) -> None:
    assert bool(glob_matcher(pattern).match(path)) is matches


# --- find_files -------------------------------------------------------------------------


async def test_find_files_lists_matches_sorted_and_relative(
    tools: ToolRegistry, workspace: Path
) -> None:
    out = await call(tools, "find_files", pattern="**/*.py")
    assert out.splitlines() == ["src/app.py", "src/pkg/util.py"]


async def test_find_files_skips_vcs_and_dependency_folders(
    tools: ToolRegistry, workspace: Path
) -> None:
    out = await call(tools, "find_files")
    assert ".git/config" not in out and "node_modules" not in out
    assert "README.md" in out.splitlines() and "notes/todo.md" in out.splitlines()


async def test_find_files_in_a_subfolder_matches_relative_to_it(
    tools: ToolRegistry, workspace: Path
) -> None:
    out = await call(tools, "find_files", pattern="*.py", path="src/pkg")
    assert out == "src/pkg/util.py"


async def test_a_top_level_pattern_with_no_match_suggests_the_recursive_form(
    tools: ToolRegistry, workspace: Path
) -> None:
    out = await call(tools, "find_files", pattern="*.txt")
    assert (
        out == "No files match '*.txt' in .; '*.txt' only looks in the folder itself, "
        "try '**/*.txt'"
    )


async def test_find_files_caps_the_count_and_says_so(tools: ToolRegistry, workspace: Path) -> None:
    for i in range(30):
        (workspace / f"gen{i:02}.log").write_text("x")
    out = await call(tools, "find_files", pattern="*.log", limit=5)
    lines = out.splitlines()
    assert lines[:5] == [f"gen{i:02}.log" for i in range(5)]
    assert lines[5] == "[showing 5 of 30 matches; narrow the pattern or the path]"


async def test_find_files_caps_the_size(tools: ToolRegistry, workspace: Path) -> None:
    deep = workspace / ("d" * 200)
    deep.mkdir()
    for i in range(400):
        (deep / f"{'f' * 100}{i:03}.txt").write_text("x")
    out = await call(tools, "find_files", pattern="**/*.txt", limit=1000)
    assert len(out.encode()) < 52 * 1024
    assert out.splitlines()[-1].startswith("[showing ") and "of 401 matches" in out


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("../*", "may not contain '..'"),
        ("src/../../outside/*", "may not contain '..'"),
        ("/etc/*", "must be relative"),
        ("~/*", "must be relative"),
        ("a\0b", "NUL byte"),
        ("  ", "pattern is empty"),
    ],
)
async def test_find_files_refuses_patterns_that_would_leave(
    tools: ToolRegistry, workspace: Path, pattern: str, reason: str
) -> None:
    out = await call(tools, "find_files", pattern=pattern)
    assert out.startswith("Error: ") and reason in out


@pytest.mark.parametrize("path", ["..", "../outside", "/", "~", "src/../../outside"])
async def test_find_files_refuses_folders_outside(
    tools: ToolRegistry, workspace: Path, path: str
) -> None:
    out = await call(tools, "find_files", path=path)
    assert out.startswith("Error: ") and "outside the workspace" in out
    assert "secret" not in out


async def test_find_files_never_enters_a_symlinked_folder(
    tools: ToolRegistry, workspace: Path
) -> None:
    (workspace / "escape").symlink_to(workspace.parent / "outside", target_is_directory=True)
    (workspace / "src" / "loop").symlink_to(workspace / "src", target_is_directory=True)
    out = await call(tools, "find_files", pattern="**/*.py")
    assert out.splitlines() == ["src/app.py", "src/pkg/util.py"]


async def test_find_files_leaves_out_file_links_to_outside_and_says_so(
    tools: ToolRegistry, workspace: Path
) -> None:
    (workspace / "leak.py").symlink_to(workspace.parent / "outside" / "secret.py")
    (workspace / "dangling.py").symlink_to(workspace / "gone.py")
    (workspace / "alias.py").symlink_to(workspace / "src" / "app.py")
    out = await call(tools, "find_files", pattern="*.py")
    assert out.splitlines() == [
        "alias.py",
        "[left out 1 symlink(s) leading outside the workspace]",
    ]


async def test_find_files_on_a_file_or_missing_folder(tools: ToolRegistry, workspace: Path) -> None:
    as_file = await call(tools, "find_files", path="README.md")
    assert as_file == f"Error: 'README.md' is a file, not a directory\n\n{ERROR_HINT}"
    missing = await call(tools, "find_files", path="nope")
    assert missing == f"Error: directory not found: nope\n\n{ERROR_HINT}"


# --- grep -------------------------------------------------------------------------------


async def test_grep_reports_path_line_and_text(tools: ToolRegistry, workspace: Path) -> None:
    out = await call(tools, "grep", pattern="TODO")
    assert out.splitlines() == ["README.md:2:TODO: write docs", "src/pkg/util.py:2:# TODO tidy"]


async def test_grep_ignore_case_and_glob(tools: ToolRegistry, workspace: Path) -> None:
    out = await call(tools, "grep", pattern="todo", ignore_case=True, glob="**/*.md")
    assert out.splitlines() == [
        "README.md:2:TODO: write docs",
        "notes/todo.md:1:- todo one",
    ]


async def test_grep_a_single_file(tools: ToolRegistry, workspace: Path) -> None:
    out = await call(tools, "grep", pattern=r"return \d", path="src/app.py")
    assert out == "src/app.py:2:    return 1"


async def test_grep_context_merges_overlaps_and_separates_groups(
    tools: ToolRegistry, workspace: Path
) -> None:
    body = "\n".join(["hit 1", "a", "hit 3", "b", "c", "d", "e", "hit 8", "f"]) + "\n"
    (workspace / "ctx.txt").write_text(body)
    out = await call(tools, "grep", pattern="^hit", path="ctx.txt", context=1)
    assert out.splitlines() == [
        "ctx.txt:1:hit 1",
        "ctx.txt-2-a",
        "ctx.txt:3:hit 3",
        "ctx.txt-4-b",
        "--",
        "ctx.txt-7-e",
        "ctx.txt:8:hit 8",
        "ctx.txt-9-f",
    ]


async def test_grep_refuses_a_bad_regex_clearly(tools: ToolRegistry, workspace: Path) -> None:
    out = await call(tools, "grep", pattern="(unclosed")
    assert out.startswith("Error: invalid regular expression '(unclosed': missing )")


async def test_grep_skips_binary_and_big_files_and_counts_them(
    tools: ToolRegistry, workspace: Path
) -> None:
    (workspace / "blob.bin").write_bytes(b"TODO\0\x01\x02")
    with (workspace / "huge.log").open("wb") as handle:
        handle.truncate(5 * 1024 * 1024 + 1)
    out = await call(tools, "grep", pattern="TODO")
    assert "blob.bin" not in out.replace("[skipped", "")
    assert out.splitlines()[-1] == "[skipped files: 1 binary, 1 over 5 MB]"


async def test_grep_reads_bad_utf8_and_a_bom(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "latin1.txt").write_bytes(b"caf\xe9 TODO\n")
    (workspace / "bom.txt").write_bytes("\ufeffTODO first\n".encode())
    out = await call(tools, "grep", pattern="TODO", glob="*.txt")
    assert out.splitlines() == ["bom.txt:1:TODO first", "latin1.txt:1:caf\ufffd TODO"]


async def test_grep_limit_and_output_cap(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "many.txt").write_text("".join(f"match {i}\n" for i in range(500)))
    limited = await call(tools, "grep", pattern="match", path="many.txt", limit=3)
    assert limited.splitlines() == [
        "many.txt:1:match 0",
        "many.txt:2:match 1",
        "many.txt:3:match 2",
        "[stopped at 3 matching lines; narrow the pattern, path or glob]",
    ]
    (workspace / "wide.txt").write_text(("x" * 290 + " match\n") * 2000)
    capped = await call(tools, "grep", pattern="match", path="wide.txt", limit=2000)
    assert len(capped.encode()) < 51 * 1024
    assert capped.splitlines()[-1].startswith("[stopped at ")


async def test_grep_cuts_long_lines(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "min.js").write_text("var a=1;" * 100 + "TODO")
    out = await call(tools, "grep", pattern="TODO", path="min.js")
    assert out.startswith("min.js:1:var a=1;") and out.endswith("… [504 more characters]")


async def test_grep_no_match_is_said_plainly(tools: ToolRegistry, workspace: Path) -> None:
    assert await call(tools, "grep", pattern="zzz-none") == "No matches for 'zzz-none' in ."


@pytest.mark.parametrize("path", ["..", "../outside/secret.py", "/etc/passwd", "~", "a\0b"])
async def test_grep_refuses_paths_outside(tools: ToolRegistry, workspace: Path, path: str) -> None:
    out = await call(tools, "grep", pattern="TODO", path=path)
    assert out.startswith("Error: ") and "secret" not in out.replace(path, "")


@pytest.mark.parametrize("glob", ["../**", "/etc/*", "~/*"])
async def test_grep_refuses_globs_that_would_leave(
    tools: ToolRegistry, workspace: Path, glob: str
) -> None:
    out = await call(tools, "grep", pattern="TODO", glob=glob)
    assert out.startswith("Error: glob must be a relative pattern")


async def test_grep_does_not_follow_links_out_or_loop(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "escape").symlink_to(workspace.parent / "outside", target_is_directory=True)
    (workspace / "leak.py").symlink_to(workspace.parent / "outside" / "secret.py")
    (workspace / "src" / "loop").symlink_to(workspace / "src", target_is_directory=True)
    (workspace / "dangling").symlink_to(workspace / "nothing")
    out = await call(tools, "grep", pattern="TODO")
    assert "secret" not in out
    assert out.splitlines() == [
        "README.md:2:TODO: write docs",
        "src/pkg/util.py:2:# TODO tidy",
        "[left out 1 symlink(s) leading outside the workspace]",
    ]


async def test_grep_through_a_link_to_a_file_outside_is_refused(
    tools: ToolRegistry, workspace: Path
) -> None:
    (workspace / "leak.py").symlink_to(workspace.parent / "outside" / "secret.py")
    out = await call(tools, "grep", pattern="TODO", path="leak.py")
    assert out.startswith("Error: path 'leak.py' is outside the workspace")
    assert os.path.islink(workspace / "leak.py")


# --- pipes, sockets and devices -------------------------------------------------------------


@pytest.fixture
def specials(workspace: Path) -> Iterator[list[str]]:
    """A FIFO, a listening unix socket and (where mknod is allowed) a copy of /dev/zero.

    All named ``*.txt`` inside ``src/pkg``, beside a real text file: a search that opens
    the FIFO blocks forever, one that opens the device reads zeros.
    """
    folder = workspace / "src" / "pkg"
    os.mkfifo(folder / "pipe.txt")
    made = ["src/pkg/pipe.txt", "src/pkg/sock.txt"]
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(folder / "sock.txt"))
        sock.listen()
        try:
            os.mknod(folder / "zero.txt", stat.S_IFCHR | 0o600, os.makedev(1, 5))
            made.append("src/pkg/zero.txt")
        except PermissionError:  # not root, or a nodev mount: the pipe and socket remain
            pass
        yield made


async def test_grep_never_opens_pipes_sockets_or_devices(
    tools: ToolRegistry, workspace: Path, specials: list[str]
) -> None:
    out = await call(tools, "grep", pattern="TODO|plain")
    assert out.splitlines() == [
        "README.md:2:TODO: write docs",
        "src/pkg/data.txt:1:plain",
        "src/pkg/util.py:2:# TODO tidy",
        f"[skipped files: {len(specials)} not regular (pipe, socket or device)]",
    ]


@pytest.mark.parametrize("name", ["pipe.txt", "sock.txt", "zero.txt"])
async def test_grep_on_one_pipe_socket_or_device_refuses_to_read_it(
    tools: ToolRegistry, workspace: Path, specials: list[str], name: str
) -> None:
    if f"src/pkg/{name}" not in specials:
        pytest.skip("mknod is not allowed here")
    out = await call(tools, "grep", pattern=".", path=f"src/pkg/{name}")
    assert out.splitlines() == [
        f"No matches for '.' in src/pkg/{name}",
        "[skipped files: 1 not regular (pipe, socket or device)]",
    ]


async def test_find_files_leaves_out_pipes_sockets_and_devices(
    tools: ToolRegistry, workspace: Path, specials: list[str]
) -> None:
    out = await call(tools, "find_files", pattern="**/*.txt")
    assert out.splitlines() == [
        "src/pkg/data.txt",
        f"[left out {len(specials)} pipe(s), socket(s) or device(s)]",
    ]
