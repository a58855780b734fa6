"""tuibot.system.secrets: the real Secret Service, refused backends, env overrides, redaction.

Store tests run against the real OS keyring (``secret_store`` skips without one); the
refusal tests force keyring's own fail backend or a tiny in-test backend and need no D-Bus.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest

from tuibot.system.secrets import (
    INDEX_ENTRY,
    InvalidKeyName,
    KeyringUnavailable,
    RedactingFilter,
    SecretStore,
    env_var_for,
    mask,
    redact,
    remember_secret,
    resolve_api_key,
)

REPO = Path(__file__).resolve().parents[1]


def canary() -> str:
    """A unique, recognisable fake secret."""
    return f"sk-canary-{uuid.uuid4().hex}"


# --- backends the tests install -------------------------------------------------------


@pytest.fixture
def use_backend() -> Iterator[Callable[[Any], None]]:
    """Install a keyring backend for one test; the previous one comes back afterwards."""
    import keyring

    previous = keyring.get_keyring()
    yield keyring.set_keyring
    keyring.set_keyring(previous)


@pytest.fixture
def fakes() -> SimpleNamespace:
    """In-memory backend classes, defined only after keyring has picked its default.

    keyring registers every backend class it sees; defining these late keeps them out
    of its automatic choice for the rest of the session.
    """
    import keyring
    from keyring.backend import KeyringBackend
    from keyring.backends.chainer import ChainerBackend

    keyring.get_keyring()

    class MemoryKeyring(KeyringBackend):
        priority = 1.0  # type: ignore[assignment]

        def __init__(self) -> None:
            super().__init__()
            self.data: dict[tuple[str, str], str] = {}

        def get_password(self, service: str, username: str) -> str | None:
            return self.data.get((service, username))

        def set_password(self, service: str, username: str, password: str) -> None:
            self.data[(service, username)] = password

        def delete_password(self, service: str, username: str) -> None:
            del self.data[(service, username)]

    class PlaintextKeyring(MemoryKeyring):
        """Stands for any backend that writes secrets in the clear."""

    class AltKeyring(MemoryKeyring):
        """Looks like keyrings.alt, whatever its class name."""

    AltKeyring.__module__ = "keyrings.alt.file"

    class LowPriorityKeyring(MemoryKeyring):
        priority = 0.0  # type: ignore[assignment]

    class LockedKeyring(MemoryKeyring):
        def get_password(self, service: str, username: str) -> str | None:
            from keyring.errors import KeyringLocked

            raise KeyringLocked("Failed to unlock the collection!")

    def chainer(*members: Any) -> Any:
        class FixedChainer(ChainerBackend):
            backends: ClassVar[list[Any]] = list(members)

        return FixedChainer()

    return SimpleNamespace(
        memory=MemoryKeyring,
        plaintext=PlaintextKeyring,
        alt=AltKeyring,
        low=LowPriorityKeyring,
        locked=LockedKeyring,
        chainer=chainer,
    )


# --- no usable backend ----------------------------------------------------------------


def test_importing_secrets_does_not_import_keyring() -> None:
    code = "import sys, tuibot.system.secrets; print('keyring' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_fail_backend_is_refused_with_advice(fail_backend: None) -> None:
    store = SecretStore(service="tuibot-test-never-written")
    with pytest.raises(KeyringUnavailable) as info:
        store.backend_name()
    message = str(info.value)
    assert "no backend" in message
    assert "dbus-run-session" in message
    assert "gnome-keyring-daemon --unlock" in message
    assert "install a keyring backend" in message
    assert "\n" not in message and "Traceback" not in message
    with pytest.raises(KeyringUnavailable):
        store.get("openai")


def test_secret_service_without_dbus_is_refused(
    use_backend: Callable[[Any], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    from keyring.backends import SecretService

    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/tuibot-bus")
    use_backend(SecretService.Keyring())
    with pytest.raises(KeyringUnavailable, match="not usable here"):
        SecretStore(service="tuibot-test-never-written").get("openai")


@pytest.mark.parametrize("kind", ["plaintext", "alt"])
def test_plaintext_backends_are_refused_and_never_written(
    kind: str, fakes: SimpleNamespace, use_backend: Callable[[Any], None]
) -> None:
    backend = getattr(fakes, kind)()
    use_backend(backend)
    with pytest.raises(KeyringUnavailable, match="unencrypted"):
        SecretStore().set("openai", canary())
    assert backend.data == {}


def test_low_priority_backend_is_refused(
    fakes: SimpleNamespace, use_backend: Callable[[Any], None]
) -> None:
    backend = fakes.low()
    use_backend(backend)
    with pytest.raises(KeyringUnavailable, match="not a recommended backend"):
        SecretStore().set("openai", canary())
    assert backend.data == {}


def test_empty_chainer_is_refused(
    fakes: SimpleNamespace, use_backend: Callable[[Any], None]
) -> None:
    use_backend(fakes.chainer())
    with pytest.raises(KeyringUnavailable, match="no backend"):
        SecretStore().backend_name()


def test_chainer_uses_only_its_secure_member(
    fakes: SimpleNamespace, use_backend: Callable[[Any], None]
) -> None:
    plain, secure = fakes.plaintext(), fakes.memory()
    use_backend(fakes.chainer(plain, secure))
    value = canary()
    SecretStore().set("openai", value)
    assert plain.data == {}
    assert secure.data[("tuibot", "openai")] == value


def test_chainer_of_only_plaintext_is_refused(
    fakes: SimpleNamespace, use_backend: Callable[[Any], None]
) -> None:
    plain = fakes.plaintext()
    use_backend(fakes.chainer(plain))
    with pytest.raises(KeyringUnavailable, match="unencrypted"):
        SecretStore().set("openai", canary())
    assert plain.data == {}


def test_locked_collection_becomes_keyring_unavailable(
    fakes: SimpleNamespace, use_backend: Callable[[Any], None]
) -> None:
    use_backend(fakes.locked())
    with pytest.raises(KeyringUnavailable, match="locked"):
        SecretStore().names()


@pytest.mark.parametrize("name", ["", "has space", INDEX_ENTRY, "a" * 65, "-x", "ключ"])
def test_invalid_names_are_rejected_before_the_keyring(fail_backend: None, name: str) -> None:
    with pytest.raises(InvalidKeyName, match="invalid key name"):
        SecretStore().get(name)


# --- env overrides --------------------------------------------------------------------


def test_env_var_for() -> None:
    assert env_var_for("openai") == "OPENAI_API_KEY"
    assert env_var_for("my-server.local") == "MY_SERVER_LOCAL_API_KEY"
    assert env_var_for("openai", "CORP_KEY") == "CORP_KEY"
    assert env_var_for("") == ""


def test_env_var_wins_without_touching_the_keyring(fail_backend: None) -> None:
    value = canary()
    assert resolve_api_key("openai", env={"OPENAI_API_KEY": value}) == value
    assert resolve_api_key("openai", "CORP_KEY", env={"CORP_KEY": value}) == value
    assert mask(value) in redact(f"key={value}")


def test_no_credential_means_no_key_and_no_keyring(fail_backend: None) -> None:
    assert resolve_api_key("", env={}) is None
    assert resolve_api_key("", "LOCAL_KEY", env={}) is None
    assert resolve_api_key("", "LOCAL_KEY", env={"LOCAL_KEY": "abc"}) == "abc"


def test_missing_keyring_names_the_variable_to_set(fail_backend: None) -> None:
    with pytest.raises(KeyringUnavailable, match="set OPENAI_API_KEY instead"):
        resolve_api_key("openai", env={})
    with pytest.raises(KeyringUnavailable, match="set CORP_KEY instead"):
        resolve_api_key("openai", "CORP_KEY", env={"OPENAI_API_KEY": "ignored"})


# --- the real Secret Service ----------------------------------------------------------


def test_round_trip_on_the_real_keyring(secret_store: SecretStore) -> None:
    assert secret_store.backend_name() == "SecretService Keyring"
    assert secret_store.get("openai") is None
    assert secret_store.names() == []
    first, second = canary(), canary()
    secret_store.set("openai", first)
    secret_store.set("anthropic", second)
    secret_store.set("openai", second)
    assert secret_store.get("openai") == second
    assert secret_store.names() == ["anthropic", "openai"]
    assert secret_store.delete("openai") is True
    assert secret_store.delete("openai") is False
    assert secret_store.names() == ["anthropic"]


def test_values_live_in_the_os_keyring_only(secret_store: SecretStore, tmp_path: Path) -> None:
    value = canary()
    secret_store.set("openai", value)
    index = secret_store._usable().get_password(secret_store.service, INDEX_ENTRY)
    assert index == '["openai"]'
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert not [p for p in written if value.encode() in p.read_bytes()]
    code = (
        "from tuibot.system.secrets import SecretStore; "
        f"print(SecretStore(service={secret_store.service!r}).get('openai'))"
    )
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert other.stdout.strip() == value, other.stderr


def test_entry_removed_elsewhere_drops_out_of_names(secret_store: SecretStore) -> None:
    secret_store.set("openai", canary())
    secret_store.set("groq", canary())
    secret_store._usable().delete_password(secret_store.service, "groq")
    assert secret_store.names() == ["openai"]
    assert secret_store.delete("groq") is False


def test_damaged_index_is_survived(
    secret_store: SecretStore, caplog: pytest.LogCaptureFixture
) -> None:
    secret_store._usable().set_password(secret_store.service, INDEX_ENTRY, "{not json")
    assert secret_store.names() == []
    assert "damaged" in caplog.text
    secret_store.set("openai", canary())
    assert secret_store.names() == ["openai"]


def test_empty_value_is_refused(secret_store: SecretStore) -> None:
    with pytest.raises(ValueError, match="empty"):
        secret_store.set("openai", "")
    assert secret_store.names() == []


def test_resolve_reads_the_keyring_when_no_env_var(secret_store: SecretStore) -> None:
    stored, from_env = canary(), canary()
    secret_store.set("openai", stored)
    assert resolve_api_key("openai", env={}, store=secret_store) == stored
    env = {"OPENAI_API_KEY": from_env}
    assert resolve_api_key("openai", env=env, store=secret_store) == from_env
    assert resolve_api_key("missing", env={}, store=secret_store) is None


# --- masking and redaction ------------------------------------------------------------


def test_mask() -> None:
    assert mask("sk-123456789") == "****6789"
    assert mask("sk-12345678") == "****"
    assert mask("") == "****"


def test_redact_masks_remembered_secrets_only() -> None:
    long_one, short_one = canary(), "hunter2"
    remember_secret(long_one)
    remember_secret(short_one)
    remember_secret("")
    remember_secret("   ")
    text = redact(f"a {long_one} b {short_one} c")
    assert long_one not in text and short_one not in text
    assert text == f"a {mask(long_one)} b **** c"
    assert redact("nothing secret here") == "nothing secret here"


def test_redact_prefers_the_longer_of_overlapping_secrets() -> None:
    inner = canary()
    outer = inner + "-extended"
    remember_secret(inner)
    remember_secret(outer)
    assert redact(outer) == mask(outer)


def test_redacting_filter_keeps_secrets_out_of_a_log_file(tmp_path: Path) -> None:
    secret = canary()
    remember_secret(secret)
    log_file = tmp_path / "tuibot.log"
    handler = logging.FileHandler(log_file, encoding="utf-8")
    handler.addFilter(RedactingFilter())
    handler.setFormatter(logging.Formatter("%(name)s %(message)s"))
    parent = logging.getLogger(f"tuibot-test-{uuid.uuid4().hex}")
    parent.addHandler(handler)
    parent.setLevel(logging.DEBUG)
    child = parent.getChild("llm")
    try:
        child.info("calling with key %s", secret)
        child.warning(f"inline {secret}")
        child.info("mapping %(key)s", {"key": secret})
        try:
            raise RuntimeError(f"provider rejected {secret}")
        except RuntimeError:
            child.exception("request failed")
        child.info("with stack", stack_info=True)
    finally:
        parent.removeHandler(handler)
        handler.close()
    text = log_file.read_text(encoding="utf-8")
    assert secret not in text
    assert text.count(mask(secret)) == 4
    assert "request failed" in text and "Traceback" in text and "provider rejected" in text
