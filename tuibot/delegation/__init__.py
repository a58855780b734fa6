"""Delegation: one bot handing a task to another within limits a person authorized.

:mod:`~tuibot.delegation.records` is the record model; :mod:`~tuibot.delegation.journal`
keeps the records durable in one append-only file, safe against concurrent writers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tuibot.delegation.journal import (
        DelegationConflict,
        DelegationJournal,
        DelegationNotFound,
        DelegationStorageError,
    )
    from tuibot.delegation.records import (
        ENDED_STATUSES,
        OPEN_STATUSES,
        Delegation,
        Limits,
        LimitsError,
        Parent,
        Pause,
        RecordError,
        Status,
        Usage,
        new_delegation_id,
    )

__all__ = [
    "ENDED_STATUSES",
    "OPEN_STATUSES",
    "Delegation",
    "DelegationConflict",
    "DelegationJournal",
    "DelegationNotFound",
    "DelegationStorageError",
    "Limits",
    "LimitsError",
    "Parent",
    "Pause",
    "RecordError",
    "Status",
    "Usage",
    "new_delegation_id",
]

_HOME = {name: "records" for name in __all__} | dict.fromkeys(
    ("DelegationConflict", "DelegationJournal", "DelegationNotFound", "DelegationStorageError"),
    "journal",
)
"""Each name's module, imported on first use: a run that never delegates (a plain
``ask``) imports ``tuibot.delegation.tree_limits`` and never pays for the records."""


def __getattr__(name: str) -> Any:
    """The name from its module (PEP 562: called only for names not yet set here)."""
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
