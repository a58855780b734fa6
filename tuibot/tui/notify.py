"""Telling the person a request arrived: the terminal bell and a desktop notification.

A request that nobody sees waits until it times out and is denied, so when one arrives
while the person looks elsewhere the app can ring the bell and send a desktop-notification
escape. Two sequences go out, since terminals understand one or the other: OSC 9
(iTerm2, WezTerm, kitty, Windows Terminal, foot) and OSC 777 (urxvt, VTE terminals such
as GNOME Terminal, Ghostty). A terminal that knows neither ignores them.

The text comes from a bot (a tool's arguments, a task), so it is cleaned first: control
characters could end the escape early and write anything to the terminal.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, Any

from tuibot.tui.compat import write_to_terminal
from tuibot.visible import visible

if TYPE_CHECKING:
    from textual.app import App

SUMMARY_LIMIT = 200
"""Longest text put in a desktop notification, in characters."""

_SPACES = re.compile(r" +")
CUT_NOTE = " … (cut: the approvals queue shows it whole)"


def clean_summary(text: str, limit: int | None = SUMMARY_LIMIT) -> str:
    """``text`` on one line, every control or hiding character spelled out (``\x1b``).

    A cut (only for a desktop notification, which cannot hold a long request) says so and
    where the whole request is: the approvals queue, where it is decided.
    """
    line = visible(text.replace("\n", " ").replace("\t", " "), keep_newlines=False)
    line = "".join(char for char in line if unicodedata.category(char) != "Cs")
    line = _SPACES.sub(" ", line).strip()
    if limit is not None and len(line) > limit:
        line = line[: max(limit - len(CUT_NOTE), 0)].rstrip() + CUT_NOTE
    return line


def notification_escapes(summary: str) -> str:
    """The OSC 9 and OSC 777 sequences announcing ``summary`` (cleaned here)."""
    text = clean_summary(f"tuibot: {summary}")
    body = clean_summary(summary)
    return f"\x1b]9;{text}\x07\x1b]777;notify;tuibot;{body}\x07"


def alert(app: App[Any], summary: str, *, bell: bool, desktop: bool) -> None:
    """Ring the bell and/or send the desktop-notification escapes for ``summary``."""
    if bell:
        app.bell()
    if desktop:
        write_to_terminal(app, notification_escapes(summary))
