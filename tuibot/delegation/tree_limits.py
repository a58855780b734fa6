"""Bounds on a whole delegation tree: a person's chat and all the work below it.

A delegation's own limits bind one piece of work, so a bot that keeps handing work to
fresh helpers — each within its own limits — is stopped by none of them. A tree bound
counts every model call, its cost and the run's time across every chat of the tree, so
a storm of self-delegation ends at one number.

``ask`` sets the bounds from its ``--max-*`` flags and is told (``on_limit``) when one
is reached: it stops everything and exits 4. Everywhere else (the app, headless runs)
each person's chat gets ``[delegation]``'s ``tree_*`` bounds; reaching one holds every
model step of the tree and asks the person (see :func:`ask_person`). Steps are checked
and counted in one synchronous call, before the model is called, so no two chats can
both take the last step.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from tuibot.events import ApprovalKind, Notice

if TYPE_CHECKING:
    from tuibot.delegation.host import DelegationHost

TREE_KIND: ApprovalKind = "delegations.tree_limit"
"""The request that asks a person whether a tree at its bound may go on."""
TreeBound = Literal["steps", "budget", "time"]
"""The bounds a whole delegation tree can reach."""
FLAGS: dict[TreeBound, str] = {
    "steps": "tree_steps",
    "budget": "tree_budget_micros",
    "time": "tree_time",
}
"""Each bound and the ``[delegation]`` setting that sets it in the app."""


@dataclass
class TreeLimits:
    """Bounds on a chat and all work below it, and what the tree has used of them."""

    steps: int | None
    """Model calls of every chat in the tree; None: no bound."""
    budget_micros: int | None
    """Cost in micro-USD of those calls."""
    on_limit: Callable[[TreeBound], None] | None = None
    """Told the bound reached instead of asking a person (``ask``: stop all, exit 4)."""
    time_s: float | None = None
    """Seconds since the run began (or last went on after a bound), checked per step."""
    used_steps: int = 0
    used_micros: int = 0
    started: float = field(default_factory=time.monotonic)
    reached: TreeBound | None = None
    """The bound that holds the tree now; None while it may take steps."""
    stopped: bool = False
    """Stopped at a bound for good: every step still waiting is cancelled."""
    resume: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.resume.set()

    def over(self) -> TreeBound | None:
        """The first bound used up, if any: ``steps``, ``budget`` or ``time``."""
        if self.steps is not None and self.used_steps >= self.steps:
            return "steps"
        if self.budget_micros is not None and self.used_micros >= self.budget_micros:
            return "budget"
        if self.time_s is not None and time.monotonic() - self.started >= self.time_s:
            return "time"
        return None

    def restart(self) -> None:
        """Count from zero again: a new run, or a person let the tree go on."""
        self.used_steps = self.used_micros = 0
        self.started = time.monotonic()
        self.reached = None
        self.resume.set()

    def to_json(self) -> dict[str, Any]:
        """Bounds and usage, for the person's request and the docs' examples."""
        return {
            "limits": {
                "steps": self.steps,
                "budgetMicros": self.budget_micros,
                "timeS": self.time_s,
            },
            "used": {
                "steps": self.used_steps,
                "costMicros": self.used_micros,
                "timeS": round(time.monotonic() - self.started, 1),
            },
        }


RootLimits = TreeLimits
"""The name ``ask`` knows these by."""


class TreeBudgets:
    """Every tree's bounds: explicit ones (``ask``) and the app's defaults per root chat."""

    def __init__(self, host: DelegationHost, on_reached: Callable[[str, TreeLimits], None]) -> None:
        self.host = host
        self._explicit: dict[str, TreeLimits] = {}
        self._defaults: dict[str, TreeLimits] = {}
        self._on_reached = on_reached
        """Asks a person about a default bound (the manager spawns :func:`ask_person`)."""

    def set(self, chat: str, limits: TreeLimits) -> None:
        """Bound ``chat`` and all work below it by ``limits`` (instead of the defaults)."""
        self._explicit[chat] = limits

    def applying(self, path: list[str]) -> list[tuple[str, TreeLimits]]:
        """The bounds over a chat, given its path up to the person's chat (itself first).

        Every explicit bound on the path holds; with none, the settings' bounds of the
        person's chat at the top.
        """
        found = [(chat, self._explicit[chat]) for chat in path if chat in self._explicit]
        if found:
            return found
        root = path[-1]
        if root not in self._defaults:
            self._defaults[root] = self._from_settings()
        return [(root, self._defaults[root])]

    def _from_settings(self) -> TreeLimits:
        settings = self.host.settings.delegation
        return TreeLimits(
            settings.tree_steps, settings.tree_budget_micros, time_s=settings.tree_time
        )

    def new_run(self, root: str) -> None:
        """A person's input starts fresh work in an idle tree: its default bounds restart."""
        limits = self._defaults.get(root)
        if limits is not None and (limits.reached is None or limits.stopped):
            limits.stopped = False
            limits.restart()

    def stopped(self, path: list[str]) -> bool:
        """Whether a bound over the chat stopped its tree for good (no new work there)."""
        return any(limits.stopped for _, limits in self.applying(path))

    def try_step(self, path: list[str]) -> bool:
        """Count one model call against every bound over the chat, if none holds it.

        Checks and counts in one go (no ``await``), so two chats never both take the last
        step. A bound used up is reached here; False means wait (:meth:`wait`).
        """
        bounds = self.applying(path)
        if any(limits.reached or limits.stopped for _, limits in bounds):
            return False
        reached = [(chat, limits, limits.over()) for chat, limits in bounds]
        for chat, limits, limit in reached:
            if limit is not None:
                self._reach(chat, limits, limit)
        if any(limit for _, _, limit in reached):
            return False
        for _, limits in bounds:
            limits.used_steps += 1
        return True

    async def wait(self, path: list[str]) -> None:
        """Wait until no bound holds the chat; ``CancelledError`` if the tree was stopped."""
        for _, limits in self.applying(path):
            if limits.stopped:
                raise asyncio.CancelledError
            await limits.resume.wait()
            if limits.stopped:
                raise asyncio.CancelledError

    def add_cost(self, path: list[str], micros: int) -> None:
        """A model call's cost counts for every bound over the chat that made it."""
        if micros <= 0:
            return
        for chat, limits in self.applying(path):
            limits.used_micros += micros
            if limits.over() == "budget":
                self._reach(chat, limits, "budget")

    def _reach(self, chat: str, limits: TreeLimits, limit: TreeBound) -> None:
        if limits.reached is not None or limits.stopped:
            return
        limits.reached = limit
        limits.resume.clear()
        if limits.on_limit is not None:
            limits.stopped = True
            limits.resume.set()  # waiting steps wake up and see the stop
            limits.on_limit(limit)
        else:
            self._on_reached(chat, limits)


