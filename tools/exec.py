"""Bundled tool: run a shell command in the workspace, after a human said yes.

The boundary is the confirmation: every command is shown in full and runs only when the
user allows it, and it runs exactly as shown — the approved string goes to ``/bin/sh -c``
unchanged (tuibot never re-splits or expands it), in the workspace, with stdin closed.

The blocked patterns below are a speed bump, not a sandbox: they stop the obvious
disasters (``rm -rf /``, ``mkfs``, writing to a disk device, shutting the machine down, a
fork bomb) before anyone is even asked, so a tired "y" cannot wipe a disk. A determined
command can always be phrased to slip past a pattern, which is why confirmation stays on.
Patterns match whole words, so ``rm -rf ./build`` or ``grep shutdown notes.txt`` are not
blocked.

Nothing the command starts outlives it (``tuibot.toolkit.proctree``): on a timeout, an
interrupted turn, or when the shell exits but left something running in the background,
every process of the run is ended — also those that called ``setsid``, double-forked or
ignore SIGTERM. Only the last 200 KB of output is kept (errors are at the end).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated

from tuibot import Param, tool
from tuibot.approvals.permissions import Permission, exec_permission
from tuibot.toolkit.workspace import current_workspace

if TYPE_CHECKING:  # psutil and the reaper load on the first command, not with the tool
    from tuibot.toolkit.proctree import Outcome

OUTPUT_LIMIT = 200 * 1024
"""Bytes of output kept: the tail, where errors and results usually are."""

_ROOTISH = r"(?:/|/\*|~|~/|~/\*|\$HOME|\$HOME/|\$HOME/\*|\*|\.\.?/?)"
BLOCKED: tuple[tuple[str, str], ...] = (
    (
        "recursive delete of /, ~ or everything",
        r"\brm\s+(?:-[a-z]*\s+)*-[a-z]*(?:r[a-z]*f|f[a-z]*r)[a-z]*\s+(?:--\s+)?"
        + _ROOTISH
        + r"(?:\s|;|&|\||$)",
    ),
    ("recursive delete with --no-preserve-root", r"--no-preserve-root\b"),
    ("formatting a filesystem", r"(?:^|[;&|]\s*|\s)(?:sudo\s+)?mkfs(?:\.\w+)?\b"),
    ("writing to a disk device with dd", r"\bdd\b[^;&|]*\bof=/dev/(?!null\b|zero\b)"),
    ("writing to a disk device", r">\s*/dev/(?:sd|hd|nvme|vd|xvd|mmcblk|disk)\w*"),
    (
        "shutting down or rebooting the machine",
        r"(?:^|[;&|]\s*|\bsudo\s+)(?:shutdown|reboot|poweroff|halt|init\s+[06])\b",
    ),
    ("a fork bomb", r":\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:\s*&[^}]*\}\s*;?\s*:"),
    ("formatting a Windows disk", r"(?:^|[;&|]\s*)(?:format\s+[a-z]:|diskpart\b)"),
    ("recursive delete on Windows", r"\b(?:del\s+/[fsq]|rmdir\s+/s|rd\s+/s)\b"),
)
"""(reason, pattern) pairs refused before anyone is asked (case-insensitive).

Compiled on the first check, by ``re``'s own cache: every start loads this tool, few run it.
"""


def blocked_reason(command: str) -> str | None:
    """Why ``command`` is refused outright, or None."""
    for reason, pattern in BLOCKED:
        if re.search(pattern, command, re.IGNORECASE):
            return reason
    return None


def _confirm(arguments: dict[str, object]) -> Permission | None:
    """Ask with the whole command; a grant covers exactly it (or a prefix chosen
    explicitly); a blocked command is refused without asking."""
    command = str(arguments.get("command", ""))
    if blocked_reason(command) is not None:
        return None
    return exec_permission(command, str(current_workspace()))


@tool(confirm=_confirm, timeout=660)
async def exec(
    command: str,
    timeout: Annotated[int, Param(ge=1, le=600)] = 60,
) -> str:
    """Run a shell command (sh -c) in the workspace and return its output and exit code.

    The user sees the exact command and must allow it. Output (stdout and stderr
    together) is cut to its last 200 KB.

    Args:
        command: The command line, exactly as it should run in /bin/sh.
        timeout: Seconds before the command and everything it started are killed.
    """
    if not command.strip():
        return "Error: command is empty"
    if "\0" in command:
        return "Error: command contains a NUL byte"
    reason = blocked_reason(command)
    if reason is not None:
        return (
            f"Error: refused: {reason} (a blocked pattern). This check is a speed bump, "
            "not a sandbox; ask the user to run such a command themselves."
        )
    from tuibot.toolkit.proctree import run_shell

    tail = _Tail(OUTPUT_LIMIT)
    try:
        outcome = await run_shell(command, current_workspace(), timeout, tail.add)
    except OSError as exc:
        return f"Error: cannot start /bin/sh: {exc.strerror or exc}"
    return f"{tail.text()}\n{_status(outcome, timeout)}".lstrip("\n")


def _status(outcome: Outcome, timeout: int) -> str:
    """The closing lines: how the command ended and what had to be ended with it."""
    code = outcome.exit_code
    if outcome.timed_out:
        lines = [f"[killed after the {timeout} s timeout]"]
    elif code is None:
        lines = ["[exit status unknown: the command ended tuibot's process reaper]"]
    elif code < 0:
        lines = [f"[killed by signal {-code}]"]
    else:
        lines = [f"[exit code {code}]"]
    if outcome.left_running:
        count = outcome.left_running
        plural = "process" if count == 1 else "processes"
        lines.append(f"[ended {count} background {plural} the command left running]")
    if outcome.survivors:
        lines.append(f"[{outcome.survivors} of its processes could not be ended]")
    return "\n".join(lines)


class _Tail:
    """The last ``limit`` bytes of a stream, and how many came before them."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        self.data += chunk
        extra = len(self.data) - self.limit
        if extra > 0:
            del self.data[:extra]
            self.dropped += extra

    def text(self) -> str:
        body = self.data.decode("utf-8", errors="replace").rstrip("\n")
        if self.dropped:
            return f"[... first {self.dropped} bytes of output cut ...]\n{body}"
        return body
