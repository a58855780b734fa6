"""The YAML frontmatter of a SKILL.md, read without a YAML dependency.

Skills written for other tools use a fair slice of YAML: nested maps, block lists, flow
collections (``[a, b]``, ``{"bins": ["gh"]}``), quoted strings with escapes, block
scalars (``description: |`` / ``>``), plain scalars continued on indented lines, and
comments. This parser covers that slice, keeps start-up fast (no PyYAML import), and
reports what it cannot read with the line number, so one odd skill is skipped with a
reason instead of breaking the rest.
"""

from __future__ import annotations

import json
from typing import Any

BLOCK_SCALARS = ("|", "|-", "|+", ">", ">-", ">+")
"""Markers of a block scalar: ``|`` keeps line breaks, ``>`` folds lines into spaces."""

Line = tuple[int, str]
"""(1-based line number, text)."""


class FrontmatterError(ValueError):
    """A SKILL.md whose frontmatter can't be read; carries the 1-based line."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str, int]:
    """Split SKILL.md text into (fields, body, body start line); raise FrontmatterError."""
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        raise FrontmatterError(1, "no frontmatter (the file must start with '---')")
    for end in range(1, len(lines)):
        if lines[end].rstrip() in ("---", "..."):
            break
    else:
        raise FrontmatterError(1, "unclosed frontmatter (no closing '---')")
    raw = [(n + 1, lines[n]) for n in range(1, end)]
    for number, line in raw:
        if "\t" in line[: _indent(line) + 1] and line.strip():
            raise FrontmatterError(number, "tabs are not allowed for indentation")
    content = [line for line in raw if not _blank(line[1])]
    fields = _parse_map(raw, _indent(content[0][1])) if content else {}
    if content and _indent(content[0][1]) != 0:
        raise FrontmatterError(content[0][0], "unexpected indentation")
    return fields, "\n".join(lines[end + 1 :]).strip() + "\n", end + 2


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _blank(line: str) -> bool:
    """An empty or comment-only line (outside block scalars these carry nothing)."""
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _parse_map(lines: list[Line], base: int) -> dict[str, Any]:
    """``key: value`` lines at indent ``base``, with whatever is nested under each."""
    result: dict[str, Any] = {}
    i = 0
    while i < len(lines):
        number, line = lines[i]
        if _blank(line):
            i += 1
            continue
        if _indent(line) != base:
            raise FrontmatterError(number, "unexpected indentation")
        key, rest = _split_key(number, line.strip())
        j = i + 1
        while j < len(lines) and (_blank(lines[j][1]) or _indent(lines[j][1]) > base):
            j += 1
        result[key] = _value(number, rest, lines[i + 1 : j])
        i = j
    return result


def _split_key(number: int, text: str) -> tuple[str, str]:
    """``key: rest`` (the key may be quoted)."""
    if text[:1] in "\"'":
        close = text.find(text[0], 1)
        if close > 0 and text[close + 1 : close + 2] == ":":
            return text[1:close], text[close + 2 :]
    key, sep, rest = text.partition(":")
    if not sep or not key.strip() or (rest and not rest.startswith((" ", "\t"))):
        raise FrontmatterError(number, f"expected 'key: value', got {text!r}")
    return key.strip(), rest


def _value(number: int, rest: str, child: list[Line]) -> Any:
    """The value of one key: inline, a block scalar, a block list, or a nested map."""
    marker = _strip_comment(rest).strip()
    content = [line for line in child if not _blank(line[1])]
    if marker in BLOCK_SCALARS:
        return _block_scalar(marker, child)
    if marker:
        if content:  # a plain or quoted scalar continued on indented lines
            nested_key = next((n for n, t in content if _looks_like_key(t.strip())), None)
            if nested_key is not None and marker[:1] not in "\"'":
                raise FrontmatterError(nested_key, "unexpected indentation")
            marker = " ".join([rest.strip(), *(text.strip() for _, text in content)])
        return _scalar(number, marker)
    if not content:
        return ""
    if content[0][1].strip().startswith("-"):
        return _parse_list(child, _indent(content[0][1]))
    return _parse_map(child, _indent(content[0][1]))


def _parse_list(lines: list[Line], base: int) -> list[Any]:
    """``- item`` lines at indent ``base``; an item may be a map (``- name: x``)."""
    items: list[Any] = []
    i = 0
    while i < len(lines):
        number, line = lines[i]
        if _blank(line):
            i += 1
            continue
        stripped = line.strip()
        if _indent(line) != base or not (stripped == "-" or stripped.startswith("- ")):
            raise FrontmatterError(number, "mixed list and map")
        j = i + 1
        while j < len(lines) and (_blank(lines[j][1]) or _indent(lines[j][1]) > base):
            j += 1
        item = stripped[1:].strip()
        nested = lines[i + 1 : j]
        if _looks_like_key(item):  # "- name: x" and the keys under it form one map
            items.append(_parse_map([(number, " " * (base + 2) + item), *nested], base + 2))
        else:
            items.append(_value(number, item, nested))
        i = j
    return items


def _looks_like_key(text: str) -> bool:
    if text[:1] in "\"'[{":
        return False
    key, sep, rest = text.partition(":")
    return bool(sep and key.strip() and (not rest or rest.startswith(" ")))


def _block_scalar(marker: str, lines: list[Line]) -> str:
    """A ``|`` or ``>`` scalar: the indented lines, dedented, kept or folded."""
    content = [text for _, text in lines]
    while content and not content[-1].strip():
        content.pop()
    indents = [_indent(text) for text in content if text.strip()]
    cut = min(indents) if indents else 0
    body = [text[cut:] if text.strip() else "" for text in content]
    if marker.startswith("|"):
        text = "\n".join(body)
    else:
        paragraphs: list[str] = []
        current: list[str] = []
        for text in body:
            if text:
                current.append(text.strip())
            else:
                paragraphs.append(" ".join(current))
                current = []
        paragraphs.append(" ".join(current))
        text = "\n".join(paragraphs)
    return text if marker.endswith("-") else text + "\n"


def _strip_comment(text: str) -> str:
    """``text`` without a trailing `` # comment`` outside quotes and brackets."""
    quote = ""
    for i, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i]
    return text


