"""The tool catalogue: which file gave which tools, merged into the registry.

Both start-up and hot reload go through here, so they cannot disagree: every tools
folder entry (file or package) keeps its own list of specs, and the registry is rebuilt
from all of them at once (bundled first, user entries override by name). A reload of one
entry therefore replaces exactly that entry's tools, and deleting it removes them.
Each user entry's import is time-limited (``import_timeout``), so a file that sleeps or
spins at import is reported like a broken one and cannot stall start-up or ``tools
list``. Bundled entries are tuibot's own code and load in the calling thread.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from tuibot.events import NoticeLevel
from tuibot.toolkit.decorator import ToolSpec
from tuibot.toolkit.loader import ToolLoadError, load_tool_entry, tool_entries
from tuibot.toolkit.registry import ToolRegistry
from tuibot.toolkit.state import ToolStateError, read_disabled

IMPORT_TIMEOUT = 5.0
"""The default of ``tools.import_timeout``: seconds before a hanging import is abandoned."""

OWN_SOURCES = frozenset({"bundled"})
"""Sources whose files ship with tuibot: no import thread, cached bytecode."""

Notify = Callable[[NoticeLevel, str], None]
"""``notify(level, text)``: how the catalogue tells the user (the engine makes Notices)."""


def default_folders() -> list[tuple[Path, str]]:
    """The bundled ``tools/`` folder, then the user's in the config home."""
    from tuibot.system.paths import bundled_dir, config_home

    return [(bundled_dir("tools"), "bundled"), (config_home() / "tools", "user")]


def _quiet(level: str, text: str) -> None:
    """The default: say nothing."""


class ToolCatalog:
    """Loads tools folders into a registry and keeps track of where each tool came from."""

    def __init__(
        self,
        registry: ToolRegistry,
        folders: list[tuple[Path, str]],
        state_file: Path | None = None,
        notify: Notify = _quiet,
        builtins: Sequence[ToolSpec] = (),
        import_timeout: float = IMPORT_TIMEOUT,
    ) -> None:
        self.registry = registry
        self.import_timeout = import_timeout
        """Seconds one entry's import may take before it is abandoned as broken."""
        self.builtins = list(builtins)
        """Tools of tuibot itself (delegation): always present, never overridden."""
        self.folders = folders
        """``(folder, source)`` pairs, lowest priority first (bundled, then user)."""
        self.state_file = state_file
        self.notify = notify
        self.entries: dict[Path, list[ToolSpec]] = {}
        """Tools per loaded entry (a ``.py`` file or a package folder)."""
        self.errors: dict[Path, ToolLoadError] = {}
        """The current load error per entry that failed."""
        self._sources: dict[Path, str] = {}
        self._pinned: dict[str, ToolSpec] = {}
        self.extras: dict[str, list[ToolSpec]] = {}
        """Tools from other sources by source (``mcp:time``): above files, below builtins."""
        self._rebuilding = threading.RLock()
        """Reloads rebuild in a worker thread, MCP servers on the loop: one at a time."""

    def set_extra(self, source: str, specs: Sequence[ToolSpec]) -> None:
        """Replace one outside source's tools (an MCP server's list) and rebuild."""
        if specs:
            self.extras[source] = list(specs)
        else:
            self.extras.pop(source, None)
        self._rebuild(announce_overrides=False)

    def load_all(self) -> None:
        """Load every entry of every folder, then apply the state file."""
        for folder, source in self.folders:
            for entry in tool_entries(folder):
                self._load(entry, source)
        self._rebuild(announce_overrides=True)
        self.apply_state()

    def entry_for(self, path: Path) -> tuple[Path, str] | None:
        """The folder entry that ``path`` (a changed file) belongs to, and its source."""
        for folder, source in self.folders:
            try:
                relative = path.relative_to(folder)
            except ValueError:
                continue
            if not relative.parts:
                return None
            return folder / relative.parts[0], source
        return None

    def refresh(self, entry: Path, source: str) -> None:
        """Re-load one entry after a change, or drop its tools if it is gone."""
        if entry in tool_entries(entry.parent):
            self._load(entry, source)
        else:
            self.entries.pop(entry, None)
            self.errors.pop(entry, None)
        self._rebuild(announce_overrides=False)

    def apply_state(self) -> None:
        """Read the disabled list; a broken state file is reported and changes nothing."""
        if self.state_file is None:
            return
        try:
            self.registry.set_disabled(read_disabled(self.state_file))
        except ToolStateError as exc:
            self.notify("error", f"tool state not applied: {exc}")

    def _load(self, entry: Path, source: str) -> None:
        try:
            own = source in OWN_SOURCES
            specs = load_tool_entry(entry, source, self.import_timeout, own=own)
        except ToolLoadError as exc:
            self.errors[entry] = exc
            kept = " (the previous version keeps working)" if entry in self.entries else ""
            self.notify("error", f"tool not loaded: {exc}{kept}")
            return
        self.errors.pop(entry, None)
        self.entries[entry] = specs
        self._sources[entry] = source

    def _rebuild(self, *, announce_overrides: bool) -> None:
        """Merge all entries' tools (user over bundled) and swap them into the registry."""
        with self._rebuilding:
            self._merge_and_swap(announce_overrides)

    def _merge_and_swap(self, announce_overrides: bool) -> None:
        ranks = {source: rank for rank, (_, source) in enumerate(self.folders)}
        merged: dict[str, ToolSpec] = {}
        ordered = sorted(self.entries, key=lambda e: (ranks.get(self._sources[e], 0), e.name))
        for entry in ordered:
            for spec in self.entries[entry]:
                old = merged.get(spec.name)
                if announce_overrides and old is not None and old.source != spec.source:
                    self.notify("info", f"user tool {spec.name} overrides the bundled one")
                merged[spec.name] = spec
        for source in sorted(self.extras):
            merged.update((spec.name, spec) for spec in self.extras[source])
        for spec in self.builtins:
            shadow = merged.get(spec.name)
            if announce_overrides and shadow is not None:
                self.notify(
                    "warning",
                    f"{shadow.source} tool {spec.name} ignored: {spec.name} is built into tuibot",
                )
            merged[spec.name] = spec
        self.registry.replace_all(self._keep_confirmation(merged).values())

    def _keep_confirmation(self, merged: dict[str, ToolSpec]) -> dict[str, ToolSpec]:
        """A reload never loosens ``confirm``: the stricter rule stays until restart."""
        for name, spec in list(merged.items()):
            old = self._pinned.get(name) or self.registry.get(name)
            if old is not None and _looser(spec, old):
                merged[name] = dataclasses.replace(spec, confirm=old.confirm)
                if name not in self._pinned:
                    self.notify(
                        "warning",
                        f"tool {name} was changed to ask for less confirmation; it keeps"
                        " asking as before until tuibot restarts",
                    )
                self._pinned[name] = old
        return merged


def _looser(new: ToolSpec, old: ToolSpec) -> bool:
    """Whether ``new`` may run some call unasked that ``old`` would have asked about."""
    if not old.confirm or new.confirm == old.confirm:
        return False
    if not new.confirm:
        return True
    return callable(new.confirm) and not callable(old.confirm)
