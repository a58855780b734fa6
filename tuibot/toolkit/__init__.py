"""Tools: the ``@tool`` decorator, argument validation, the registry, loading and the guard.

Names are imported on first use (PEP 562) so that ``import tuibot.toolkit`` — which every
tool file triggers through ``from tuibot import tool`` — costs nothing until a name is
actually needed; the registry pulls in ``asyncio``, which a tool file never needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tuibot.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from tuibot.toolkit.decorator import ToolSpec, tool
    from tuibot.toolkit.loader import ToolLoadError, load_tool_file, load_tool_folder
    from tuibot.toolkit.registry import ERROR_HINT, ToolRegistry, ToolResult
    from tuibot.toolkit.schema import Param
    from tuibot.toolkit.validate import validate_arguments
    from tuibot.toolkit.workspace import current_workspace, resolve_in_workspace, use_workspace

_EXPORTS = {
    "tool": ".decorator",
    "ToolSpec": ".decorator",
    "Param": ".schema",
    "validate_arguments": ".validate",
    "ERROR_HINT": ".registry",
    "ToolRegistry": ".registry",
    "ToolResult": ".registry",
    "ToolLoadError": ".loader",
    "load_tool_file": ".loader",
    "load_tool_folder": ".loader",
    "current_workspace": ".workspace",
    "resolve_in_workspace": ".workspace",
    "use_workspace": ".workspace",
}

__all__ = [
    "ERROR_HINT",
    "Param",
    "ToolLoadError",
    "ToolRegistry",
    "ToolResult",
    "ToolSpec",
    "current_workspace",
    "load_tool_file",
    "load_tool_folder",
    "resolve_in_workspace",
    "tool",
    "use_workspace",
    "validate_arguments",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
