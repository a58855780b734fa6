"""Commands from the work panes: cancel a delegation, answer its request, show a tool call.

A mixin of :class:`~tuibot.tui.app.TuibotApp`. The kanban and the tree open chats with
the app-wide :class:`~tuibot.tui.messages.OpenChat`, which the app handles itself; what
needs the engine or a dialog comes here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work

from tuibot.tui.messages import ShowRequest

if TYPE_CHECKING:  # the panes are mounted after the first frame (see TuibotApp.on_ready)
    from tuibot.delegation.records import Delegation
    from tuibot.engine import Engine
    from tuibot.tui.widgets.delegation_tree import DelegationTree
    from tuibot.tui.widgets.tool_log import ToolLog

if TYPE_CHECKING:
    from textual.app import App

    _AppBase = App[int]
else:
    _AppBase = object


class WorkCommands(_AppBase):
    """Work-pane actions for the app; expects the attributes declared below."""

    if TYPE_CHECKING:
        engine: Engine | None

        def action_focus_pane(self, pane: str) -> None: ...

    # Handlers go by name (``on_…``): ``@on`` is not collected from a mixin whose
    # runtime base is ``object``, only from classes built by Textual's metaclass.

    def on_delegation_tree_cancel_requested(self, message: DelegationTree.CancelRequested) -> None:
        """``x`` in the tree: confirm in a dialog (a worker, as it waits for the answer)."""
        self.confirm_cancel_delegation(message.record)

    @work(group="dialogs", exclusive=True, exit_on_error=False)
    async def confirm_cancel_delegation(self, record: Delegation) -> None:
        """Ask, then cancel the work and everything below it; the giver is told."""
        from tuibot.tui.screens.confirm import ConfirmScreen
        from tuibot.tui.text.bars import shorten

        below = "" if not record.chat else " and all the work it gave"
        question = (
            f"Cancel {record.bot}'s work “{shorten(record.task, 80)}”{below}? "
            "The bot that gave it is told."
        )
        if await self.push_screen_wait(ConfirmScreen(question, yes="Cancel work", no="Keep")):
            self.cancel_delegation(record.id)

    @work(group="delegation-cancel", description="cancel a delegation", exit_on_error=False)
    async def cancel_delegation(self, delegation_id: str) -> None:
        """Cancel as a person would (``by="human"``): the giver's chat gets a notice."""
        from tuibot.delegation.errors import DelegationRefused
        from tuibot.store.jsonl import StorageError

        engine = self.engine
        if engine is None:
            return
        try:
            record = await engine.cancel_delegation(delegation_id, by="human")
        except (DelegationRefused, StorageError) as error:
            self.notify(f"Could not cancel {delegation_id}: {error}", severity="error")
            return
        self.notify(f"{record.bot}'s work {record.id} is {record.status}.", timeout=3)

    def on_delegation_tree_answer_requested(self, message: DelegationTree.AnswerRequested) -> None:
        """Jump to the approvals queue with the request this work waits on selected."""
        request_id = self.request_for(message.record)
        if request_id is None:
            self.notify("No request for that work is waiting (yet).", timeout=3)
            return
        self.action_focus_pane("approvals")
        self.post_message(ShowRequest(request_id))

    def request_for(self, record: Delegation) -> str | None:
        """The pending request about ``record``, or about the work above it that paused it."""
        engine = self.engine
        if engine is None:
            return None
        pending = engine.view.pending_approvals()
        pending_ids = {request.id for request in pending}
        pause = record.pause
        if pause is not None and pause.request in pending_ids:
            return pause.request
        wanted = {record.id} | ({pause.delegation} if pause and pause.delegation else set())
        for request in pending:
            if request.details.get("delegation") in wanted:
                return request.id
        return None

    def on_tool_log_detail_requested(self, message: ToolLog.DetailRequested) -> None:
        """The tool call's whole arguments and output, in a modal."""
        from tuibot.tui.screens.tool_detail import ToolDetailScreen

        self.push_screen(ToolDetailScreen(message.entry))
