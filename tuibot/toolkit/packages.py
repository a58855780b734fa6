"""Folder tool packages: ``tools/<name>/tool.py`` plus private helpers beside it.

Each folder is loaded as a real package under a unique name
(``tuibot_plugins.<source>.<name>_<hash>``), and ``tool.py`` as its ``tool`` submodule,
so helpers are imported *relatively* — ``from . import _helpers`` or
``from ._helpers import x``. Two packages may both have ``_helpers.py`` without
clashing, because each one's helpers live under its own package name; nothing is put on
``sys.path``, so a helper can never shadow a real module for the rest of the process.

A reload purges the package's old modules first so helpers are re-read too; if the new
version fails, its half-loaded modules are dropped and the old ones put back, so the
tools already registered keep working.
"""

from __future__ import annotations

import dataclasses
import sys
import traceback
from pathlib import Path
from types import ModuleType

from tuibot.toolkit.decorator import ToolSpec

ENTRY = "tool.py"
"""The file that makes a folder a tool package."""


def is_tool_package(path: Path) -> bool:
    """A non-private folder holding ``tool.py``."""
    return path.is_dir() and not path.name.startswith(("_", ".")) and (path / ENTRY).is_file()


def load_tool_package(folder: Path, source: str) -> list[ToolSpec]:
    """Load ``folder/tool.py`` as a package's submodule and return its tools.

    Raises ``ToolLoadError`` pointing at the deepest failing line inside the folder (a
    broken helper is reported at the helper's line, not at the import in ``tool.py``).
    """
    from tuibot.toolkit import loader

    name = loader.module_name_for(folder, source)
    saved = _take_modules(name)
    package = ModuleType(name, f"tool package {folder}")
    package.__path__ = [str(folder)]
    package.__package__ = name
    package.__file__ = None
    _ensure_parents(name)
    sys.modules[name] = package
    entry = folder / ENTRY
    try:
        module = loader.run_module(entry, f"{name}.tool")
    except loader.ToolLoadError as exc:
        _put_back(name, package, saved)
        raise _inside_folder(exc, folder) from exc.__cause__
    except BaseException:
        _put_back(name, package, saved)
        raise
    specs = loader.collect_specs(module)
    return [dataclasses.replace(spec, source=source, path=entry) for spec in specs]


def _ensure_parents(name: str) -> None:
    """Give ``tuibot_plugins`` and ``tuibot_plugins.<source>`` empty package modules.

    The import system walks up to every parent when resolving a relative import; these
    hold nothing and are never imported from disk.
    """
    parts = name.split(".")[:-1]
    for depth in range(1, len(parts) + 1):
        parent = ".".join(parts[:depth])
        if parent not in sys.modules:
            module = ModuleType(parent, "tuibot plugin namespace")
            module.__path__ = []
            sys.modules[parent] = module


def _put_back(name: str, package: ModuleType, saved: dict[str, ModuleType]) -> None:
    """Drop a failed load's modules and restore the old ones, unless a newer load of the
    same folder already replaced ``package`` (this one was abandoned as too slow)."""
    if sys.modules.get(name) is package:
        _take_modules(name)
        sys.modules.update(saved)


def _take_modules(name: str) -> dict[str, ModuleType]:
    """Remove and return ``name`` and its submodules from ``sys.modules``."""
    prefix = name + "."
    taken = {k: v for k, v in list(sys.modules.items()) if k == name or k.startswith(prefix)}
    for key in taken:
        sys.modules.pop(key, None)
    return taken


def _inside_folder(exc: Exception, folder: Path) -> Exception:
    """Re-point a load error at the deepest frame in ``folder`` (e.g. a helper's line)."""
    from tuibot.toolkit.loader import ToolLoadError

    cause = exc.__cause__
    if not isinstance(exc, ToolLoadError) or cause is None:
        return exc
    where: tuple[Path, int] | None = None
    if isinstance(cause, SyntaxError) and cause.filename and _within(cause.filename, folder):
        where = (Path(cause.filename), cause.lineno or 0)
    else:
        for frame, lineno in traceback.walk_tb(cause.__traceback__):
            if _within(frame.f_code.co_filename, folder):
                where = (Path(frame.f_code.co_filename), lineno)
    if where is None:
        return exc
    return ToolLoadError(where[0], where[1] or None, exc.message)


def _within(filename: str, folder: Path) -> bool:
    try:
        Path(filename).relative_to(folder)
    except ValueError:
        return False
    return True
