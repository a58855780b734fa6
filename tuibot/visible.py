"""Text from a model made safe to show a person: every character that could hide or
fake part of it is spelled out.

What a person approves must read as what runs. A carriage return, an escape sequence
(CSI, OSC), a backspace, a bidi override or a zero-width character in a command could make
a terminal or a pane show one thing while another runs, so every place a request is shown
(the approvals pane, ``ask``'s prompt, toasts, desktop notifications, tool-call lines)
passes it through :func:`visible` and says so in words when :func:`hidden_characters`
finds any. Pure functions, no Textual: the engine and every front end use them.
"""

from __future__ import annotations

import unicodedata

_BIDI = {0x200E, 0x200F, 0x061C} | set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))
"""Direction marks, embeddings, overrides and isolates."""
_INVISIBLE = {0x00AD, 0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180E, 0x3164, 0xFFA0}
"""Characters that draw nothing although they are not format characters."""


def _hidden(char: str, *, keep_newlines: bool) -> bool:
    """Whether ``char`` draws as something other than itself (or as nothing)."""
    code = ord(char)
    if char == "\t" or (keep_newlines and char == "\n"):
        return False
    if code < 0x20 or 0x7F <= code <= 0x9F:  # C0, DEL and C1 controls (ESC, CR, BS, CSI…)
        return True
    if code in _BIDI or code in _INVISIBLE:
        return True
    category = unicodedata.category(char)
    # Cf: format (zero-width space/joiners, word joiner, BOM, tag characters); Zl/Zp: line
    # and paragraph separators; Co/Cn: private use and unassigned (a font may draw nothing).
    return category in ("Cf", "Zl", "Zp", "Co", "Cn") or (
        0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF  # variation selectors
    )


def _spelled(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str, *, keep_newlines: bool = True) -> str:
    """``text`` with every hiding character spelled out (``\\x1b``, ``\\x0d``, ``\\u202e``).

    Newlines and tabs stay as they are (they move text, they do not hide it) unless
    ``keep_newlines`` is false, for one-line places (a toast, a status line), where a
    newline becomes ``\\n``. A backslash is left alone: the text is shown, never parsed.
    """
    out: list[str] = []
    for char in text:
        if _hidden(char, keep_newlines=keep_newlines):
            out.append("\\n" if char == "\n" else _spelled(char))
        else:
            out.append(char)
    return "".join(out)


def hidden_characters(text: str) -> list[str]:
    """The distinct hiding characters in ``text``, spelled out, in order of appearance.

    Newlines and tabs do not count: a multi-line command is shown on several lines.
    """
    found: list[str] = []
    for char in text:
        if _hidden(char, keep_newlines=True):
            spelled = _spelled(char)
            if spelled not in found:
                found.append(spelled)
    return found


def hidden_in(value: object) -> list[str]:
    """:func:`hidden_characters` of every string inside ``value`` (keys included)."""
    found: list[str] = []

    def walk(item: object) -> None:
        if isinstance(item, str):
            found.extend(c for c in hidden_characters(item) if c not in found)
        elif isinstance(item, dict):
            for key, inner in item.items():
                walk(key)
                walk(inner)
        elif isinstance(item, list | tuple):
            for inner in item:
                walk(inner)

    walk(value)
    return found


def hidden_warning(found: list[str]) -> str:
    """The words a request with hiding characters carries, e.g. for the approvals pane."""
    shown = ", ".join(found[:8]) + (", …" if len(found) > 8 else "")
    return f"contains hidden characters ({shown}), shown spelled out; it can only be allowed once"