def _used_words(state: dict[str, Any]) -> str:
    """``12 of 500 steps, $0.0040 of $5.0000, 31 s of 3600 s`` (bounds that are set)."""
    used, limits = state["used"], state["limits"]
    parts = [f"{used['steps']} of {limits['steps']} steps" if limits["steps"] else ""]
    if limits["budgetMicros"]:
        parts.append(f"${used['costMicros'] / 1e6:.4f} of ${limits['budgetMicros'] / 1e6:.4f}")
    if limits["timeS"]:
        parts.append(f"{used['timeS']:.0f} s of {limits['timeS']:.0f} s")
    return ", ".join(part for part in parts if part)


async def ask_person(host: DelegationHost, chat: str, limits: TreeLimits) -> None:
    """A tree at its bound: the person allows it to go on (counts restart) or it stops.

    No grant is kept: a standing "always" would switch the bound off for good. No answer
    in ``delegation.approval_timeout`` is a denial, like every delegation request.
    """
    limit = limits.reached or "steps"
    state = limits.to_json()
    summary = (
        f"This chat and the work below it reached the tree's {limit} bound "
        f"(delegation.{FLAGS[limit]}; used {_used_words(state)}). Continue?"
    )
    decision = await host.approvals.ask(
        chat,
        TREE_KIND,
        summary,
        {"limit": limit, "setting": f"delegation.{FLAGS[limit]}", **state},
        timeout=host.settings.delegation.approval_timeout,
    )
    if decision.allowed:
        limits.restart()
        return
    limits.stopped = True
    limits.resume.set()
    host.events.publish(
        Notice(chat, "warning", f"stopped all the work at delegation.{FLAGS[limit]}")
    )
    host.cancel(chat, delegations=True)
