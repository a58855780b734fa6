"""``tuibot`` with no command: the full-screen app (see :mod:`tuibot.tui.app`).

Only argument parsing lives here; Textual is imported when the app starts, so
``tuibot ask`` never pays for it.
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from textual.app import App


def run(args: argparse.Namespace) -> int:
    """Load settings and run the app until the person quits; returns the exit code.

    The garbage collector is off until the app's first frame is on the screen (the app
    turns it on: :func:`tuibot.tui.render.gc_quiet.first_frame_shown`), and on again
    whatever happens.
    """
    gc.disable()
    try:
        return _run(args)
    finally:
        gc.enable()


def _run(args: argparse.Namespace) -> int:
    from tuibot.commands.ask import provider_overrides
    from tuibot.commands.trust import offer_at_start
    from tuibot.settings import ConfigError, load_settings

    if sys.stdout.isatty():  # the offer is for a person about to see the app
        offer_at_start(args.config, provider_overrides(args))
    try:
        settings = load_settings(args.config, overrides=provider_overrides(args))
    except ConfigError as error:
        print(f"tuibot: {error}", file=sys.stderr)
        print("Fix the file, or start with --config pointing at another one.", file=sys.stderr)
        return 2
    if not sys.stdout.isatty():
        print("tuibot: the full-screen app needs a terminal; use `tuibot ask`.", file=sys.stderr)
        return 2
    from tuibot.system.logs import configure_logging
    from tuibot.system.paths import DataPaths
    from tuibot.tui.app import TuibotApp

    paths = DataPaths.default()
    configure_logging(paths, settings.logging.level)
    app = TuibotApp(settings, paths, base_url=args.base_url, start_chat=args.chat)
    app.run()
    return exit_status(app, paths.log_file, sys.stderr)


def exit_status(app: App[Any], log_file: Path, err: TextIO) -> int:
    """The app's exit code: 0 for a quit, non-zero (and where the log is) for a crash.

    Textual restores the terminal and prints the traceback before ``run`` returns; this
    adds the log's place, so a crash is never a silent exit 0.
    """
    code = app.return_code or 0
    if code:
        logging.getLogger("tuibot").error("the app stopped on an error (exit code %s)", code)
        print(f"tuibot: the app stopped on an error; the log is {log_file}", file=err)
    return code
