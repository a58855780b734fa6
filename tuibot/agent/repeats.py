"""The identical-call guard of a person's own chat.

A small model can get stuck calling the same tool with the same arguments round after
round until the round limit, each time getting the same result. Delegated work has its
own guard (the work pauses and a person is asked, see ``delegation``); in a chat with no
work to pause, the repeated calls are not run: the model is told they repeat themselves,
and if it sends them once more the turn ends with a notice that says why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from tuibot.agent.calls import PendingCall

Verdict = Literal["run", "refuse", "stop"]

REFUSED = (
    "Not run: you made this exact call {count} times in a row with the same arguments, and "
    "its result will not change. Use the results you already have, try something "
    "different, or answer the user."
)
STOPPED = (
    "I stopped: I kept calling {names} with the same arguments, which would not have "
    "changed the result. Tell me how to go on."
)


def signature(calls: list[PendingCall]) -> str:
    """The calls of one answer by name and canonical arguments, order kept."""
    shown = []
    for call in calls:
        try:
            arguments = json.dumps(json.loads(call.arguments or "{}"), sort_keys=True)
        except ValueError:
            arguments = call.arguments
        shown.append((call.name, arguments))
    return json.dumps(shown)


@dataclass
class RepeatGuard:
    """Counts answers whose calls repeat the previous answer's exactly."""

    limit: int
    """The same calls this many times in a row are refused; once more ends the turn."""
    _last: str = ""
    _count: int = 0
    _refused: bool = field(default=False)

    def check(self, calls: list[PendingCall]) -> Verdict:
        """What to do with this answer's calls."""
        current = signature(calls)
        self._count = self._count + 1 if current == self._last else 1
        if current != self._last:
            self._refused = False
        self._last = current
        if self._count < self.limit:
            return "run"
        if self._refused:
            return "stop"
        self._refused = True
        return "refuse"

    @property
    def count(self) -> int:
        """How many times in a row the last calls came."""
        return self._count