def _scalar(number: int, text: str) -> Any:
    """One inline value: quoted string, flow list or map, bool, or plain string."""
    text = _strip_comment(text).strip()
    if text[:1] in "[{":
        return _Flow(number, text).parse_all()
    if text[:1] in "\"'":
        return _Flow(number, text).parse_all()
    lowered = text.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    if lowered in ("null", "~"):
        return None
    return text


class _Flow:
    """A flow value (``[a, "b"]``, ``{k: v}``, a quoted string), read left to right."""

    def __init__(self, number: int, text: str) -> None:
        self.number = number
        self.text = text
        self.pos = 0

    def parse_all(self) -> Any:
        value = self.parse()
        self._space()
        if self.pos != len(self.text):
            raise FrontmatterError(self.number, f"unexpected text after a value: {self.text!r}")
        return value

    def parse(self) -> Any:
        self._space()
        char = self.text[self.pos : self.pos + 1]
        if char == "[":
            return self._sequence()
        if char == "{":
            return self._mapping()
        if char == '"':
            return self._double()
        if char == "'":
            return self._single()
        return self._plain()

    def _sequence(self) -> list[Any]:
        self.pos += 1
        items: list[Any] = []
        while True:
            self._space()
            if self._take("]"):
                return items
            items.append(self.parse())
            self._space()
            if self._take("]"):
                return items
            self._expect(",")

    def _mapping(self) -> dict[str, Any]:
        self.pos += 1
        result: dict[str, Any] = {}
        while True:
            self._space()
            if self._take("}"):
                return result
            key = self.parse()
            self._space()
            self._expect(":")
            result[str(key)] = self.parse()
            self._space()
            if self._take("}"):
                return result
            self._expect(",")

    def _double(self) -> str:
        end = self.pos + 1
        while end < len(self.text):
            if self.text[end] == "\\":
                end += 2
                continue
            if self.text[end] == '"':
                break
            end += 1
        else:
            raise FrontmatterError(self.number, "unclosed double-quoted string")
        raw = self.text[self.pos : end + 1]
        self.pos = end + 1
        try:
            return str(json.loads(raw))
        except ValueError:
            return raw[1:-1]  # an escape JSON does not know (YAML's \x41 etc.): keep it as written

    def _single(self) -> str:
        out: list[str] = []
        end = self.pos + 1
        while end < len(self.text):
            if self.text[end] == "'":
                if self.text[end + 1 : end + 2] == "'":
                    out.append("'")
                    end += 2
                    continue
                self.pos = end + 1
                return "".join(out)
            out.append(self.text[end])
            end += 1
        raise FrontmatterError(self.number, "unclosed single-quoted string")

    def _plain(self) -> Any:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in ",]}":
            if self.text[self.pos] == ":" and self.text[self.pos + 1 : self.pos + 2] in (" ", ""):
                break
            self.pos += 1
        word = self.text[start : self.pos].strip()
        if not word:
            raise FrontmatterError(self.number, f"missing value in {self.text!r}")
        return _scalar(self.number, word)

    def _space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1

    def _take(self, char: str) -> bool:
        if self.text.startswith(char, self.pos):
            self.pos += 1
            return True
        return False

    def _expect(self, char: str) -> None:
        if not self._take(char):
            raise FrontmatterError(self.number, f"expected {char!r} in {self.text!r}")
