"""Key bindings by id: checking ``[tui.keys]`` and listing every binding with its key.

Why one module: the keymap the config asks for, the help screen and the command palette
must agree on which key does what. Textual applies the keymap itself
(``App.set_keymap``); this module checks it first (an unknown id or a key that is not
a key name is a problem to report, not a silent no-op) and reads bindings back through
the same ``apply_keymap`` Textual uses, so a rebound key shows everywhere.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.binding import Binding, BindingsMap
from textual.dom import DOMNode
from textual.keys import REPLACED_KEYS, Keys, key_to_character
from textual.widget import Widget

from tuibot.tui import compat

if TYPE_CHECKING:
    from textual.app import App

MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})
"""Modifier names a key string may start with (``ctrl+shift+x``)."""
NAMED_KEYS = frozenset(
    key.value.rpartition("+")[2] for key in Keys if not key.value.startswith("<")
) | frozenset(REPLACED_KEYS)
"""Key names Textual knows besides single characters and Unicode names."""

PANE_TITLES = {
    "chats": "Chats",
    "conversation": "Conversation",
    "composer": "Composer",
    "tasks": "Task kanban",
    "delegations": "Delegation tree",
    "tools": "Tool log",
    "approvals": "Approvals queue",
    "status": "Status bar",
}
"""Widget id of each pane → its heading on the help screen, in display order."""
CLASS_TITLES = {"ContentTabs": "Side pane tabs"}
"""Headings for focusable widgets outside the panes (by class; others get their class name)."""

PALETTE_TITLES = {
    "quit": "Quit",
    "interrupt": "Interrupt the running turn",
    "new_chat": "New chat",
    "approvals": "Approvals queue",
    "reasoning": "Toggle reasoning",
    "tool_output": "Toggle tool output",
    "side": "Toggle side pane",
    "help": "Help: every key binding",
    "focus_chats": "Focus chats",
    "focus_composer": "Focus composer",
    "focus_tasks": "Focus task kanban",
    "focus_tree": "Focus delegation tree",
    "focus_tools": "Focus tool log",
    "grants": "Grants",
    "zoom": "Zoom pane",
    "jobs": "Scheduled jobs",
    "servers": "MCP servers: state, restart",
    "copy_answer": "Copy the answer in view (Markdown)",
    "copy_code": "Copy a code block of the answer in view",
}
"""Binding id → the command palette's title for it (the binding's description otherwise)."""


def is_key_name(key: str) -> bool:
    """Whether ``key`` is one key as Textual names it: ``ctrl+t``, ``f5``, ``question_mark``."""
    if len(key) == 1:
        return key.isprintable() and not key.isspace()
    *modifiers, base = key.split("+")
    if len(set(modifiers)) != len(modifiers) or not set(modifiers) <= MODIFIERS:
        return False
    if len(base) == 1:
        return base.isprintable() and not base.isspace()
    return base in NAMED_KEYS or key_to_character(base) is not None


def key_list(value: Any) -> str:
    """A config value (``"ctrl+t"``, ``"f2,ctrl+t"`` or a list) as a comma list; else ValueError."""
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        keys = [item.strip() for item in value]
    elif isinstance(value, str):
        keys = [item.strip() for item in value.split(",")]
    else:
        raise ValueError(f"expected a key string or a list of them, not {value!r}")
    if not any(keys):
        raise ValueError("no key given")
    bad = [key for key in keys if not is_key_name(key)]
    if bad:
        raise ValueError(f"{bad[0]!r} is not a key name")
    return ",".join(keys)


def check_keymap(
    table: Mapping[str, Any], known: Iterable[str]
) -> tuple[dict[str, str], list[str]]:
    """The usable part of ``[tui.keys]`` and one message per entry that was ignored."""
    known = set(known)
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, value in table.items():
        if binding_id not in known:
            problems.append(f"tui.keys.{binding_id}: no binding has this id; ignored")
            continue
        try:
            keymap[binding_id] = key_list(value)
        except ValueError as error:
            problems.append(f"tui.keys.{binding_id}: {error}; ignored")
    return keymap, problems


def clashes(maps: Iterable[BindingsMap], keymap: Mapping[str, str]) -> list[str]:
    """One message per binding that loses its key to a rebound one in the same place.

    Textual lets the keymap win silently; a person who rebinds ``new_chat`` to
    ``ctrl+r`` should hear that the reasoning toggle lost that key.
    """
    found: list[str] = []
    for bindings in maps:
        for _, binding in bindings:
            if binding.id is None or binding.id not in keymap:
                continue
            for key in keymap[binding.id].split(","):
                for other in bindings.key_to_bindings.get(_normal(key), []):
                    if other.id != binding.id and other.id not in keymap:
                        text = (
                            f"tui.keys.{binding.id}: {key} was {other.description or other.action}"
                            f" ({other.id or 'no id'}); it now runs {binding.id} only"
                        )
                        if text not in found:
                            found.append(text)
    return found


def _normal(key: str) -> str:
    return compat.character_to_key(key) if len(key) == 1 else key


def _tuibot_node_classes() -> Iterator[type[DOMNode]]:
    """Every widget and screen class tuibot defines (screens, and the panes mounted after
    the first frame, are imported for this)."""
    import tuibot.tui.screens as screens
    import tuibot.tui.widgets as widgets

    for package in (screens, widgets):
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{module.name}")
    for cls in compat.node_classes():
        if cls.__module__.startswith("tuibot."):
            yield cls


def known_binding_ids(app: App[Any], wanted: Iterable[str] = ()) -> set[str]:
    """Every binding id in the app: its own, its widgets' and screens' (loaded or not).

    The screens not shown yet are imported only when ``wanted`` has an id the app and
    its mounted widgets do not know, so start-up with a plain keymap costs nothing.
    """
    known = _ids(mounted_bindings(app))
    if set(wanted) <= known:
        return known
    classes = [compat.class_bindings(cls) for cls in _tuibot_node_classes()]
    return known | _ids(bindings for bindings in classes if bindings)


def mounted_bindings(app: App[Any]) -> list[BindingsMap]:
    """The bindings of the app and of every widget on its current screen."""
    nodes = [app, *app.screen.walk_children()]
    return [compat.node_bindings(node) for node in nodes]


def _ids(maps: Iterable[BindingsMap]) -> set[str]:
    return {binding.id for bindings in maps for _, binding in bindings if binding.id}


@dataclass(frozen=True)
class BindingRow:
    """One action and the keys that run it, as the help screen shows it."""

    keys: str
    """The keys as displayed (``ctrl+t / f9``), after the keymap."""
    description: str
    binding_id: str | None
    action: str


@dataclass(frozen=True)
class BindingGroup:
    """The bindings of one pane (or of the whole app)."""

    title: str
    rows: list[BindingRow]


def binding_rows(app: App[Any], maps: Iterable[BindingsMap]) -> list[BindingRow]:
    """Rows for these bindings, in their declared order, with the keymap in effect applied."""
    order: dict[tuple[str, str], Binding] = {}
    keys: dict[tuple[str, str], list[str]] = {}
    for bindings in maps:
        mapped = bindings.copy()
        mapped.apply_keymap(compat.app_keymap(app))
        for _, binding in bindings:
            order.setdefault(_row_key(binding), binding)
        for _, binding in mapped:
            shown = keys.setdefault(_row_key(binding), [])
            display = app.get_key_display(binding)
            if display not in shown:
                shown.append(display)
    return [
        BindingRow(
            keys=" / ".join(keys.get(row, [])) or "(unbound)",
            description=binding.description or binding.tooltip or binding.action,
            binding_id=binding.id,
            action=binding.action,
        )
        for row, binding in order.items()
    ]


def _row_key(binding: Binding) -> tuple[str, str]:
    return (binding.id or binding.action, binding.description)


def binding_groups(app: App[Any]) -> list[BindingGroup]:
    """Every binding of the main screen, grouped: app-wide first, then pane by pane."""
    screen = app.screen_stack[0]
    top = [compat.node_bindings(app), compat.node_bindings(screen)]
    groups = [BindingGroup("App-wide", binding_rows(app, top))]
    seen: set[DOMNode] = {screen}
    for pane_id, title in PANE_TITLES.items():
        found = screen.query(f"#{pane_id}")
        if not found:
            continue
        nodes = [found.first(), *found.first().walk_children()]
        seen.update(nodes)
        maps = [compat.node_bindings(n) for n in nodes]
        groups.append(BindingGroup(title, binding_rows(app, maps)))
    others: dict[str, list[BindingsMap]] = {}
    for node in screen.walk_children(Widget):
        if node not in seen and node.can_focus:
            title = CLASS_TITLES.get(type(node).__name__) or _words(type(node).__name__)
            others.setdefault(title, []).append(compat.node_bindings(node))
    groups += [BindingGroup(title, binding_rows(app, maps)) for title, maps in others.items()]
    return [group for group in groups if group.rows]


def _words(name: str) -> str:
    """``CommandCompletion`` → ``Command completion``."""
    words = re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", name) or [name]
    return " ".join([words[0], *(word.lower() for word in words[1:])])
