"""Copying as a terminal user expects: ctrl+c copies a selection, keys copy an answer.

ctrl+c is also the key that stops a turn, so it copies first: with text selected
anywhere (the composer, the conversation, a dialog) it copies that and stops nothing;
only with nothing selected does it stop the running turn. alt+c copies the answer in
view as the Markdown the model wrote, alt+k its code blocks, the last first (pressed
again soon, the one before). Everything goes through Textual's ``copy_to_clipboard``,
which writes OSC 52 to the terminal. A mixin of :class:`~tuibot.tui.app.TuibotApp`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual.binding import Binding

if TYPE_CHECKING:
    from textual.app import App

    from tuibot.tui.widgets.conversation import Conversation

    _AppBase = App[int]
else:
    _AppBase = object

COPY_BINDINGS = [
    Binding("alt+c", "copy_answer", "Copy answer", id="copy_answer", show=False, priority=True),
    Binding("alt+k", "copy_code", "Copy code block", id="copy_code", show=False, priority=True),
]
"""App-wide: alt keys, because the composer types letters and takes most ctrl keys."""
AGAIN_S = 10.0
"""alt+k pressed again within this many seconds steps to the code block before."""


class CopyCommands(_AppBase):
    """ctrl+c, alt+c and alt+k for the app; expects the attributes declared below."""

    if TYPE_CHECKING:

        @property
        def conversation(self) -> Conversation: ...
        def interrupt_current(self) -> bool: ...

    _code_pick: tuple[str, int, float] | None = None
    """The answer whose code block alt+k copied last, that block's index, and when."""

    def action_interrupt(self) -> None:
        """Ctrl+C: copy a selection, else stop the running turn, else say how to quit."""
        selected = self.selected_text()
        if selected:
            self.copy_text(selected, "the selection")
            return
        if self.interrupt_current():
            return
        self.notify("Nothing is running. Press ctrl+q to quit.", timeout=3)

    def selected_text(self) -> str:
        """Text selected in the focused input, else on the screen shown; "" when none."""
        focused = self.focused
        own = getattr(focused, "selected_text", "") if focused is not None else ""
        if isinstance(own, str) and own:
            return own
        return self.screen.get_selected_text() or ""

    def copy_text(self, text: str, what: str, hint: str = "") -> None:
        """Put ``text`` on the clipboard (OSC 52) and say what was copied."""
        self.copy_to_clipboard(text)
        lines = text.count("\n") + (not text.endswith("\n"))
        size = f"{lines} line{'s' if lines != 1 else ''}, {len(text)} characters"
        self.notify(f"Copied {what} ({size}){hint}.", markup=False, timeout=3)

    def action_copy_answer(self) -> None:
        """Copy the answer in view, as Markdown source."""
        from tuibot.tui.widgets.copy_targets import answer_in_view  # after the first frame

        answer = answer_in_view(self.conversation)
        if not answer:
            self.notify("No answer to copy in this chat.", timeout=3)
            return
        self.copy_text(answer, "the answer")

    def action_copy_code(self) -> None:
        """Copy the last code block of the answer in view; again soon, the one before."""
        from tuibot.tui.widgets.copy_targets import answer_in_view, code_blocks

        answer = answer_in_view(self.conversation) or ""
        blocks = code_blocks(answer)
        if not blocks:
            self.notify("No code block in the answer in view.", timeout=3)
            return
        index = len(blocks) - 1
        now = time.monotonic()
        last = self._code_pick
        if last is not None and last[0] == answer and now - last[2] < AGAIN_S:
            index = (last[1] - 1) % len(blocks)
        self._code_pick = (answer, index, now)
        hint = "; press again for the one before" if len(blocks) > 1 else ""
        self.copy_text(blocks[index], f"code block {index + 1} of {len(blocks)}", hint)
