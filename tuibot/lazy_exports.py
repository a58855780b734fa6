"""A package's public names, imported from their modules when first read (PEP 562).

Importing any submodule runs its package's ``__init__`` first, so a package that
re-exported from heavy modules would make every import of it pay for them: ``from tuibot
import tool`` in each user tool file, the app's first frame, a plain ``ask``. tuibot's
packages instead name each export's home module, and this makes the module-level
``__getattr__`` and ``__dir__`` that import it on first use. Importing this costs nothing.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not from typing: tuibot/__init__.py uses this and stays import-free
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_exports(
    package: str, homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``.

    ``homes`` maps each public name to its module: absolute, or relative to ``package``
    when it starts with a dot. A name read once is kept in the package, so later reads
    never come here again.
    """
    namespace = vars(sys.modules[package])

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        from importlib import import_module

        value = getattr(import_module(home, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *homes})

    return __getattr__, __dir__
