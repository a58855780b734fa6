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


def compile_package() -> None:
    """Write tuibot's ``__pycache__`` (py_compile writes whatever the flag says)."""
    if not compileall.compile_dir(PACKAGE, quiet=1):
        raise SystemExit(f"could not compile {PACKAGE}")
