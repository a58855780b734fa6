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

if TYPE_CHECKING:
    from tuibot.toolkit.scope import ToolScope

from tuibot.settings.schema import (
    DERIVED,
    META,
    Builder,
    ConfigError,
    Origin,
    bad_value,
    dotted,
    rules,
    to_plain,
)

__all__ = [
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
    "find_config_file",
    "load_settings",
    "save_setting",
    "write_setting",
]

OLLAMA_URL = "http://localhost:11434/v1"
"""Where the built-in ``local`` provider expects an OpenAI-compatible server (Ollama)."""


@dataclass(frozen=True)
class ProviderSettings:
    """A model server: ``[providers.<name>]``."""

    name: str = field(metadata=DERIVED)
    """The table's name; filled in by the loader, not written in the file."""
    kind: str = field(
        default="openai", metadata=rules(choices=("openai", "litellm", "ollama", "llama-cpp"))
    )
    """``openai``: any OpenAI-compatible server through the openai SDK; ``litellm``: cloud
    APIs; ``ollama``: Ollama's native API (sets ``num_ctx``); ``llama-cpp``: a GGUF file run
    in-process (the ``local`` extra)."""
    base_url: str = ""
    """openai kind: the server's ``/v1`` URL; litellm kind: an optional ``api_base``;
    ollama kind: the server's address (default ``http://localhost:11434``)."""
    model_path: str = ""
    """llama-cpp kind: the GGUF file to run ("" = the model name is the file's path)."""
    credential: str = ""
    """Name of the keyring entry holding the API key ("" = no key needed)."""
    api_key_env: str = ""
    """Environment variable that stands in for the credential ("" = the derived default)."""
    prefixes: list[str] = field(default_factory=list)
    """Model prefixes routed here (``anthropic`` for ``anthropic/...``); empty = the name."""
    keywords: list[str] = field(default_factory=list)
    """Substrings of a model name that select this provider."""
    params: dict[str, Any] = field(default_factory=dict)
    """Default model parameters (temperature, max_tokens, ...); ``agent.params`` win."""
    price_input: float | None = field(default=None, metadata=rules(ge=0))
    """USD per million prompt tokens (overrides litellm's price map)."""
    price_output: float | None = field(default=None, metadata=rules(ge=0))
    """USD per million completion tokens."""
    prompt_caching: bool = False
    """Mark the system prompt and last tool with Anthropic-style ``cache_control``."""
    text_tool_calls: bool = False
    """Parse tool calls that local models write as text (dialects: see providers.md)."""
    tool_call_placeholder: bool = False
    """Send ``"(empty)"`` instead of ``null`` as the content of an assistant message that
    only calls tools, for a server that rejects null content."""
    connect_timeout: float = field(default=10.0, metadata=rules(gt=0, le=60))
    """Seconds to wait for the connection to the server."""
    stream_timeout: float = field(default=60.0, metadata=rules(gt=0, le=3600))
    """Seconds a stream may stay silent before it is an error."""
    max_retries: int = field(default=2, metadata=rules(ge=0, le=10))
    """Retries for transient errors (connection, 429, 5xx)."""
    context_window: int = field(default=0, metadata=rules(ge=256, off=0, unit="tokens"))
    """The models' context window in tokens; 0 = ask the server, then litellm's map (see
    docs/context.md)."""
    context_windows: dict[str, int] = field(
        default_factory=dict, metadata=rules(ge=256, unit="tokens")
    )
    """Windows per model (``{"qwen2.5:7b" = 32768}``) for a provider serving several; they
    win over ``context_window``."""
    vision: bool = False
    """Every model of this provider takes images (attached ``@photo.png``)."""
    vision_models: list[str] = field(default_factory=list)
    """Models that take images when ``vision`` is false: names or patterns
    (``["llava*", "qwen2.5vl:*"]``); see docs/attachments.md."""

    def routing_prefixes(self) -> list[str]:
        """The model prefixes that pick this provider (its name when none are set)."""
        return list(self.prefixes) or [self.name]


