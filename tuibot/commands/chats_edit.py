"""``tuibot chats rename|delete|fork|export``: change, copy or share a chat from the shell.

Kept apart from :mod:`tuibot.commands.chats` (which only reads). Deleting goes through
the engine, as in the app, so the work the chat gave is cancelled first; it asks first
at a terminal and needs ``--yes`` otherwise, so a script cannot delete by accident.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tuibot.commands.output import emit

if TYPE_CHECKING:
    from tuibot.store.chats import ChatStore
    from tuibot.system.paths import DataPaths


def add_actions(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the four actions under ``tuibot chats``."""
    rename = actions.add_parser("rename", help="give a chat a new title")
    rename.add_argument("chat", metavar="ID", help="a chat id or a unique prefix of one")
    rename.add_argument("title", metavar="TITLE", help="the new title (one line)")
    delete = actions.add_parser("delete", help="delete a chat (its delegations are cancelled)")
    delete.add_argument("chat", metavar="ID", help="a chat id or a unique prefix of one")
    delete.add_argument("--yes", action="store_true", help="do not ask first")
    fork = actions.add_parser("fork", help="copy a chat, or its first N messages, to a new one")
    fork.add_argument("chat", metavar="ID", help="a chat id or a unique prefix of one")
    fork.add_argument("--at", type=int, metavar="N", help="keep the first N messages only")
    export = actions.add_parser("export", help="write a chat as Markdown")
    export.add_argument("chat", metavar="ID", help="a chat id or a unique prefix of one")
    export.add_argument("-o", "--output", type=Path, metavar="FILE", help="write here, not stdout")


def run_action(action: str, store: ChatStore, args: argparse.Namespace) -> int:
    """Run one of the actions; errors are raised for ``chats.run`` to report."""
    chat_id = store.resolve(args.chat)
    if action == "rename":
        if not args.title.strip():
            emit(sys.stderr, "tuibot: the title is empty")
            return 2
        store.set_title(chat_id, args.title)
        emit(sys.stdout, f"{chat_id}  {store.load(chat_id, readonly=True).meta.title}")
        return 0
    if action == "delete":
        return _delete(store, chat_id, args)
    if action == "fork":
        return _fork(store, chat_id, args.at)
    return _export(store, chat_id, args.output)


def _delete(store: ChatStore, chat_id: str, args: argparse.Namespace) -> int:
    title = store.load(chat_id, readonly=True).meta.title or "(untitled)"
    if not args.yes:
        if not sys.stdin.isatty():
            emit(sys.stderr, f"tuibot: not deleting {chat_id} without --yes (no terminal to ask)")
            return 2
        reply = input(f"Delete the chat {title!r} ({chat_id})? [y/N] ")
        if reply.strip().lower() not in ("y", "yes"):
            emit(sys.stderr, "tuibot: kept")
            return 1
    from tuibot.settings import ConfigError
    from tuibot.system.paths import DataPaths

    try:
        asyncio.run(_delete_through_engine(DataPaths.default(), args.config, chat_id))
    except ConfigError as error:
        emit(sys.stderr, f"tuibot: {error}")
        return 2
    emit(sys.stdout, f"deleted {chat_id}  {title}")
    return 0


async def _delete_through_engine(paths: DataPaths, config: Path | None, chat_id: str) -> None:
    """The engine cancels the chat's open delegations, then removes its file."""
    from tuibot.engine import Engine
    from tuibot.settings import load_settings

    engine = Engine(load_settings(config), paths=paths)
    try:
        await engine.delete_chat(chat_id)
    finally:
        await engine.close()


def _fork(store: ChatStore, chat_id: str, at: int | None) -> int:
    from tuibot.store.fork import fork_chat

    try:
        meta = fork_chat(store, chat_id, at)
    except ValueError as error:
        emit(sys.stderr, f"tuibot: {error}")
        return 2
    emit(sys.stdout, f"{meta.id}  {meta.title}")
    return 0


def _export(store: ChatStore, chat_id: str, output: Path | None) -> int:
    from tuibot.store.markdown_export import chat_markdown

    text = chat_markdown(store.load(chat_id, readonly=True))
    if output is None:
        sys.stdout.write(text)
        return 0
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        emit(sys.stderr, f"tuibot: could not write {output}: {error.strerror or error}")
        return 1
    emit(sys.stderr, f"tuibot: wrote {output}")
    return 0
