"""Panes whose modules the first frame need not wait for: they are mounted after it.

Only the Tasks tab shows when the app opens; the delegation tree, the tool log and the
approvals queue sit behind their tab labels, so the app composes their tabs empty and
mounts them in ``on_ready`` (before the engine can send them anything). The
conversation is empty until a chat opens (after the engine is built), so the first
frame shows a :class:`ConversationSlot` that looks the same, and the conversation takes
its place as soon as anything asks for it. Their modules, styles and widgets were a
third of what the first frame waited for; tests/test_tui_first_paint.py fails when one
of them is imported before that frame again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.widget import AwaitMount

    from tuibot.tui.widgets.approvals import ApprovalsPane
    from tuibot.tui.widgets.conversation import Conversation


class ConversationSlot(VerticalScroll, can_focus=False):
    """The conversation's place in the first frame: drawn as an empty conversation is."""

    DEFAULT_CSS = """
    ConversationSlot {
        height: 1fr;
        padding: 0 1;
        scrollbar-gutter: stable;
    }
    """


def conversation_in(slot: ConversationSlot) -> tuple[Conversation, AwaitMount]:
    """Put the conversation in the slot's place; it is in the DOM at once (callers use it
    straight away) and mounted when the returned ``AwaitMount`` is done."""
    from tuibot.tui.widgets.conversation import Conversation

    conversation = Conversation(id="conversation")
    slot.display = False  # no frame shows both
    parent = slot.parent
    assert isinstance(parent, Widget)
    mounted = parent.mount(conversation, before=slot)
    slot.remove()
    return conversation, mounted


def conversation_type() -> type[Conversation]:
    """The conversation's class, for a query (its module is imported with it)."""
    from tuibot.tui.widgets.conversation import Conversation

    return Conversation


def later_panes() -> dict[str, Widget]:
    """Tab id → the pane it holds, for each tab composed empty."""
    from tuibot.tui.widgets.approvals import ApprovalsPane
    from tuibot.tui.widgets.delegation_tree import DelegationTree
    from tuibot.tui.widgets.tool_log import ToolLog

    return {
        "tab-delegations": DelegationTree(id="delegations"),
        "tab-tools": ToolLog(id="tools"),
        "tab-approvals": ApprovalsPane(id="approvals"),
    }


def approvals_pane() -> type[ApprovalsPane]:
    """The queue's class, for a query (its module is imported with the panes)."""
    from tuibot.tui.widgets.approvals import ApprovalsPane

    return ApprovalsPane
