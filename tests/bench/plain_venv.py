"""The plain install ``bench_ask.py`` measures in: tuibot without extras, plus ``llm``.

Why: the dev venv has litellm, which brings aiohttp, which the bare SDK script's
``import openai`` then pays for (~140 ms) while tuibot skips it. A person who runs
``pip install tuibot`` has no aiohttp, and that is where the floor is honest. The venv is
made once (``--make-plain``) and reused; ``llm`` goes into it only for the benchmark.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = Path("/tmp/plainvenv")


def python_of(venv: Path) -> Path:
    """The venv's interpreter."""
    return venv / "bin" / "python"


def make_plain(venv: Path, *, with_llm: bool = True) -> Path:
    """Create ``venv`` with this checkout installed editable without extras (and ``llm``).

    An existing venv with tuibot in it is taken as it is.
    """
    python = python_of(venv)
    if not python.exists():
        print(f"creating {venv} (python -m venv, pip install -e {ROOT})", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    if not _has(python, "tuibot"):
        _pip(python, "-e", str(ROOT))
    if with_llm and not (venv / "bin" / "llm").exists():
        _pip(python, "llm")
    return python


def extras_in(python: Path) -> list[str]:
    """Which of the packages that make a venv not plain are importable there."""
    found = []
    for name in ("aiohttp", "litellm"):
        if _has(python, name):
            found.append(name)
    return found


def _has(python: Path, module: str) -> bool:
    """Whether the venv itself has ``module`` (run outside the checkout, whose ``tuibot``
    folder ``python -c`` would otherwise find in the current directory)."""
    code = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    ran = subprocess.run([str(python), "-c", code], check=False, cwd=python.anchor)
    return ran.returncode == 0


def _pip(python: Path, *args: str) -> None:
    subprocess.run([str(python), "-m", "pip", "install", "-q", *args], check=True)
