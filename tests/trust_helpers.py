"""Trusting a test's ``tuibot.toml`` the way a person does, through the real trust store.

Tests that write a ``tuibot.toml`` into the working folder as "the person's config" must
trust it first, as ``tuibot trust`` would: an untrusted project file is ignored.
"""

from __future__ import annotations

from pathlib import Path

from tuibot.settings.trust import TrustStore, content_digest
from tuibot.system.paths import DataPaths


def trust_file(path: Path | str = "tuibot.toml") -> Path:
    """Record trust for ``path`` with its current content (the hermetic data home's list)."""
    path = Path(path).absolute()
    TrustStore(DataPaths.default().trusted).trust(path, content_digest(path.read_bytes()))
    return path


def write_trusted(path: Path | str, text: str) -> Path:
    """Write ``text`` to ``path`` and trust it."""
    path = Path(path)
    path.write_text(text, encoding="utf-8")
    return trust_file(path)
