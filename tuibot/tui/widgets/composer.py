"""Where the person types: multi-line, Enter sends, `/` commands and `@paths` complete, ↑ recalls.

A pasted path to an image file (a file dragged onto the terminal; several at once) becomes
an ``@"path"`` mention, so it is attached like one; any other paste goes in unchanged.

The composer is a :class:`~textual.widgets.TextArea` that grows with its text (the app's
CSS caps its height). Two helpers sit just above it, mounted beside it in its parent on
mount: the input still queued for the running turn, and the `/` completion list. The
composer never calls the engine; it posts :class:`Composer.Submitted` and
:class:`Composer.Interrupt` and the app acts.

| key | binding id | what it does |
|---|---|---|
| enter | ``composer_send`` | send (or complete the highlighted `/` command) |
| ctrl+j, shift+enter, alt+enter | ``composer_newline`` | a new line (terminals differ) |
| tab | ``composer_complete`` | complete the highlighted `/` command or `@path` (else: next pane) |
| escape | ``composer_escape`` | close the list, else stop the turn (twice: its delegations) |
| up / down | (TextArea's) | move in the list; at the first / last line walk the history |
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from textual import events, on
from textual.actions import SkipAction
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static, TextArea

from tuibot.attachments.mentions import mention_for
from tuibot.attachments.pasted import pasted_images
from tuibot.tui.recall import HISTORY_FILE, InputHistory
from tuibot.tui.text.path_completion import candidates, mention_text, path_word
from tuibot.tui.widgets.completion import CommandCompletion

PLACEHOLDER = "Message… (Enter sends, ctrl+j newline, / commands, ↑ history)"
"""Shown while the composer is empty: the keys that are not obvious."""
QUEUED_WIDTH = 100
"""Characters of a queued input shown before it is cut."""


class QueuedInput(Static):
    """Inputs waiting for the running turn, one dim line each; hidden when there are none."""

    DEFAULT_CSS = """
    QueuedInput {
        height: auto;
        max-height: 5;
        color: $text-muted;
        padding: 0 1;
        display: none;
    }
    QueuedInput.-shown { display: block; }
    """

    def show(self, texts: list[str]) -> None:
        """Show ``texts`` (first line of each, cut); an empty list hides the box."""
        self.set_class(bool(texts), "-shown")
        lines = "\n".join(f"queued: {_one_line(text)}" for text in texts)
        self.update(Content(lines))  # never markup: it is the person's text


def _one_line(text: str) -> str:
    first, *rest = text.strip().splitlines() or [""]
    cut = first if len(first) <= QUEUED_WIDTH else first[: QUEUED_WIDTH - 1] + "…"
    return cut + (" …" if rest and cut is first else "")


class Composer(TextArea):
    """A TextArea whose Enter sends; posts :class:`Composer.Submitted`."""

    DEFAULT_CSS = """
    Composer { height: auto; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Send", id="composer_send"),
        Binding("ctrl+j,shift+enter,alt+enter", "newline", "Newline", id="composer_newline"),
        Binding("tab", "complete", "Complete", id="composer_complete", show=False),
        Binding("escape", "escape", "Stop", id="composer_escape", show=False),
        Binding("pageup", "app.scroll_chat(-1)", "Scroll up", id="composer_page_up", show=False),
        Binding(
            "pagedown", "app.scroll_chat(1)", "Scroll down", id="composer_page_down", show=False
        ),
    ]
    """Composer keys; each ``id`` can be rebound under ``[tui.keys]``."""

    class Submitted(Message):
        """The person sent ``text`` (stripped, never empty)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Interrupt(Message):
        """Esc: stop the running turn of the chat shown."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("placeholder", PLACEHOLDER)
        kwargs.setdefault("soft_wrap", True)
        kwargs.setdefault("show_line_numbers", False)
        super().__init__(**kwargs)
        self.queued = QueuedInput(classes="composer-queued")
        """The box of queued input, mounted above the composer."""
        self.completion = CommandCompletion(self._complete, classes="composer-completion")
        """The `/` command list, mounted above the composer."""
        self.inputs = InputHistory()
        """Earlier inputs; persisted once the app's data folder is known (on mount)."""
        self._dismissed: str | None = None
        """The text for which Esc closed the list (it stays closed until the text changes)."""
        self.workspace: Path | None = None
        """Where ``@path`` completes from (set by the app); None: no path completion."""
        self._path_word: int | None = None
        """While the list offers paths: the length of the ``@word`` before the cursor."""

    def on_mount(self) -> None:
        paths = getattr(self.app, "paths", None)
        root = getattr(paths, "root", None)
        if isinstance(root, Path):
            self.inputs = InputHistory(root / HISTORY_FILE)
        if isinstance(self.parent, Widget):
            self.parent.mount(self.queued, self.completion, before=self)

    # -- what the app calls ----------------------------------------------------------

    def show_queued(self, texts: list[str]) -> None:
        """Inputs waiting for the running turn of the shown chat ([] hides them)."""
        self.queued.show(texts)

    def set_commands(self, commands: list[tuple[str, str]]) -> None:
        """``(name, help)`` for `/` completion: slash commands and tool names."""
        self.completion.commands = list(commands)
        self._update_completion()

    # -- keys ------------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        """Let a binding on Enter run instead of TextArea inserting a newline."""
        if event.key == "enter":
            active = self.screen.active_bindings.get("enter")
            if active is not None and active.node is self:
                event.prevent_default()

    async def _on_paste(self, event: events.Paste) -> None:
        """Pasted image paths go in as ``@"path"`` mentions; other pastes as they are.

        Textual runs the paste handler of every class in the MRO, so TextArea's own
        ``_on_paste`` (which inserts ``event.text``) would run after this one and paste the
        path a second time; ``prevent_default`` stops it.
        """
        paths = [] if self.workspace is None else pasted_images(event.text, self.workspace)
        if not paths or self.read_only:
            return  # TextArea's handler pastes the text unchanged
        event.prevent_default()
        event.stop()
        start = min(self.selection)
        before = self.document.get_text_range((start[0], max(start[1] - 1, 0)), start)
        space = " " if before and not before.isspace() else ""
        mention = space + "".join(mention_for(path) + " " for path in paths)
        result = self.replace(mention, *self.selection, maintain_selection_offset=False)
        self.move_cursor(result.end_location)
        self.focus()

    def action_submit(self) -> None:
        """Enter: complete the highlighted command, else send what is typed."""
        chosen = self.completion.chosen
        if chosen is not None and chosen != self.text.strip():
            self._complete(chosen)
            return
        text = self.text.strip()
        if not text:
            return
        self.inputs.add(text)
        self.clear()
        self.completion.close()
        self.post_message(self.Submitted(text))

    def action_newline(self) -> None:
        """A line break at the cursor (replacing any selection); Enter is taken by send."""
        self.replace("\n", *self.selection, maintain_selection_offset=False)

    def action_complete(self) -> None:
        """Tab: complete the highlighted command; without the list Tab moves focus on."""
        chosen = self.completion.chosen
        if chosen is None:
            raise SkipAction()
        self._complete(chosen)

    def action_escape(self) -> None:
        """Esc: close the list, else ask the app to stop the running turn."""
        if self.completion.is_open:
            self._dismissed = self.text
            self.completion.close()
            return
        self.post_message(self.Interrupt())

    def action_cursor_up(self, select: bool = False) -> None:
        """Up: move in the list, walk back through history at the top, else move up."""
        if not select and self.completion.is_open:
            self.completion.move(-1)
        elif not select and self._at_edge(top=True):
            entry = self.inputs.back(self.text)
            if entry is not None:
                self._recall(entry)
        else:
            super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        """Down: move in the list, walk forward through history at the bottom."""
        if not select and self.completion.is_open:
            self.completion.move(1)
        elif not select and self.inputs.walking and self._at_edge(top=False):
            entry = self.inputs.forward()
            if entry is not None:
                self._recall(entry)
        else:
            super().action_cursor_down(select)

    # -- helpers ---------------------------------------------------------------------

    def _at_edge(self, *, top: bool) -> bool:
        """On the first (last) visual line, or showing an unchanged recalled entry."""
        if self.selection.start != self.selection.end:
            return False
        if self.inputs.walking and self.text == self.inputs.shown:
            return True
        where = self.cursor_location
        if top:
            return self.navigator.is_first_wrapped_line(where)
        return self.navigator.is_last_wrapped_line(where)

    def _recall(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def _complete(self, name: str) -> None:
        if self._path_word is not None:
            self._complete_path(name)
            return
        self.load_text(f"{name} ")
        self.move_cursor(self.document.end)
        self.completion.close()
        self.focus()

    @on(TextArea.Changed)
    def _text_changed(self, event: TextArea.Changed) -> None:
        if event.text_area is self:
            self._update_completion()

    def _update_completion(self) -> None:
        """Open the list while a command name is typed (``/`` and no space yet)."""
        text = self.text
        if self._dismissed is not None and text != self._dismissed:
            self._dismissed = None
        typing_command = text.startswith("/") and not any(c.isspace() for c in text)
        recalled = self.inputs.walking and text == self.inputs.shown
        self._path_word = None
        if typing_command and self._dismissed is None and not recalled:
            self.completion.show_for(text)
        elif not (self._dismissed is None and not recalled and self._offer_paths()):
            self.completion.close()

    def _offer_paths(self) -> bool:
        """Open the list with workspace paths while an ``@path`` is typed at the cursor."""
        if self.workspace is None or self.selection.start != self.selection.end:
            return False
        before = self.document.get_text_range((0, 0), self.cursor_location)
        word = path_word(before)
        if word is None:
            return False
        found = [c for c in candidates(self.workspace, word[1]) if c[0] != word[1]]
        self._path_word = word[0] if found else None
        return self.completion.show_options(found)

    def _complete_path(self, path: str) -> None:
        """Put ``path`` in place of the ``@word`` before the cursor (a space after a file)."""
        row, column = self.cursor_location
        start = (row, column - (self._path_word or 0))
        tail = "" if path.endswith("/") else " "
        self.replace(mention_text(path) + tail, start, self.cursor_location)
        self.focus()
