"""Delegation: one bot handing a task to another within limits a person authorized.

:mod:`~tuibot.delegation.records` is the record model; :mod:`~tuibot.delegation.journal`
keeps the records durable in one append-only file, safe against concurrent writers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tuibot.lazy_exports import lazy_exports

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

_HOME = {name: ".records" for name in __all__} | dict.fromkeys(
    ("DelegationConflict", "DelegationJournal", "DelegationNotFound", "DelegationStorageError"),
    ".journal",
)
"""Each name's module, imported on first use: a run that never delegates (a plain
``ask``) imports ``tuibot.delegation.tree_limits`` and never pays for the records."""


__getattr__, __dir__ = lazy_exports(__name__, _HOME)
