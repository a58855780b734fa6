"""Protected paths in the workspace: git internals, project config, instruction files.

The model is the attacker: it asks ``write_file``/``edit_file`` to plant a git hook, rewrite
``.git/config``, drop a ``tuibot.toml`` or rewrite ``AGENTS.md``. Through the real engine and
loop (scripted server on loopback, the bundled tools), each must become an approval
request saying what the write would do, and a denial must leave the file alone. The
aliases (dotted paths, symlinks, trailing slashes, other letter cases) are checked on
``protected_prompt`` directly.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from engine_helpers import make_engine
from scripted_server import ScriptedServer, text, tool_calls

from tuibot.approvals import Decision
from tuibot.toolkit import use_workspace
from tuibot.toolkit.protect import protected_prompt, protection_of


def git_repo(root: Path) -> Path:
    """A folder laid out as git lays out a repository (no git binary needed)."""
    git = root / ".git"
    for folder in ("hooks", "objects", "refs/heads"):
        (git / folder).mkdir(parents=True, exist_ok=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (git / "config").write_text("[core]\n\tbare = false\n", encoding="utf-8")
    return git


async def questions_for(server: ScriptedServer, tool: str, arguments: dict[str, str]) -> list[str]:
    """Run one turn whose model calls ``tool``; deny every approval; return their summaries."""
    engine = make_engine(server)
    server.enqueue(tool_calls([(tool, json.dumps(arguments))]), text("done"))
    chat = engine.new_chat().id
    asked: list[str] = []
    try:
        turn = asyncio.ensure_future(await engine.send(chat, "please"))
        while not turn.done():
            for request in engine.approvals.pending():
                asked.append(request.summary)
                engine.decide(request.id, Decision(False, "once", reason="no"))
            await asyncio.sleep(0.01)
        await turn
    finally:
        await engine.close()
    return asked


@pytest.mark.parametrize(
    ("path", "words"),
    [
        (".git/hooks/pre-commit", "runs on every git commit"),
        (".git/config", "git's settings for this repository"),
        ("tuibot.toml", "tuibot project config"),
        ("AGENTS.md", "read as instructions"),
        ("sub/dir/AGENTS.md", "read as instructions"),
    ],
)
async def test_writing_a_protected_file_asks_first_and_a_denial_keeps_it(
    server: ScriptedServer, path: str, words: str
) -> None:
    git_repo(Path.cwd())
    target = Path.cwd() / path
    before = target.read_bytes() if target.exists() else None

    asked = await questions_for(server, "write_file", {"path": path, "content": "#!/bin/sh\nx\n"})

    assert len(asked) == 1, asked
    assert words in asked[0] and str(Path(os.path.realpath(target))) in asked[0]
    assert (target.read_bytes() if target.exists() else None) == before


async def test_edit_file_on_git_config_asks_first(server: ScriptedServer) -> None:
    git_repo(Path.cwd())
    arguments = {"path": ".git/config", "old_text": "bare = false", "new_text": "bare = true"}
    asked = await questions_for(server, "edit_file", arguments)
    assert len(asked) == 1 and asked[0].startswith("Edit ") and "git" in asked[0]
    assert "bare = false" in (Path.cwd() / ".git" / "config").read_text()


async def test_an_ordinary_file_is_written_without_a_question(server: ScriptedServer) -> None:
    git_repo(Path.cwd())
    asked = await questions_for(server, "write_file", {"path": "notes.md", "content": "hi"})
    assert asked == [] and (Path.cwd() / "notes.md").read_text() == "hi"


# --- aliases: every spelling of a protected path is protected -------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git_repo(root)
    return Path(os.path.realpath(root))


def ask_for(raw: str | Path) -> str | None:
    """The question for writing ``raw`` (as the tools resolve it: realpath)."""
    return protected_prompt("Write", Path(os.path.realpath(raw)))


def test_dotted_paths_trailing_slashes_and_symlinks_are_the_same_file(repo: Path) -> None:
    with use_workspace(repo):
        hook = ask_for(repo / ".git" / "hooks" / "pre-commit")
        assert hook is not None and "runs on every git commit" in hook
        assert ask_for(f"{repo}/.git/../.git/hooks/pre-commit") == hook
        assert ask_for(f"{repo}/./.git//hooks/pre-commit") == hook
        assert ask_for(f"{repo}/.git/hooks/") is not None  # the folder itself
        (repo / "innocent").symlink_to(repo / ".git")
        assert ask_for(repo / "innocent" / "hooks" / "pre-commit") == hook
        (repo / "hooks-link").symlink_to(repo / ".git" / "hooks")
        assert ask_for(repo / "hooks-link" / "pre-commit") == hook


def test_other_letter_cases_are_protected(repo: Path) -> None:
    # on a case-insensitive file system (macOS, Windows) these are the same files
    with use_workspace(repo):
        for raw in (".GIT/config", ".Git/hooks/pre-push", "TUIBOT.TOML", "agents.md"):
            assert ask_for(repo / raw) is not None, raw
        assert ask_for(repo / ".gitignore") is None
        assert ask_for(repo / "my.git" / "config") is None
        assert ask_for(repo / "docs" / "tuibot.toml.bak") is None


def test_git_internals_are_protected_in_every_repository_in_the_workspace(repo: Path) -> None:
    nested = repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    git_repo(nested)
    with use_workspace(repo):
        assert ask_for(nested / ".git" / "config") is not None
        kinds = {protection_of(nested / ".git" / "HEAD").kind}  # type: ignore[union-attr]
        assert kinds == {"git"}


def test_a_git_file_and_the_folder_it_points_at_are_protected(repo: Path) -> None:
    # a worktree or submodule: `.git` is a file naming the real git folder elsewhere
    store = repo / "store" / "wt-gitdir"
    for folder in ("hooks", "objects", "refs"):
        (store / folder).mkdir(parents=True)
    (store / "HEAD").write_text("ref: refs/heads/x\n")
    (store / "commondir").write_text("../..\n")
    worktree = repo / "checkout"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {store}\n")
    with use_workspace(repo):
        pointer = ask_for(worktree / ".git")
        assert pointer is not None and "where this repository's data is" in pointer
        aimed = ask_for(store / "hooks" / "post-checkout")
        assert aimed is not None and "git" in aimed
        assert ask_for(store / "config") is not None
        assert ask_for(repo / "store" / "notes.txt") is None


def test_a_bare_looking_folder_needs_head_objects_and_refs(repo: Path) -> None:
    lookalike = repo / "data"
    (lookalike / "refs").mkdir(parents=True)
    (lookalike / "HEAD").write_text("not git")
    with use_workspace(repo):
        assert ask_for(lookalike / "refs" / "x") is None  # no objects/: not a repository


def test_project_config_where_tuibot_looks_is_protected_also_outside_the_workspace_root(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = tmp_path / "start"
    start.mkdir()
    monkeypatch.chdir(start)  # the folder tuibot looks in for ./tuibot.toml
    with use_workspace(repo):
        question = ask_for(start / "tuibot.toml")
        assert question is not None and "tuibot project config" in question
        assert ask_for(repo / "deep" / "er" / "tuibot.toml") is not None
