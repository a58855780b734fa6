"""Benchmark: what loading tools and skills costs at start-up, and how fast a save goes live.

Run on demand (pytest ignores ``tests/bench``)::

    .venv/bin/python tests/bench/bench_load_plugins.py [--runs 9]

Part 1 starts a fresh interpreter per run (as ``tuibot`` starts) with an empty user
config, and times inside it: importing the engine, ``Engine.load_tools()`` (every bundled
tool plugin), the first ``SkillCatalog.current()`` (every bundled skill), a later
``current()`` with nothing changed (the per-turn cost of skill hot reload), and building
the system prompt. Part 2 runs the watchfiles reloader in this process and times a tool
file from the write to the tool being in the registry: a plain save, an editor-style
save (write a temp file, rename it over), and a save of a new file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

CHILD = r"""
import json, time
t0 = time.perf_counter()
from tuibot.engine import Engine
from tuibot.settings import load_settings
t1 = time.perf_counter()
engine = Engine(load_settings(None))
engine.load_tools()
t2 = time.perf_counter()
skills = engine.skills.current()
t3 = time.perf_counter()
engine.skills.current()
t4 = time.perf_counter()
from tuibot.agent.context import build_system_prompt
prompt = build_system_prompt(bot="b", workspace=engine.settings.workspace_path(),
                             prompt_dirs=[], skills=skills)
t5 = time.perf_counter()
print(json.dumps({"import engine": t1 - t0, "load_tools": t2 - t1, "skills (first)": t3 - t2,
                  "skills (unchanged)": t4 - t3, "system prompt": t5 - t4,
                  "tools": len(engine.tools.specs()), "skill count": len(skills)}))
"""


def startup(runs: int) -> None:
    """Part 1: fresh processes, times in milliseconds."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "TUIBOT_HOME": f"{tmp}/home", "TUIBOT_DATA": f"{tmp}/data"}
        samples: list[dict[str, float]] = []
        for run in range(runs + 1):
            out = subprocess.run(
                [sys.executable, "-c", CHILD],
                env=env,
                cwd=tmp,
                capture_output=True,
                text=True,
                check=True,
            )
            if run:  # the first run warms the page cache and writes .pyc files
                samples.append(json.loads(out.stdout))
    counts = samples[0]
    print(
        f"start-up, {runs} fresh processes ({counts['tools']:.0f} tools, "
        f"{counts['skill count']:.0f} skills), ms:"
    )
    print(f"  {'step':<20} {'median':>8} {'min':>8} {'max':>8}")
    for step in (
        "import engine",
        "load_tools",
        "skills (first)",
        "skills (unchanged)",
        "system prompt",
    ):
        values = [sample[step] * 1000 for sample in samples]
        print(
            f"  {step:<20} {statistics.median(values):8.2f} {min(values):8.2f} {max(values):8.2f}"
        )


TOOL = '''from tuibot import tool


@tool
def {name}() -> str:
    """Say which version is live."""
    return "{version}"
'''


async def reload_latency(runs: int) -> None:
    """Part 2: from a file write to the new tool version being in the registry."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TUIBOT_HOME"] = f"{tmp}/home"
        os.environ["TUIBOT_DATA"] = f"{tmp}/data"
        folder = Path(tmp, "home", "tools")
        folder.mkdir(parents=True)
        from tuibot.engine import Engine
        from tuibot.settings import load_settings

        engine = Engine(load_settings(None))
        engine.load_tools()
        engine.start_reloader()
        await engine.tool_reloader.ready.wait()
        results: dict[str, list[float]] = {"plain save": [], "rename-over save": [], "new file": []}
        for run in range(runs):
            for kind in results:
                name = f"probe_{run}" if kind == "new file" else "probe"
                version = f"{kind} {run}"
                source = TOOL.format(name=name, version=version)
                path = folder / f"{name}.py"
                started = time.perf_counter()
                if kind == "rename-over save":
                    temp = folder / f".{name}.py.swp"
                    temp.write_text(source, encoding="utf-8")
                    os.replace(temp, path)
                else:
                    path.write_text(source, encoding="utf-8")
                while True:
                    result = await engine.tools.execute(name, {})
                    if result.ok and result.output == version:
                        break
                    if time.perf_counter() - started > 5:
                        raise SystemExit(f"{kind}: not live after 5 s")
                    await asyncio.sleep(0.002)
                results[kind].append((time.perf_counter() - started) * 1000)
                await asyncio.sleep(0.3)  # let the debounce window close
        await engine.close()
    print(f"hot reload, save to live, {runs} saves each, ms (debounce included):")
    for kind, values in results.items():
        print(
            f"  {kind:<20} median {statistics.median(values):7.1f}  "
            f"min {min(values):7.1f}  max {max(values):7.1f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    startup(args.runs)
    asyncio.run(reload_latency(args.runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
