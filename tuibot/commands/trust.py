"""``tuibot trust``: say yes to a folder's ``tuibot.toml``, list the yeses, take one back.

Why: a project config is ignored until trusted (see :mod:`tuibot.settings.project`), and a
yes must be informed — so trusting shows what the file would change (secrets masked) and
asks. The same offer is made once when ``tuibot`` or ``tuibot ask`` starts at a terminal
in a folder with an untrusted file; declined or not interactive, tuibot goes on without it
and says so in one line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tuibot.commands.output import emit, local_time

if TYPE_CHECKING:
    from tuibot.settings.project import ProjectFile
    from tuibot.settings.trust import TrustStore

EXIT_DECLINED = 1
EXIT_USAGE = 2


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``tuibot trust [DIR] [--yes] | --list | --revoke [DIR]``."""
    parser = subparsers.add_parser(
        "trust",
        help="trust a folder's tuibot.toml, list trusted ones, or revoke one",
        description="A tuibot.toml in the folder tuibot starts in is ignored until you trust "
        "it. This shows what DIR/tuibot.toml (default: this folder's) would change, asks, and "
        "records trust for exactly this file with exactly this content: a changed file must "
        "be trusted again. Exit 0 trusted, 1 declined, 2 nothing to trust or not asked.",
    )
    parser.add_argument("dir", nargs="?", metavar="DIR", help="the folder (default: this one)")
    parser.add_argument(
        "--yes", action="store_true", help="trust without asking (after showing the changes)"
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--list", action="store_true", help="list trusted files and their state")
    which.add_argument("--revoke", action="store_true", help="stop trusting DIR/tuibot.toml")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run one trust action; 0 done, 1 declined or unreadable list, 2 usage problems."""
    from tuibot.settings.schema import ConfigError
    from tuibot.settings.trust import TrustStore, TrustStoreError
    from tuibot.system.paths import DataPaths

    store = TrustStore(DataPaths.default().trusted)
    folder = Path(args.dir or ".").expanduser().absolute()
    try:
        if args.list:
            return _list(store)
        if args.revoke:
            return _revoke(store, folder)
        return _trust(store, folder, yes=args.yes)
    except TrustStoreError as exc:
        emit(sys.stderr, f"tuibot: {exc}")
        return 1
    except ConfigError as exc:
        emit(sys.stderr, f"tuibot: {_spelled(str(exc))}")
        return EXIT_USAGE


def _trust(store: TrustStore, folder: Path, *, yes: bool) -> int:
    from tuibot.commands.trust_changes import project_changes, render_changes
    from tuibot.settings.project import read_project_file

    project = read_project_file(folder)
    if project is None:
        emit(sys.stderr, f"tuibot: there is no tuibot.toml in {_spelled(str(folder))}")
        return EXIT_USAGE
    if project.trusted:
        emit(sys.stdout, f"{_spelled(str(project.path))} is already trusted with this content.")
        return 0
    for line in render_changes(project, project_changes(project)):
        emit(sys.stdout, line)
    if not yes:
        if not interactive(sys.stdin, sys.stderr):
            emit(sys.stderr, _not_asked(folder))
            return EXIT_USAGE
        if not confirm("Trust this file? [y/N] ", sys.stdin, sys.stderr):
            emit(sys.stdout, "Not trusted; tuibot keeps ignoring it.")
            return EXIT_DECLINED
    record(store, project, sys.stdout)
    return 0


def _not_asked(folder: Path) -> str:
    target = "" if folder == Path.cwd() else f" {_spelled(str(folder))}"
    return (
        "tuibot: not trusted: no terminal to ask on; run `tuibot trust --yes"
        f"{target}` to trust it as shown"
    )


def record(store: TrustStore, project: ProjectFile, stream: TextIO) -> None:
    """Trust exactly the bytes that were shown, and say so."""
    store.trust(project.path, project.digest)
    emit(
        stream,
        f"Trusted {_spelled(str(project.path))} (sha256 {project.digest[:12]}…); "
        "a change to it needs trust again.",
    )


def _revoke(store: TrustStore, folder: Path) -> int:
    from tuibot.settings.project import PROJECT_FILE

    removed = store.revoke(folder / PROJECT_FILE)
    if removed is None:
        emit(sys.stderr, f"tuibot: {_spelled(str(folder / PROJECT_FILE))} is not trusted")
        return EXIT_USAGE
    emit(sys.stdout, f"No longer trusted: {_spelled(removed.path)}")
    return 0


def _list(store: TrustStore) -> int:
    from tuibot.settings.trust import content_digest

    entries = store.all()
    if not entries:
        emit(sys.stdout, "No trusted project configs.")
        return 0
    rows = [("STATE", "TRUSTED", "SHA256", "PATH")]
    for entry in entries:
        try:
            state = "ok" if content_digest(Path(entry.path).read_bytes()) == entry.sha256 else ""
            state = state or "changed"
        except OSError:
            state = "missing"
        rows.append((state, local_time(entry.created), entry.sha256[:12], _spelled(entry.path)))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        emit(
            sys.stdout,
            "  ".join([*(c.ljust(w) for c, w in zip(row, widths, strict=False)), row[3]]),
        )
    return 0


# --- at start-up ----------------------------------------------------------------------


def offer_at_start(
    config_file: Path | None,
    overrides: Mapping[str, tuple[Any, str]] | None = None,
    stdin: TextIO | None = None,
    stderr: TextIO | None = None,
) -> None:
    """Before anything starts: offer to trust an untrusted ``./tuibot.toml``, once.

    Only with no ``--config``, and with a person at a terminal on stdin and stderr. A
    declined offer (or any problem) changes nothing: the file stays ignored.
    """
    stdin, stderr = stdin or sys.stdin, stderr or sys.stderr
    if config_file is not None or not interactive(stdin, stderr):
        return  # before the imports: a script or pipe never pays for them
    from tuibot.settings.project import read_project_file
    from tuibot.settings.schema import ConfigError

    try:
        project = read_project_file(Path.cwd())
        if project is None or project.status not in ("untrusted", "changed"):
            return  # the usual start (the app's first frame waits for it): nothing to offer
        from tuibot.commands.trust_changes import project_changes, render_changes

        lines = render_changes(project, project_changes(project, overrides=overrides))
    except ConfigError as exc:
        emit(stderr, f"tuibot: ./tuibot.toml cannot be trusted: {_spelled(str(exc))}")
        return
    emit(stderr, f"tuibot: {project.notice()}")
    for line in lines:
        emit(stderr, line)
    if not confirm("Trust it and use it now? [y/N] ", stdin, stderr):
        return
    from tuibot.settings.trust import TrustStore
    from tuibot.store.jsonl import StorageError
    from tuibot.system.paths import DataPaths

    try:
        record(TrustStore(DataPaths.default().trusted), project, stderr)
    except StorageError as exc:
        emit(stderr, f"tuibot: {exc}")


def warn_ignored(settings: Any, stream: TextIO) -> None:
    """The one-line notice when ``./tuibot.toml`` was left out."""
    if settings.ignored_project is not None:
        emit(stream, f"tuibot: {settings.ignored_project.notice()}")


def interactive(stdin: TextIO, stderr: TextIO) -> bool:
    """Whether a person can be asked: a terminal on both stdin and stderr."""
    try:
        return stdin.isatty() and stderr.isatty()
    except (AttributeError, ValueError):
        return False


def confirm(question: str, stdin: TextIO, stderr: TextIO) -> bool:
    """Ask ``question``; only ``y`` or ``yes`` is a yes (end of input is a no)."""
    stderr.write(question)
    stderr.flush()
    answer = stdin.readline()
    if not answer:
        stderr.write("\n")
    return answer.strip().lower() in ("y", "yes")


def _spelled(text: str) -> str:
    from tuibot.settings.project import spelled

    return spelled(text)
