"""tuibot's settings: typed sections, loaded from TOML, env overrides and flags.

Why one object: the engine, ``ask`` and the TUI receive a ``Settings`` at construction
and never read files or the environment themselves, so tests build one directly.

Layers, later ones winning: built-in defaults → the config file (``--config FILE``, else
``./tuibot.toml`` when the person trusted it, else ``<config home>/config.toml``) →
``TUIBOT_<SECTION>__<KEY>`` environment variables → command-line flags.
``Settings.origins`` records, for every effective value, which layer set it.

Adding a key is adding a field with an attribute docstring (and ``rules(...)`` when its
value has limits); the checks, env names, ``config show`` and the docs reference all
follow from the fields (see ``tuibot.settings.schema``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuibot.settings.attach import AttachmentSettings, TranscriptionSettings
from tuibot.settings.layers import Layers, edit_document
from tuibot.settings.mcp import McpSettings, check_servers
from tuibot.settings.project import ProjectFile, choose_config
from tuibot.settings.sections import (
    OLLAMA_URL,
    SECRET_FILES,
    AgentSettings,
    BotSettings,
    DelegationSettings,
    HeartbeatSettings,
    JobsSettings,
    LoggingSettings,
    ProviderSettings,
    TasksSettings,
    ToolsSettings,
    TuiSettings,
    default_providers,
)

if TYPE_CHECKING:
    from tuibot.toolkit.scope import ToolScope

from tuibot.settings.schema import (
    META,
    Builder,
    ConfigError,
    Origin,
    bad_value,
    dotted,
    to_plain,
)

__all__ = [
    "OLLAMA_URL",
    "SECRET_FILES",
    "AgentSettings",
    "BotSettings",
    "ConfigError",
    "DelegationSettings",
    "HeartbeatSettings",
    "JobsSettings",
    "LoggingSettings",
    "ProviderSettings",
    "Settings",
    "TasksSettings",
    "ToolsSettings",
    "TuiSettings",
    "default_providers",
    "find_config_file",
    "load_settings",
    "save_setting",
    "write_setting",
]


@dataclass(frozen=True)
class Settings:
    """Everything configurable, checked, with where each value came from."""

    agent: AgentSettings = field(default_factory=AgentSettings)
    """The default bot: its name, model, parameters and limits per turn."""
    providers: dict[str, ProviderSettings] = field(default_factory=default_providers)
    """Model servers by name. A ``[providers]`` table in the file replaces the built-in set."""
    bots: dict[str, BotSettings] = field(default_factory=dict)
    """Bots besides the default one (``[agent]``), by name."""
    delegation: DelegationSettings = field(default_factory=DelegationSettings)
    """Limits on work bots give to bots, and how long its requests wait."""
    tasks: TasksSettings = field(default_factory=TasksSettings)
    """Every input becomes a task on a board (todo, doing, done, error, paused, waiting)."""
    tools: ToolsSettings = field(default_factory=ToolsSettings)
    """Where the file tools work and how long an approval may wait."""
    jobs: JobsSettings = field(default_factory=JobsSettings)
    """Scheduled jobs: whether they run, a run's default limits, how late one may start."""
    heartbeat: HeartbeatSettings = field(default_factory=HeartbeatSettings)
    """How often ``HEARTBEAT.md`` is read and which bot works on its items."""
    tui: TuiSettings = field(default_factory=TuiSettings)
    """The full-screen app: theme, bell, desktop notifications, key bindings."""
    logging: LoggingSettings = field(default_factory=LoggingSettings)
    """The application log (``tuibot config path`` shows where it is)."""
    mcp: McpSettings = field(default_factory=McpSettings)
    """MCP servers whose tools the model may call (see docs/mcp.md)."""
    attachments: AttachmentSettings = field(default_factory=AttachmentSettings)
    """Size caps for files attached with ``@path`` (see docs/attachments.md)."""
    transcription: TranscriptionSettings = field(default_factory=TranscriptionSettings)
    """Where audio attachments are transcribed (see docs/attachments.md)."""
    files: list[Path] = field(default_factory=list, metadata=META)
    """Config files in use (none or one today)."""
    config_dir: Path = field(default_factory=Path.cwd, metadata=META)
    """Folder relative paths in the config file were anchored to (the cwd without a file)."""
    origins: dict[str, str] = field(default_factory=dict, metadata=META)
    """Dotted key → where its value came from: ``default``, a file, ``env VAR``, a flag."""
    cwd: Path = field(default_factory=Path.cwd, metadata=META)
    """The directory tuibot was started in (the default workspace)."""
    ignored_project: ProjectFile | None = field(default=None, metadata=META)
    """A ``./tuibot.toml`` left out because it is not trusted (or changed since)."""

    def workspace_path(self) -> Path:
        """The file tools' folder: ``tools.workspace``, or the start directory when unset."""
        if not self.tools.workspace:
            return self.cwd
        return self.config_dir / Path(self.tools.workspace).expanduser()

    def tool_scope(self) -> ToolScope:
        """What every tool call of a turn runs under (workspace, network policy)."""
        from tuibot.toolkit.scope import ToolScope

        return ToolScope(
            self.workspace_path(),
            allow_loopback=self.tools.allow_loopback,
            allowed_hosts=tuple(self.tools.allowed_hosts),
            secret_files=tuple(self.tools.secret_files),
        )

    def as_dict(self) -> dict[str, Any]:
        """The effective values as a plain nested dict (config keys only, no origins)."""
        return to_plain(self)


# --- loading ------------------------------------------------------------------------


