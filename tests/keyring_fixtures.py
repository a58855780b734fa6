"""Keyring fixtures: a throwaway store on the real Secret Service, and a forced fail backend.

Loaded as a pytest plugin from ``tests/conftest.py``. Tests that need the real keyring
skip with a reason when no unlocked Secret Service is reachable (run them inside
``dbus-run-session`` with ``gnome-keyring-daemon --unlock``, as ``.ci/run`` does); with
``TUIBOT_REQUIRE_KEYRING=1`` they fail instead, so CI cannot pass by skipping.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from tuibot.system.secrets import INDEX_ENTRY, KeyringUnavailable, SecretStore

HOW_TO_RUN = (
    "run the tests inside dbus-run-session with `gnome-keyring-daemon --unlock`, as .ci/run does"
)


def unique_service() -> str:
    """A keyring service name no other test (or user) shares."""
    return f"tuibot-test-{uuid.uuid4().hex}"


@pytest.fixture(scope="session")
def keyring_problem() -> str:
    """Why the real keyring cannot be used here ("" when it can), probed once.

    The probe does a full set/get/delete, because a locked collection passes a plain
    backend check and fails only on use.
    """
    store = SecretStore(service=unique_service())
    try:
        store.set("probe", "probe-value")
        ok = store.get("probe") == "probe-value"
        store.delete("probe")
    except KeyringUnavailable as exc:
        return exc.reason
    return "" if ok else "the keyring did not return what was stored"


@pytest.fixture
def secret_store(keyring_problem: str) -> Iterator[SecretStore]:
    """A SecretStore on the real backend under a unique service, emptied afterwards."""
    if keyring_problem:
        message = f"no usable Secret Service ({keyring_problem}); {HOW_TO_RUN}"
        if os.environ.get("TUIBOT_REQUIRE_KEYRING") == "1":
            pytest.fail(message)
        pytest.skip(message)
    store = SecretStore(service=unique_service())
    yield store
    wipe(store)


def wipe(store: SecretStore) -> None:
    """Delete every entry a test left under ``store``'s service, index included."""
    for name in store.names():
        store.delete(name)
    backend = store._usable()
    if backend.get_password(store.service, INDEX_ENTRY) is not None:
        backend.delete_password(store.service, INDEX_ENTRY)


@pytest.fixture
def fail_backend() -> Iterator[None]:
    """keyring's own "no backend" backend for the duration of a test, then the real one."""
    import keyring
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        yield
    finally:
        keyring.set_keyring(previous)
