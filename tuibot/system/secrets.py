"""Credentials in the OS keyring, and the safety net that keeps them out of logs.

API keys never live in config files: config names a credential (``openai``), and its
value sits in the OS keyring (Secret Service, macOS Keychain, Windows Credential Locker).
An environment variable may stand in, which is how CI and containers supply keys.

Two guarantees matter more than convenience here:

* no silent plaintext fallback: a backend that is missing, unusable or stores secrets
  in the clear is refused with :class:`KeyringUnavailable`, whose message says how to
  fix it;
* every secret tuibot handles is remembered, so :func:`redact` and
  :class:`RedactingFilter` can mask it wherever text leaves the process.

``keyring`` is imported lazily (it costs ~0.16 s) so start-up stays fast when a key
comes from the environment.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

SERVICE = "tuibot"
"""The keyring service every tuibot credential is stored under."""

INDEX_ENTRY = "_tuibot_index"
"""The keyring entry holding the JSON list of stored names (keyring cannot enumerate).

It starts with ``_``, which :data:`NAME_PATTERN` forbids, so no credential can clash."""

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
"""What a credential name may look like: short, no spaces, safe in messages."""

_DOCS = "see docs/credentials.md"
_log = logging.getLogger(__name__)


class KeyringUnavailable(Exception):
    """No secure keyring can be used; the message says what to do instead.

    Raised for a missing or refused backend and for runtime failures (locked
    collection, no D-Bus), so callers handle one exception and print one line.
    """

    def __init__(self, reason: str, env_var: str = "") -> None:
        self.reason = reason
        """What went wrong, without advice."""
        self.env_var = env_var
        """The environment variable that could supply the key instead, when known."""
        super().__init__(self._message())

    def _message(self) -> str:
        env = self.env_var or "the key's environment variable (e.g. OPENAI_API_KEY)"
        return (
            f"no usable OS keyring: {self.reason}. To fix: set {env} instead; or run "
            "inside a D-Bus session with an unlocked Secret Service (e.g. dbus-run-session "
            "plus `gnome-keyring-daemon --unlock --components=secrets`); or install a "
            f"keyring backend (macOS Keychain and Windows Credential Locker work as is); {_DOCS}"
        )

    def for_env_var(self, env_var: str) -> KeyringUnavailable:
        """The same failure, now naming the variable that would avoid it."""
        return KeyringUnavailable(self.reason, env_var)


class InvalidKeyName(ValueError):
    """A credential name that cannot be stored; the message shows what is allowed."""


def check_name(name: str) -> str:
    """Return ``name`` if it is a valid credential name, else raise :class:`InvalidKeyName`.

    Names appear in config, messages and keyring labels, so they are kept plain.
    """
    if not NAME_PATTERN.fullmatch(name):
        raise InvalidKeyName(
            f"invalid key name {name!r}: use 1-64 letters, digits, '.', '_', '@' or '-', "
            "starting with a letter or digit"
        )
    return name


def _is_insecure(backend: Any) -> bool:
    """Whether a backend keeps secrets in the clear (anything from keyrings.alt, plaintext)."""
    for cls in type(backend).__mro__:
        where = f"{cls.__module__}.{cls.__qualname__}".lower()
        if cls.__module__.startswith("keyrings.alt"):
            return True
        if any(word in where for word in ("plaintext", "insecure", "unencrypted")):
            return True
    return False


def _describe(backend: Any) -> str:
    cls = type(backend)
    return f"{cls.__module__}.{cls.__qualname__}"


def _priority(backend: Any) -> float:
    """The backend's priority, or KeyringUnavailable when it cannot tell (no D-Bus...)."""
    try:
        return float(backend.priority)
    except Exception as exc:  # backends signal "not usable here" by raising
        raise KeyringUnavailable(f"{_describe(backend)} is not usable here ({exc})") from None


