"""Config files on disk: parse with tomlkit, edit in place, write atomically.

Why tomlkit and in-place edits: the file belongs to the user. A save changes one value
and leaves every comment, blank line and key order as it was. Writes go through a
temporary file in the same folder and ``os.replace``, so a crash never leaves half a
config. Every failure is a ``ConfigError`` that names the file (and, for bad TOML, the
line and column).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import ParseError, TOMLKitError
from tomlkit.items import AoT, InlineTable, Item, Table
from tomlkit.toml_document import TOMLDocument

from tuibot.settings.schema import ConfigError
from tuibot.store.atomic import replace_file


def read_document(path: Path) -> TOMLDocument:
    """The parsed file; unreadable or malformed files are a ``ConfigError``."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    return parse_document(text, str(path))


def parse_bytes(data: bytes, path: Path) -> TOMLDocument:
    """A file's bytes, already read (to parse exactly what was hashed), as a document."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    return parse_document(text, str(path))


def parse_document(text: str, where: str) -> TOMLDocument:
    """TOML text as a tomlkit document; errors say where (file, line, column)."""
    try:
        return tomlkit.parse(text)
    except ParseError as exc:
        message = re.sub(r" at line \d+ col \d+$", "", str(exc))
        raise _syntax_error(where, exc.line, exc.col + 1, message) from None
    except TOMLKitError as exc:
        line, col = _locate_with_tomllib(text)
        raise _syntax_error(where, line, col, str(exc)) from None


def _syntax_error(where: str, line: int, col: int, message: str) -> ConfigError:
    message = message[:1].lower() + message[1:]
    return ConfigError(f"{where}: invalid TOML at line {line}, column {col}: {message}")


def _locate_with_tomllib(text: str) -> tuple[int, int]:
    """Line and column of an error tomlkit reports without them (duplicate keys)."""
    import tomllib

    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        if found:
            return int(found.group(1)), int(found.group(2))
    return 1, 1


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one step, keeping the old file's permissions.

    A symlinked config (dotfiles) is written through to its real file, not replaced.
    """
    target = Path(os.path.realpath(path))
    try:
        replace_file(target, text.encode("utf-8"), new_mode=0o600)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None


def to_item(value: Any) -> Item:
    """A plain value as a tomlkit item; dicts become inline tables so they stay on one line."""
    if isinstance(value, dict):
        table = tomlkit.inline_table()
        for key, item in value.items():
            table[key] = to_item(item)
        return table
    if isinstance(value, list):
        array = tomlkit.array()
        array.extend(to_item(item) for item in value)
        return array
    plain: Item = tomlkit.item(value)
    return plain


def _child(node: Any, part: str) -> Any:
    value = node.get(part) if isinstance(node, MutableMapping) else None
    return value if isinstance(value, MutableMapping) else None


def set_value(doc: TOMLDocument, parts: tuple[str, ...], value: Any, where: str) -> TOMLDocument:
    """Set one key, creating its tables when missing; returns the (maybe new) document.

    An existing key keeps its place and its trailing comment. A new key goes after the
    last key of its table (not after comments that belong to the next table). A missing
    table is appended at the end of the file as a ``[dotted.header]``.
    """
    node: Any = doc
    depth = 0
    for part in parts[:-1]:
        child = _child(node, part)
        if child is None:
            break
        node, depth = child, depth + 1
    if depth == len(parts) - 1:
        _set_in(node, parts[-1], to_item(value))
        return doc
    if isinstance(node, InlineTable):
        nested: Any = value
        for part in reversed(parts[depth + 1 :]):
            nested = {part: nested}
        _set_in(node, parts[depth], to_item(nested))
        return doc
    return append_table(doc, parts[:-1], {parts[-1]: value}, where)


def _set_in(node: Any, key: str, item: Item) -> None:
    """Set ``key``; a new key goes right after the table's last key, not after the
    comments and blank lines that introduce the next table."""
    if key in node or not isinstance(node, Table):
        node[key] = item
        return
    body = node.value.body
    last = [i for i, (k, v) in enumerate(body) if k is not None and not isinstance(v, Table | AoT)]
    if not last or last[-1] == len(body) - 1:
        node[key] = item
        return
    try:
        insert_at = getattr(node.value, "_insert_at")  # noqa: B009 (private tomlkit API)
        insert_at(last[-1] + 1, key, item)
    except Exception:  # the private API changed: a plain append is still correct TOML
        node[key] = item


def append_table(
    doc: TOMLDocument, parts: tuple[str, ...], values: Mapping[str, Any], where: str
) -> TOMLDocument:
    """A new ``[a.b]`` table with ``values`` at the end of the document."""
    text = doc.as_string()
    if text and not text.endswith("\n"):
        text += "\n"
    header = ".".join(tomlkit.key(p).as_string() for p in parts)
    body = "".join(
        f"{tomlkit.key(k).as_string()} = {to_item(v).as_string()}\n" for k, v in values.items()
    )
    text += ("\n" if text.strip() else "") + f"[{header}]\n{body}"
    try:
        return tomlkit.parse(text)
    except TOMLKitError:
        raise ConfigError(
            f"{where}: cannot add [{header}] to this file automatically; edit it by hand"
        ) from None


def remove_value(doc: TOMLDocument, parts: tuple[str, ...]) -> bool:
    """Delete one key if present; its table stays, with the user's comments around it."""
    node: Any = doc
    for part in parts[:-1]:
        node = _child(node, part)
        if node is None:
            return False
    if parts[-1] not in node:
        return False
    del node[parts[-1]]
    return True
