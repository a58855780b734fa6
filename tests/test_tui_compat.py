"""Textual's private API stays in ``tuibot/tui/compat.py``, and what it uses still exists.

Textual is pinned; when it is upgraded, the first test here lists every private name
compat.py relies on that the new version no longer has, instead of a crash somewhere in
the app. The second keeps new private uses from creeping into other modules. The rest
check the checker (``tests/private_api.py``) and the fallbacks compat.py takes when a
private name is gone.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from private_api import COMPAT, private_accesses
from textual.binding import BindingsMap

from tuibot.tui import compat

pytestmark = pytest.mark.timeout(300)  # reading Textual's source takes seconds on a busy box


@cache
def _instance_attributes(cls: type) -> set[str]:
    """Attributes the classes in ``cls``'s MRO set on ``self`` in their methods."""
    found: set[str] = set()
    for base in cls.__mro__:
        try:
            source = textwrap.dedent(inspect.getsource(base))
        except (OSError, TypeError):
            continue
        for node in ast.walk(ast.parse(source)):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
            ):
                found.add(node.attr)
    return found


def _exists(module_name: str, dotted: str) -> bool:
    """Whether ``module_name`` has ``dotted`` (the last part may be an instance attribute)."""
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError:
        return False
    *path, last = dotted.split(".")
    for part in path:
        target = getattr(target, part, None)
        if target is None:
            return False
    if hasattr(target, last):
        return True
    return isinstance(target, type) and last in _instance_attributes(target)


def missing(names: list[tuple[str, str]]) -> list[str]:
    """The names (``module:dotted``) the installed Textual does not have."""
    return [f"{module}:{dotted}" for module, dotted in names if not _exists(module, dotted)]


def test_every_private_name_compat_relies_on_exists_in_the_installed_textual() -> None:
    gone = missing(compat.PRIVATE_NAMES)
    assert not gone, "Textual no longer has these (see tuibot/tui/compat.py):\n" + "\n".join(gone)


def test_the_lookup_reports_names_that_are_gone() -> None:
    names = [
        ("textual.app", "App._driver"),  # set in __init__, not on the class
        ("textual.app", "App._no_such_thing"),
        ("textual._no_such_module", "Thing"),
        ("textual.widgets._markdown", "NoSuchBlock._blocks"),
    ]
    assert missing(names) == [
        "textual.app:App._no_such_thing",
        "textual._no_such_module:Thing",
        "textual.widgets._markdown:NoSuchBlock._blocks",
    ]


def test_no_module_outside_compat_uses_a_textual_private_name() -> None:
    outside = [str(access) for access in private_accesses() if access.path != COMPAT]
    assert not outside, "use (or add) a function in tuibot/tui/compat.py:\n" + "\n".join(outside)


def test_every_private_name_used_in_compat_is_listed() -> None:
    listed: set[str] = set()
    for module, dotted in compat.PRIVATE_NAMES:
        listed |= {module, f"{module}.{dotted}", *dotted.split(".")}
    used = {access.name for access in private_accesses() if access.path == COMPAT}
    assert used, "the checker found nothing in compat.py: it is broken"
    assert sorted(used - listed) == []


def test_every_private_name_and_compat_function_is_in_the_architecture_table() -> None:
    """docs/architecture.md's table is where a Textual upgrade starts: each private name
    (its last part) and each compat function is named there."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "architecture.md").read_text()
    names = {dotted.split(".")[-1] for _, dotted in compat.PRIVATE_NAMES}
    functions = {
        name
        for name, value in vars(compat).items()
        if inspect.isfunction(value)
        and value.__module__ == compat.__name__
        and not name.startswith("_")
    }
    assert len(functions) > 10, "compat's functions were not found: the test is broken"
    assert sorted(n for n in names if n not in doc) == []
    assert sorted(f for f in functions if f"`{f}`" not in doc) == []


def test_the_checker_finds_each_kind_of_access_and_not_tuibots_own_names(tmp_path: Path) -> None:
    package = tmp_path / "tuibot"
    package.mkdir()
    (package / "mod.py").write_text(
        textwrap.dedent(
            """
            from textual._compositor import Compositor
            from textual.keys import _character_to_key
            from textual.widget import Widget
            from textual.widgets.markdown import MarkdownBlock


            class Pane(Widget):
                def __init__(self) -> None:
                    super().__init__()
                    self._lines = []  # tuibot's own, although Textual's Log has one too

                def keys(self) -> object:
                    self._lines.append(1)
                    return self._bindings  # Textual's: Pane does not define it


            def rows(table: MarkdownBlock, other: object) -> object:
                getattr(other, "_driver")
                return table._rows  # annotated as Textual's: counted though tuibot has _rows


            class Own:
                def __init__(self) -> None:
                    self._rows = {}
            """
        ),
        encoding="utf-8",
    )
    found = [(access.line, access.name) for access in private_accesses(package)]
    assert found == [
        (2, "textual._compositor"),
        (3, "textual.keys._character_to_key"),
        (15, "_bindings"),
        (19, "_driver"),
        (20, "_rows"),
    ]


# -- fallbacks, for a Textual without the private name ---------------------------------


def test_without_a_driver_nothing_is_written_to_the_terminal() -> None:
    assert compat.write_to_terminal(SimpleNamespace(), "\x07") is False  # type: ignore[arg-type]
    written: list[str] = []
    app = SimpleNamespace(_driver=SimpleNamespace(write=written.append))
    assert compat.write_to_terminal(app, "\x07") is True  # type: ignore[arg-type]
    assert written == ["\x07"]


def test_without_private_notifications_every_toast_is_withdrawn() -> None:
    cleared: list[bool] = []
    app = SimpleNamespace(clear_notifications=lambda: cleared.append(True))
    compat.withdraw_toasts(app, "title")  # type: ignore[arg-type]
    assert cleared == [True]


def test_without_the_private_theme_watcher_the_theme_reactive_is_mutated() -> None:
    mutated: list[Any] = []
    app = SimpleNamespace(theme="x", mutate_reactive=mutated.append)
    compat.reapply_theme(app)  # type: ignore[arg-type]
    assert [reactive.name for reactive in mutated] == ["theme"]


@pytest.mark.parametrize(("scroll_y", "released"), [(3.0, True), (10.0, False)])
def test_without_the_anchor_flag_a_view_off_its_end_is_released(
    scroll_y: float, released: bool
) -> None:
    view = SimpleNamespace(scroll_y=scroll_y, max_scroll_y=10.0)
    assert compat.anchor_released(view) is released  # type: ignore[arg-type]


def test_without_merged_bindings_a_class_s_own_bindings_are_used() -> None:
    class Bare:  # a DOMNode class as a Textual without _merged_bindings would make it
        BINDINGS = (("ctrl+x", "cut", "Cut"),)

    found = compat.class_bindings(Bare)  # type: ignore[arg-type]
    assert isinstance(found, BindingsMap)
    assert [binding.action for _, binding in found] == ["cut"]
    assert compat.node_bindings(Bare()).key_to_bindings.keys() == {"ctrl+x"}  # type: ignore[arg-type]
