"""Make the checkout start like an installed copy: with its bytecode already compiled.

``pip install`` compiles a wheel's modules to ``.pyc`` files, and the libraries in the
venv have them. An editable checkout run with ``PYTHONDONTWRITEBYTECODE=1`` (set on some
machines, this one included) never gets them, so every start would compile all of
tuibot again: ~200 ms that no installed copy pays and the baselines do not pay either.
"""

from __future__ import annotations

import compileall
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "tuibot"
BUNDLED_TOOLS = PACKAGE.parent / "tools"
"""A checkout's bundled tools: read through the bytecode cache like the package (a wheel
carries them inside ``tuibot/_bundled``, compiled by pip with the rest)."""


def compile_package() -> None:
    """Write tuibot's ``__pycache__`` (py_compile writes whatever the flag says)."""
    for folder in (PACKAGE, BUNDLED_TOOLS):
        if folder.is_dir() and not compileall.compile_dir(folder, quiet=1):
            raise SystemExit(f"could not compile {folder}")
