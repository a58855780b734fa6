"""The attachment chips under a person's message: one label per attached file."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.content import Content
from textual.widgets import Static


class AttachmentChips(Static):
    """``📎 notes.md · text · 2 KiB   📎 photo.png · image · 48 KiB`` under the message."""

    DEFAULT_CSS = """
    AttachmentChips {
        height: auto;
        padding: 0 1;
        color: $text-muted;
        border-left: thick $primary;
        background: $boost;
    }
    """

    def __init__(self, labels: Sequence[str], **kwargs: Any) -> None:
        super().__init__(Content("   ".join(labels)), **kwargs)  # never markup: file names
        self.labels = tuple(labels)
