"""The centre pane: one chat's messages, streamed answers, reasoning and tool calls.

The view is a bottom-anchored scroll: it follows a streaming answer unless the person
scrolls up, and follows again once they are back at the bottom. A long chat opens with
only its last :data:`PAGE` blocks as widgets; earlier blocks are built a page at a time
when the view nears the top, with the scroll position kept on what the person reads.

The app feeds it (see :mod:`tuibot.tui.chats`): ``show_chat`` with the stored history,
``apply`` with engine events of the chat shown, ``apply_stream`` with streamed text.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
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
from tuibot.tui.widgets.history import ROUND_LIMIT_MARK, Entry, build, entries_of, stored_of_turn
from tuibot.tui.widgets.tool_call import ToolCallRow

PAGE = 50
"""Blocks built when a chat opens, and per page when scrolling up."""
NOTICE_MARKS = {"info": "ℹ", "warning": "⚠", "error": "⚠"}
W = TypeVar("W", bound=Widget)


class Conversation(VerticalScroll):
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
    """| Key | Action |\n|---|---|\n| home, ctrl+home | the start of the chat (builds
    every earlier block) |\n| end, ctrl+end | the end, following new text again |"""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.chat: str | None = None
        """The chat shown, or None before one is opened."""
        self._body = Vertical(classes="blocks")
        self._earlier: list[Entry] = []
        """Blocks of the chat above the built ones."""
        self._stored: list[dict[str, Any]] = []
        self._loading = False
        self._to_top = False
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

    def compose(self) -> Any:
        yield self._body

    def on_mount(self) -> None:
        self.anchor()
        self.watch(self, "scroll_y", self._scrolled, init=False)

    # -- what the app calls ----------------------------------------------------------

    @property
    def earlier(self) -> int:
        """Blocks of the chat shown that are not built yet (above the top)."""
        return len(self._earlier)

    def show_chat(self, chat: str, messages: list[dict[str, Any]]) -> None:
        """Replace what is shown with ``messages`` (records as the chat store loads them)."""
        self.chat = chat or None
        self._stored = messages
        self._reset_turn(None)
        self._echoed.clear()
        self._rows.clear()
        self._approvals.clear()
        entries = entries_of(messages) if chat else []
        self._earlier, shown = entries[:-PAGE], entries[-PAGE:]
        old = self._body
        self._body = Vertical(*(self._build(entry) for entry in shown), classes="blocks")
        old.display = False
        old.remove()
        self.mount(self._body)
        self.anchor()

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
        for block in self._body.query(ReasoningBlock):
            block.expanded = visible

    def set_tool_output_visible(self, visible: bool) -> None:
        """Expand or collapse every tool call, including ones added later."""
        self._show_tools = visible
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

    def _turn_started(self, event: TurnStarted) -> None:
        self._end_segment()
        self._reset_turn(event.turn)
        if event.notice:
            self._add(NoticeBlock(event.input))
        elif event.input in self._echoed:
            self._echoed.remove(event.input)
        elif event.input:
            self._add(UserMessage(event.input))

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
        return widget

    def _build(self, entry: Entry) -> Widget:
        widget = build(entry, reasoning=self._show_reasoning, tool_output=self._show_tools)
        if isinstance(widget, ToolCallRow) and widget.status == "running":
            self._rows[widget.call_id] = widget  # its result may still arrive
        return widget

    def _scrolled(self, y: float) -> None:
        if y < self.size.height and self._earlier and not self._loading:
            self._loading = True
            self.run_worker(
                self._load_page(), name="load earlier", group="conversation", exit_on_error=False
            )

    async def _load_page(self) -> None:
        """Build the page above the top, keeping what is on screen where it is."""
        try:
            page, self._earlier = self._earlier[-PAGE:], self._earlier[:-PAGE]
            first = self._body.children[0] if self._body.children else None
            offset = first.virtual_region.y - self.scroll_y if first is not None else 0
            await self._body.mount_all([self._build(entry) for entry in page], before=0)
            self.call_after_refresh(self._keep_position, first, offset)
        except Exception:
            self._loading = False
            raise

    def _keep_position(self, first: Widget | None, offset: float) -> None:
        if self._to_top:
            self.scroll_home(animate=False, immediate=True)
        elif first is not None and first.is_attached:
            self.scroll_to(y=first.virtual_region.y - offset, animate=False, immediate=True)
        self._loading = False
        if self._to_top and not self._earlier:
            self._to_top = False
        self._scrolled(self.scroll_y)

    def action_top(self) -> None:
        """Go to the start of the chat, building every earlier block on the way."""
        self._to_top = bool(self._earlier)
        self.scroll_home(animate=False, immediate=True)
        self._scrolled(self.scroll_y)

    def action_bottom(self) -> None:
        """Go to the end and follow new text again."""
        self.anchor()
