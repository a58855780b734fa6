"""``tuibot ask [PROMPT]``: one turn from the shell (see :mod:`tuibot.frontends.ask`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

HELP = """\
Ask once and print the answer. Piped stdin is read as the prompt, or appended to
PROMPT as context. When the bot delegates, ask waits for the results and the answer
that follows, within --max-time, --max-steps and --max-usd. Exit codes: 0 answered,
1 the turn failed, 2 usage or config error, 3 the model server is unreachable or
rejected the request, 4 the work stopped at a limit or on a decision ask could not
get, 130 interrupted. A chat another tuibot is using is waited for (--wait), then exit 2.
"""


def add_parser(subparsers: Any) -> None:
    """Register ``ask``."""
    parser = subparsers.add_parser(
        "ask",
        help="ask once and print the answer",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("prompt", nargs="?", help="what to ask (or pipe it on stdin)")
    parser.add_argument("--chat", metavar="ID", help="continue this chat (id or unique prefix)")
    parser.add_argument(
        "-c",
        "--continue",
        dest="resume",
        action="store_true",
        help="continue the most recent direct chat",
    )
    parser.add_argument(
        "--bot", metavar="NAME", help="start the chat pinned to this bot (no routing)"
    )
    parser.add_argument(
        "--attach",
        action="append",
        default=[],
        metavar="FILE",
        help="attach a file in the workspace (text, image, audio); repeatable",
    )
    add_provider_options(parser)
    parser.add_argument("--json", action="store_true", help="write JSON Lines events to stdout")
    parser.add_argument(
        "--yes",
        action="store_true",
        help="allow tool calls and delegations that need confirmation (not past limits)",
    )
    parser.add_argument(
        "--continue-at-limits",
        action="store_true",
        help="with --yes, also let delegated work go on when it reaches a limit",
    )
    parser.add_argument(
        "--max-time",
        type=_positive(float),
        default=1800.0,
        metavar="S",
        help="stop all the work after this many seconds (default 1800)",
    )
    parser.add_argument(
        "--max-steps",
        type=_positive(int),
        default=100,
        metavar="N",
        help="model calls of this chat's own turns (default 100)",
    )
    parser.add_argument(
        "--max-usd",
        type=_positive(float),
        default=5.0,
        metavar="USD",
        help="cost of this chat and all work below it (default 5; local models cost 0)",
    )
    parser.add_argument(
        "--wait",
        type=_seconds,
        default=300.0,
        metavar="S",
        help="wait this long for a chat another tuibot is using, then exit 2 (default 300)",
    )
    parser.add_argument(
        "--config",
        type=Path,
        default=argparse.SUPPRESS,
        metavar="FILE",
        help="use this config file",
    )
    parser.set_defaults(handler=run)


def _positive(kind: type) -> Any:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
        return value

    return parse


def _seconds(text: str) -> float:
    """A number of seconds, 0 or more (0: do not wait at all)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, got {text}")
    return value


def add_provider_options(parser: argparse.ArgumentParser) -> None:
    """The flags that pick the model, shared with the full-screen app."""
    parser.add_argument("--provider", metavar="NAME", help="use this configured provider")
    parser.add_argument("--model", metavar="M", help="use this model")
    parser.add_argument(
        "--base-url",
        type=base_url,
        metavar="URL",
        help="talk to this OpenAI-compatible server (…/v1)",
    )


def base_url(text: str) -> str:
    """A ``--base-url`` value: an http(s) URL with a host, else a usage error saying why.

    ``localhost:11434/v1`` would otherwise reach the SDK as a relative URL and come back
    as "cannot reach the server", sending the person to check a server that is fine.
    """
    from urllib.parse import urlsplit

    value = text.strip()
    parts = urlsplit(value)
    if parts.scheme in ("http", "https") and parts.netloc:
        return value
    if "://" not in value:
        raise argparse.ArgumentTypeError(
            f"{text!r} has no scheme; did you mean http://{value.lstrip('/')}?"
        )
    raise argparse.ArgumentTypeError(f"{text!r} is not an http:// or https:// URL with a host")


def provider_overrides(args: argparse.Namespace) -> dict[str, tuple[Any, str]]:
    """Settings overrides from the provider flags."""
    overrides: dict[str, tuple[Any, str]] = {}
    if args.model:
        overrides["agent.model"] = (args.model, "--model")
    if args.provider:
        overrides["agent.provider"] = (args.provider, "--provider")
    return overrides


def run(args: argparse.Namespace) -> int:
    """Load settings, build the engine, run the turn."""
    import asyncio

    from tuibot.frontends.ask import EXIT_USAGE, AskOptions, build_prompt, with_attachments
    from tuibot.settings import ConfigError, load_settings

    prompt = build_prompt(args.prompt, sys.stdin)
    try:
        prompt = with_attachments(prompt, args.attach)
    except ValueError as error:
        print(f"tuibot: {error}", file=sys.stderr)
        return EXIT_USAGE
    if not prompt.strip():
        print("tuibot: nothing to ask: give a PROMPT or pipe text on stdin", file=sys.stderr)
        return EXIT_USAGE
    from tuibot.commands.trust import offer_at_start, warn_ignored

    offer_at_start(args.config, provider_overrides(args))
    try:
        settings = load_settings(args.config, overrides=provider_overrides(args))
    except ConfigError as error:
        print(f"tuibot: {error}", file=sys.stderr)
        return EXIT_USAGE
    warn_ignored(settings, sys.stderr)
    if args.bot and (args.chat or args.resume):
        print("tuibot: --bot starts a new chat; it cannot be used with --chat", file=sys.stderr)
        return EXIT_USAGE
    if args.resume and args.chat:
        print("tuibot: --continue picks the last chat; drop it or --chat", file=sys.stderr)
        return EXIT_USAGE
    options = AskOptions(
        prompt=prompt,
        chat=args.chat,
        resume=args.resume,
        bot=args.bot,
        json=args.json,
        yes=args.yes,
        continue_at_limits=args.continue_at_limits,
        max_time=args.max_time,
        max_steps=args.max_steps,
        max_micros=round(args.max_usd * 1_000_000),
        wait=args.wait,
        model=args.model,
        provider=args.provider,
    )
    return asyncio.run(_ask(settings, options, args.base_url))


async def _ask(settings: Any, options: Any, base_url: str | None) -> int:
    """The async part: engine up, turn run, engine down."""
    from tuibot.bots import BotError
    from tuibot.engine import Engine
    from tuibot.frontends.ask import EXIT_USAGE, run_ask
    from tuibot.settings import ConfigError
    from tuibot.store.chats import ChatNotFound
    from tuibot.store.jsonl import StorageError
    from tuibot.system.logs import configure_logging
    from tuibot.system.paths import DataPaths

    paths = DataPaths.default()
    configure_logging(paths, settings.logging.level)
    engine = Engine(settings, paths=paths)
    try:
        if base_url:
            engine.with_provider_override("--base-url", base_url=base_url)
        return await run_ask(engine, options, sys.stdout, sys.stderr)
    except (ConfigError, ChatNotFound, BotError) as error:
        print(f"tuibot: {error}", file=sys.stderr)
        return EXIT_USAGE
    except StorageError as error:
        print(f"tuibot: {error}", file=sys.stderr)
        return 1
    finally:
        await engine.close()
