"""Tool calls that local models write as text instead of native calls.

Many local models (Qwen, Hermes, Llama, Mistral, GLM, DeepSeek, Functionary, ...) put the
call in the answer text. With a provider's ``text_tool_calls`` on, the loop streams the
answer through a :class:`TextCallStream`: text that may be the start of a call is held
back until it is known, so a person never sees call markup, and what turns out to be a
call leaves the answer and runs like a native one. Only calls naming a tool the turn
offers count, and only in a dialect's exact form; anything else stays text.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from tuibot.llm.text_blocks import held_tail, may_end_here, next_marker, resolve
from tuibot.llm.text_offered import Offered, TextToolCall
from tuibot.llm.text_whole import may_be_whole, whole_answer

__all__ = ["TextCallStream", "TextToolCall", "extract_text_tool_calls", "offered_tools"]


def offered_tools(definitions: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Name -> parameter schema of the tools a request offers (its ``tools`` list)."""
    offered: dict[str, dict[str, Any]] = {}
    for definition in definitions:
        function = definition.get("function") or {}
        if isinstance(function.get("name"), str):
            offered[function["name"]] = function.get("parameters") or {}
    return offered


def extract_text_tool_calls(text: str, known: Collection[str]) -> tuple[str, list[TextToolCall]]:
    """Split a finished answer into the prose left over and the tool calls it made.

    ``known`` is the offered tool names, or a mapping of them to their parameter
    schemas (which type the values of XML-style calls). With no call, the text comes
    back exactly as it was.
    """
    stream = TextCallStream(known)
    stream.feed(text)
    stream.finish()
    return stream.prose, stream.calls


class TextCallStream:
    """Reads an answer as it streams; says what may be shown now, and finds the calls."""

    def __init__(self, known: Collection[str]) -> None:
        self._offered = Offered(known)
        self._text = ""
        self._cursor = 0  # the text before it is resolved: shown, or taken as calls
        self._whole_possible = True
        self._shown: list[str] = []
        self._spaces = ""  # whitespace held back: dropped if a call follows it
        self._dropped = False
        self._waited_at = -1  # text length when an open block last could not be resolved
        self.calls: list[TextToolCall] = []

    @property
    def prose(self) -> str:
        """Everything shown so far: the answer without its calls."""
        return "".join(self._shown)

    def feed(self, chunk: str) -> str:
        """Add streamed text; return the part that can be shown now (maybe empty)."""
        self._text += chunk
        return self._advance(final=False)

    def finish(self) -> str:
        """The answer has ended: resolve what was held back; return the rest to show."""
        shown = self._advance(final=True)
        if not self._dropped and self._spaces:
            self._shown.append(self._spaces)
            shown += self._spaces
        self._spaces = ""
        return shown

    def _advance(self, final: bool) -> str:
        """Resolve as much of the text as can be known; return what became showable."""
        before = len(self._shown)
        if self._whole_possible and not self._whole(final):
            return ""
        recent = self._text[max(0, self._waited_at - 32) :]
        if not final and self._waited_at >= 0 and not may_end_here(recent):
            return ""  # nothing new could close the open block: skip re-reading it
        while self._cursor < len(self._text):
            start = next_marker(self._text, self._cursor)
            if start < 0:
                hold = 0 if final else held_tail(self._text[self._cursor :])
                self._show(self._text[self._cursor : len(self._text) - hold])
                self._cursor = len(self._text) - hold
                break
            self._show(self._text[self._cursor : start])
            self._cursor = start
            block = resolve(self._text, start, final, self._offered)
            if block is None:
                self._waited_at = len(self._text)
                break
            self._waited_at = -1
            if block.calls is None:
                self._show(self._text[start : block.end])
            else:
                self._drop(block.calls)
            self._cursor = block.end
        return "".join(self._shown[before:])

    def _whole(self, final: bool) -> bool:
        """Settle whether the answer is one whole-answer call; False while it may be."""
        if not final:
            if may_be_whole(self._text, self._offered):
                return False
            self._whole_possible = False
            return True
        self._whole_possible = False
        whole = whole_answer(self._text, self._offered, self._inner)
        if whole is None:
            return True
        self._drop(whole.calls)
        self._show(whole.prose)
        self._cursor = len(self._text)
        return True

    def _inner(self, text: str) -> tuple[str, list[TextToolCall]]:
        """A fence's contents, read in any dialect with the same offered tools."""
        return extract_text_tool_calls(text, self._offered.schemas)

    def _show(self, text: str) -> None:
        """Show prose; trailing whitespace waits to see whether a call follows it."""
        if self._dropped and not self._shown:
            text = text.lstrip()
        text = self._spaces + text
        body = text.rstrip()
        self._spaces = text[len(body) :]
        if body:
            self._shown.append(body)

    def _drop(self, calls: list[TextToolCall]) -> None:
        """A block turned out to be calls (or an empty call block): it is not shown."""
        self.calls.extend(calls)
        self._spaces = ""
        self._dropped = True
