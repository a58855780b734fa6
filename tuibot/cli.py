"""The ``tuibot`` command line: parse, then hand over to one command module.

Kept light on purpose — ``tuibot ask --help`` and ``tuibot ask`` start-up are measured —
so command modules import their heavy parts inside ``run``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

from tuibot import __version__
from tuibot.commands import ask

COMMANDS = (
    "ask",
    "run",
    "config",
    "keys",
    "chats",
    "delegations",
    "jobs",
    "grants",
    "trust",
    "doctor",
    "tools",
    "mcp",
    "skills",
)
"""Each command's name, which is also its module in tuibot.commands; in help order."""

VALUED_OPTIONS = frozenset({"--config", "--provider", "--model", "--base-url", "--chat"})
"""The options before a command that take a value (see :func:`command_named`)."""


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser: every command, or only the one ``argv`` names.

    Importing every command module and building every subparser is paid by every run,
    so when ``argv`` names its command only that one is registered: what it parses, its
    help and its errors are the same, and ``tuibot ask`` starts without the others.
    """
    parser = argparse.ArgumentParser(
        prog="tuibot",
        description="A local AI assistant that lives in the terminal.",
    )
    parser.add_argument("--version", action="version", version=f"tuibot {__version__}")
    add_global_options(parser)
    add_app_options(parser)
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    named = command_named(argv) if argv is not None else None
    if named:
        names: Sequence[str] = (named,)
    else:
        names = () if argv is not None and app_only(argv) else COMMANDS
    for name in names:
        importlib.import_module(f"tuibot.commands.{name}").add_parser(subparsers)
    return parser


def command_named(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs, read as argparse would; None when unsure.

    Only the top-level options may come first (with their values); anything else
    before a command name — ``-h``, an unknown flag, a stray word — means the full
    parser is needed to say what is wrong or to list every command.
    """
    words = iter(argv)
    for word in words:
        if word in COMMANDS:
            return word
        if word in VALUED_OPTIONS:
            next(words, None)  # its value, even one spelled like a command
        elif not word.startswith("--") or word.split("=", 1)[0] not in VALUED_OPTIONS:
            return None
    return None


def app_only(argv: Sequence[str]) -> bool:
    """Whether ``argv`` starts the full-screen app: only top-level options, each with its
    value. Then no command is registered at all: the app's first frame waits for every
    module imported before it, and the command modules import a lot (stores, settings)."""
    words = iter(argv)
    for word in words:
        if word in VALUED_OPTIONS:
            if next(words, None) is None:
                return False  # a missing value: the full parser says so
        elif not word.startswith("--") or word.split("=", 1)[0] not in VALUED_OPTIONS:
            return False
    return True


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
        "--base-url",
        type=ask.base_url,
        metavar="URL",
        help="talk to this OpenAI-compatible server (…/v1)",
    )
    group.add_argument("--chat", metavar="ID", help="open this chat (id or unique prefix)")


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """``parse_args``, but an unknown flag is reported by the command it was given to,
    with that command's usage and the closest flag it has (``--jsno``: ``--json``?)."""
    args, extras = parser.parse_known_args(argv)
    if not extras:
        return args
    import difflib  # only for a mistyped flag

    words = list(sys.argv[1:] if argv is None else argv)
    command = _command_parser(parser, words) or parser
    message = f"unrecognized arguments: {' '.join(extras)}"
    flags = [flag for action in command._actions for flag in action.option_strings]
    for extra in extras:
        close = difflib.get_close_matches(extra.split("=")[0], flags, n=1, cutoff=0.6)
        if extra.startswith("-") and close:
            message += f" (did you mean {close[0]}?)"
            break
    command.error(message)


def _command_parser(
    parser: argparse.ArgumentParser, words: list[str]
) -> argparse.ArgumentParser | None:
    """The subcommand's parser named first in ``words``, if any."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return next((action.choices[w] for w in words if w in action.choices), None)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run tuibot; returns the exit code."""
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    args = parse(parser, argv)
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
        from tuibot.commands import output

        return output.stdout_closed()
    return code


if __name__ == "__main__":
    raise SystemExit(main())