@dataclass(frozen=True)
class AgentSettings:
    """The default bot: ``[agent]``."""

    name: str = field(default="Assistant", metadata=rules(nonempty=True))
    """The bot's display name."""
    model: str = field(default="llama3.2", metadata=rules(nonempty=True))
    """The model to call (``provider/model`` or a bare name the providers recognise)."""
    provider: str = ""
    """A provider name; "" = choose by the model (prefixes, then keywords, then the first)."""
    params: dict[str, Any] = field(default_factory=dict)
    """Model parameters sent with every call; they win over the provider's ``params``."""
    instructions: str = ""
    """Text appended last to the system prompt."""
    max_rounds: int = field(default=10, metadata=rules(ge=1, le=200))
    """Model calls per turn before the turn stops with a message."""
    history_limit: int = field(default=200, metadata=rules(ge=2))
    """Most recent messages sent to the model, a second cap after the context window."""
    default_context_window: int = field(default=8192, metadata=rules(ge=512, unit="tokens"))
    """The window assumed for a model whose window the config, the server and litellm's
    map do not tell (said once per model)."""
    reply_reserve: int = field(default=1024, metadata=rules(ge=64, unit="tokens"))
    """Tokens of the window kept free for the answer (``max_tokens`` wins when set)."""
    auto_compact: bool = True
    """Summarise older turns when a chat outgrows the model's window; false = drop them
    from the request instead (the chat file keeps everything either way)."""
    tools: list[str] = field(default_factory=list)
    """Tool names this bot may use (the model sees only these); [] = every enabled tool."""
    consolidate_after: int = field(default=120, metadata=rules(ge=0))
    """Fold a chat's old messages into the bot's memory once this many are not yet folded
    in; 0 = never."""
    consolidate_keep: int = field(default=20, metadata=rules(ge=2))
    """Recent messages that consolidation always leaves in the chat's history."""
    skills_summary_chars: int = field(default=4000, metadata=rules(ge=0))
    """Most characters the skills list in the system prompt may take (a skill takes about
    500); skills past it are counted and found with read_skill "*"; 0 = no limit."""


SECRET_FILES = (
    ".env", ".env.*", "*.env", ".envrc", "*.pem", "*.key", "*.p12", "*.pfx", "id_rsa*",
    "id_dsa*", "id_ecdsa*", "id_ed25519*", ".netrc", "_netrc", ".pgpass", ".npmrc", ".pypirc",
    "credentials", "credentials.json", "*.keystore", "*.jks", ".git-credentials", "secrets.*",
    "*.secret", "*.secrets", "service-account*.json", "kubeconfig", ".htpasswd",
)  # fmt: skip
"""The default ``tools.secret_files``: names that usually hold keys or passwords."""


@dataclass(frozen=True)
class ToolsSettings:
    """The tools: ``[tools]``."""

    workspace: str = field(default="", metadata=rules(path=True))
    """Folder the file tools work in; "" = the directory tuibot was started in."""
    confirm_timeout: float = field(default=300.0, metadata=rules(gt=0))
    """Seconds an approval may wait for an answer before it is denied."""
    import_timeout: float = field(default=5.0, metadata=rules(gt=0, le=600))
    """Seconds a user tool file's import may take (bundled tools are tuibot's own code and
    have no limit); a slower one is abandoned and reported as not loaded, and the other
    tools load."""
    allow_loopback: bool = False
    """Let web_fetch and http_request reach this machine (127.0.0.1, ::1), for your own
    local services; private networks and cloud metadata stay refused."""
    allowed_hosts: list[str] = field(default_factory=list)
    """Hosts web_fetch and http_request may reach without asking (plain GET/HEAD
    requests only; ``docs.python.org``, ``*.example.com``); any other host asks first."""
    secret_files: list[str] = field(default_factory=lambda: list(SECRET_FILES))
    """File-name patterns that look like secrets: reading one asks first, and searches
    skip them (``.env``, ``*.pem``, ``id_rsa*``…; see docs/security.md)."""


@dataclass(frozen=True)
class BotSettings:
    """Another bot: ``[[bots]]`` with a ``name`` (or ``[bots.<name>]``).

    Empty fields fall back to ``[agent]``'s, so a bot can be as short as a name and a
    description.
    """

    name: str = field(metadata=DERIVED)
    """The bot's name, as people and other bots call it."""
    description: str = ""
    """What the bot is for: the router and other bots choose by it."""
    instructions: str = ""
    """Text appended last to this bot's system prompt."""
    model: str = ""
    """The model this bot calls; "" = ``agent.model``."""
    provider: str = ""
    """A provider name; "" = choose by the model."""
    params: dict[str, Any] = field(default_factory=dict)
    """Model parameters for this bot; they win over ``agent.params``."""
    tools: list[str] = field(default_factory=list)
    """Tool names this bot may use; [] = every enabled tool."""
    workspace: str = field(default="", metadata=rules(path=True))
    """Folder this bot's file tools work in; "" = ``tools.workspace``."""


