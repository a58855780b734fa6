"""The application log: a file under the log dir, never the terminal.

Tracebacks of expected failures go here so the screen stays clean; a redacting filter
makes sure no secret is written even when a library logs a request.
"""

from __future__ import annotations

import logging
from pathlib import Path

from tuibot.system.paths import DataPaths

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
MAX_BYTES = 2_000_000
BACKUPS = 3


class RotatingLog(logging.Handler):
    """The rotating log file, made at the first record.

    ``logging.handlers`` (with pickle and queue) costs a start ~3 ms that a short ``ask``,
    which mostly logs nothing, would pay for nothing. The file is still created (and its
    folder's writability checked) at once, as the rotating handler itself would.
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        path.open("a", encoding="utf-8").close()  # OSError now, not at the first record
        self.path = path
        self._file: logging.Handler | None = None

    def emit(self, record: logging.LogRecord) -> None:
        """Write ``record`` (filtered and under this handler's lock, by ``handle``)."""
        if self._file is None:
            import logging.handlers

            self._file = logging.handlers.RotatingFileHandler(
                self.path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
            )
            self._file.setFormatter(self.formatter)
        self._file.emit(record)

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        super().close()


def configure_logging(paths: DataPaths, level: str = "INFO") -> logging.Handler | None:
    """Send tuibot's (and its libraries') logs to the rotating log file.

    Returns the handler, or None when the log folder cannot be written (logging must
    never stop tuibot from working).
    """
    from tuibot.system.secrets import RedactingFilter

    try:
        paths.logs.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = RotatingLog(paths.log_file)
    except OSError:
        return None
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(RedactingFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("tuibot").setLevel(level)
    return handler
