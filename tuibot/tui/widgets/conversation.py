"""The centre pane: one chat's messages, streamed answers, reasoning and tool calls.

The view is a bottom-anchored scroll: it follows a streaming answer unless the person
scrolls up, and follows again once they are back at the bottom. What the chat had
stored when it was opened is one :class:`~tuibot.tui.widgets.history_lines.HistoryLines`
widget, drawn only near the view, so a chat of thousands of messages opens at once; the
blocks of turns that run while it is open follow it as widgets.

The app feeds it (see :mod:`tuibot.tui.actions.chat_commands`): ``show_chat`` with the
stored history, ``apply`` with engine events of the chat shown, ``apply_stream`` with streamed text.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.widget import Widget

from tuibot.events import (
    ApprovalDecided,
    ApprovalRequested,
    CommandOutput,
    Event,
    Notice,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
)
from tuibot.store.chat_message import ChatMessage
from tuibot.tui import compat
from tuibot.tui.messages import StreamBatch
from tuibot.tui.widgets.answer import AnswerView
from tuibot.tui.widgets.blocks import (
    CommandOutputBlock,
    MarkLine,
    NoticeBlock,
    ProblemBanner,
    ReasoningBlock,
    UserMessage,
    interrupted_mark,
)
from tuibot.tui.widgets.chips import AttachmentChips
from tuibot.tui.widgets.follow_hint import FollowEnd, NewMessagesHint
from tuibot.tui.widgets.history_blocks import (
    ROUND_LIMIT_MARK,
    Entry,
    entries_of,
    entry_of_message,
    stored_of_turn,
    tail_start,
)
from tuibot.tui.widgets.history_lines import HistoryLines
from tuibot.tui.widgets.lean import LeanContainer, LeanVertical
from tuibot.tui.widgets.stage import Stage
from tuibot.tui.widgets.tool_call import ToolCallRow
from tuibot.tui.widgets.working_line import WorkingLine

NOTICE_MARKS = {"info": "ℹ", "warning": "⚠", "error": "⚠"}
W = TypeVar("W", bound=Widget)


class Conversation(FollowEnd, LeanContainer, VerticalScroll):
    """Shows one chat; the app feeds it the chat's history, events and stream batches."""

    DEFAULT_CSS = """
    Conversation {
        padding: 0 1;
        scrollbar-gutter: stable;
        & > .blocks { height: auto; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home,ctrl+home", "top", "Top", id="conversation.top", show=False),
        Binding("end,ctrl+end", "bottom", "Bottom", id="conversation.bottom", show=False),
    ]
    """| Key | Action |\n|---|---|\n| home, ctrl+home | the start of the chat |\n|
    end, ctrl+end | the end, following new text again |"""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.chat: str | None = None
        """The chat shown, or None before one is opened."""
        self._stage = Stage()
        self.history = HistoryLines(self._stage)
        """What the chat had stored when it was opened."""
        self._body = LeanVertical(classes="blocks")
        """Blocks of the turns that ran since."""
        self._stored: list[ChatMessage] = []
        self.whole = True
        """The whole stored history is shown (False while a long chat's start is read)."""
        self._show_reasoning = False
        self._show_tools = False
        self._banner: ProblemBanner | None = None
        self._echoed: list[str] = []
        """Messages shown by ``echo_user`` whose TurnStarted has not come yet."""
        self._turn: str | None = None
        """The turn streaming now (or last started)."""
        self._answer: AnswerView | None = None
        self._reasoning: ReasoningBlock | None = None
        self._last_error: str | None = None
        """The error notice shown for this turn (its TurnFinished need not repeat it)."""
        self._rows: dict[str, ToolCallRow] = {}
        self._approvals: dict[str, tuple[MarkLine, str]] = {}
        self._hint = NewMessagesHint()
        self.working = WorkingLine()
        """The working indicator, after the blocks (the app draws it)."""

    def compose(self) -> Any:
        yield self.history
        yield self._body
        yield self.working
        yield self._stage
        yield self._hint

    def on_mount(self) -> None:
        self.follow()
        self.watch(self, "scroll_y", self._scrolled, init=False)

    # -- what the app calls ----------------------------------------------------------

    @property
    def blocks(self) -> list[Widget]:
        """The blocks of turns that ran since the chat was opened (after the history)."""
        return list(self._body.children)

    def show_chat(self, chat: str, messages: list[ChatMessage], *, whole: bool = True) -> None:
        """Replace what is shown with ``messages`` (records as the chat store loads them);
        not ``whole``: they are the chat's last ones, and :meth:`complete_chat` follows."""
        self.chat = chat or None
        self._stored = messages
        self.whole = whole
        self._reset_turn(None)
        self._echoed.clear()
        self._rows.clear()
        self._approvals.clear()
        entries = entries_of(messages) if chat else []
        self.history.show(entries, reasoning=self._show_reasoning, tools=self._show_tools)
        old = self._body
        self._body = LeanVertical(classes="blocks")
        old.display = False
        old.remove()
        self.mount(self._body, after=self.history)
        self.follow()

    @property
    def stored(self) -> list[ChatMessage]:
        """The stored messages shown (the last ones only, until :meth:`complete_chat`)."""
        return self._stored

    def complete_chat(self, messages: list[ChatMessage], entries: list[Entry]) -> bool:
        """The whole history of a chat opened with its last messages: its start (of
        ``entries``, the blocks of ``messages``) goes above them. False when the messages
        shown are not found at its end (the file was rewritten meanwhile)."""
        head = tail_start(messages, self._stored)
        if head is None:
            return False
        end = head + len(self._stored)
        self._stored = messages[:end]  # any after it are the live turn's, shown as blocks
        self.whole = True
        self.history.prepend(entries[: len(entries) - len(entries_of(messages[head:]))])
        return True

    def show_message(self, index: int) -> None:
        """Bring stored message ``index`` into view and mark it (a search result)."""
        entry = entry_of_message(self._stored, index)
        if entry is None:
            return
        self.release_anchor()  # the person reads there now: new text must not pull away
        self.history.cursor = entry
        self.history.focus()
        self.call_after_refresh(self.history.scroll_to_block, entry)

    def echo_user(self, text: str) -> None:
        """Show the person's message at once (the turn's TurnStarted must not repeat it)."""
        self._echoed.append(text)
        self._add(UserMessage(text))

    def resume_stream(self, turn: str, text: str, reasoning: str) -> None:
        """Opened mid-answer: show what has streamed so far; batches continue it."""
        stored_text, stored_reasoning = stored_of_turn(self._stored, turn)
        if text.startswith(stored_text):
            text = text[len(stored_text) :]
        if reasoning.startswith(stored_reasoning):
            reasoning = reasoning[len(stored_reasoning) :]
        self._reset_turn(turn)
        self.apply_stream(StreamBatch(self.chat or "", turn, text, reasoning))

    def show_command_output(self, output: CommandOutput) -> None:
        """What a slash command printed (not stored in the chat)."""
        self._add(CommandOutputBlock(output.command, output.text, ok=output.ok))

    def show_problem(self, text: str) -> None:
        """A banner at the top of the view (no model server, a config problem)."""
        if self._banner is None:
            self._banner = ProblemBanner(text)
            self.mount(self._banner, before=0)
        else:
            self._banner.update(text)

    def clear_problem(self) -> None:
        """Take the banner away (the problem is solved)."""
        if self._banner is not None:
            self._banner.remove()
            self._banner = None

    def set_reasoning_visible(self, visible: bool) -> None:
        """Expand or collapse every reasoning block, including ones added later."""
        self._show_reasoning = visible
        self.history.set_folds(reasoning=visible, tools=self._show_tools)
        for block in self._body.query(ReasoningBlock):
            block.expanded = visible

    def set_tool_output_visible(self, visible: bool) -> None:
        """Expand or collapse every tool call, including ones added later."""
        self._show_tools = visible
        self.history.set_folds(reasoning=self._show_reasoning, tools=visible)
        for row in self._body.query(ToolCallRow):
            row.expanded = visible

    # -- events ----------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        """An engine event of the shown chat (the app filters by chat)."""
        if isinstance(event, TurnStarted):
            self._turn_started(event)
        elif isinstance(event, ToolStarted):
            self._end_segment()
            self._add(self._row(event.call_id, event.name, event.arguments))
        elif isinstance(event, ToolFinished):
            row = self._rows.get(event.call_id)
            if row is None and self.history.finish_tool(
                event.call_id, event.ok, event.output, event.duration_s
            ):
                return  # a call stored as running when the chat was opened
            if row is None:
                row = self._add(self._row(event.call_id, event.name, {}))
            row.finish(event.ok, event.output, event.duration_s)
        elif isinstance(event, TurnFinished):
            self._turn_finished(event)
        elif isinstance(event, Notice):
            self._notice(event)
        elif isinstance(event, ApprovalRequested):
            mark = self._add(MarkLine(f"⏳ waiting for approval: {event.summary}", "waiting"))
            self._approvals[event.request_id] = (mark, event.summary)
        elif isinstance(event, ApprovalDecided):
            self._decided(event)

    def apply_stream(self, batch: StreamBatch) -> None:
        """Streamed text of the shown chat."""
        if batch.turn != self._turn:
            self._end_segment()
            self._reset_turn(batch.turn)
        if batch.reasoning:
            self._live_reasoning().append(batch.reasoning)
        if batch.text:
            self._live_answer().feed(batch.text)
        self.news()

    def _turn_started(self, event: TurnStarted) -> None:
        self._end_segment()
        self._reset_turn(event.turn)
        if event.notice:
            self._add(NoticeBlock(event.input))
        elif event.input in self._echoed:
            self._echoed.remove(event.input)
        elif event.input:
            self._add(UserMessage(event.input))
        if event.attachments:
            self._add(AttachmentChips(event.attachments))

    def _turn_finished(self, event: TurnFinished) -> None:
        self._end_segment()
        if event.status in ("interrupted", "cancelled"):
            self._add(interrupted_mark(event.status))
        elif event.status == "round_limit":
            self._add(MarkLine(ROUND_LIMIT_MARK, "warning"))
        elif event.status == "failed" and event.error and event.error != self._last_error:
            self._add(MarkLine(f"⚠ {event.error}", "error"))
        self._reset_turn(None)

    def _notice(self, event: Notice) -> None:
        mark = NOTICE_MARKS.get(event.level, "ℹ")
        self._add(MarkLine(f"{mark} {event.message}", event.level))
        if event.level == "error":
            self._last_error = event.message

    def _decided(self, event: ApprovalDecided) -> None:
        found = self._approvals.pop(event.request_id, None)
        if found is None:
            return
        mark, summary = found
        reason = f" — {event.reason}" if event.reason else ""
        if event.allowed:
            mark.set_kind(f"✓ allowed: {summary}{reason}", "allowed")
        else:
            mark.set_kind(f"✗ denied: {summary}{reason}", "denied")

    # -- the running turn ------------------------------------------------------------

    def _reset_turn(self, turn: str | None) -> None:
        self._turn = turn
        self._answer = None
        self._reasoning = None
        self._last_error = None

    def _end_segment(self) -> None:
        """A round's text is over (a tool call or the turn's end follows)."""
        if self._answer is not None:
            self._answer.finish()
            self._answer = None
        if self._reasoning is not None:
            self._reasoning.live = False
            self._reasoning.redraw()
            self._reasoning = None

    def _live_answer(self) -> AnswerView:
        if self._answer is None:
            self._answer = self._add(AnswerView(live=True))
            if self._reasoning is not None:
                self._reasoning.live = False
                self._reasoning.redraw()
        return self._answer

    def _live_reasoning(self) -> ReasoningBlock:
        if self._reasoning is None:
            block = ReasoningBlock(expanded=self._show_reasoning)
            block.live = True
            self._reasoning = self._add(block)
        return self._reasoning

    def _row(self, call_id: str, name: str, arguments: dict[str, Any]) -> ToolCallRow:
        row = ToolCallRow(call_id, name, arguments, expanded=self._show_tools)
        self._rows[call_id] = row
        return row

    # -- building blocks -------------------------------------------------------------

    def _add(self, widget: W) -> W:
        """Put a block at the end."""
        self._body.mount(widget)
        self.news()
        return widget

    # -- scrolling -------------------------------------------------------------------

    def _scrolled(self, y: float) -> None:
        history_top = round(y) - self.history.virtual_region.y
        self.history.rows.hold(None if self.following else history_top)
        self._tell_history(round(y))
        self.check_following()

    def on_resize(self) -> None:
        self._tell_history(round(self.scroll_y))

    def _tell_history(self, top: int, placed: tuple[int, int] | None = None) -> None:
        """Which rows of the history are in view, with the view's top at ``top``.

        ``placed`` is (the history's y, the view's height) when a layout knows them.
        """
        history_y, height = placed or (self.history.virtual_region.y, self.size.height)
        self.history.show_rows(top - history_y, height)

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """Lay out, then keep the row being read in place if history above it changed."""
        arrangement = super().arrange(size, optimal)
        placed = _placed_y(arrangement, self.history), size.height
        if self.following:  # the compositor puts the view at the end right after this
            bottom = arrangement.spatial_map.total_region.bottom
            self._tell_history(bottom - size.height, placed)
        elif (held := self.history.rows.held_row()) is not None:
            shift = held + placed[0] - round(self.scroll_y)
            if shift:
                self._shift(shift, placed)
        return arrangement

    def _shift(self, rows: int, placed: tuple[int, int]) -> None:
        """Move the view by ``rows`` without a frame in between (and any scroll with it)."""
        self.set_reactive(Widget.scroll_y, self.scroll_y + rows)
        self.set_reactive(Widget.scroll_target_y, self.scroll_target_y + rows)
        compat.shift_scroll_animation(self, rows)
        self.vertical_scrollbar.position = self.scroll_y
        self._tell_history(round(self.scroll_y), placed)


def _placed_y(arrangement: DockArrangeResult, widget: Widget) -> int:
    """Where ``arrangement`` puts ``widget`` (its ``virtual_region.y`` once laid out).

    Asking the widget itself during a layout makes the screen lay everything out once
    more (its map of places is out of date until the layout ends): twice the work on
    every frame of a streamed answer.
    """
    for placement in arrangement.placements:
        if placement.widget is widget:
            return placement.region.y
    return widget.virtual_region.y
