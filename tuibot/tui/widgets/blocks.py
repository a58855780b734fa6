"""The small blocks of a conversation besides answers and tool calls.

Each is one widget (a Static or a Markdown), so a long chat stays a short widget tree:
every mounted widget costs layout time on each frame and garbage-collector time.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Markdown, Static

EXPAND_BINDING = Binding("enter", "toggle_block", "Expand / collapse", id="conversation.expand")
"""Enter on a focused reasoning block or tool call row opens or closes it."""


class UserMessage(Static):
    """What the person wrote, as they typed it: pasted lines stay lines, no Markdown,
    no markup (a message is text to show, not formatting to apply)."""

    DEFAULT_CSS = """
    UserMessage {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $primary;
        background: $boost;
    }
    """

    def __init__(self, text: str, **kwargs: Any) -> None:
        super().__init__(Content(text), markup=False, **kwargs)
        self.source = text
        """The message as typed (what a copy of it gives)."""


class NoticeBlock(Markdown):
    """tuibot's own message into a chat: a delegated task, a delegation's result."""

    DEFAULT_CSS = """
    NoticeBlock {
        margin: 1 0 0 0;
        padding: 0 1;
        border: round $secondary;
        border-title-color: $secondary;
        color: $text-muted;
        & > MarkdownBlock:last-child { margin-bottom: 0; }
    }
    """

    def __init__(self, text: str, **kwargs: Any) -> None:
        super().__init__(text, **kwargs)
        self.border_title = "tuibot notice"


class Foldable(Static, can_focus=True):
    """A block that shows one summary line, and its body when expanded (one widget)."""

    BINDINGS: ClassVar[list[BindingType]] = [EXPAND_BINDING]
    """| Key | Action |\n|---|---|\n| enter | expand or collapse this block |"""

    expanded: reactive[bool] = reactive(False)
    """Whether the body is shown."""

    def __init__(self, *, expanded: bool = False, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)
        self.set_reactive(Foldable.expanded, expanded)

    def on_mount(self) -> None:
        self.redraw()

    def watch_expanded(self) -> None:
        self.redraw()

    def action_toggle_block(self) -> None:
        """Open or close this block."""
        self.expanded = not self.expanded

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_toggle_block()

    def redraw(self) -> None:
        """Render the summary (and body) again."""
        self.set_class(self.expanded, "-expanded")
        self.update(self.render_content())

    def render_content(self) -> Content:
        """The summary line, plus the body when expanded."""
        raise NotImplementedError


class ReasoningBlock(Foldable):
    """The model's reasoning: collapsed to a line, or shown whole."""

    DEFAULT_CSS = """
    ReasoningBlock {
        margin: 1 0 0 0;
        padding: 0 1;
        color: $text-muted;
        border-left: wide $panel;
        &:focus { background: $boost; }
    }
    """

    def __init__(self, text: str = "", *, expanded: bool = False, **kwargs: Any) -> None:
        super().__init__(expanded=expanded, **kwargs)
        self._parts = [text] if text else []
        self.live = False
        """The reasoning is still streaming."""

    @property
    def text(self) -> str:
        """The reasoning so far."""
        return "".join(self._parts)

    def append(self, text: str) -> None:
        """Add streamed reasoning."""
        self._parts.append(text)
        if self._parts and len(self._parts) > 64:
            self._parts = ["".join(self._parts)]
        if self.is_mounted:
            self.redraw()

    def render_content(self) -> Content:
        text = self.text
        words = len(text.split())
        mark = "▼" if self.expanded else "▶"
        state = "thinking…" if self.live else f"{words} word{'s' if words != 1 else ''}"
        head = Content.assemble((f"{mark} Reasoning", "bold"), f" · {state}")
        if not self.expanded:
            return head
        return Content.assemble(head, "\n", text.strip("\n"))


class CommandOutputBlock(Static):
    """What a slash command printed (not part of the chat's history)."""

    DEFAULT_CSS = """
    CommandOutputBlock {
        margin: 1 0 0 0;
        padding: 0 1;
        border: round $accent;
        border-title-color: $accent;
        &.-failed { border: round $error; border-title-color: $error; }
    }
    """

    def __init__(self, command: str, text: str, *, ok: bool = True, **kwargs: Any) -> None:
        super().__init__(text, markup=False, **kwargs)
        self.border_title = command or "command"
        self.set_class(not ok, "-failed")


class ProblemBanner(Static):
    """Something is wrong with the setup (no model server …) and how to fix it."""

    DEFAULT_CSS = """
    ProblemBanner {
        dock: top;
        margin: 0 0 1 0;
        padding: 0 1;
        border: heavy $error;
        border-title-color: $error;
        background: $error 10%;
    }
    """

    def __init__(self, text: str, **kwargs: Any) -> None:
        super().__init__(text, markup=False, **kwargs)
        self.border_title = "problem"


class MarkLine(Static):
    """A one-line mark in the flow: interrupted, round limit, waiting for approval, error."""

    DEFAULT_CSS = """
    MarkLine {
        margin: 1 0 0 0;
        padding: 0 1;
        color: $text-muted;
        &.-interrupted { color: $warning; }
        &.-warning { color: $warning; }
        &.-error { color: $error; border-left: thick $error; background: $error 10%; }
        &.-waiting { color: $warning; text-style: bold; }
        &.-denied { color: $error; }
        &.-allowed { color: $success; }
    }
    """

    def __init__(self, text: str, kind: str, **kwargs: Any) -> None:
        super().__init__(text, markup=False, classes=f"-{kind}", **kwargs)
        self.kind = kind
        """interrupted, warning, error, info, waiting, allowed or denied."""

    def set_kind(self, text: str, kind: str) -> None:
        """Change what the mark says (a request that was decided)."""
        self.remove_class(f"-{self.kind}")
        self.kind = kind
        self.add_class(f"-{kind}")
        self.update(text)


def interrupted_mark(status: str) -> MarkLine:
    """The mark under an answer that did not finish."""
    if status == "cancelled":
        return MarkLine("⏹ interrupted — you stopped this answer", "interrupted")
    return MarkLine("⚠ interrupted — the answer stopped before it was complete", "interrupted")
