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
from tuibot.commands import ask, chats, config, delegations, doctor, grants, keys, skills, tools


def build_parser() -> argparse.ArgumentParser:
    """The full parser, every subcommand registered by its module."""
    parser = argparse.ArgumentParser(
        prog="tuibot",
        description="A local AI assistant that lives in the terminal.",
    )
    parser.add_argument("--version", action="version", version=f"tuibot {__version__}")
    add_global_options(parser)
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for module in (ask, config, keys, chats, delegations, grants, doctor, tools, skills):
        module.add_parser(subparsers)
    return parser


def add_global_options(parser: argparse.ArgumentParser) -> None:
    """Options every command accepts, before or after the command name."""
    parser.add_argument(
        "--config",
        type=Path,
        default=argparse.SUPPRESS,
        metavar="FILE",
        help="use this config file instead of ./tuibot.toml or the config home's",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run tuibot; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "config"):
        args.config = None
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        print("\nThe full-screen app is not built yet; use `tuibot ask`.", file=sys.stderr)
        return 0
    try:
        return int(handler(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
