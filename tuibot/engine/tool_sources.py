"""Where the engine's tools come from: tool files, the engine's own tools, MCP servers.

Loading is a start-up step the front ends ask for (``ask`` with MCP servers started
lazily, the app and headless with hot reload of tool files, skills and the MCP config);
it lives here so the composition root stays a list of parts. :class:`~tuibot.engine.
Engine` inherits these methods; tests and front ends call ``engine.load_tools()``.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from tuibot.events import Notice, NoticeLevel

if TYPE_CHECKING:
    from tuibot.attachments.transcribe import Transcribe
    from tuibot.engine.providers import Providers
    from tuibot.events import EventStream
    from tuibot.mcp.manager import McpManager
    from tuibot.mcp.watch import ConfigWatcher
    from tuibot.settings import Settings
    from tuibot.skills.catalog import SkillCatalog
    from tuibot.skills.loader import SkillProblem
    from tuibot.store.jsonl import LineProblem
    from tuibot.system.paths import DataPaths
    from tuibot.toolkit.catalog import ToolCatalog
    from tuibot.toolkit.registry import ToolRegistry
    from tuibot.toolkit.reload import ToolReloader


class ToolSources:
    """Loading and reloading tools; mixed into the engine, which owns the parts named here."""

    if TYPE_CHECKING:
        settings: Settings
        paths: DataPaths
        events: EventStream
        tools: ToolRegistry
        skills: SkillCatalog
        _journal_problems: list[LineProblem]
        tool_catalog: ToolCatalog
        tool_reloader: ToolReloader
        mcp: McpManager
        mcp_watcher: ConfigWatcher
        providers: Providers

    def load_tools(self, *, lazy_mcp: bool = False) -> None:
        """Load bundled tools, then the user's (a user tool overrides a bundled one).

        MCP servers start in the background now, or with ``lazy_mcp`` (one-shot ``ask``)
        on their first call, so a run that calls none never pays for starting them.
        """
        from tuibot.delegation.tools import delegation_tools
        from tuibot.jobs.tool import cron_tool
        from tuibot.toolkit.catalog import ToolCatalog, default_folders
        from tuibot.toolkit.state import state_path

        self.tool_catalog = ToolCatalog(
            self.tools,
            default_folders(),
            state_path(),
            self._tool_notice,
            builtins=[*delegation_tools(), cron_tool()],
            import_timeout=self.settings.tools.import_timeout,
        )
        self.tool_catalog.load_all()
        self._start_mcp(lazy_mcp)
        for problem in self._journal_problems:
            self._tool_notice(
                "warning", f"delegation journal: set aside line {problem.line}: {problem.reason}"
            )
        self._journal_problems = []

    def _start_mcp(self, lazy: bool) -> None:
        """Offer the MCP servers' cached tools now; connect them in the background."""
        if not self.settings.mcp.servers and lazy:
            return  # nothing to start; one-shot ``ask`` never watches the config
        from tuibot.mcp.manager import McpManager, keyring_secret

        self.mcp = McpManager(
            self.settings.mcp.servers,
            self.paths.mcp,
            cwd=self.settings.cwd,
            publish=self.tool_catalog.set_extra,
            notify=self.events.publish,
            secret=keyring_secret,
            transcriber=self._transcriber,
        )
        self.mcp.offer_cached()
        with contextlib.suppress(RuntimeError):  # no loop (a sync caller): cached tools only
            asyncio.get_running_loop()
            if not lazy:
                self.mcp.start()

    def _transcriber(self) -> Transcribe | None:
        """The ``[transcription]`` call for an MCP result's audio (None: not set up)."""
        from tuibot.attachments.transcribe import transcriber

        return transcriber(self.settings, self.providers.key_for)

    def start_reloader(self) -> None:
        """Hot-reload tools, the tool state file and skills (after ``load_tools``, in a loop)."""
        from tuibot.toolkit.reload import ToolReloader

        skill_folders = [(folder, self.skills.current) for _, folder in self.skills.roots]
        self.tool_reloader = ToolReloader(self.tool_catalog, also=skill_folders)
        self.tool_reloader.start()
        if (mcp := getattr(self, "mcp", None)) is not None:  # [mcp.servers] edits apply live
            from tuibot.mcp.watch import watcher_for

            self.mcp_watcher = watcher_for(self.settings, mcp, self._tool_notice)

    async def restart_mcp_server(self, name: str) -> bool:
        """Restart MCP server ``name`` now, its backoff reset (the servers screen's ``r``);
        False when it does not run here (disabled in the config, or tools not loaded)."""
        mcp = getattr(self, "mcp", None)
        return mcp is not None and await mcp.restart_server(name)

    async def settle_mcp(self) -> None:
        """Wait until every MCP server is up or has failed (``tuibot doctor`` reports then)."""
        if (mcp := getattr(self, "mcp", None)) is not None:
            await mcp.settle()

    def _tool_notice(self, level: NoticeLevel, text: str) -> None:
        """How the tool catalogue and reloader report (the tool log shows these)."""
        self.events.publish(Notice("", level, text))

    def _skill_problems(self, problems: list[SkillProblem]) -> None:
        """Skipped skills, reported each time the skill folders change."""
        for problem in problems:
            where = f"{problem.path}:{problem.line}" if problem.line else str(problem.path)
            self.events.publish(Notice("", "warning", f"skill skipped: {where}: {problem.reason}"))
