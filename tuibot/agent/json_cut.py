"""Whether a tool call's argument text was cut off: a small scanner of strings and brackets.

``json_repair`` happily closes whatever a text leaves open, so a call truncated mid-stream
(``{"path": "x.txt", "content": "half``) comes back as a valid object and would write half
a file. Truncation cannot be told from the repaired value; it shows in the text itself: it
ends inside a string, or with an array or object never closed. This module reads the text
the way a lenient JSON reader would (double- and single-quoted strings with backslash
escapes; brackets count only outside strings) and reports what is left open.
"""

from __future__ import annotations

from typing import Literal

OpenKind = Literal["string", "array", "object"]

_CLOSERS = {"}": "{", "]": "["}
_KIND: dict[str, OpenKind] = {"{": "object", "[": "array"}


def unterminated(text: str) -> OpenKind | None:
    """The innermost string, array or object the text leaves open, or None if all close.

    A closing bracket that skips an open one (``[1}``) leaves the skipped one unterminated:
    a repair would have had to close it, so the text counts as cut. A closer with nothing
    open for it (a stray ``}`` at the end) is ignored.
    """
    stack: list[str] = []
    skipped: OpenKind | None = None
    quote = ""  # the quote of the string we are in, "" outside strings
    escaped = False
    for char in text:
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "{[":
            stack.append(char)
        elif char in _CLOSERS and _CLOSERS[char] in stack:
            while (opener := stack.pop()) != _CLOSERS[char]:
                skipped = skipped or _KIND[opener]
    if quote:
        return "string"
    if stack:
        return _KIND[stack[-1]]
    return skipped
