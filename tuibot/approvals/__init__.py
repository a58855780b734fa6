"""One queue for every question the engine puts to a human.

A request carries an ``asyncio.Future`` that whoever answers resolves — the TUI's
approvals pane, ``ask``'s terminal prompt, a test — through :meth:`ApprovalQueue.decide`.
A request nobody answers in time is denied. Decisions with scope ``chat`` or
``lifetime`` become grants, so the same question is not asked again: kept in a
:class:`~tuibot.approvals.grants.GrantStore` when the queue has one (they outlive the process), else
only in memory. A grants file that cannot be read or written never loses a decision: the
grant is kept in memory for this run and the problem is reported as an error notice.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from tuibot.events import ApprovalDecided, ApprovalKind, ApprovalRequested, Event, Notice

if TYPE_CHECKING:
    from tuibot.approvals.grants import GrantScope, GrantStore

Scope = Literal["once", "chat", "lifetime"]


@dataclass(frozen=True)
class Decision:
    """A human's (or a policy's) answer to a request."""

    allowed: bool
    scope: Scope = "once"
    reason: str = ""
    question: str | None = None
    """A denial may carry a question for whoever asked."""
    grant: str | None = None
    """A broader grant the person chose explicitly (an exec prefix, a folder) instead of
    the request's own key; kept only if it covers the request (see ``permissions``)."""


@dataclass
class ApprovalRequest:
    """A pending question; ``future`` resolves with the decision."""

    id: str
    chat: str
    kind: ApprovalKind
    summary: str
    details: dict[str, Any]
    grant_key: str | None
    created: float
    timeout: float
    future: asyncio.Future[Decision] = field(repr=False)


@dataclass(frozen=True)
class KeptGrant:
    """One grant as a person lists it: stored in grants.json, or of this run only."""

    id: str
    """The stored grant's id (``g_…``), or a made-up one for a grant of this run."""
    scope: GrantScope
    chat: str | None
    key: str
    created: float | None
    """When it was granted; None for a grant kept in memory (this run only)."""
    reason: str = ""

    @property
    def stored(self) -> bool:
        """Whether it lives in grants.json (else only in this run's memory)."""
        return self.created is not None


