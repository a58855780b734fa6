"""Who can answer: the default bot, the configured bots, and bots other bots created.

The default bot is ``[agent]`` and exists with no config at all. ``[[bots]]`` adds
more; a bot that a bot creates at run time (``create_bot``) is owned by its creator and
kept in ``<data>/bots.jsonl`` so it is still there after a restart. Names are matched
without regard to case, because models and people both get case wrong.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tuibot.settings import AgentSettings, BotSettings, Settings
from tuibot.store.jsonl import StorageError, append_lines, read_lines

Source = Literal["default", "config", "created"]

NAME_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9 _.-]{0,39}$")
"""A bot name: a letter, then up to 39 letters, digits, spaces, ``_ . -``."""


@dataclass(frozen=True)
class Bot:
    """One bot as the engine runs it: every field filled (defaults from ``[agent]``)."""

    name: str
    description: str
    instructions: str
    model: str
    provider: str
    params: dict[str, Any]
    tools: list[str]
    workspace: str
    """"" = the settings' workspace."""
    source: Source
    owner: str | None = None
    """The bot that created this one (``created`` bots only)."""
    created: float = field(default=0.0, compare=False)

    def as_json(self) -> dict[str, Any]:
        """What ``bot_details`` and ``bots.jsonl`` hold."""
        return {
            "name": self.name,
            "description": self.description,
            "instructions": self.instructions,
            "model": self.model,
            "tools": list(self.tools),
            "source": self.source,
            "owner": self.owner,
        }


class BotError(ValueError):
    """A bot that cannot be found or created; the message says why."""


class BotDirectory:
    """Every bot by name; created bots are appended to a JSONL file as they are made."""

    def __init__(self, settings: Settings, path: Path) -> None:
        self.path = path
        self._default = _from_agent(settings.agent)
        self._bots: dict[str, Bot] = {self._default.name.casefold(): self._default}
        for configured in settings.bots.values():
            bot = _from_config(configured, settings.agent)
            self._bots[bot.name.casefold()] = bot
        self.problems: list[str] = []
        """Lines of ``bots.jsonl`` that could not be used, for the caller to report."""
        self._load_created()

    @property
    def default(self) -> Bot:
        """The bot a message goes to when nothing else decides."""
        return self._default

    def all(self) -> list[Bot]:
        """Every bot: the default first, then configured, then created ones."""
        return list(self._bots.values())

    def get(self, name: str) -> Bot | None:
        """The bot called ``name`` (any case), or None."""
        return self._bots.get(name.strip().casefold())

    def require(self, name: str) -> Bot:
        """The bot called ``name``, or a ``BotError`` listing the ones that exist."""
        bot = self.get(name)
        if bot is None:
            known = ", ".join(b.name for b in self.all())
            raise BotError(f"no bot named {name!r}; the bots are: {known}")
        return bot

    def owns(self, owner: str, bot: str) -> bool:
        """Whether ``owner`` created ``bot`` (directly or through bots it created)."""
        current = self.get(bot)
        seen: set[str] = set()
        while current is not None and current.owner and current.name not in seen:
            if current.owner.casefold() == owner.casefold():
                return True
            seen.add(current.name)
            current = self.get(current.owner)
        return False

    def create(
        self,
        *,
        name: str,
        description: str,
        instructions: str,
        owner: str,
        model: str = "",
        tools: list[str] | None = None,
    ) -> Bot:
        """Make a bot owned by ``owner`` and store it before it can be used."""
        name = name.strip()
        if not NAME_PATTERN.match(name):
            raise BotError(
                f"bot name {name!r} is not usable: start with a letter, then up to 39 "
                "letters, digits, spaces, '_', '.' or '-'"
            )
        if self.get(name) is not None:
            raise BotError(f"a bot named {self.require(name).name!r} already exists")
        if not description.strip():
            raise BotError("a new bot needs a description: what it is for")
        parent = self.require(owner)
        if tools is not None and parent.tools:
            extra = sorted(set(tools) - set(parent.tools))
            if extra:
                raise BotError(
                    f"{parent.name} can only give a new bot tools it has itself; "
                    f"not: {', '.join(extra)}"
                )
        bot = Bot(
            name=name,
            description=description.strip(),
            instructions=instructions.strip(),
            model=model.strip() or parent.model,
            provider="" if model.strip() else parent.provider,
            params=dict(parent.params),
            tools=list(tools if tools is not None else parent.tools),
            workspace=parent.workspace,
            source="created",
            owner=parent.name,
            created=time.time(),
        )
        record = {**bot.as_json(), "provider": bot.provider, "params": bot.params}
        record["workspace"], record["created"] = bot.workspace, bot.created
        append_lines(self.path, [record])  # StorageError: nothing is registered
        self._bots[name.casefold()] = bot
        return bot

    def _load_created(self) -> None:
        if not self.path.exists():
            return
        try:
            result = read_lines(self.path, set_aside=False)
        except StorageError as error:
            self.problems.append(str(error))
            return
        for problem in result.problems:
            self.problems.append(f"{self.path}:{problem.line}: {problem.reason}")
        for record in result.records:
            try:
                bot = _from_record(record)
            except (KeyError, TypeError, ValueError) as error:
                self.problems.append(f"{self.path}: a created bot is unreadable: {error}")
                continue
            if self.get(bot.name) is None:  # config wins over a created bot of the same name
                self._bots[bot.name.casefold()] = bot


def _from_agent(agent: AgentSettings) -> Bot:
    return Bot(
        name=agent.name,
        description="The default assistant.",
        instructions=agent.instructions,
        model=agent.model,
        provider=agent.provider,
        params=dict(agent.params),
        tools=list(agent.tools),
        workspace="",
        source="default",
    )


def _from_config(bot: BotSettings, agent: AgentSettings) -> Bot:
    return Bot(
        name=bot.name,
        description=bot.description,
        instructions=bot.instructions,
        model=bot.model or agent.model,
        provider=bot.provider if bot.model else (bot.provider or agent.provider),
        params={**agent.params, **bot.params},
        tools=list(bot.tools),
        workspace=bot.workspace,
        source="config",
    )


def _from_record(record: dict[str, Any]) -> Bot:
    tools = record.get("tools") or []
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise ValueError("tools must be a list of names")
    return Bot(
        name=str(record["name"]),
        description=str(record.get("description", "")),
        instructions=str(record.get("instructions", "")),
        model=str(record["model"]),
        provider=str(record.get("provider", "")),
        params=dict(record.get("params") or {}),
        tools=tools,
        workspace=str(record.get("workspace", "")),
        source="created",
        owner=str(record["owner"]),
        created=float(record.get("created", 0.0)),
    )
