"""The refusal every part of delegation raises for a call it will not do."""

from __future__ import annotations


class DelegationRefused(Exception):
    """A ``delegate`` or ``cancel_delegation`` call that cannot be done; says why."""
