"""What a tool call asks a person for, and exactly what a kept "always" answer covers.

A confirmation rule (``@tool(confirm=...)``) may return a :class:`Permission`: the kind of
thing asked (running a command, writing a protected path, reading a secret-looking file,
reaching a network host), the exact subject shown whole (the command, the path, the URL),
and the grant key a ``chat`` or ``lifetime`` answer keeps. A grant covers what the person
saw and nothing more:

=====================  ===========================================================
key                    covers
=====================  ===========================================================
``exec:CMD``           that exact command
``exec-prefix:P``      ``P`` alone, or ``P`` followed by a space and plain words (no
                       ``; & | ` $ ( ) < > \\ * ? [ ] { }``, newline or hidden
                       character after it)
``write:PATH``         that file
``write-dir:DIR``      files under that folder (chosen explicitly)
``read-secret:PATH``   reading that secret-looking file
``net:HOST``           plain requests (GET/HEAD, no body, no custom headers) to HOST
``tool:NAME``          every call of a tool that asks without a permission of its own
=====================  ===========================================================

Grants made before these keys existed (``tool:exec``) cover nothing: exec always builds
an ``exec:`` key, and :func:`describe_key` says why such a grant is not honoured.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any, Literal

from tuibot.visible import hidden_characters, hidden_in, visible

PermissionKind = Literal["exec", "write", "read_secret", "network", "tool"]
SUBJECT_LABELS = {"exec": "command", "write": "path", "read_secret": "path", "network": "URL"}
"""What a permission's subject is called where it is shown, above the arguments."""
_SHELL_SPECIAL = re.compile(r"[;&|`$()<>\\\n\r*?\[\]{}]")
"""Characters that would let the rest of a command do more than pass words to the
prefix: operators, substitutions, redirections, escapes and globs (a file named
``--exec=…`` must not become an argument)."""
RETIRED_KEYS = {"tool:exec": "a tool-wide exec grant from an older tuibot: exec grants now "
                "cover one command or a prefix you chose, so this one is not honoured"}  # fmt: skip


@dataclass(frozen=True)
class Permission:
    """One question for a person, with what each answer would allow."""

    kind: PermissionKind
    question: str
    """The question, e.g. ``Run this shell command in /home/me/project?``."""
    subject: str
    """Exactly what would happen: the whole command, path or URL (shown escaped, whole)."""
    grant_key: str | None
    """What a ``chat`` or ``lifetime`` answer keeps; None: it can only be allowed once."""
    covers: str = ""
    """What that grant covers, in words (``exactly this command``)."""
    fields: tuple[tuple[str, str], ...] = ()
    """More of the request, shown whole: ``("method", "POST")``, headers, the body."""
    prefixes: tuple[str, ...] = ()
    """What a person may allow instead, narrowest first: command prefixes (exec) or
    folders (write); see :func:`broader_key`."""
    why_once: str = ""
    """Why it can only be allowed once (it carries data, it has hidden characters)."""
    hidden: tuple[str, ...] = field(default=())
    """Hidden characters found in the request, spelled out."""
    shown_arguments: tuple[str, ...] = ()
    """Arguments the rule has shown whole under their own name, as the subject or a
    field: exec's ``command``, a URL, a request's ``method``/``headers``/``body``, a path
    written as simply the resolved path (``.env`` for ``/work/.env``). Only these are left
    out of the arguments listed below; every other one is shown, even when its value
    equals something shown above. A path written any other way (``..``, ``~``, through a
    symlink) is not listed: shown too."""

    def checked(self, arguments: object) -> Permission:
        """This permission, made once-only when the request hides characters anywhere."""
        found = hidden_in(arguments)
        for text in (self.subject, *(value for _, value in self.fields)):
            found.extend(c for c in hidden_characters(text) if c not in found)
        if not found:
            return self
        return replace(
            self,
            grant_key=None,
            prefixes=(),
            hidden=tuple(found),
            why_once=self.why_once or "it contains hidden characters",
        )


def exec_permission(command: str, workspace: str, argument: str = "command") -> Permission:
    """Running ``command``: a grant covers exactly it, or a prefix chosen explicitly.

    ``argument`` names the call's argument that holds ``command`` exactly (shown as the
    subject, so not listed again).
    """
    return Permission(
        kind="exec",
        question=f"Run this shell command in {workspace}?",
        subject=command,
        grant_key=f"exec:{command}",
        covers="exactly this command",
        prefixes=prefix_choices(command),
        shown_arguments=(argument,),
    )


