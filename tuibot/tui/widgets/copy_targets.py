"""What the copy keys take: the answer the person is looking at, and its code blocks.

An answer lives in one of two places: the stored history (one widget of lines, where an
answer is one entry, maybe drawn in pieces) or a block of a turn that ran since the chat
was opened (an :class:`~tuibot.tui.widgets.answer.AnswerView`). Both keep the Markdown
source, so what is copied is the raw text the model wrote, never the drawn cells (a
selection and ctrl+c give those).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.widget import Widget

from tuibot.tui.widgets.answer import AnswerView

if TYPE_CHECKING:
    from tuibot.tui.widgets.conversation import Conversation


@dataclass(frozen=True)
class PlacedAnswer:
    """An answer's Markdown and the rows it takes in the conversation's scroll space."""

    top: int
    bottom: int
    """One past its last row."""
    text: str


def placed_answers(conversation: Conversation) -> list[PlacedAnswer]:
    """Every answer shown, top to bottom, with its rows (history first, then live blocks)."""
    history = conversation.history
    origin = history.virtual_region.y
    spans: dict[int, tuple[int, int]] = {}
    rows = history.rows
    for index, unit in enumerate(rows.units):
        if history.entries[unit.entry].kind != "answer":
            continue
        start = origin + rows.rows.start(index)
        end = start + rows.rows.height(index)
        top, bottom = spans.get(unit.entry, (start, end))
        spans[unit.entry] = (min(top, start), max(bottom, end))
    found = [PlacedAnswer(*spans[i], history.entries[i].text) for i in sorted(spans)]
    for block in conversation.blocks:
        if isinstance(block, AnswerView) and block.text:
            parent = block.parent
            shift = parent.virtual_region.y if isinstance(parent, Widget) else 0
            region = block.virtual_region
            found.append(PlacedAnswer(shift + region.y, shift + region.bottom, block.text))
    return found


def answer_in_view(conversation: Conversation) -> str | None:
    """The lowest answer on screen; else the last one above the view; else None."""
    top = round(conversation.scroll_y)
    bottom = top + conversation.scrollable_content_region.height
    answers = placed_answers(conversation)
    seen = [a for a in answers if a.top < bottom and a.bottom > top]
    if seen:
        return seen[-1].text
    above = [a for a in answers if a.bottom <= top]
    return above[-1].text if above else None


def code_blocks(markdown: str) -> list[str]:
    """The contents of every code block in ``markdown`` (fenced or indented), in order.

    Parsed as Textual's Markdown widget parses it, so a fence inside a list item counts
    and a fence-like line inside another fence does not.
    """
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("gfm-like").parse(markdown)
    return [token.content for token in tokens if token.type in ("fence", "code_block")]
