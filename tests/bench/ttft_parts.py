"""Where ``tuibot ask``'s time to first token goes: the phases before the request is sent.

Runs one plain ``tuibot ask`` (a one-chunk answer from a loopback ``ScriptedServer``)
under ``cProfile`` in a child process and prints the cumulative time of each phase that
runs before the streamed request goes out, median over ``--runs``. The profiler slows
Python code (not C or the network), so compare phases with each other and across
commits, not with bench_ask.py's wall times::

    .venv/bin/python tests/bench/ttft_parts.py [--python /tmp/plainvenv/bin/python] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from installed import compile_package  # noqa: E402
from scripted_server import ScriptedServer, text  # noqa: E402

PHASES = {
    "argument parsing": ("tuibot/cli.py", "build_parser"),
    "import openai (client made)": ("tuibot/llm/openai_client.py", "import_openai"),
    "TLS context (CA bundle)": ("_config.py", "create_ssl_context"),
    "--model check (+ client, GET)": ("tuibot/model_choice.py", "_check_served"),
    "new chat file": ("tuibot/store/chats.py", "create"),
    "tools loaded": ("tuibot/engine/__init__.py", "load_tools"),
    "skills read": ("tuibot/skills/catalog.py", "current"),
    "turn prepared": ("tuibot/engine/prepare.py", "prepare"),
    "request opened": ("tuibot/llm/openai_client.py", "open_stream"),
}
"""Label: (file suffix, function name) whose cumulative time is the phase."""


def phases(profile: Path) -> dict[str, float]:
    """Each phase's cumulative seconds in one profile (0 when it did not run)."""
    stats = pstats.Stats(str(profile)).stats  # type: ignore[attr-defined]
    found = dict.fromkeys(PHASES, 0.0)
    for (file, _, func), (_, _, _, cumulative, _) in stats.items():
        for label, (suffix, name) in PHASES.items():
            if func == name and file.endswith(suffix):
                found[label] = max(found[label], cumulative)
    return found


def main() -> int:
    """Profile ``--runs`` asks (after a warm-up) and print each phase's median."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="the venv's interpreter")
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    runs: list[dict[str, float]] = []
    compile_package()  # as installed: no run pays for compiling tuibot
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer() as server:
        env = {**os.environ, "TUIBOT_HOME": f"{tmp}/home", "TUIBOT_DATA": f"{tmp}/data",
               "PYTHONPATH": str(ROOT)}  # fmt: skip
        for number in range(options.runs + 1):
            server.enqueue(text("ok"))
            out = Path(tmp) / f"run{number}.prof"
            cmd = [options.python, "-m", "cProfile", "-o", str(out), "-m", "tuibot", "ask",
                   "hi", "--base-url", server.url, "--model", "test-model"]  # fmt: skip
            done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"tuibot ask failed: {done.stderr.strip()[-500:]}")
                return 1
            if number:  # the first run writes .pyc files
                runs.append(phases(out))
    print(f"phases before the first request (cumulative ms under cProfile, {options.runs} runs)")
    for label in PHASES:
        values = [run[label] * 1000 for run in runs]
        middle, low, high = statistics.median(values), min(values), max(values)
        print(f"  {label:30} {middle:8.1f}  ({low:.1f}-{high:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