class ApprovalQueue:
    """Pending requests, oldest first, and the grants earlier decisions left."""

    def __init__(
        self,
        emit: Callable[[Event], None],
        default_timeout: float,
        grants: GrantStore | None = None,
    ) -> None:
        self._emit = emit
        self._default_timeout = default_timeout
        self._pending: dict[str, ApprovalRequest] = {}
        self._ids = itertools.count(1)
        self.grants = grants
        """Where grants are kept across runs; None keeps them in memory only."""
        self.chat_grants: set[tuple[str, str]] = set()
        """Chat grants of this run alone (no store, or the store could not save them)."""
        self.lifetime_grants: set[str] = set()
        """Lifetime grants of this run alone, as ``chat_grants``."""
        self._store_problem = ""
        """The last grants-file problem reported, so a broken file is not reported per ask."""

    def pending(self) -> list[ApprovalRequest]:
        """Requests waiting for an answer, oldest first."""
        return list(self._pending.values())

    def granted(self, chat: str, grant_key: str | None) -> bool:
        """Whether an earlier decision already allows this (a grant covering its key)."""
        from tuibot.approvals.permissions import covers

        if grant_key is None:
            return False
        if any(covers(key, grant_key) for key in self.lifetime_grants) or any(
            covers(key, grant_key) for where, key in self.chat_grants if where == chat
        ):
            return True
        if self.grants is None:
            return False
        from tuibot.approvals.grants import GrantStoreError

        try:
            allowed = self.grants.allows(chat, grant_key)
        except GrantStoreError as exc:  # a broken file is no grants: ask, and say why
            self._report(chat, f"{exc}; kept grants are ignored until it is fixed")
            return False
        self._store_problem = ""
        return allowed

    def kept_grants(self) -> tuple[tuple[KeptGrant, ...], str]:
        """Every grant, oldest stored first then this run's, and the grants file's problem."""
        from tuibot.approvals.grants import GrantStoreError

        kept: list[KeptGrant] = []
        problem = ""
        if self.grants is not None:
            try:
                stored = self.grants.all()
            except GrantStoreError as error:
                problem = str(error)
            else:
                kept = [
                    KeptGrant(g.id, g.scope, g.chat, g.key, g.created, g.reason) for g in stored
                ]
        for chat, key in sorted(self.chat_grants):
            kept.append(KeptGrant(f"run:chat:{chat}:{key}", "chat", chat, key, None))
        for key in sorted(self.lifetime_grants):
            kept.append(KeptGrant(f"run:lifetime:{key}", "lifetime", None, key, None))
        return tuple(kept), problem

    def revoke(self, grant: KeptGrant) -> None:
        """Take a grant back: from grants.json (``GrantStoreError`` if that fails), or
        from this run's memory."""
        if not grant.stored:
            if grant.chat is not None:
                self.chat_grants.discard((grant.chat, grant.key))
            else:
                self.lifetime_grants.discard(grant.key)
        elif self.grants is not None:
            self.grants.revoke(grant.id)

    async def ask(
        self,
        chat: str,
        kind: ApprovalKind,
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
        try:
            if on_request is not None:
                on_request(request.id)
            self._emit(ApprovalRequested(chat, request.id, kind, summary, details))
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
        try:
            if decision.allowed and request.grant_key is not None and decision.scope != "once":
                self._keep(request, decision)
        finally:  # whatever happens to the grant, the decision is delivered
            self._settle(request, decision)
        return True

    def _keep(self, request: ApprovalRequest, decision: Decision) -> None:
        """Turn a ``chat`` or ``lifetime`` decision into a grant: in the store, else memory.

        An explicit broader grant (``decision.grant``) is kept only when it covers the
        request itself: a prefix that does not match the command shown grants nothing.
        """
        from tuibot.approvals.permissions import covers

        key = request.grant_key
        if key is not None and decision.grant is not None:
            key = decision.grant if covers(decision.grant, key) else None
        if key is None or decision.scope not in ("chat", "lifetime"):
            return
        if self.grants is not None and self._persist(request, decision, key):
            return
        if decision.scope == "chat":
            self.chat_grants.add((request.chat, key))
        else:
            self.lifetime_grants.add(key)

    def _persist(self, request: ApprovalRequest, decision: Decision, key: str) -> bool:
        """Save the grant; False (after a notice) when it could not be saved."""
        from tuibot.approvals.grants import Grant, GrantStoreError

        assert self.grants is not None
        scope: GrantScope = "chat" if decision.scope == "chat" else "lifetime"
        chat = request.chat if scope == "chat" else None
        try:
            grant = Grant(key, scope, chat, reason=decision.reason or "allowed")
        except ValueError:  # not a storable grant (an empty key): this run only
            return False
        try:
            self.grants.add(grant)
        except GrantStoreError as exc:  # every lost save is reported, not only the first
            self._report(request.chat, f"{exc}; the grant holds for this run only", once=False)
            return False
        return True

    def _report(self, chat: str, message: str, *, once: bool = True) -> None:
        """An error notice about the grants file; with ``once``, once per distinct problem."""
        if once and message == self._store_problem:
            return
        if once:
            self._store_problem = message
        self._emit(Notice(chat, "error", message))

    def _settle(self, request: ApprovalRequest, decision: Decision) -> None:
        """Resolve the future and tell every front end."""
        if not request.future.done():
            request.future.set_result(decision)
        self._pending.pop(request.id, None)
        reason = decision.reason or ("allowed" if decision.allowed else "denied")
        self._emit(ApprovalDecided(request.chat, request.id, decision.allowed, reason))
