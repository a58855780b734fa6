"""Load tool files: each ``.py`` file becomes a fresh module, and its ``@tool`` functions specs.

Tool files are plugins, not package modules: two folders may both have ``notes.py``, and
a file may be reloaded while tuibot runs. So each file is compiled from its source (no
stale ``.pyc``) into a new module named ``tuibot_plugins.<source>.<stem>_<hash>``, a name
no real import can collide with. The module enters ``sys.modules`` only if it ran
without error, so a broken file leaves no half-loaded state behind, and any failure —
including ``SystemExit`` or ``KeyboardInterrupt`` at import — is reported with the file
and line. An import that takes longer than a limit (``tools.import_timeout``) is
abandoned in its daemon thread and reported the same way; if it ever ends, it touches
nothing a newer load of the same file put in place.

tuibot's own (bundled) tool files ship inside the package like its modules, so they get
what its modules get: imported in the calling thread, from the bytecode cache that the
import system keeps valid (``own=True``); the thread, the limit and the fresh compile are
for files a user can write.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.machinery
import importlib.util
import re
import sys
import traceback
from pathlib import Path
from types import CodeType, ModuleType

from tuibot.toolkit.decorator import ToolSpec

PLUGIN_PACKAGE = "tuibot_plugins"
"""Prefix of every plugin module name; nothing real is ever imported under it."""


class ToolLoadError(Exception):
    """A tool file that could not be loaded, with the place to look."""

    def __init__(self, path: Path, line: int | None, message: str) -> None:
        self.path = path
        """The file that failed."""
        self.line = line
        """The line in that file, when known."""
        self.message = message
        """What went wrong, e.g. ``SyntaxError: invalid syntax``."""
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        return f"{where}: {self.message}"


def module_name_for(path: Path, source: str) -> str:
    """The unique module name for a tool file: stable per path, distinct across folders."""
    digest = hashlib.sha1(str(path.resolve()).encode("utf-8")).hexdigest()[:10]
    return f"{PLUGIN_PACKAGE}.{_identifier(source)}.{_identifier(path.stem)}_{digest}"


def load_tool_file(path: Path, source: str, *, own: bool = False) -> list[ToolSpec]:
    """Import ``path`` into a fresh module and return its tools, marked with ``source``.

    ``own``: a file shipped with tuibot, read through the bytecode cache.
    Raises ``ToolLoadError`` when the file cannot be read, compiled or run.
    """
    module = run_module(path, module_name_for(path, source), cached=own)
    return [dataclasses.replace(spec, source=source, path=path) for spec in collect_specs(module)]


def load_tool_entry(
    path: Path, source: str, timeout: float | None = None, *, own: bool = False
) -> list[ToolSpec]:
    """Load one entry of a tools folder: a ``.py`` file or a package folder.

    With ``timeout``, the import runs in a daemon thread and one that takes longer is
    abandoned: a ``ToolLoadError`` like any broken file, and ``sys.modules`` as before.
    ``own`` (tuibot's bundled tools) imports in this thread from cached bytecode, with
    no limit: the files are part of tuibot, as trusted as the code that loads them.
    """
    from tuibot.toolkit.packages import load_tool_package

    def load() -> list[ToolSpec]:
        if path.is_dir():
            return load_tool_package(path, source)
        return load_tool_file(path, source, own=own)

    if timeout is None or own:
        return load()
    from tuibot.toolkit.threads import call_with_timeout

    name = module_name_for(path, source)
    before = _plugin_modules(name)
    try:
        return call_with_timeout(load, timeout, name=f"import-{path.name}")
    except TimeoutError:
        _put_back(name, before)
        raise ToolLoadError(
            path, None, f"import took longer than {timeout:g} s (abandoned; it may run on)"
        ) from None


def load_tool_folder(
    folder: Path, source: str, timeout: float | None = None
) -> tuple[list[ToolSpec], list[ToolLoadError]]:
    """Load every tool file and package folder directly in ``folder``, in name order.

    A broken (or, with ``timeout``, too slow) file is reported and the others still
    load. A missing folder is simply empty: a user without a tools folder has no user tools.
    """
    specs: list[ToolSpec] = []
    errors: list[ToolLoadError] = []
    for path in tool_entries(folder):
        try:
            specs.extend(load_tool_entry(path, source, timeout))
        except ToolLoadError as exc:
            errors.append(exc)
    return specs, errors


def tool_files(folder: Path) -> list[Path]:
    """The tool files of ``folder``: ``*.py``, skipping ``_private.py`` and editor ``.#x.py``."""
    if not folder.is_dir():
        return []
    return sorted(
        path
        for path in folder.glob("*.py")
        if not path.name.startswith(("_", ".")) and path.is_file()
    )


def tool_entries(folder: Path) -> list[Path]:
    """Tool files and tool package folders (``<name>/tool.py``) of ``folder``, by name."""
    from tuibot.toolkit.packages import is_tool_package

    if not folder.is_dir():
        return []
    packages = [path for path in folder.iterdir() if is_tool_package(path)]
    return sorted([*tool_files(folder), *packages], key=lambda path: path.name)


def collect_specs(module: ModuleType) -> list[ToolSpec]:
    """Every ``ToolSpec`` exposed by ``module``'s top-level names, in definition order."""
    found: list[ToolSpec] = []
    seen: set[int] = set()
    for value in list(vars(module).values()):
        try:
            spec = getattr(value, "__tool_meta__", None)
        except Exception:
            continue
        if isinstance(spec, ToolSpec) and id(spec) not in seen:
            seen.add(id(spec))
            found.append(spec)
    return found


def run_module(path: Path, name: str, *, cached: bool = False) -> ModuleType:
    """Compile and execute ``path`` as module ``name``; ``sys.modules`` changes only on success.

    ``cached`` reads (and writes) the ``__pycache__`` bytecode as an import would; without
    it the source is compiled every time, so an edit is never hidden by a stale ``.pyc``.
    """
    try:
        code = _code_of(path, name, cached)
    except SyntaxError as exc:
        line = exc.lineno if _same_file(exc.filename, path) else None
        raise ToolLoadError(path, line, f"{type(exc).__name__}: {exc.msg}") from exc
    except (OSError, ValueError) as exc:
        raise ToolLoadError(path, None, f"cannot read the file: {exc}") from exc
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise ToolLoadError(path, None, "not a Python source file")
    module = importlib.util.module_from_spec(spec)
    previous = sys.modules.get(name)
    sys.modules[name] = module  # dataclasses and typing look their module up here
    try:
        exec(code, module.__dict__)
    except (Exception, SystemExit, KeyboardInterrupt) as exc:  # a file may not end tuibot
        _restore(name, module, previous)
        raise ToolLoadError(path, _failing_line(exc, path), _describe(exc)) from exc
    except BaseException:
        _restore(name, module, previous)
        raise
    return module


def _code_of(path: Path, name: str, cached: bool) -> CodeType:
    """``path``'s code object: compiled now, or through the import system's bytecode cache."""
    if not cached:
        return compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
    code = importlib.machinery.SourceFileLoader(name, str(path)).get_code(name)
    if code is None:
        raise ValueError("no code in the file")
    return code


def _restore(name: str, module: ModuleType, previous: ModuleType | None) -> None:
    """Put back what ``sys.modules`` held before a failed load of ``module``.

    Only while ``module`` is still the one there: an import abandoned for taking too
    long may fail much later, after a newer load of the same file took its place.
    """
    if sys.modules.get(name) is not module:
        return
    if previous is None:
        sys.modules.pop(name, None)
    else:
        sys.modules[name] = previous


def _plugin_modules(name: str) -> dict[str, ModuleType]:
    """``name`` and its submodules as ``sys.modules`` holds them now."""
    prefix = name + "."
    return {k: v for k, v in list(sys.modules.items()) if k == name or k.startswith(prefix)}


def _put_back(name: str, before: dict[str, ModuleType]) -> None:
    """Make ``name`` and its submodules in ``sys.modules`` what they were in ``before``."""
    for key in _plugin_modules(name):
        if key not in before:
            sys.modules.pop(key, None)
    sys.modules.update(before)


def _failing_line(exc: BaseException, path: Path) -> int | None:
    """The deepest line of ``path`` in the traceback (where the file itself went wrong)."""
    if isinstance(exc, SyntaxError) and _same_file(exc.filename, path):
        return exc.lineno
    line: int | None = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if _same_file(frame.f_code.co_filename, path):
            line = lineno
    return line


def _describe(exc: BaseException) -> str:
    """A one-line account of an import-time failure."""
    if isinstance(exc, SystemExit):
        return f"SystemExit raised while importing (exit code {exc.code!r})"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _same_file(filename: str | None, path: Path) -> bool:
    return filename is not None and filename == str(path)


def _identifier(text: str) -> str:
    """``text`` made safe as one dotted-name component."""
    cleaned = re.sub(r"\W", "_", text) or "_"
    return f"_{cleaned}" if cleaned[0].isdigit() else cleaned
