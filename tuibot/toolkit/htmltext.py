"""HTML to readable text, fed chunk by chunk so a fetch can stop once it has enough.

A model reads a page for its words, not its markup: scripts, styles, navigation and other
chrome are dropped; headings become ``#`` lines, list items ``- `` lines, links keep their
target as ``text (url)``; whitespace is collapsed. It is built on the stdlib parser
(forgiving of broken HTML), and it counts what it has produced so the caller can stop
the download as soon as the page has yielded ``max_chars`` characters.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

SKIPPED = frozenset(
    {"script", "style", "nav", "noscript", "template", "svg", "iframe", "object", "head"}
)
"""Elements whose content is never text for a reader."""
BLOCKS = frozenset(
    {
        "p", "div", "section", "article", "main", "header", "footer", "aside", "br", "hr",
        "ul", "ol", "dl", "dt", "dd", "table", "tr", "blockquote", "figure", "figcaption",
        "form", "fieldset", "address", "details", "summary", "pre", "li", "title",
        "h1", "h2", "h3", "h4", "h5", "h6",
    }
)  # fmt: skip
"""Elements that start a new line."""
TIGHT = frozenset({"li", "br", "tr", "dt", "dd", "title"})
"""Line-starting elements that do not also open a blank line (list items, rows)."""
_SPACES = re.compile(r"[ \t\r\n\f\v]+")


class TextExtractor(HTMLParser):
    """Collects the readable text of a page; ``feed`` it chunks, then ``text()``."""

    def __init__(self, base_url: str = "") -> None:
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        """Links are made absolute against this."""
        self.title = ""
        """The page's ``<title>``, if any."""
        self.size = 0
        """Characters produced so far (a cheap progress measure for the caller)."""
        self._lines: list[str] = []
        self._line: list[str] = []
        self._skip: list[str] = []
        self._in_title = False
        self._pre = 0
        self._links: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
            return
        if tag == "body" and self._skip == ["head"]:
            self._skip.clear()  # a page that never closed its <head>
        if tag in SKIPPED:
            self._skip.append(tag)
            return
        if self._skip:
            return
        if tag in BLOCKS:
            self._break(blank=tag not in TIGHT)
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._line.append("#" * int(tag[1]) + " ")
        elif tag == "li":
            self._line.append("- ")
        elif tag == "pre":
            self._pre += 1
        elif tag == "a":
            self._links.append(self._href(dict(attrs).get("href")))
        elif tag == "img":
            alt = (dict(attrs).get("alt") or "").strip()
            if alt:
                self._add(f"[image: {alt}]")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
            return
        if self._skip:
            if tag == self._skip[-1] or (tag in SKIPPED and tag in self._skip):
                while self._skip and self._skip.pop() != tag:
                    pass
            return
        if tag == "a" and self._links:
            href = self._links.pop()
            if href:
                self._add(f" ({href})")
        elif tag == "pre" and self._pre:
            self._break()  # while still in <pre>, so the last line keeps its indent
            self._pre -= 1
        if tag in BLOCKS:
            self._break(blank=tag not in TIGHT)

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title = _SPACES.sub(" ", self.title + data).strip()
            return
        if self._skip:
            return
        if self._pre:
            self._pre_text(data)
        else:
            self._add(data)

    def text(self) -> str:
        """The text so far: lines trimmed, at most one blank line in a row."""
        self._break()
        out: list[str] = []
        for line in self._lines:
            if line or (out and out[-1]):
                out.append(line)
        return "\n".join(out).strip("\n")

    def _href(self, href: str | None) -> str | None:
        if not href or href.startswith(("#", "javascript:", "data:", "mailto:")):
            return None
        return urljoin(self.base_url, href.strip()) if self.base_url else href.strip()

    def _add(self, data: str) -> None:
        text = _SPACES.sub(" ", data)
        if not text.strip() and (not self._line or self._line[-1].endswith(" ")):
            return
        self._line.append(text)
        self.size += len(text)

    def _pre_text(self, data: str) -> None:
        first, *rest = data.split("\n")
        self._line.append(first)
        for piece in rest:
            self._lines.append("".join(self._line).rstrip())
            self._line = [piece]
        self.size += len(data)

    def _break(self, *, blank: bool = True) -> None:
        """End the current line; ``blank`` also leaves an empty line after a paragraph."""
        line = "".join(self._line)
        line = line.rstrip() if self._pre else _SPACES.sub(" ", line).strip()
        self._line = []
        if line:
            self._lines.append(line)
        elif blank and self._lines and self._lines[-1]:
            self._lines.append("")
