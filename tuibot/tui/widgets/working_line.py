"""The working indicator: one line under the conversation while the chat's turn runs.

It says the turn is alive (a spinner), for how long, how much has streamed, what it
waits for (the model, a tool, your approval) and the key that stops it. The app redraws
it from a timer that runs only while some turn runs (see :mod:`tuibot.tui.actions.working`).
"""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Static

from tuibot.tui.progress import TurnProgress

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
"""One frame per tick (braille dots, as terminal apps draw a spinner)."""


def elapsed_text(seconds: float) -> str:
    """``7s``, ``1m 05s``, ``1h 02m``: short, and steady in width within a unit."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def spinner(frame: int) -> str:
    """The spinner's character for tick ``frame``."""
    return SPINNER[frame % len(SPINNER)]


def working_text(progress: TurnProgress, frame: int, stop_key: str) -> Content:
    """The indicator's line for ``progress`` at tick ``frame`` (plain text, no markup)."""
    facts = [elapsed_text(progress.elapsed())]
    if progress.tokens:
        facts.append(f"{progress.tokens} tok")
    return Content.assemble(
        (spinner(frame), "bold $accent"),
        " ",
        (progress.waiting_for, "bold"),
        f" · {' · '.join(facts)} · ",
        (f"{stop_key} to stop", "dim"),
    )


class WorkingLine(Static):
    """Shown while the chat's turn runs, hidden otherwise (the app calls :meth:`show`)."""

    DEFAULT_CSS = """
    WorkingLine {
        height: 1;
        display: none;
        color: $text-muted;
        padding: 0 0;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)
        self.text = ""
        """The line as plain text (what tests and the tmux check read)."""

    def show(self, progress: TurnProgress | None, frame: int, stop_key: str) -> None:
        """Draw ``progress`` at tick ``frame``, or hide the line when None."""
        if progress is None:
            self.display = False
            self.text = ""
            return
        line = working_text(progress, frame, stop_key)
        self.text = line.plain
        self.update(line)
        self.display = True
