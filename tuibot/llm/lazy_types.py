"""The openai SDK's ``types`` packages, with their re-exports loaded on first use.

``import openai`` runs ``openai/types/__init__.py``, which imports the models of every
API the SDK covers (batches, evals, the Responses API, assistants: ~400 modules, about
half of ``import openai``), and each subpackage's ``__init__`` does the same for its part.
tuibot streams chat completions and lists models, so most of that is never used.

Every ``__init__.py`` under ``openai/types`` only re-exports names of its own modules. The
finder here gives those packages a loader that runs that ``__init__`` when a name it
defines is first read (``openai.types.Batch``, ``from openai.types.beta import
Assistant``, a star import); a submodule (``openai.types.chat.chat_completion_chunk``)
imports alone, as always. Nothing is skipped, only put off: every name stays reachable.
Other packages, and ``openai.types`` modules that are not packages, load as usual.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import sys
import threading
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

PACKAGE = "openai.types"


class _DeferredInit(importlib.abc.Loader):
    """Creates the package with its ``__path__``; runs its ``__init__`` on first need."""

    def __init__(self, real: importlib.abc.Loader) -> None:
        self.real = real

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return None  # the default module, with __path__ and __spec__ set from the spec

    def exec_module(self, module: ModuleType) -> None:
        module.__getattr__ = _reader(module, self.real)  # type: ignore[method-assign]


def _reader(module: ModuleType, real: importlib.abc.Loader) -> Any:
    """The package's ``__getattr__``: a submodule alone, else the whole ``__init__``.

    The ``__init__`` runs once, under a lock: another thread reading a name meanwhile
    waits for it, as it would for a normal import. A read from inside that ``__init__``
    finds what is defined so far, as in any package that is still initialising.
    """
    folder = module.__path__[0]
    lock = threading.RLock()
    running: list[bool] = []

    def __getattr__(name: str) -> Any:
        if name.startswith("__") and name != "__all__":
            raise AttributeError(name)  # probes (__wrapped__, …) read nothing
        if name != "__all__" and _is_submodule(folder, name):
            return importlib.import_module(f"{module.__name__}.{name}")
        with lock:
            if module.__dict__.get("__getattr__") is __getattr__ and not running:
                running.append(True)
                try:
                    real.exec_module(module)
                    if module.__dict__.get("__getattr__") is __getattr__:
                        del module.__dict__["__getattr__"]  # (an __init__ may define its own)
                finally:
                    running.clear()
        try:
            return module.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}") from None

    return __getattr__


def _is_submodule(folder: str, name: str) -> bool:
    path = os.path.join(folder, name)
    return os.path.isfile(path + ".py") or os.path.isfile(os.path.join(path, "__init__.py"))


class DeferredTypesFinder(importlib.abc.MetaPathFinder):
    """Finds ``openai.types`` packages as the path finder does, with a deferred ``__init__``."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != PACKAGE and not fullname.startswith(PACKAGE + "."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.submodule_search_locations is None or spec.loader is None:
            return spec  # a plain module (or nothing): the usual import
        if not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec  # an unusual install (zip, frozen): leave it alone
        spec.loader = _DeferredInit(spec.loader)
        return spec


def install() -> None:
    """Put the finder first in ``sys.meta_path`` (once), before ``openai`` is imported."""
    if not any(isinstance(finder, DeferredTypesFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, DeferredTypesFinder())
