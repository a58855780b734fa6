"""Which config file counts: an explicit one, a trusted ``./tuibot.toml``, or the home's.

Why: a ``tuibot.toml`` in the folder tuibot starts in may be a stranger's (a cloned
repository), so it counts only when the person trusted that file with that content
(:mod:`tuibot.settings.trust`). The rules:

- ``--config FILE`` is trusted: the person named it.
- ``<config home>/config.toml`` is the person's own: trusted.
- ``./tuibot.toml`` counts when trusted; otherwise it is ignored, the config home's file
  is used instead, and :attr:`ConfigChoice.ignored` says why (for the one-line notice,
  ``config show``, ``config path`` and ``doctor``).

The project file's bytes are read once: the hash checked is the hash of the bytes parsed,
so a file swapped between the check and the read cannot slip in.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path

from tuibot.settings.schema import ConfigError
from tuibot.system import paths

PROJECT_FILE = "tuibot.toml"


def spelled(text: str) -> str:
    """``text`` on one line with control, format and unassigned characters spelled out.

    The file and its folder's name come from a stranger: an escape sequence or a bidi
    override in them must not rewrite the prompt that asks whether to trust them.
    """
    out = []
    for char in text:
        if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn"):
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


@dataclass(frozen=True)
class ProjectFile:
    """A ``tuibot.toml`` found in a folder, with its bytes and whether it is trusted."""

    path: Path
    """Where it was found (``<folder>/tuibot.toml``, absolute)."""
    data: bytes
    """Its content as read; what ``digest`` is the hash of."""
    digest: str
    status: str
    """``trusted``, ``untrusted``, ``changed`` (trusted with other content) or ``unknown``
    (the trusted list could not be read: ``problem`` says why)."""
    problem: str = ""

    @property
    def trusted(self) -> bool:
        """Whether the file counts."""
        return self.status == "trusted"

    def notice(self) -> str:
        """The one line that says the file is ignored and what to do (for stderr, the app)."""
        here = self.path.parent == Path.cwd()
        shown = f"./{PROJECT_FILE}" if here else spelled(str(self.path))
        if self.status == "changed":
            return f"{shown} changed since you trusted it; run `tuibot trust` to use it"
        if self.status == "unknown":
            return f"{shown} is ignored: {self.problem}"
        return f"{shown} is not trusted; run `tuibot trust` to use it"

    def reason(self) -> str:
        """Why it is ignored, in a few words (``config path``, ``doctor``)."""
        return {
            "changed": "changed since it was trusted",
            "unknown": self.problem,
        }.get(self.status, "not trusted")


@dataclass(frozen=True)
class ConfigChoice:
    """The config file in use (None: built-in defaults), its bytes when read already, and
    the project file left out."""

    path: Path | None
    data: bytes | None = None
    ignored: ProjectFile | None = None


def read_project_file(folder: Path) -> ProjectFile | None:
    """The ``tuibot.toml`` in ``folder`` with its trust status, or None when there is none."""
    path = folder.absolute() / PROJECT_FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    from tuibot.settings.trust import TrustStore, content_digest
    from tuibot.store.jsonl import StorageError  # only with a file to judge

    digest = content_digest(data)
    try:
        status = TrustStore(paths.DataPaths.default().trusted).status(path, digest)
    except StorageError as exc:
        return ProjectFile(path, data, digest, "unknown", problem=str(exc))
    return ProjectFile(path, data, digest, status)


def choose_config(
    config_file: Path | str | None, cwd: Path, *, project: bool = True
) -> ConfigChoice:
    """The config file to load: explicit, trusted ``./tuibot.toml``, the home's, or none.

    ``project=False`` leaves ``./tuibot.toml`` out whatever its status (what the config
    would be without it). An explicit file that does not exist is an error.
    """
    if config_file is not None:
        path = Path(config_file).expanduser()
        path = path if path.is_absolute() else cwd / path
        if not path.is_file():
            raise ConfigError(f"config file not found: {path}")
        return ConfigChoice(path)
    found = read_project_file(cwd) if project else None
    if found is not None and found.trusted:
        return ConfigChoice(found.path, found.data)
    home = paths.config_home() / "config.toml"
    return ConfigChoice(home if home.is_file() else None, ignored=found)


def carry_trust(path: Path, before: bytes | None, after: bytes) -> None:
    """Keep a trusted file trusted across tuibot's own edit of it (``config set``, a theme).

    Only when the content replaced was exactly the trusted content: the person's own tool
    made the change, so it needs no second yes. Anything else is left as it was.
    """
    from tuibot.settings.trust import TrustStore, content_digest
    from tuibot.store.jsonl import StorageError

    if before is None or before == after:
        return
    store = TrustStore(paths.DataPaths.default().trusted)
    try:
        if store.status(path, content_digest(before)) == "trusted":
            store.trust(path, content_digest(after))
    except StorageError:
        return  # an unreadable list trusts nothing, so there is nothing to carry
