"""``tuibot run --headless``: the engine without the app (see tuibot.frontends.headless).

Only the option parsing lives here; the engine is imported when the command runs.
"""

from __future__ import annotations

import argparse
import sys


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``tuibot run --headless``."""
    parser = subparsers.add_parser(
        "run",
        help="run scheduled jobs, the heartbeat and delegations without the app",
        description="Run the engine without a screen: jobs, the heartbeat, delegated work "
        "and tool reloading, logging to the log folder, until SIGINT or SIGTERM. Exits "
        "with 3 when another tuibot already runs scheduled work for this data folder.",
    )
    parser.add_argument(
        "--headless",
        action="store_true",
        required=True,
        help="no screen (required: the app is `tuibot` with no command)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Load settings, set up the log file, serve; 0 stopped, 2 bad config, 3 locked."""
    from tuibot.settings import ConfigError, load_settings

    try:
        settings = load_settings(args.config)
    except ConfigError as error:
        print(f"tuibot: {error}", file=sys.stderr)
        return 2
    from tuibot.commands.trust import warn_ignored

    warn_ignored(settings, sys.stderr)
    from tuibot.frontends import headless
    from tuibot.system.logs import configure_logging
    from tuibot.system.paths import DataPaths

    paths = DataPaths.default()
    configure_logging(paths, settings.logging.level)
    return headless.run(settings, paths)