def find_config_file(config_file: Path | str | None = None, cwd: Path | None = None) -> Path | None:
    """The config file in use: explicit, a trusted ``./tuibot.toml``, the home's, or none.

    An explicit file that does not exist is an error rather than a silent fallback; an
    untrusted ``./tuibot.toml`` is passed over (see :mod:`tuibot.settings.project`).
    """
    return choose_config(config_file, (cwd or Path.cwd()).absolute()).path


def load_settings(
    config_file: Path | str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, tuple[Any, str]] | None = None,
    cwd: Path | None = None,
    project: bool = True,
) -> Settings:
    """The effective settings: defaults, the config file, env overrides, then flags.

    ``overrides`` maps dotted keys to ``(value, origin label)``, e.g.
    ``{"agent.model": ("qwen3", "--model")}``; a string value is parsed like an env
    value. ``env`` defaults to ``os.environ``. ``project=False`` leaves ``./tuibot.toml``
    out even when trusted. Any problem is a ``ConfigError``.
    """
    cwd = (cwd or Path.cwd()).absolute()
    choice = choose_config(config_file, cwd, project=project)
    settings = settings_from(choice.path, choice.data, env=env, overrides=overrides, cwd=cwd)
    return replace(settings, ignored_project=choice.ignored)


def settings_from(
    path: Path | None,
    data: bytes | None = None,
    *,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, tuple[Any, str]] | None = None,
    cwd: Path,
) -> Settings:
    """The settings from one config file (``data``: its bytes, when read already)."""
    parsed: dict[str, Any] = {}
    if path is not None:  # tomlkit only when there is a file: a plain `ask` has none
        from tuibot.settings.config_io import parse_bytes, read_document

        document = read_document(path) if data is None else parse_bytes(data, path)
        parsed = document.unwrap()
    layers = Layers.from_file(Settings, parsed, path, cwd)
    layers.apply_env(os.environ if env is None else env, cwd)
    for key, (value, label) in (overrides or {}).items():
        layers.apply_text(key.split("."), value, Origin(label, cwd), lower_new=False)
    config_dir = path.parent if path is not None else cwd
    return _build(layers, files=[path] if path else [], config_dir=config_dir, cwd=cwd)


def _build(layers: Layers, *, files: list[Path], config_dir: Path, cwd: Path) -> Settings:
    builder = Builder(layers.origins, layers.default)
    built = builder.build(Settings, layers.tree)
    settings: Settings = replace(
        built, files=files, config_dir=config_dir, origins=builder.found, cwd=cwd
    )
    _check(settings, layers)
    return settings


def _check(settings: Settings, layers: Layers) -> None:
    """Rules that span keys: some provider exists, ``agent.provider`` names one of them."""
    if not settings.providers:
        label = f"{settings.files[0]}: " if settings.files else ""
        raise ConfigError(f"{label}no provider is defined; add a [providers.<name>] table")
    wanted = {"agent.provider": settings.agent.provider}
    wanted.update({f"bots.{b.name}.provider": b.provider for b in settings.bots.values()})
    wanted["transcription.provider"] = settings.transcription.provider
    for key, name in wanted.items():
        if name and name not in settings.providers:
            origin = layers.origins.get(key, layers.default)
            want = "a defined provider: " + ", ".join(settings.providers)
            raise bad_value(f"{origin.label}: ", key, name, want)
    check_servers(settings.mcp.servers, f"{settings.files[0]}: " if settings.files else "")
    for bot in settings.bots.values():
        if bot.name.casefold() == settings.agent.name.casefold():
            label = f"{settings.files[0]}: " if settings.files else ""
            raise ConfigError(
                f"{label}bot {bot.name!r} has the default bot's name (agent.name); "
                "rename one of them"
            )


# --- saving -------------------------------------------------------------------------


def save_setting(path: Path | str, dotted_key: str, value: Any) -> None:
    """Set one key in a config file, keeping its comments; a default value removes the key.

    A string ``value`` is parsed like an env value (``5`` → 5, ``true`` → True). The
    whole resulting file is checked before anything is written, so a bad value leaves
    the file untouched. A new ``[providers]`` table first receives the built-in providers,
    because it replaces them.
    """
    write_setting(path, dotted_key, value)


@dataclass(frozen=True)
class SavedSetting:
    """What ``write_setting`` did, for a confirmation line."""

    path: Path
    key: str
    """The canonical dotted key (``AGENT.Model`` → ``agent.model``)."""
    value: Any
    """The value as written (when ``removed``: the value given, equal to the default)."""
    removed: bool
    """True when the value equalled the default, so the key left the file."""


def write_setting(path: Path | str, dotted_key: str, value: Any) -> SavedSetting:
    """``save_setting``, reporting the canonical key and whether the key was removed."""
    import tomlkit

    from tuibot.settings import config_io
    from tuibot.settings.project import carry_trust

    path = Path(path).expanduser().absolute()
    doc = config_io.read_document(path) if path.exists() else tomlkit.document()
    before = doc.as_string().encode("utf-8") if path.exists() else None  # tomlkit: lossless
    doc, target, stored, removed = edit_document(Settings, doc, dotted_key, value, str(path))
    layers = Layers.from_file(Settings, doc.unwrap(), path, path.parent)
    _build(layers, files=[path], config_dir=path.parent, cwd=path.parent)
    config_io.write_atomic(path, doc.as_string())
    carry_trust(path, before, doc.as_string().encode("utf-8"))
    return SavedSetting(path, dotted(target.parts), stored, removed)
