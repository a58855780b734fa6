"""Cutting streamed Markdown into settled blocks and a live tail, without Textual.

A streamed answer only ever grows at its end, so everything before the last unfinished
block can be rendered once and never parsed again. The hard part is knowing where a block
really ends: a blank line inside a code fence, between two items of a loose list, or
inside an HTML comment is not a boundary. :class:`BlockSplitter` scans each complete line
once (so a long answer costs linear time) and cuts only where CommonMark would start a
new top-level block whatever follows:

- after blank lines, before an unindented line that cannot continue the block before it
  (a list marker continues a list; an indented line may continue anything);
- before an unindented fence opener that interrupts a paragraph, heading or list;
- right after a fence opened at column 0 closes.

Cutting too rarely only costs speed; cutting wrongly would change the rendering, so every
rule errs towards not cutting. The answer view checks the cuts once more against a parse
of the whole text when the answer ends (see :func:`cuts_are_safe`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LIST_MARKER = re.compile(r"(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_FENCE = re.compile(r"(`{3,}|~{3,})(.*)$")
_RAW_HTML = (
    (re.compile(r"<!--"), "-->"),
    (re.compile(r"<(?:pre|script|style|textarea)(?:[\s>]|$)", re.IGNORECASE), ""),
    (re.compile(r"<\?"), "?>"),
    (re.compile(r"<!\[CDATA\["), "]]>"),
    (re.compile(r"<![A-Za-z]"), ">"),
)
"""HTML blocks (CommonMark types 1-5) that run until an end marker, across blank lines.
An empty marker means the matching closing tag (``</pre>`` …)."""


@dataclass
class OpenFence:
    """A code fence that has been opened and not closed yet."""

    char: str
    """```` ` ```` or ``~``."""
    size: int
    """Length of the opening run; the closing run must be at least as long."""
    indent: int
    start: int
    """Offset of the opening line in the splitter's tail."""
    body: int
    """Offset of the first line after the opening line."""
    info: str
    """The info string (its first word is the language)."""

    @property
    def top(self) -> bool:
        """Opened at column 0: certainly a top-level block, not inside a list item."""
        return self.indent == 0

    @property
    def language(self) -> str:
        """The language named by the info string, or ""."""
        return self.info.split()[0] if self.info.split() else ""

    def closed_by(self, line: str) -> bool:
        """Whether ``line`` closes this fence."""
        stripped = line.lstrip(" ")
        if len(line) - len(stripped) > self.indent + 3:
            return False
        run = len(stripped) - len(stripped.lstrip(self.char))
        return run >= self.size and not stripped[run:].strip()


def _indent(line: str) -> int:
    """Leading columns (a tab counts as four)."""
    width = 0
    for char in line:
        if char == " ":
            width += 1
        elif char == "\t":
            width += 4
        else:
            break
    return width


def fence_opener(line: str, start: int = 0, body: int = 0) -> OpenFence | None:
    """The fence ``line`` opens, if it is a fence opener (indented at most three)."""
    indent = _indent(line)
    if indent > 3:
        return None
    match = _FENCE.match(line.lstrip(" \t"))
    if match is None:
        return None
    run, info = match.groups()
    if run[0] == "`" and "`" in info:
        return None  # ```foo`bar is inline code, not a fence
    return OpenFence(run[0], len(run), indent, start, body, info.strip())


def _raw_html_end(line: str) -> str | None:
    """The end marker of a raw HTML block ``line`` opens (and does not close), if any."""
    text = line.lstrip(" ")
    if len(line) - len(text) > 3 or not text.startswith("<"):
        return None
    for pattern, end in _RAW_HTML:
        if pattern.match(text):
            if not end:
                tag = re.match(r"<(\w+)", text)
                end = f"</{tag.group(1).lower()}>" if tag else ">"
            return None if end in text[2:].lower() else end
    return None


class BlockSplitter:
    """Feeds on streamed Markdown; hands back the text whose blocks are finished.

    ``feed`` returns the newly settled prefix (possibly ""), which is removed from
    :attr:`tail`; ``finish`` returns the rest. Joining everything returned gives back
    exactly the text fed in.
    """

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._buf = ""
        self._scan = 0
        """Offset of the first line not scanned yet (always a line start)."""
        self._cut = 0
        """Text before this offset is settled and handed back by the next ``feed``."""
        self.fence: OpenFence | None = None
        """The code fence open at the end of the text scanned so far."""
        self._raw_end: str | None = None
        self._block = False
        """A block has started since the last cut (so a cut would settle something)."""
        self._listy = False
        """The current block contains list items (a later marker may continue it)."""
        self._no_fence_cut = False
        """The block is a table or a quote: a fence line does not interrupt it here."""
        self._blank = False
        """The last scanned line was blank (outside fences and raw HTML)."""

    @property
    def tail(self) -> str:
        """The text not settled yet: the last, unfinished block(s)."""
        return self._buf

    @property
    def scanned(self) -> int:
        """Offset in :attr:`tail` of the partial last line (all before it is scanned)."""
        return self._scan

    @property
    def live_fence(self) -> OpenFence | None:
        """The open column-0 fence the tail starts with, if that is what is streaming."""
        fence = self.fence
        return fence if fence is not None and fence.top and fence.start == 0 else None

    def feed(self, text: str) -> str:
        """Add streamed text; return the prefix of the tail that is now settled."""
        self._buf += text
        buf = self._buf
        while (end := buf.find("\n", self._scan)) >= 0:
            start, self._scan = self._scan, end + 1
            self._line(buf[start:end].rstrip("\r"), start, end + 1)
        return self._take()

    def finish(self) -> str:
        """The end of the stream: everything left is settled."""
        rest = self._buf
        self._reset()
        return rest

    def _take(self) -> str:
        cut = self._cut
        if not cut:
            return ""
        settled, self._buf = self._buf[:cut], self._buf[cut:]
        self._scan -= cut
        self._cut = 0
        if self.fence is not None:
            self.fence.start -= cut
            self.fence.body -= cut
        return settled

    def _line(self, line: str, start: int, end: int) -> None:
        """Scan one complete line; ``start``/``end`` are its offsets in the tail."""
        fence = self.fence
        if fence is not None:
            if fence.closed_by(line):
                self.fence = None
                if fence.top:  # nothing can continue a top-level fence
                    self._settle(end)
            return
        if self._raw_end is not None:
            if self._raw_end in line.lower():
                self._raw_end = None
            return
        if not line.strip():
            self._blank = self._block
            return
        indent = _indent(line)
        opener = fence_opener(line, start, end)
        if self._blank:
            marker = _LIST_MARKER.match(line) is not None
            if indent == 0 and not (self._listy and marker):
                self._settle(start)
        elif (
            opener is not None and indent == 0 and self._block and not self._no_fence_cut
        ):  # a fence interrupts a paragraph, heading or list
            self._settle(start)
        self._blank = False
        self._note_block(line, indent)
        if opener is not None:
            self.fence = opener
        else:
            self._raw_end = _raw_html_end(line)

    def _note_block(self, line: str, indent: int) -> None:
        """Remember what kind of block this line belongs to, for later cut decisions."""
        text = line.lstrip(" \t")
        if not self._block:
            self._listy = self._no_fence_cut = False
        self._block = True
        if indent <= 3 and _LIST_MARKER.match(text):
            self._listy = True
        if "|" in line or text.startswith(">"):
            self._no_fence_cut = True  # tables and quotes: never cut before a fence inside

    def _settle(self, offset: int) -> None:
        """Mark everything before ``offset`` as settled; a new block starts there."""
        if offset > self._cut:
            self._cut = offset
        self._block = self._listy = self._no_fence_cut = False


def split_settled(text: str) -> tuple[str, str]:
    """``text`` cut into (settled blocks, live tail), as one feed of a stream would."""
    splitter = BlockSplitter()
    settled = splitter.feed(text)
    return settled, splitter.tail


def cuts_are_safe(text: str, cuts: list[int]) -> bool:
    """Whether rendering ``text`` cut at ``cuts`` (offsets) equals rendering it whole.

    True when no top-level block of the whole parse spans a cut and the text defines no
    link references (a definition changes links in blocks before it).
    """
    from markdown_it import MarkdownIt

    parser = MarkdownIt("gfm-like")
    env: dict[str, object] = {}
    tokens = parser.parse(text, env)
    if env.get("references"):
        return False
    lines = [text.count("\n", 0, cut) for cut in cuts]
    spans = [t.map for t in tokens if t.level == 0 and t.map is not None and t.nesting >= 0]
    return not any(start < line < stop for line in lines for start, stop in spans)