def _check_secure(backend: Any) -> Any:
    """Return ``backend`` if it is a real, secure store, else raise KeyringUnavailable."""
    if type(backend).__module__ == "keyring.backends.fail":
        raise KeyringUnavailable("keyring found no backend on this system")
    if _is_insecure(backend):
        raise KeyringUnavailable(
            f"refusing {_describe(backend)}, which stores secrets unencrypted "
            "(remove keyrings.alt or choose another backend with PYTHON_KEYRING_BACKEND)"
        )
    if _priority(backend) <= 0:
        raise KeyringUnavailable(f"{_describe(backend)} is not a recommended backend")
    return backend


def _select_backend(chosen: Any) -> Any:
    """The one secure backend to talk to: ``chosen``, or a chainer's best secure member.

    A chainer would read from every backend it holds, plaintext ones included, so tuibot
    talks only to its highest-priority secure member.
    """
    from keyring.backends.chainer import ChainerBackend

    if not isinstance(chosen, ChainerBackend):
        return _check_secure(chosen)
    refused: list[str] = []
    for member in chosen.backends:
        try:
            return _check_secure(member)
        except KeyringUnavailable as exc:
            refused.append(exc.reason)
    raise KeyringUnavailable("; ".join(refused) or "keyring found no backend on this system")


def _runtime_errors() -> tuple[type[BaseException], ...]:
    """Exceptions a backend raises when the store exists but cannot be used right now."""
    from keyring.errors import KeyringError

    errors: list[type[BaseException]] = [KeyringError, OSError]
    try:
        from secretstorage.exceptions import SecretStorageException

        errors.append(SecretStorageException)
    except ImportError:
        pass
    try:
        from jeepney.wrappers import DBusErrorResponse

        errors.append(DBusErrorResponse)
    except ImportError:
        pass
    return tuple(errors)


def _explain(exc: BaseException) -> str:
    from keyring.errors import KeyringLocked, NoKeyringError

    if isinstance(exc, KeyringLocked):
        return "the keyring collection is locked and could not be unlocked"
    if isinstance(exc, NoKeyringError):
        return "keyring found no backend on this system"
    detail = str(exc).strip() or type(exc).__name__
    return f"the keyring backend failed ({detail})"


class SecretStore:
    """Named secrets in the OS keyring under one service, plus an index of their names.

    The index is itself a keyring entry (a JSON list), because keyring cannot list
    entries; values are never stored anywhere but the keyring.
    """

    def __init__(self, service: str = SERVICE) -> None:
        self.service = service
        """The keyring service name; tests use a unique one each."""
        self._backend: Any = None

    def backend_name(self) -> str:
        """A human name for the backend in use, e.g. ``SecretService Keyring``."""
        return str(self._usable().name)

    def get(self, name: str) -> str | None:
        """The stored value of ``name``, or None when there is none."""
        check_name(name)
        with self._translated():
            value = self._usable().get_password(self.service, name)
        if value:
            remember_secret(value)
        return value or None

    def set(self, name: str, value: str) -> None:
        """Store ``value`` under ``name``, replacing any earlier value."""
        check_name(name)
        if not value:
            raise ValueError("refusing to store an empty secret")
        remember_secret(value)
        with self._translated():
            self._usable().set_password(self.service, name, value)
            index = self._read_index()
            if name not in index:
                self._write_index([*index, name])

    def delete(self, name: str) -> bool:
        """Remove ``name``; False when it was not stored."""
        check_name(name)
        with self._translated():
            backend = self._usable()
            present = backend.get_password(self.service, name) is not None
            if present:
                backend.delete_password(self.service, name)
            index = self._read_index()
            if name in index:
                self._write_index([n for n in index if n != name])
        return present

    def names(self) -> list[str]:
        """The stored names, sorted; entries removed behind tuibot's back are left out."""
        with self._translated():
            backend = self._usable()
            index = self._read_index()
            alive = [n for n in index if backend.get_password(self.service, n) is not None]
        return sorted(alive)

    def _usable(self) -> Any:
        if self._backend is None:
            try:
                import keyring
            except ImportError:
                raise KeyringUnavailable("the keyring package is not installed") from None
            with self._translated():
                chosen = keyring.get_keyring()
            self._backend = _select_backend(chosen)
        return self._backend

    def _read_index(self) -> list[str]:
        raw = self._usable().get_password(self.service, INDEX_ENTRY)
        if not raw:
            return []
        try:
            names = json.loads(raw)
        except ValueError:
            names = None
        if not isinstance(names, list):
            _log.warning("keyring index of %r is damaged; listing what remains", self.service)
            return []
        return [n for n in names if isinstance(n, str) and NAME_PATTERN.fullmatch(n)]

    def _write_index(self, names: list[str]) -> None:
        backend = self._usable()
        if names:
            backend.set_password(self.service, INDEX_ENTRY, json.dumps(sorted(set(names))))
        elif backend.get_password(self.service, INDEX_ENTRY) is not None:
            backend.delete_password(self.service, INDEX_ENTRY)

    @contextmanager
    def _translated(self) -> Iterator[None]:
        """Turn a backend's runtime failure into KeyringUnavailable with advice."""
        try:
            yield
        except KeyringUnavailable:
            raise
        except Exception as exc:
            if isinstance(exc, _runtime_errors()):
                _log.debug("keyring failure", exc_info=True)
                raise KeyringUnavailable(_explain(exc)) from None
            raise


