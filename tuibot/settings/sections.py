"""The sections of tuibot's settings: one frozen dataclass per TOML table.

Each field's attribute docstring is the key's documentation (``tuibot.settings.docs``
reads it), and ``rules(...)`` in its metadata says what values it takes. The whole
object, how it is loaded and saved, is :mod:`tuibot.settings`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tuibot.settings.schema import DERIVED, rules

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
    (``["llava*", "qwen2.5vl:*"]``); when both are unset, the server is asked (Ollama,
    LM Studio); see docs/attachments.md."""

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
