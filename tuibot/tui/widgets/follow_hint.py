"""Following the end of a chat like a chat app, and the "↓ new messages" hint.

Textual's anchor keeps a scroll view at its end until the person scrolls, but any
scroll releases it, even a PageDown that is already at the end; the anchor then stays
released and new answers appear below the view. Here a downward scroll that ends at
the bottom follows again, End follows again, and sending follows again (the app calls
:meth:`FollowEnd.follow`). While the person reads further up, new text leaves the view
where it is and a hint at the bottom says there is more, and how to get to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events
from textual.widgets import Static

from tuibot.tui import compat

if TYPE_CHECKING:
    from textual.containers import VerticalScroll

    _ScrollBase = VerticalScroll
else:
    _ScrollBase = object

HINT_TEXT = "↓ new messages — End to follow"


class NewMessagesHint(Static):
    """One line docked at the bottom of the conversation while it does not follow."""

    DEFAULT_CSS = """
    NewMessagesHint {
        dock: bottom;
        width: auto;
        height: 1;
        padding: 0 1;
        display: none;
        background: $accent;
        color: $text;
        text-style: bold;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(HINT_TEXT, markup=False, **kwargs)

    def on_click(self, event: events.Click) -> None:
        """A click on the hint goes to the end, like End."""
        event.stop()
        parent = self.parent
        if isinstance(parent, FollowEnd):
            parent.follow()


class FollowEnd(_ScrollBase):
    """A mixin for a bottom-anchored scroll view: when it follows, and the hint."""

    _hint: NewMessagesHint

    @property
    def following(self) -> bool:
        """Whether the view keeps to the end as new text arrives."""
        return self.is_anchored and not compat.anchor_released(self)

    @property
    def hint(self) -> NewMessagesHint:
        """The "new messages" hint (shown only while not following)."""
        return self._hint

    def follow(self) -> None:
        """Go to the end and follow new text again (End, sending, a click on the hint)."""
        self.anchor()
        self._hint.display = False

    def news(self) -> None:
        """Something new was added to the end: say so if the person reads elsewhere."""
        if not self.following:
            self._hint.display = True

    def check_following(self) -> None:
        """The view moved: at the end and following again, the hint goes."""
        if self.following:
            self._hint.display = False

    def resume_at_bottom(self) -> None:
        """After a downward scroll: ending at the bottom follows again.

        Textual releases the anchor on every scroll; one that changes nothing (PageDown
        at the end) never reaches the check that would take it back.
        """
        if self.is_anchored and self.scroll_y >= self.max_scroll_y:
            self.follow()

    def on_mouse_scroll_down(self, _event: events.MouseScrollDown) -> None:
        """The wheel scrolled down: at the bottom, follow again."""
        self.call_after_refresh(self.resume_at_bottom)

    def action_scroll_down(self) -> None:
        """A line down (the down key): at the bottom, follow again."""
        super().action_scroll_down()
        self.call_after_refresh(self.resume_at_bottom)

    def action_page_up(self) -> None:
        """A page up, at once: a scroll animation at 50 rows a second would lag behind,
        and a scroll deferred to the next frame would make keys pressed within one frame
        (a held PageUp, keys from tmux) move one page between them."""
        page = self.scrollable_content_region.height
        self.scroll_to(y=self.scroll_y - page, animate=False, immediate=True)

    def action_page_down(self) -> None:
        """A page down, at once (see :meth:`action_page_up`)."""
        page = self.scrollable_content_region.height
        self.scroll_to(y=self.scroll_y + page, animate=False, immediate=True)
        self.call_after_refresh(self.resume_at_bottom)

    def action_top(self) -> None:
        """Go to the start (of the chat)."""
        self.scroll_home(animate=False, immediate=True)

    def action_bottom(self) -> None:
        """Go to the end and follow new text again."""
        self.follow()
