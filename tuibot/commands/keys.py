"""``tuibot keys``: put API keys into the OS keyring, list and delete them.

Keys go in through a hidden prompt (or stdin, for scripts) so they never appear in shell
history, and come out only masked. A missing keyring is one line of advice, not a
traceback.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys

from tuibot.system.secrets import (
    SERVICE,
    InvalidKeyName,
    KeyringUnavailable,
    SecretStore,
    check_name,
    env_var_for,
    mask,
)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``tuibot keys set|list|delete``."""
    parser = subparsers.add_parser(
        "keys",
        help="store, list and delete API keys in the OS keyring",
        description="Store, list and delete API keys in the OS keyring.",
    )
    # Which keyring service to use: tests point this at a throwaway one.
    parser.add_argument("--service", default=SERVICE, help=argparse.SUPPRESS)
    actions = parser.add_subparsers(dest="keys_action", metavar="ACTION", required=True)
    put = actions.add_parser(
        "set",
        help="store a key (hidden prompt, or read from stdin)",
        description="Store a key. On a terminal the value is asked for without echo; "
        "otherwise it is read from stdin (the trailing newline is dropped).",
    )
    put.add_argument("name", help="credential name, e.g. openai")
    actions.add_parser("list", help="show stored key names with masked values")
    remove = actions.add_parser("delete", help="remove a stored key")
    remove.add_argument("name", help="credential name")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run one ``keys`` action; exit 0 ok, 1 not found, 2 bad input or no keyring."""
    store = SecretStore(service=getattr(args, "service", SERVICE))
    action = args.keys_action
    try:
        if action == "set":
            return _set(store, args.name)
        if action == "list":
            return _list(store)
        if action == "delete":
            return _delete(store, args.name)
    except InvalidKeyName as exc:
        return _fail(str(exc), 2)
    except KeyringUnavailable as exc:
        name = getattr(args, "name", "")
        return _fail(str(exc.for_env_var(env_var_for(name)) if name else exc), 2)
    return _fail(f"unknown keys action {action!r}", 2)


def _fail(message: str, code: int) -> int:
    print(f"tuibot: {message}", file=sys.stderr)
    return code


def _read_value(name: str) -> str:
    """The secret from a hidden prompt on a terminal, else from stdin."""
    if sys.stdin is not None and sys.stdin.isatty():
        try:
            return getpass.getpass(f"Value for {name} (input hidden): ")
        except EOFError:
            return ""
    if sys.stdin is None:
        return ""
    return sys.stdin.read().rstrip("\r\n")


def _set(store: SecretStore, name: str) -> int:
    check_name(name)
    store.backend_name()  # fail on a missing keyring before asking for the secret
    value = _read_value(name)
    if not value.strip():
        return _fail(f"no value given for {name!r}; nothing stored", 2)
    store.set(name, value)
    print(f"stored {name} ({mask(value)}) in {store.backend_name()}")
    var = env_var_for(name)
    if os.environ.get(var):
        print(f"note: {var} is set and takes precedence over the keyring", file=sys.stderr)
    return 0


def _list(store: SecretStore) -> int:
    names = store.names()
    if not names:
        print("no keys stored")
        return 0
    width = max(len(n) for n in names)
    for name in names:
        value = store.get(name)
        print(f"{name:<{width}}  {mask(value) if value else '(missing)'}")
    return 0


def _delete(store: SecretStore, name: str) -> int:
    if not store.delete(name):
        return _fail(f"no key named {name!r} is stored in the keyring", 1)
    print(f"deleted {name}")
    return 0
