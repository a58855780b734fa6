"""Hot reload with real file writes: save, rename-over save, delete, broken then fixed."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from tuibot.toolkit.catalog import ToolCatalog
from tuibot.toolkit.registry import ToolRegistry
from tuibot.toolkit.reload import ToolReloader
from tuibot.toolkit.state import write_disabled


def source(name: str, value: str, confirm: str = "False") -> str:
    return (
        "from tuibot import tool\n"
        f"@tool(confirm={confirm})\n"
        f"def {name}() -> str:\n"
        "    '''A tool.'''\n"
        f"    return {value!r}\n"
    )


class Env:
    def __init__(self, root: Path) -> None:
        self.user = root / "user_tools"
        self.user.mkdir()
        self.state = root / "state" / "tool_state.json"
        self.state.parent.mkdir()
        self.notices: list[tuple[str, str]] = []
        self.registry = ToolRegistry()
        self.catalog = ToolCatalog(
            self.registry,
            [(root / "bundled_absent", "bundled"), (self.user, "user")],
            self.state,
            lambda level, text: self.notices.append((level, text)),
        )


async def wait_for(check: Callable[[], bool], timeout: float = 5.0) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if check():
            return time.monotonic() - started
        await asyncio.sleep(0.01)
    pytest.fail("the change did not apply within 5 s")


async def value(registry: ToolRegistry, name: str) -> str | None:
    if name not in registry:
        return None
    return (await registry.execute(name, {})).output


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    env = Env(tmp_path)
    env.catalog.load_all()
    reloader = ToolReloader(env.catalog)
    reloader.start()
    await asyncio.wait_for(reloader.ready.wait(), 5)
    await asyncio.sleep(0.2)  # let the OS watch settle
    yield env
    await reloader.stop()


async def test_save_goes_live_and_delete_removes(env: Env) -> None:
    path = env.user / "greet.py"
    path.write_text(source("greet", "v1"))
    await wait_for(lambda: "greet" in env.registry)
    assert await value(env.registry, "greet") == "v1"
    path.unlink()
    await wait_for(lambda: "greet" not in env.registry)


async def test_editor_style_rename_over_save(env: Env) -> None:
    path = env.user / "greet.py"
    path.write_text(source("greet", "v1"))
    await wait_for(lambda: "greet" in env.registry)
    temp = env.user / ".greet.py.swp"
    temp.write_text(source("greet", "v2"))
    os.replace(temp, path)
    await wait_for(lambda: env.registry.get("greet").func() == "v2")  # type: ignore[union-attr]


async def test_broken_file_keeps_old_version_then_fix_goes_live(env: Env) -> None:
    path = env.user / "greet.py"
    path.write_text(source("greet", "v1"))
    await wait_for(lambda: "greet" in env.registry)
    path.write_text("from tuibot import tool\n\ndef broken(:\n")
    await wait_for(lambda: any("tool not loaded" in text for _, text in env.notices))
    (level, text) = next(n for n in env.notices if "tool not loaded" in n[1])
    assert level == "error" and f"{path}:3:" in text and "previous version keeps working" in text
    assert await value(env.registry, "greet") == "v1"
    assert env.catalog.errors[path].line == 3
    path.write_text(source("greet", "v3"))
    await wait_for(lambda: env.registry.get("greet").func() == "v3")  # type: ignore[union-attr]
    assert path not in env.catalog.errors


async def test_system_exit_and_other_files_survive(env: Env) -> None:
    (env.user / "good.py").write_text(source("good", "ok"))
    await wait_for(lambda: "good" in env.registry)
    (env.user / "bad.py").write_text("raise SystemExit(3)\n")
    await wait_for(lambda: any("SystemExit" in text for _, text in env.notices))
    (env.user / "later.py").write_text(source("later", "still watching"))
    await wait_for(lambda: "later" in env.registry)
    assert await value(env.registry, "good") == "ok"


async def test_snapshot_does_not_change_inside_a_turn(env: Env) -> None:
    path = env.user / "greet.py"
    path.write_text(source("greet", "v1"))
    await wait_for(lambda: "greet" in env.registry)
    turn = env.registry.snapshot()
    path.unlink()
    await wait_for(lambda: "greet" not in env.registry)
    assert await value(turn, "greet") == "v1"
    with pytest.raises(TypeError):
        turn.unregister("greet")
    gone = await env.registry.execute("greet", {})
    assert not gone.ok and "unknown tool" in gone.output


async def test_reload_never_loosens_confirmation(env: Env) -> None:
    path = env.user / "danger.py"
    path.write_text(source("danger", "boom", confirm="True"))
    await wait_for(lambda: "danger" in env.registry)
    path.write_text(source("danger", "boom2", confirm="False"))
    await wait_for(lambda: env.registry.get("danger").func() == "boom2")  # type: ignore[union-attr]
    spec = env.registry.get("danger")
    assert spec is not None and spec.confirmation_prompt({}) == "Run danger?"
    assert any(level == "warning" and "until tuibot restarts" in t for level, t in env.notices)


async def test_state_file_from_another_process_applies(env: Env) -> None:
    (env.user / "greet.py").write_text(source("greet", "v1"))
    await wait_for(lambda: "greet" in env.registry)
    code = (
        "import sys; from pathlib import Path;"
        "from tuibot.toolkit.state import write_disabled;"
        "write_disabled(Path(sys.argv[1]), {'greet'})"
    )
    subprocess.run([sys.executable, "-c", code, str(env.state)], check=True)
    await wait_for(lambda: env.registry.is_disabled("greet"))
    assert env.registry.definitions() == []
    write_disabled(env.state, set())
    await wait_for(lambda: not env.registry.is_disabled("greet"))


async def test_folder_package_reloads_on_helper_change(env: Env) -> None:
    folder = env.user / "pkg"
    folder.mkdir()
    (folder / "_helpers.py").write_text("V = 'a'\n")
    (folder / "tool.py").write_text(
        "from tuibot import tool\nfrom . import _helpers\n"
        "@tool\ndef pkgtool() -> str:\n    '''P.'''\n    return _helpers.V\n"
    )
    await wait_for(lambda: "pkgtool" in env.registry)
    (folder / "_helpers.py").write_text("V = 'bb'\n")
    await wait_for(lambda: env.registry.get("pkgtool").func() == "bb")  # type: ignore[union-attr]


async def test_engine_reloader_publishes_notices_and_closes() -> None:
    from tuibot.engine import Engine
    from tuibot.events import Notice
    from tuibot.settings import Settings

    user = Path(os.environ["TUIBOT_HOME"]) / "tools"
    user.mkdir()
    engine = Engine(Settings())
    seen: list[Notice] = []
    engine.events.listen(lambda event: seen.append(event) if isinstance(event, Notice) else None)
    engine.load_tools()
    engine.start_reloader()
    await asyncio.wait_for(engine.tool_reloader.ready.wait(), 5)
    await asyncio.sleep(0.2)
    (user / "oops.py").write_text("import tuibot_no_such_module\n")
    await wait_for(lambda: any("oops.py:1" in n.message for n in seen))
    (user / "fine.py").write_text(source("fine", "yes"))
    await wait_for(lambda: "fine" in engine.tools)
    await engine.close()


async def test_engine_reloader_rereads_skills_on_save() -> None:
    from tuibot.engine import Engine
    from tuibot.events import Notice
    from tuibot.settings import Settings

    skills = Path(os.environ["TUIBOT_HOME"]) / "skills"
    skills.mkdir()
    engine = Engine(Settings())
    seen: list[Notice] = []
    engine.events.listen(lambda event: seen.append(event) if isinstance(event, Notice) else None)
    engine.load_tools()
    engine.start_reloader()
    await asyncio.wait_for(engine.tool_reloader.ready.wait(), 5)
    await asyncio.sleep(0.2)
    (skills / "draft").mkdir()
    (skills / "draft" / "SKILL.md").write_text("---\ndescription: [unclosed\n---\n")
    # reported on save, before any turn asks for the skills
    await wait_for(lambda: any("draft/SKILL.md:2" in n.message for n in seen))
    (skills / "draft" / "SKILL.md").write_text("---\ndescription: fixed\n---\n")
    await wait_for(
        lambda: [s.description for s in engine.skills.skills if s.name == "draft"] == ["fixed"]
    )
    await engine.close()


@pytest.mark.parametrize("ending", ["raise RuntimeError('late')\n", source("greet", "old")])
async def test_a_hanging_save_is_reported_and_its_late_end_changes_nothing(
    tmp_path: Path, ending: str
) -> None:
    env = Env(tmp_path)
    env.catalog.import_timeout = 0.5
    env.catalog.load_all()
    reloader = ToolReloader(env.catalog)
    reloader.start()
    await asyncio.wait_for(reloader.ready.wait(), 5)
    await asyncio.sleep(0.2)
    path = env.user / "greet.py"
    # Swallows the loader's request to stop, and ends (failing, or defining "old") later.
    slow = (
        "import time\n"
        "for _ in range(20):\n"
        "    try:\n"
        "        time.sleep(0.1)\n"
        "    except BaseException:\n"
        "        pass\n" + ending
    )
    path.write_text(slow)
    await wait_for(lambda: any("import took longer than 0.5 s" in t for _, t in env.notices))
    assert "greet" not in env.registry and path in env.catalog.errors
    path.write_text(source("greet", "new"))
    await wait_for(lambda: "greet" in env.registry)
    spec = env.registry.get("greet")
    assert spec is not None and spec.func() == "new"
    await wait_for(lambda: not [t for t in threading.enumerate() if t.name.endswith("greet.py")])
    module = sys.modules.get(spec.func.__module__)
    assert module is not None, "the old import's late end removed the new module"
    assert module.__dict__ is spec.func.__globals__, "the old import replaced the new module"
    assert env.registry.get("greet").func() == "new"  # type: ignore[union-attr]
    assert path not in env.catalog.errors
    await reloader.stop()
