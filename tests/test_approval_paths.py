"""A file request shows the path that will be touched once, and the model's spelling too
only when it is not simply that path relative to the workspace.

The resolved, absolute path is what happens; it is always shown whole and escaped. The
path as the model wrote it adds nothing when it is that same path relative to the
workspace (``.env``), and is what might mislead otherwise: ``sub/../../.env`` through a
symlinked folder (reads as outside the workspace, lands inside), a symlink with an
innocent name (``notes`` → ``.env``), ``~``. Then both are shown. The app's pane and
``ask``'s prompt are built from the same details and must agree.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from ask_helpers import ask_argv, run_on_terminal
from scripted_replies import text, tool_calls
from scripted_server import ScriptedServer
from test_tui_approvals import request

from tuibot.approvals.permissions import Permission, permission_details
from tuibot.approvals.request_text import request_lines
from tuibot.toolkit.permits import secret_read_permission
from tuibot.toolkit.protect import confirm_protected
from tuibot.toolkit.workspace import use_workspace
from tuibot.tui.text.approval_text import describe


def workspace(root: Path) -> Path:
    """A workspace holding ``.env``, a git hook folder, ``notes`` → ``.env`` and
    ``sub`` → ``a/b`` (so ``sub/../../x`` is ``x``, not a folder above the workspace)."""
    (root / ".env").write_text("API_KEY=x\n", encoding="utf-8")
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / "a" / "b").mkdir(parents=True)
    (root / "notes").symlink_to(".env")
    (root / "sub").symlink_to("a/b")
    return root


def permission_for(tool: str, raw: str) -> Permission:
    """The permission the bundled tool's own rule builds for ``path=raw``."""
    if tool == "read_file":
        permission = secret_read_permission("Read", raw)
    else:
        permission = confirm_protected("Write")({"path": raw, "content": "x"})
    assert permission is not None, (tool, raw)
    return permission


def path_lines(lines: list[str]) -> list[str]:
    """The ``path: …`` lines of a prompt (the pane writes ``Path:``), as ``path: …``."""
    stripped = (line.strip() for line in lines)
    return ["path:" + line[5:] for line in stripped if line.lower().startswith("path:")]


PLAIN = [
    ("read_file", ".env", ".env"),
    ("read_file", "./.env", ".env"),  # the same path, spelled with a redundant ``./``
    ("write_file", ".git/hooks/pre-commit", ".git/hooks/pre-commit"),
    ("read_file", "id_rsa\u202e", "id_rsa\u202e"),  # the real path spells it out, with a warning
]
MISLEADING = [
    ("read_file", "sub/../../.env", ".env"),  # through a symlinked folder, back inside
    ("read_file", "notes", ".env"),  # an innocent name, a link to the secret
    ("write_file", "a/../.git/hooks/pre-commit", ".git/hooks/pre-commit"),
    ("read_file", "~/../../.env", ".env"),  # ``~`` (here a/b) and ``..``: reads as elsewhere
]


@pytest.mark.parametrize(("tool", "raw", "real"), PLAIN + MISLEADING)
def test_the_pane_and_the_prompt_show_the_model_s_path_only_when_it_differs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str, raw: str, real: str
) -> None:
    root = workspace(tmp_path)
    monkeypatch.setenv("HOME", str(root / "a" / "b"))
    if "\u202e" in real:
        (root / real).write_text("x", encoding="utf-8")
    with use_workspace(root):
        permission = permission_for(tool, raw)
    arguments: dict[str, Any] = {"path": raw} | ({"content": "x"} if tool == "write_file" else {})
    details = {
        "tool": tool,
        "arguments": arguments,
        "prompt": permission.question,
        "permission": permission_details(permission),
    }
    resolved = str(root / real).replace("\u202e", "\\u202e")
    expected = [f"path: {resolved}"]
    if (tool, raw, real) in MISLEADING:
        expected.append(f"path: {raw}".replace("\u202e", "\\u202e"))
    terminal = request_lines("tool", "s", details)
    pane = describe(request("tool", details)).plain.splitlines()
    assert path_lines(terminal) == expected, terminal
    assert path_lines(pane) == expected, pane
    assert not any("\u202e" in line for line in terminal + pane)


SECRET = "sk-live-0123456789abcdef"


@pytest.mark.parametrize(("raw", "twice"), [(".env", False), ("sub/../../.env", True)])
def test_ask_shows_a_plain_path_once_and_a_misleading_one_as_written_too(
    server: ScriptedServer, raw: str, twice: bool
) -> None:
    """On a pty, as a person reads it; ``n`` keeps the secret from the model."""
    root = workspace(Path.cwd())
    (root / ".env").write_text(f"API_KEY={SECRET}\n", encoding="utf-8")
    server.enqueue(tool_calls([("read_file", json.dumps({"path": raw}))]), text("Done."))
    code, _, screen = run_on_terminal(ask_argv(server, "read"), prompt=b"[N]o: ", answer=b"n\n")
    assert code == 0, screen
    shown = re.findall(r"^\s*path: (.*?)\s*$", screen, flags=re.MULTILINE)
    real = str(root.resolve() / ".env")
    assert shown == ([real, raw] if twice else [real]), screen
