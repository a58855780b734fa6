"""The loader: tool files become specs, and a broken file is a clear error that changes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from tuibot.toolkit import ToolLoadError, ToolRegistry, load_tool_file, load_tool_folder
from tuibot.toolkit.catalog import ToolCatalog

# --- loading tool files -------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


GOOD = """
    from __future__ import annotations

    from dataclasses import dataclass
    from typing import Literal

    from tuibot import tool

    @dataclass
    class Point:  # a dataclass needs its module in sys.modules to be created
        x: int

    @tool
    def shout(text: str, style: Literal["loud", "louder"] = "loud") -> str:
        '''Shout the text.'''
        return text.upper() + ("!" if style == "loud" else "!!")

    @tool(name="whisper", confirm=True)
    def quiet(text: str) -> str:
        '''Whisper the text.'''
        return text.lower()

    def helper() -> None:
        '''Not a tool.'''
"""


async def test_load_good_file_and_run_its_tools(tmp_path: Path) -> None:
    path = write(tmp_path / "voice.py", GOOD)
    specs = load_tool_file(path, "user")
    assert [s.name for s in specs] == ["shout", "whisper"]
    assert all(s.source == "user" and s.path == path for s in specs)
    assert specs[0].parameters["properties"]["style"]["enum"] == ["loud", "louder"]
    assert specs[1].confirm is True
    module_name = specs[0].func.__module__
    assert module_name.startswith("tuibot_plugins.user.voice_")
    assert sys.modules[module_name].__file__ == str(path)
    reg = ToolRegistry()
    for spec in specs:
        reg.register(spec)
    assert (await reg.execute("shout", {"text": "hey", "style": "louder"})).output == "HEY!!"


def test_plugin_does_not_inherit_our_future_import(tmp_path: Path) -> None:
    path = write(
        tmp_path / "plain.py",
        """
        from tuibot import tool

        @tool
        def double(n: int) -> int:
            '''Double it.'''
            return 2 * n
        """,
    )
    (spec,) = load_tool_file(path, "user")
    assert spec.func.__annotations__["n"] is int


def test_syntax_error_reports_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path / "broken.py", "from tuibot import tool\n\n\ndef f(:\n    pass\n")
    with pytest.raises(ToolLoadError) as info:
        load_tool_file(path, "user")
    assert info.value.path == path
    assert info.value.line == 4
    assert info.value.message.startswith("SyntaxError:")
    assert str(info.value).startswith(f"{path}:4: SyntaxError")
    assert not [m for m in sys.modules if m.startswith("tuibot_plugins.user.broken_")]


def test_import_error_reports_the_import_line(tmp_path: Path) -> None:
    path = write(tmp_path / "needs.py", "import os\nimport no_such_module_xyz\n")
    with pytest.raises(ToolLoadError) as info:
        load_tool_file(path, "user")
    assert info.value.line == 2
    assert "ModuleNotFoundError: No module named 'no_such_module_xyz'" in info.value.message


def test_system_exit_at_import_is_a_load_error(tmp_path: Path) -> None:
    path = write(tmp_path / "quitter.py", "import sys\n\nsys.exit(2)\n")
    with pytest.raises(ToolLoadError) as info:
        load_tool_file(path, "user")
    assert info.value.line == 3
    assert "SystemExit" in info.value.message and "2" in info.value.message


def test_bad_tool_definition_is_a_load_error_with_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "typo.py",
        """
        from tuibot import tool

        @tool
        def f(x: set[int]) -> None:
            '''Unsupported type.'''
        """,
    )
    with pytest.raises(ToolLoadError) as info:
        load_tool_file(path, "user")
    assert "TypeError: tool 'f', parameter 'x'" in info.value.message
    assert info.value.line == 4


def test_same_stem_in_two_folders_does_not_clash(tmp_path: Path) -> None:
    template = """
        from tuibot import tool

        WHO = {who!r}

        @tool(name={name!r})
        def notes() -> str:
            '''Whose notes.'''
            return WHO
    """
    first = write(tmp_path / "a" / "notes.py", template.format(who="a", name="notes_a"))
    second = write(tmp_path / "b" / "notes.py", template.format(who="b", name="notes_b"))
    (spec_a,) = load_tool_file(first, "user")
    (spec_b,) = load_tool_file(second, "user")
    assert spec_a.func.__module__ != spec_b.func.__module__
    assert (spec_a.func(), spec_b.func()) == ("a", "b")
    assert "notes" not in sys.modules


def test_failed_reload_keeps_the_previous_module(tmp_path: Path) -> None:
    path = write(tmp_path / "voice.py", GOOD)
    (first, _) = load_tool_file(path, "user")
    name = first.func.__module__
    loaded = sys.modules[name]
    path.write_text("raise RuntimeError('half way')\n", encoding="utf-8")
    with pytest.raises(ToolLoadError, match="RuntimeError: half way"):
        load_tool_file(path, "user")
    assert sys.modules[name] is loaded


def test_load_folder_reports_broken_files_and_loads_the_rest(tmp_path: Path) -> None:
    write(tmp_path / "b_good.py", GOOD)
    write(tmp_path / "a_broken.py", "def (\n")
    write(tmp_path / "_private.py", "raise RuntimeError('must not be imported')\n")
    write(tmp_path / ".#editor_lock.py", "raise RuntimeError('must not be imported')\n")
    write(tmp_path / "notes.txt", "not python")
    write(tmp_path / "pkg" / "tool.py", "raise RuntimeError('a broken package')\n")
    specs, errors = load_tool_folder(tmp_path, "user")
    assert [s.name for s in specs] == ["shout", "whisper"]
    found = sorted((e.path.name, e.line) for e in errors)
    assert found == [("a_broken.py", 1), ("tool.py", 1)]


def test_missing_folder_is_empty(tmp_path: Path) -> None:
    assert load_tool_folder(tmp_path / "absent", "user") == ([], [])


# --- imports that hang or try to end tuibot -----------------------------------------------

HANGS = {
    "sleeps": "import time\n\ntime.sleep(3600)\n",
    "spins": "while True:\n    pass\n",
}


def catalog_for(folder: Path, timeout: float) -> tuple[ToolCatalog, list[str]]:
    notices: list[str] = []
    catalog = ToolCatalog(
        ToolRegistry(),
        [(folder, "user")],
        notify=lambda level, text: notices.append(text),
        import_timeout=timeout,
    )
    return catalog, notices


@pytest.mark.parametrize("kind", list(HANGS))
def test_a_hanging_import_is_abandoned_and_the_rest_load(tmp_path: Path, kind: str) -> None:
    hang = write(tmp_path / f"a_{kind}.py", HANGS[kind])
    write(tmp_path / "b_good.py", GOOD)
    catalog, notices = catalog_for(tmp_path, 0.5)
    catalog.load_all()
    assert "shout" in catalog.registry
    error = catalog.errors[hang]
    assert error.path == hang and "import took longer than 0.5 s" in error.message
    assert any("import took longer than 0.5 s" in text for text in notices)
    assert not [m for m in sys.modules if m.startswith(f"tuibot_plugins.user.a_{kind}_")]
    if kind == "spins":  # asked to stop, a busy loop ends instead of eating a core forever
        deadline = time.monotonic() + 5
        while any(t.name == "tuibot-import-a_spins.py" for t in threading.enumerate()):
            assert time.monotonic() < deadline, "the abandoned busy import still runs"
            time.sleep(0.05)


def test_exit_and_keyboard_interrupt_at_import_do_not_end_tuibot(tmp_path: Path) -> None:
    write(tmp_path / "a_exit.py", "import sys\n\nsys.exit()\n")
    write(tmp_path / "b_interrupt.py", "raise KeyboardInterrupt\n")
    write(tmp_path / "c_good.py", GOOD)
    catalog, _ = catalog_for(tmp_path, 5)
    try:
        catalog.load_all()
    except (KeyboardInterrupt, SystemExit) as exc:
        pytest.fail(f"an import ended the loader: {exc!r}")
    assert "shout" in catalog.registry
    exit_error = catalog.errors[tmp_path / "a_exit.py"]
    assert exit_error.line == 3 and "SystemExit" in exit_error.message
    interrupt = catalog.errors[tmp_path / "b_interrupt.py"]
    assert interrupt.line == 1 and "KeyboardInterrupt" in interrupt.message


def test_tools_list_finishes_and_reports_hanging_imports(tmp_path: Path) -> None:
    user = Path(os.environ["TUIBOT_HOME"]) / "tools"
    for kind, text in HANGS.items():
        write(user / f"{kind}.py", text)
    write(user / "voice.py", GOOD)
    env = {**os.environ, "TUIBOT_TOOLS__IMPORT_TIMEOUT": "1"}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tuibot", "tools", "list"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("tuibot tools list hung on a tool file's import")
    assert done.returncode == 0, done.stderr
    assert "shout" in done.stdout and "whisper" in done.stdout
    not_loaded = done.stdout.split("Not loaded:", 1)[1]
    for kind in HANGS:
        assert f"{user / kind}.py: import took longer than 1 s" in not_loaded


def test_engine_start_up_finishes_and_reports_a_hanging_import() -> None:
    from tuibot.engine import Engine
    from tuibot.events import Notice
    from tuibot.settings import load_settings

    user = Path(os.environ["TUIBOT_HOME"]) / "tools"
    write(user / "sleepy.py", HANGS["sleeps"])
    write(user / "voice.py", GOOD)
    engine = Engine(load_settings(None, overrides={"tools.import_timeout": ("0.5", "test")}))
    seen: list[Notice] = []
    engine.events.listen(lambda event: seen.append(event) if isinstance(event, Notice) else None)
    engine.load_tools()
    assert "shout" in engine.tools
    assert any("sleepy.py: import took longer than 0.5 s" in notice.message for notice in seen), [
        notice.message for notice in seen
    ]
