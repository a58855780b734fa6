"""The application log file: made at start, redacted, rotated (tuibot/system/logs.py).

The rotating handler is built at the first record (see ``RotatingLog``), so these check
what a person finds on disk: the file exists as soon as logging is set up, records reach
it without secrets, and it rotates at its size limit keeping three backups.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuibot.system import logs
from tuibot.system.paths import DataPaths
from tuibot.system.secrets import remember_secret


@pytest.fixture
def log_paths(tmp_path: Path) -> Iterator[DataPaths]:
    """Data paths whose log folder does not exist yet; the root logger restored after."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield DataPaths(root=tmp_path / "data", logs=tmp_path / "logs")
    for handler in root.handlers:
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)


def test_the_log_file_exists_before_anything_is_logged(log_paths: DataPaths) -> None:
    handler = logs.configure_logging(log_paths)

    assert handler is not None
    assert log_paths.log_file.is_file() and log_paths.log_file.read_text() == ""


def test_records_reach_the_file_without_secrets(log_paths: DataPaths) -> None:
    secret = "sk-" + "q" * 30
    remember_secret(secret)
    handler = logs.configure_logging(log_paths)
    assert handler is not None

    logging.getLogger("tuibot.test").warning("key %s refused", secret)
    handler.flush()

    text = log_paths.log_file.read_text(encoding="utf-8")
    assert "WARNING tuibot.test: key ****" in text and secret not in text


def test_the_file_rotates_at_its_limit(
    log_paths: DataPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logs, "MAX_BYTES", 300)
    handler = logs.configure_logging(log_paths)
    assert handler is not None

    for number in range(40):
        logging.getLogger("tuibot.test").warning("line %d %s", number, "x" * 40)
    handler.close()

    kept = sorted(path.name for path in log_paths.logs.iterdir())
    assert kept == ["tuibot.log", "tuibot.log.1", "tuibot.log.2", "tuibot.log.3"]
    assert "line 39" in log_paths.log_file.read_text(encoding="utf-8")


def test_an_unwritable_log_folder_gives_no_handler(tmp_path: Path) -> None:
    (tmp_path / "logs").write_text("a file where the folder should be")
    paths = DataPaths(root=tmp_path / "data", logs=tmp_path / "logs")

    assert logs.configure_logging(paths) is None
