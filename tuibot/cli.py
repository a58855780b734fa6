"""The ``tuibot`` command line: parse, then hand over to one command module.

Kept light on purpose — ``tuibot ask --help`` and ``tuibot ask`` start-up are measured —
so command modules import their heavy parts inside ``run``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tuibot import __version__
from tuibot.commands import (
    ask,
    chats,
    config,
    delegations,
    doctor,
    grants,
    jobs,
    keys,
    mcp,
    output,
    run,
    skills,
    tools,
    trust,
)


def build_parser() -> argparse.ArgumentParser:
    """The full parser, every subcommand registered by its module."""
    parser = argparse.ArgumentParser(
        prog="tuibot",
        description="A local AI assistant that lives in the terminal.",
    )
    parser.add_argument("--version", action="version", version=f"tuibot {__version__}")
    add_global_options(parser)
    add_app_options(parser)
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    modules = (
        ask,
        run,
        config,
        keys,
        chats,
        delegations,
        jobs,
        grants,
        trust,
        doctor,
        tools,
        mcp,
        skills,
    )
    for module in modules:
        module.add_parser(subparsers)
    return parser


def add_global_options(parser: argparse.ArgumentParser) -> None:
    """Options every command accepts, before or after the command name."""
    parser.add_argument(
        "--config",
        type=Path,
        default=argparse.SUPPRESS,
        metavar="FILE",
        help="use this config file (trusted: you named it) instead of a trusted "
        "./tuibot.toml or the config home's",
    )


def add_app_options(parser: argparse.ArgumentParser) -> None:
    """The full-screen app's options (``tuibot`` with no command): ask's provider flags."""
    group = parser.add_argument_group("the full-screen app (tuibot with no command)")
    group.add_argument("--provider", metavar="NAME", help="use this configured provider")
    group.add_argument("--model", metavar="M", help="use this model")
    group.add_argument(
        "--base-url", metavar="URL", help="talk to this OpenAI-compatible server (…/v1)"
    )
    group.add_argument("--chat", metavar="ID", help="open this chat (id or unique prefix)")


def main(argv: Sequence[str] | None = None) -> int:
    """Run tuibot; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "config"):
        args.config = None
    handler = getattr(args, "handler", None)
    if handler is None:
        from tuibot.commands import tui

        handler = tui.run
    try:
        code = int(handler(args))
        sys.stdout.flush()  # a reader gone after the last write shows here, not at exit
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `tuibot chats list | head -1`: the reader left
        return output.stdout_closed()
    return code


if __name__ == "__main__":
    raise SystemExit(main())
