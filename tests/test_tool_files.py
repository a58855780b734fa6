"""``write_file`` and ``edit_file``, loaded as plugins from the bundled ``tools/`` folder.

Real files and real symlinks under ``tmp_path``. Each escape attempt also checks that
nothing was created outside the workspace, and the protected-path rule is tested with the
workspace holding, or lying inside, tuibot's own folders.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from ask_helpers import config_home, json_lines, of_type, run_ask
from engine_helpers import bundled_registry
from scripted_server import ScriptedServer, text, tool_calls

from tuibot.system.paths import bundled_dir
from tuibot.toolkit import ERROR_HINT, ToolRegistry, use_workspace


@pytest.fixture(scope="module")
def tools() -> ToolRegistry:
    return bundled_registry()


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret", encoding="utf-8")
    with use_workspace(root) as real_root:
        yield real_root


def outside_listing(workspace: Path) -> list[str]:
    """Everything under the folder beside the workspace (to prove nothing was created)."""
    base = workspace.parent / "outside"
    return sorted(str(p.relative_to(base)) for p in base.rglob("*"))


async def call(tools: ToolRegistry, name: str, **args: object) -> str:
    return (await tools.execute(name, dict(args))).output


def prompt(tools: ToolRegistry, name: str, **args: object) -> str | None:
    spec = tools.get(name)
    assert spec is not None
    return spec.confirmation_prompt(dict(args))


# --- write_file -----------------------------------------------------------------------------


async def test_write_creates_a_file_and_its_folders(tools: ToolRegistry, workspace: Path) -> None:
    out = await call(tools, "write_file", path="src/pkg/mod.py", content="x = 1\ny = 2\n")
    assert out == "Created src/pkg/mod.py (12 bytes, 2 lines)"
    assert (workspace / "src/pkg/mod.py").read_bytes() == b"x = 1\ny = 2\n"


async def test_write_overwrites_exactly_and_keeps_the_mode(
    tools: ToolRegistry, workspace: Path
) -> None:
    target = workspace / "run.sh"
    target.write_text("old\n")
    target.chmod(0o750)
    out = await call(tools, "write_file", path="run.sh", content="new, no newline ü")
    assert out == "Overwrote run.sh (18 bytes, 1 line)"
    assert target.read_text(encoding="utf-8") == "new, no newline ü"
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert sorted(os.listdir(workspace)) == ["run.sh"]  # no temporary file left behind


async def test_write_through_a_symlink_inside_replaces_the_real_file(
    tools: ToolRegistry, workspace: Path
) -> None:
    (workspace / "real.txt").write_text("a")
    (workspace / "alias.txt").symlink_to(workspace / "real.txt")
    await call(tools, "write_file", path="alias.txt", content="b")
    assert (workspace / "real.txt").read_text() == "b"
    assert (workspace / "alias.txt").is_symlink()


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../outside/new.txt", "is outside the workspace"),
        ("../outside/secret.txt", "is outside the workspace"),
        ("sub/../../outside/new.txt", "is outside the workspace"),
        ("{outside}/new.txt", "is outside the workspace"),
        ("/tmp/tuibot-write-test-never.txt", "is outside the workspace"),
        ("link/new.txt", "a symlink leads to"),
        ("link/deep/er/new.txt", "a symlink leads to"),
        ("dangling", "a symlink leads to"),
        ("a\0b.txt", "NUL byte"),
        ("", "path is empty"),
    ],
)
async def test_write_refuses_escapes_and_creates_nothing_outside(
    tools: ToolRegistry, workspace: Path, path: str, reason: str
) -> None:
    (workspace / "link").symlink_to(workspace.parent / "outside")
    (workspace / "dangling").symlink_to(workspace.parent / "outside" / "later.txt")
    before = outside_listing(workspace)
    raw = path.format(outside=workspace.parent / "outside")
    result = await tools.execute("write_file", {"path": raw, "content": "pwned"})
    assert result.ok is False
    assert result.output.startswith("Error: ")
    assert reason in result.output
    assert outside_listing(workspace) == before
    assert (workspace.parent / "outside" / "secret.txt").read_text() == "secret"
    assert not Path("/tmp/tuibot-write-test-never.txt").exists()


async def test_write_errors_for_folders_and_files_in_the_way(
    tools: ToolRegistry, workspace: Path
) -> None:
    (workspace / "dir").mkdir()
    (workspace / "file.txt").write_text("keep")
    assert (await call(tools, "write_file", path="dir", content="x")).startswith(
        "Error: 'dir' is a directory"
    )
    assert (await call(tools, "write_file", path=".", content="x")).startswith(
        "Error: '.' is a directory"
    )
    blocked = await call(tools, "write_file", path="file.txt/inner.txt", content="x")
    assert blocked.startswith("Error: cannot create 'file.txt/inner.txt'")
    assert (workspace / "file.txt").read_text() == "keep"


async def test_write_and_edit_refuse_a_pipe_and_leave_nothing_behind(
    tools: ToolRegistry, workspace: Path
) -> None:
    os.mkfifo(workspace / "pipe")
    written = await call(tools, "write_file", path="pipe", content="x")
    assert written.startswith("Error: 'pipe' is not a regular file (a pipe, socket or device)")
    edited = await call(tools, "edit_file", path="pipe", old_text="a", new_text="b")
    assert edited.startswith("Error: 'pipe' is not a regular file")
    assert stat.S_ISFIFO(os.lstat(workspace / "pipe").st_mode)
    assert os.listdir(workspace) == ["pipe"]


async def test_write_refuses_lone_surrogates(tools: ToolRegistry, workspace: Path) -> None:
    out = await call(tools, "write_file", path="s.txt", content="bad \ud800")
    assert out.startswith("Error: content holds characters that are not valid Unicode")
    assert not (workspace / "s.txt").exists()


# --- edit_file ------------------------------------------------------------------------------


async def test_edit_replaces_one_exact_occurrence(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "a.py").write_text("def f():\n    return 1\n\ndef g():\n    return 2\n")
    out = await call(
        tools, "edit_file", path="a.py", old_text="    return 2", new_text="    return 3"
    )
    assert out == "Replaced 1 occurrence in a.py (at line 5)"
    assert (workspace / "a.py").read_text() == "def f():\n    return 1\n\ndef g():\n    return 3\n"


async def test_edit_not_found_says_what_to_do(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "a.txt").write_text("hello world\n")
    result = await tools.execute(
        "edit_file", {"path": "a.txt", "old_text": "hello  world", "new_text": "x"}
    )
    assert result.ok is False
    assert result.output.startswith("Error: old_text was not found in a.txt")
    assert "read_file" in result.output and result.output.endswith(ERROR_HINT)
    assert (workspace / "a.txt").read_text() == "hello world\n"


async def test_edit_ambiguous_counts_and_suggests(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "a.txt").write_text("x = 1\nx = 1\nx = 1\n")
    out = await call(tools, "edit_file", path="a.txt", old_text="x = 1", new_text="x = 2")
    assert out.startswith("Error: old_text was found 3 times in a.txt")
    assert "more surrounding lines" in out and "replace_all=true" in out
    assert (workspace / "a.txt").read_text() == "x = 1\nx = 1\nx = 1\n"
    done = await call(
        tools, "edit_file", path="a.txt", old_text="x = 1", new_text="x = 2", replace_all=True
    )
    assert done == "Replaced 3 occurrences in a.txt (first at line 1)"
    assert (workspace / "a.txt").read_text() == "x = 2\nx = 2\nx = 2\n"


async def test_edit_keeps_crlf_line_endings(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    out = await call(tools, "edit_file", path="w.txt", old_text="one\ntwo", new_text="1\n2")
    assert out.startswith("Replaced 1 occurrence")
    assert (workspace / "w.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_edit_bad_inputs(tools: ToolRegistry, workspace: Path) -> None:
    (workspace / "bin.dat").write_bytes(b"ab\0cd")
    (workspace / "latin.txt").write_bytes(b"caf\xe9")
    (workspace / "a.txt").write_text("abc")
    (workspace / "dir").mkdir()
    cases = {
        ("missing.txt", "a", "b"): "Error: file not found: missing.txt; use write_file",
        ("bin.dat", "ab", "x"): "Error: 'bin.dat' looks like a binary file",
        ("latin.txt", "caf", "x"): "Error: 'latin.txt' is not valid UTF-8",
        ("a.txt", "", "x"): "Error: old_text is empty; use write_file",
        ("a.txt", "abc", "abc"): "Error: old_text and new_text are the same",
        ("dir", "a", "b"): "Error: 'dir' is a directory",
    }
    for (path, old, new), expected in cases.items():
        out = await call(tools, "edit_file", path=path, old_text=old, new_text=new)
        assert out.startswith(expected), (path, out)
    assert (workspace / "bin.dat").read_bytes() == b"ab\0cd"
    assert (workspace / "a.txt").read_text() == "abc"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../outside/secret.txt", "is outside the workspace"),
        ("{outside}/secret.txt", "is outside the workspace"),
        ("link/secret.txt", "a symlink leads to"),
        ("secret_link", "a symlink leads to"),
        ("a\0.txt", "NUL byte"),
    ],
)
async def test_edit_refuses_escapes(
    tools: ToolRegistry, workspace: Path, path: str, reason: str
) -> None:
    (workspace / "link").symlink_to(workspace.parent / "outside")
    (workspace / "secret_link").symlink_to(workspace.parent / "outside" / "secret.txt")
    raw = path.format(outside=workspace.parent / "outside")
    out = await call(tools, "edit_file", path=raw, old_text="secret", new_text="pwned")
    assert out.startswith("Error: ") and reason in out
    assert (workspace.parent / "outside" / "secret.txt").read_text() == "secret"


# --- protected paths ------------------------------------------------------------------------


def test_ordinary_paths_need_no_confirmation(tools: ToolRegistry, workspace: Path) -> None:
    assert prompt(tools, "write_file", path="notes.md", content="x") is None
    assert prompt(tools, "edit_file", path="a.py", old_text="a", new_text="b") is None
    # a path the guard refuses needs no question: the tool refuses it itself
    assert prompt(tools, "write_file", path="../x", content="x") is None
    assert prompt(tools, "write_file", path="a\0b", content="x") is None


def test_the_config_home_as_workspace_is_protected(tools: ToolRegistry) -> None:
    home = Path(os.path.realpath(config_home()))
    with use_workspace(home):
        plugin = prompt(tools, "write_file", path="tools/evil.py", content="x")
        assert plugin == (
            f"Write the tuibot plugin file {home / 'tools' / 'evil.py'}? "
            "It would go live on reload."
        )
        skill = prompt(tools, "edit_file", path="skills/s/SKILL.md", old_text="a", new_text="b")
        assert skill is not None and skill.startswith("Edit the tuibot skill file ")
        settings = prompt(tools, "write_file", path="config.toml", content="")
        assert settings is not None and "tuibot's settings file" in settings
        soul = prompt(tools, "write_file", path="SOUL.md", content="")
        assert soul is not None and "prompt file" in soul
        other = prompt(tools, "write_file", path="themes/x.toml", content="")
        assert other == f"Write {home / 'themes' / 'x.toml'} in tuibot's config folder?"


def test_tuibot_folders_inside_the_workspace_are_protected(
    tools: ToolRegistry, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TUIBOT_HOME", str(workspace / "cfg"))
    monkeypatch.setenv("TUIBOT_DATA", str(workspace / "data"))
    plugin = prompt(tools, "write_file", path="cfg/tools/x.py", content="")
    assert plugin is not None and "plugin file" in plugin and "go live on reload" in plugin
    # dotted and aliased paths resolve to the same protected file
    (workspace / "alias").symlink_to(workspace / "cfg")
    assert prompt(tools, "write_file", path="src/../alias/tools/x.py", content="") == plugin
    chat = prompt(tools, "edit_file", path="data/chats/c_1.jsonl", old_text="a", new_text="b")
    assert chat is not None and "tuibot's data folder" in chat
    assert prompt(tools, "write_file", path="cfgx/tools/x.py", content="") is None


def test_a_workspace_inside_the_plugin_folder_is_all_protected(tools: ToolRegistry) -> None:
    plugins = config_home() / "tools"
    plugins.mkdir()
    with use_workspace(plugins):
        question = prompt(tools, "write_file", path="anything.py", content="")
        assert question is not None and "plugin file" in question


async def test_the_bundled_tools_folder_is_protected(tools: ToolRegistry) -> None:
    bundled = Path(os.path.realpath(bundled_dir("tools")))
    with use_workspace(bundled.parent):
        question = prompt(tools, "write_file", path="tools/new_tool.py", content="")
        assert question is not None and "plugin file" in question


def test_a_non_interactive_ask_denies_writing_a_plugin(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = config_home()
    monkeypatch.chdir(home)  # the workspace is the config home itself
    arguments = '{"path": "tools/evil.py", "content": "raise SystemExit(1)\\n"}'
    server.enqueue(tool_calls([("write_file", arguments)]), text("I could not."))

    ran = run_ask(server, "--json", "install a tool")

    assert ran.code == 0, ran.stderr
    (result,) = of_type(json_lines(ran), "tool_result")
    assert result["ok"] is False and "not interactive" in result["output"]
    assert not (home / "tools" / "evil.py").exists()
