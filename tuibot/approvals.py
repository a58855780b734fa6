"""One queue for every question the engine puts to a human.

A request carries an ``asyncio.Future`` that whoever answers resolves — the TUI's
approvals pane, ``ask``'s terminal prompt, a test — through :meth:`ApprovalQueue.decide`.
A request nobody answers in time is denied. Decisions with scope ``chat`` or
``lifetime`` become grants, so the same question is not asked again.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from tuibot.events import ApprovalDecided, ApprovalRequested, Event

Scope = Literal["once", "chat", "lifetime"]


@dataclass(frozen=True)
class Decision:
    """A human's (or a policy's) answer to a request."""

    allowed: bool
    scope: Scope = "once"
    reason: str = ""
    question: str | None = None
    """A denial may carry a question for whoever asked."""


@dataclass
class ApprovalRequest:
    """A pending question; ``future`` resolves with the decision."""

    id: str
    chat: str
    kind: str
    summary: str
    details: dict[str, Any]
    grant_key: str | None
    created: float
    timeout: float
    future: asyncio.Future[Decision] = field(repr=False)


class ApprovalQueue:
    """Pending requests, oldest first, and the grants earlier decisions left."""

    def __init__(self, emit: Callable[[Event], None], default_timeout: float) -> None:
        self._emit = emit
        self._default_timeout = default_timeout
        self._pending: dict[str, ApprovalRequest] = {}
        self._ids = itertools.count(1)
        self.chat_grants: set[tuple[str, str]] = set()
        self.lifetime_grants: set[str] = set()

    def pending(self) -> list[ApprovalRequest]:
        """Requests waiting for an answer, oldest first."""
        return list(self._pending.values())

    def granted(self, chat: str, grant_key: str | None) -> bool:
        """Whether an earlier decision already allows this."""
        if grant_key is None:
            return False
        return grant_key in self.lifetime_grants or (chat, grant_key) in self.chat_grants

    async def ask(
        self,
        chat: str,
        kind: str,
        summary: str,
        details: dict[str, Any],
        *,
        grant_key: str | None = None,
        timeout: float | None = None,
        on_request: Callable[[str], None] | None = None,
    ) -> Decision:
        """Wait for a decision; a grant answers at once, silence past the timeout denies.

        ``on_request`` hears the request's id before anyone can answer it (a record that
        names its pending request).
        """
        if self.granted(chat, grant_key):
            return Decision(True, reason="allowed by an earlier decision")
        timeout = self._default_timeout if timeout is None else timeout
        request = ApprovalRequest(
            id=f"req_{next(self._ids)}",
            chat=chat,
            kind=kind,
            summary=summary,
            details=details,
            grant_key=grant_key,
            created=time.time(),
            timeout=timeout,
            future=asyncio.get_running_loop().create_future(),
        )
        self._pending[request.id] = request
        if on_request is not None:
            on_request(request.id)
        self._emit(ApprovalRequested(chat, request.id, kind, summary, details))
        try:
            return await asyncio.wait_for(asyncio.shield(request.future), timeout)
        except TimeoutError:
            reason = f"nobody answered within {timeout:g} s"
            self._settle(request, Decision(False, reason=reason))
            return Decision(False, reason=reason)
        except asyncio.CancelledError:  # the turn stopped: the request must leave every queue
            self._settle(request, Decision(False, reason="the turn was interrupted"))
            raise
        finally:
            self._pending.pop(request.id, None)

    def decide(self, request_id: str, decision: Decision) -> bool:
        """Answer a pending request; False when it is no longer pending."""
        request = self._pending.get(request_id)
        if request is None or request.future.done():
            return False
        if decision.allowed and request.grant_key is not None:
            if decision.scope == "chat":
                self.chat_grants.add((request.chat, request.grant_key))
            elif decision.scope == "lifetime":
                self.lifetime_grants.add(request.grant_key)
        self._settle(request, decision)
        return True

    def _settle(self, request: ApprovalRequest, decision: Decision) -> None:
        """Resolve the future and tell every front end."""
        if not request.future.done():
            request.future.set_result(decision)
        self._pending.pop(request.id, None)
        reason = decision.reason or ("allowed" if decision.allowed else "denied")
        self._emit(ApprovalDecided(request.chat, request.id, decision.allowed, reason))
