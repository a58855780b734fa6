"""Where tuibot's files live.

Two roots, each overridable so tests and portable setups never touch the user's real
folders: the config home (``TUIBOT_HOME``, else ``platformdirs.user_config_dir``) and the
data home (``TUIBOT_DATA``, else ``platformdirs.user_data_dir``). Logs go under
``platformdirs.user_log_dir`` unless ``TUIBOT_DATA`` is set, in which case they sit in
``$TUIBOT_DATA/logs`` so one variable relocates everything a test writes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

APP_NAME = "tuibot"


def config_home() -> Path:
    """The folder holding ``config.toml``, user tools, skills, themes and prompt files."""
    override = os.environ.get("TUIBOT_HOME")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME))


def data_home() -> Path:
    """The folder holding chats, records and traces."""
    override = os.environ.get("TUIBOT_DATA")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME))


def log_home() -> Path:
    """The folder holding the application log."""
    override = os.environ.get("TUIBOT_DATA")
    if override:
        return Path(override).expanduser() / "logs"
    import platformdirs

    return Path(platformdirs.user_log_dir(APP_NAME))


def bundled_dir(name: str) -> Path:
    """A bundled folder (``tools``, ``skills``, ``themes``), in a wheel or a checkout.

    A wheel carries them inside the package (``tuibot/_bundled``); an editable install
    or a source checkout has them at the repository's top level.
    """
    package = Path(__file__).resolve().parent.parent  # tuibot/, above system/
    inside = package / "_bundled" / name
    if inside.is_dir():
        return inside
    return package.parent / name


@dataclass(frozen=True)
class DataPaths:
    """The files and folders tuibot writes, derived in one place."""

    root: Path
    """The data home: chats, records, traces."""
    logs: Path
    """The application log folder."""

    @classmethod
    def default(cls) -> DataPaths:
        """The paths the environment points at (``TUIBOT_DATA`` or platformdirs)."""
        return cls(root=data_home(), logs=log_home())

    @property
    def cache(self) -> Path:
        """Derived data kept only to start faster (parsed skill frontmatter); safe to delete."""
        return self.root / "cache"

    @property
    def chats(self) -> Path:
        """One JSONL file per chat."""
        return self.root / "chats"

    @property
    def bots(self) -> Path:
        """Bots that bots created, one JSON line each."""
        return self.root / "bots.jsonl"

    @property
    def delegations(self) -> Path:
        """The delegation journal: every revision of every record, one JSON line each."""
        return self.root / "delegations.jsonl"

    @property
    def grants(self) -> Path:
        """Approval decisions kept as grants (scope ``chat`` or ``lifetime``)."""
        return self.root / "grants.json"

    @property
    def trusted(self) -> Path:
        """Project config files the person trusted, by real path and content hash."""
        return self.root / "trusted.json"

    @property
    def jobs(self) -> Path:
        """Scheduled jobs and the heartbeat's state (see ``tuibot.jobs.store``)."""
        return self.root / "jobs.json"

    @property
    def lock(self) -> Path:
        """The single-instance lock of whoever runs scheduled work (``tuibot.system.instance``)."""
        return self.root / "tuibot.lock"

    @property
    def mcp(self) -> Path:
        """MCP servers' cached tool lists and the images their results carried."""
        return self.root / "mcp"

    @property
    def kept(self) -> Path:
        """Images and audio that MCP tools returned, by content hash (the MCP manager
        writes ``mcp/kept``; a tool message's image references are read only from here)."""
        return self.mcp / "kept"

    @property
    def memory(self) -> Path:
        """One ``<bot>.md`` per bot: what the bot saved for later turns."""
        return self.root / "memory"

    @property
    def tasks(self) -> Path:
        """The task board: every version of every task, one JSON line each."""
        return self.root / "tasks.jsonl"

    @property
    def traces(self) -> Path:
        """One JSON record per turn."""
        return self.root / "traces.jsonl"

    @property
    def log_file(self) -> Path:
        """The application log (tracebacks of expected failures go here, not the screen)."""
        return self.logs / "tuibot.log"
