"""tuibot: a local, keyboard-driven AI assistant for the terminal.

Every ``import tuibot.<anything>`` runs this file first, and so does every user tool file
(``from tuibot import tool``), so it imports nothing but :mod:`tuibot.lazy_exports`: the
few public names are resolved on first use. It must never pull in openai, keyring, tomlkit
or the engine.
"""

from __future__ import annotations

from tuibot.lazy_exports import lazy_exports

TYPE_CHECKING = False  # not from typing: this module stays import-free
if TYPE_CHECKING:
    from tuibot.toolkit.clitool import CLITool
    from tuibot.toolkit.decorator import tool
    from tuibot.toolkit.schema import Param
    from tuibot.toolkit.workspace import resolve_in_workspace


__version__ = "0.1.0"

_EXPORTS = {
    "CLITool": "tuibot.toolkit.clitool",
    "tool": "tuibot.toolkit.decorator",
    "Param": "tuibot.toolkit.schema",
    "resolve_in_workspace": "tuibot.toolkit.workspace",
}

__all__ = ["CLITool", "Param", "__version__", "resolve_in_workspace", "tool"]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