def prefix_choices(command: str) -> tuple[str, ...]:
    """Prefixes a person may choose to allow: the first three, two and one plain words.

    None when the command itself is not plain words (a prefix grant must never be offered
    for something whose start already holds an operator).
    """
    words = command.split()
    choices: list[str] = []
    for count in range(1, min(3, len(words)) + 1):
        prefix = " ".join(words[:count])
        if _SHELL_SPECIAL.search(prefix) or hidden_characters(prefix):
            break
        if prefix != command.strip():
            choices.append(prefix)
    return tuple(reversed(choices))


def prefix_key(prefix: str) -> str | None:
    """The grant key allowing commands that start with ``prefix``; None if unsafe."""
    prefix = " ".join(prefix.split())
    if not prefix or _SHELL_SPECIAL.search(prefix) or hidden_characters(prefix):
        return None
    return f"exec-prefix:{prefix}"


def folder_key(folder: str) -> str:
    """The grant key allowing writes under ``folder`` (an absolute real path)."""
    return f"write-dir:{folder.rstrip('/') or '/'}"


def host_key(host: str) -> str:
    """The grant key allowing plain requests to ``host`` (``name`` or ``name:port``)."""
    return f"net:{host.lower()}"


def broader_key(kind: str, text: str) -> str | None:
    """The key of a broader grant a person chose: an exec prefix or a write folder."""
    if kind == "exec":
        return prefix_key(text)
    if kind == "write" and text.startswith("/"):
        folder = PurePosixPath(text)
        return None if ".." in folder.parts else folder_key(str(folder))
    return None


def covers(granted: str, asked: str) -> bool:
    """Whether a kept grant ``granted`` answers a request whose key is ``asked``."""
    if granted in RETIRED_KEYS:
        return False
    if granted == asked:
        return True
    kind, _, value = granted.partition(":")
    asked_kind, _, asked_value = asked.partition(":")
    if kind == "exec-prefix" and asked_kind == "exec":
        return _starts_command(asked_value, value)
    if kind == "write-dir" and asked_kind == "write":
        folder, path = PurePosixPath(value), PurePosixPath(asked_value)
        return path != folder and path.is_relative_to(folder) and ".." not in path.parts
    return False


def _starts_command(command: str, prefix: str) -> bool:
    """``command`` is ``prefix`` or ``prefix`` plus plain arguments (no shell syntax)."""
    if command == prefix:
        return True
    if not command.startswith(prefix + " "):
        return False
    rest = command[len(prefix) :]
    return not _SHELL_SPECIAL.search(rest) and not hidden_characters(rest)


def describe_key(key: str) -> str:
    """What a grant with ``key`` allows, in words (for ``tuibot grants list`` and panes)."""
    if key in RETIRED_KEYS:
        return f"nothing: {RETIRED_KEYS[key]}"
    kind, _, value = key.partition(":")
    return {
        "exec": f"running exactly: {value}",
        "exec-prefix": f"running commands that start with: {value}",
        "write": f"writing the file {value}",
        "write-dir": f"writing files under {value}/",
        "read-secret": f"reading the secret-looking file {value}",
        "net": f"plain requests (GET/HEAD, no body or headers) to {value}",
        "tool": f"every call of the tool {value}",
        "delegate": f"giving work {value}",
    }.get(kind, key)


def request_summary(tool: str, arguments: dict[str, Any], permission: Permission) -> str:
    """The request on one line, whole and escaped: toasts, desktop notices, ``ask``.

    Nothing is cut: what decides what happens (the command, the path, the URL, a body)
    is all there, with every hiding character spelled out.
    """
    if permission.kind == "tool":
        shown = ", ".join(
            f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in arguments.items()
        )
        text = f"{permission.question} {tool}({shown})"
    else:
        extra = "".join(f"; {name}: {value}" for name, value in permission.fields)
        text = f"{permission.question} {permission.subject}{extra}"
    text = visible(text, keep_newlines=False)
    return f"[{len(permission.hidden)} hidden characters] {text}" if permission.hidden else text


def permission_details(permission: Permission) -> dict[str, Any]:
    """The JSON form carried in a request's details, for every front end to show."""
    return {
        "kind": permission.kind,
        "subject": permission.subject,
        "grantKey": permission.grant_key,
        "covers": permission.covers,
        "fields": [list(pair) for pair in permission.fields],
        "prefixes": list(permission.prefixes),
        "whyOnce": permission.why_once,
        "hidden": list(permission.hidden),
        "shownArguments": list(permission.shown_arguments),
    }


def unshown_arguments(arguments: dict[str, Any], permission: dict[str, Any]) -> dict[str, Any]:
    """The arguments the permission has not shown under their own name (``shownArguments``).

    Names only, never values: an argument whose value merely equals the subject or a
    field (a file's ``content`` that is its own path) is still listed, or a person would
    approve something they never saw. ``permission`` is the details form
    (:func:`permission_details`).
    """
    shown = set(permission.get("shownArguments") or ())
    return {name: value for name, value in arguments.items() if name not in shown}
