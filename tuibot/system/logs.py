"""The application log: a file under the log dir, never the terminal.

Tracebacks of expected failures go here so the screen stays clean; a redacting filter
makes sure no secret is written even when a library logs a request.
"""

from __future__ import annotations

import logging
import logging.handlers

from tuibot.system.paths import DataPaths

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging(paths: DataPaths, level: str = "INFO") -> logging.Handler | None:
    """Send tuibot's (and its libraries') logs to the rotating log file.

    Returns the handler, or None when the log folder cannot be written (logging must
    never stop tuibot from working).
    """
    from tuibot.system.secrets import RedactingFilter

    try:
        paths.logs.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(
            paths.log_file, maxBytes=2_000_000, backupCount=3, encoding="utf-8"
        )
    except OSError:
        return None
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(RedactingFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("tuibot").setLevel(level)
    return handler
