"""The side tabs hidden at start get their panes after the first frame.

Only the Tasks tab shows when the app opens; the delegation tree, the tool log and the
approvals queue sit behind their tab labels. Their modules, styles and widgets were a
fifth of what the first frame waited for, so the app composes their tabs empty and
mounts them in ``on_ready`` (before the engine can send them anything).
tests/test_tui_first_paint.py fails when one of their modules is imported before that
frame again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.widget import Widget

    from tuibot.tui.widgets.approvals import ApprovalsPane


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
