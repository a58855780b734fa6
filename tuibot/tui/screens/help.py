"""The help screen (F1 / ?): every key binding of the app and of each pane.

Why read the bindings live instead of a written list: a list goes stale, and after
``[tui.keys]`` rebinds a key the help must show the new one. The rows come from the
widgets' own ``BINDINGS`` through the keymap in effect (see :mod:`tuibot.tui.keys.keymap`).
Where tuibot binds a key that Textual also gives a generic meaning in the same pane
(ctrl+c, the arrows of the conversation), only tuibot's row lists it: the generic one
would show the key twice with two meanings.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from tuibot.tui.keys.keymap import BindingGroup, BindingRow, binding_groups


class HelpScreen(ModalScreen[None]):
    """A scrollable modal listing every binding, grouped by pane, with its id."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 90%; max-width: 110; height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    HelpScreen #help-title { text-style: bold; color: $primary; padding: 0 0 1 0; }
    HelpScreen #help-body { height: 1fr; }
    HelpScreen .help-group { text-style: bold; color: $accent; margin-top: 1; }
    HelpScreen #help-hint { color: $text-muted; padding-top: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,f1,question_mark", "dismiss", "Close", id="help_close"),
    ]
    """Esc, q, F1 or ? close the screen; arrows and page keys scroll it."""

    def __init__(self, source: App[Any]) -> None:
        super().__init__()
        self.source = source
        self.groups: list[BindingGroup] = [without_shadowed(g) for g in binding_groups(source)]
        """What the screen lists, read when it opened."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Key bindings", id="help-title")
            with VerticalScroll(id="help-body"):
                for group in self.groups:
                    yield Static(group.title, classes="help-group")
                    yield Static(group_table(group), classes="help-rows")
            yield Static(
                "Esc, q or F1 closes. Rebind any id under [tui.keys] in the config file.",
                id="help-hint",
                markup=False,
            )

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()


def without_shadowed(group: BindingGroup) -> BindingGroup:
    """The group without generic keys that a tuibot binding (one with an id) also takes."""
    owned = {key for row in group.rows if row.binding_id for key in row.keys.split(" / ")}
    rows: list[BindingRow] = []
    for row in group.rows:
        if row.binding_id is None:
            keys = [key for key in row.keys.split(" / ") if key not in owned]
            if not keys:
                continue
            row = replace(row, keys=" / ".join(keys))
        rows.append(row)
    return replace(group, rows=rows)


def group_table(group: BindingGroup) -> Content:
    """One aligned line per binding: keys, what it does, and the id to rebind it with."""
    key_width = max(len(row.keys) for row in group.rows) + 2
    text_width = max(len(row.description) for row in group.rows) + 2
    lines = [
        Content.assemble(
            (row.keys.ljust(key_width), "bold $accent"),
            row.description.ljust(text_width),
            (row.binding_id or "", "$text-muted"),
        )
        for row in group.rows
    ]
    return Content("\n").join(lines)