@dataclass(frozen=True)
class DelegationSettings:
    """Bots giving work to bots: ``[delegation]``. Finite defaults everywhere."""

    max_live_per_chat: int = field(default=8, metadata=rules(ge=1, le=1000))
    """Open delegations one chat may have at once."""
    max_live_total: int = field(default=64, metadata=rules(ge=1, le=10000))
    """Open delegations in all chats together."""
    approval_timeout: float = field(default=900.0, metadata=rules(gt=0))
    """Seconds a delegation request (authorize, continue at a limit) waits; then denied."""
    max_open_per_tree: int = field(default=32, metadata=rules(ge=1, le=10000))
    """Open delegations below one person's chat, at every depth (the open-delegation cap)."""
    loop_repeats: int = field(default=3, metadata=rules(ge=2, le=100))
    """The identical tool call this many times in a row pauses delegated work as a loop;
    in a person's own chat the calls are not run (once more ends the turn)."""
    tree_steps: int = field(default=500, metadata=rules(ge=1))
    """Model calls of a person's chat and all work below it in one run; then it asks."""
    tree_budget_micros: int = field(default=5_000_000, metadata=rules(ge=1))
    """Cost in micro-USD of a person's chat and all work below it in one run; then it asks."""
    tree_time: float = field(default=3600.0, metadata=rules(gt=0))
    """Seconds a run of a person's chat and the work below it may take; then it asks."""


@dataclass(frozen=True)
class TasksSettings:
    """The task board: ``[tasks]``."""

    retention_hours: float = field(default=24.0, metadata=rules(gt=0))
    """Done and failed tasks leave the board after this many hours (they stay on disk)."""


@dataclass(frozen=True)
class JobsSettings:
    """Scheduled jobs: ``[jobs]``. The limits are a run's defaults; a job may set its own."""

    enabled: bool = True
    """Run scheduled jobs and the heartbeat while tuibot runs (the app, or
    ``tuibot run --headless``)."""
    time_ms: int = field(default=600_000, metadata=rules(ge=1000, le=2_592_000_000))
    """A run's time limit in milliseconds (paused time does not count)."""
    steps: int = field(default=20, metadata=rules(ge=1, le=10_000))
    """A run's limit on model calls."""
    budget_micros: int = field(default=0, metadata=rules(ge=0))
    """A run's budget in micro-USD (its model calls and all work it gives); 0 = none."""
    misfire_grace: int = field(default=21600, metadata=rules(ge=1))
    """Seconds a run may start late (tuibot was off, the machine slept) and still run,
    once however many were missed; a later one is skipped and reported as missed."""


@dataclass(frozen=True)
class HeartbeatSettings:
    """The periodic look at ``HEARTBEAT.md``: ``[heartbeat]``."""

    interval: float = field(default=1800.0, metadata=rules(ge=60, off=0, unit="seconds"))
    """Seconds (not minutes) between looks at ``HEARTBEAT.md`` in the config home; 0 = off."""
    bot: str = ""
    """The bot that works on the file's items; "" = the default bot."""


@dataclass(frozen=True)
class TuiSettings:
    """The full-screen app: ``[tui]``."""

    theme: str = "tuibot-dark"
    """Theme name: a bundled one, one from the config home's ``themes/``, or Textual's own."""
    bell: bool = True
    """Ring the terminal bell when an approval request arrives while you are elsewhere."""
    notify: bool = True
    """Also send a desktop-notification escape (OSC 9 and OSC 777) for such a request."""
    health_interval: float = field(default=60.0, metadata=rules(gt=0))
    """Seconds between checks that the model server answers (shown in the status bar)."""
    keys: dict[str, Any] = field(default_factory=dict)
    """Key bindings by binding id, e.g. ``approvals = "ctrl+g"`` (see docs/tui.md)."""


@dataclass(frozen=True)
class LoggingSettings:
    """The application log: ``[logging]``."""

    level: str = field(
        default="INFO", metadata=rules(choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    )
    """The lowest level written to the log file."""


def default_providers() -> dict[str, ProviderSettings]:
    """The provider set used when no config file has a ``[providers]`` table."""
    return {"local": ProviderSettings(name="local", kind="openai", base_url=OLLAMA_URL)}


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
