"""The engine fits each collaborator's host protocol; mypy checks this, nothing runs it.

Collaborators see the engine only through narrow protocols (:mod:`tuibot.delegation.host`,
:mod:`tuibot.jobs.host`, :mod:`tuibot.toolkit.services`, its read API's
:class:`~tuibot.engine.view.ViewSource`, and its own turns'
:class:`~tuibot.engine.prepare.TurnHost`). The engine satisfies them
structurally, so nothing at runtime says so; this function makes mypy say it (CI runs
mypy on the package), and fail with the missing member when one of them drifts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tuibot.delegation.host import DelegationHost
    from tuibot.engine import Engine
    from tuibot.engine.prepare import TurnHost
    from tuibot.engine.view import ViewSource
    from tuibot.jobs.host import JobsHost
    from tuibot.toolkit.services import ToolServices


def engine_fits(
    engine: Engine,
) -> tuple[DelegationHost, JobsHost, ToolServices, TurnHost, ViewSource]:
    """The engine as each collaborator sees it (a type check, not an adapter)."""
    return engine, engine, engine, engine, engine