def env_var_for(credential: str, explicit: str = "") -> str:
    """The environment variable that overrides ``credential`` (``openai`` → OPENAI_API_KEY)."""
    if explicit:
        return explicit
    if not credential:
        return ""
    return re.sub(r"[^A-Za-z0-9]", "_", credential).upper() + "_API_KEY"


def resolve_api_key(
    credential: str,
    api_key_env: str = "",
    *,
    env: Mapping[str, str] | None = None,
    store: SecretStore | None = None,
) -> str | None:
    """The key for ``credential``: its environment variable first, else the keyring.

    An empty ``credential`` with no variable set means "no key" (local servers) and
    never touches the keyring. KeyringUnavailable names the variable to set instead.
    """
    environ = os.environ if env is None else env
    var = env_var_for(credential, api_key_env)
    if var and environ.get(var):
        value = environ[var]
        remember_secret(value)
        return value
    if not credential:
        return None
    try:
        return (store or SecretStore()).get(credential)
    except KeyringUnavailable as exc:
        raise exc.for_env_var(var) from None


def mask(value: str) -> str:
    """A display form that proves which key it is without revealing it."""
    return "****" + value[-4:] if len(value) >= 12 else "****"


_live_secrets: set[str] = set()
_live_lock = threading.Lock()
_longest_first: tuple[str, ...] = ()
"""The remembered secrets, longest first; replaced whole on each change, so readers need
no lock (a streamed answer calls :func:`redact` per piece)."""


def remember_secret(value: str) -> None:
    """Register a secret in use so :func:`redact` masks it everywhere in this process."""
    global _longest_first
    if value and value.strip():
        with _live_lock:
            _live_secrets.add(value)
            _longest_first = tuple(sorted(_live_secrets, key=len, reverse=True))


def known_secrets() -> tuple[str, ...]:
    """Every remembered secret, longest first (empty: nothing to mask, nothing to do)."""
    return _longest_first


def redact(text: str) -> str:
    """``text`` with every remembered secret replaced by its mask."""
    for secret in _longest_first:
        if secret in text:
            text = text.replace(secret, mask(secret))
    return text


class RedactingFilter(logging.Filter):
    """A logging filter that masks remembered secrets in message, args and tracebacks.

    Attach it to handlers (not loggers): a handler sees records from every logger.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record in place; never drops it."""
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: keep its raw parts, redacted
            message = f"{record.msg} {record.args}"
        record.msg = redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True
