"""The generic half of the settings: rules, checks and paths read from dataclass fields.

Why it exists: a new section or key must cost one dataclass field with a docstring (and,
where a value has limits, a ``rules(...)`` entry). Validation, defaults, env overrides,
``config set``, ``config show`` and the docs reference all walk the same fields through
this module, so there is no per-key code to forget. It knows nothing about tuibot's own
sections; ``tuibot.settings`` declares those.

A field is one of four kinds, decided by its type hint:

- ``section``: another dataclass (``[agent]``);
- ``named``: ``dict[str, SomeDataclass]``, a table of named tables (``[providers.<name>]``);
- ``table``: ``dict[str, Any]``, a free-form table whose entries are not checked (``params``);
- ``leaf``: anything else (``str``, ``int``, ``float``, ``bool``, ``float | None``, ``list[str]``).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tuibot.settings.values import coerce, format_value, mask


class ConfigError(Exception):
    """A configuration problem the user can fix; the message is shown as is, no traceback."""


def rules(
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    off: float | None = None,
    unit: str | None = None,
    choices: tuple[str, ...] = (),
    nonempty: bool = False,
    path: bool = False,
    secret: bool = False,
) -> dict[str, Any]:
    """Field metadata naming the limits a value must meet.

    ``choices`` match case-insensitively and are stored in their canonical spelling;
    ``path`` fields are anchored to the folder of the config file they came from;
    ``secret`` fields are masked by ``tuibot config show``. ``off`` is one more value
    allowed below ``ge`` that switches the feature off (``0``, where a small interval
    would be a mistake); ``unit`` names what the numbers count, for messages and docs.
    """
    if off is not None and ge is None:
        raise TypeError("rules(off=...) needs ge=...: the least value that is not off")
    found: dict[str, Any] = {"ge": ge, "gt": gt, "le": le, "off": off, "unit": unit}
    found |= {"choices": choices, "nonempty": nonempty}
    found |= {"path": path, "secret": secret}
    return {k: v for k, v in found.items() if v is not None and v is not False and v != ()}


META: dict[str, Any] = {"meta": True}
"""Metadata for a field that is not a config key (files in use, origins, ...)."""

DERIVED: dict[str, Any] = {"derived": True}
"""Metadata for a field the loader fills from the table's name (``providers.<name>``)."""


@dataclass(frozen=True)
class Key:
    """One config key: a dataclass field, its resolved type hint and its kind."""

    name: str
    kind: str
    """``section``, ``named``, ``table`` or ``leaf``."""
    hint: Any
    """The leaf's type, or for ``section``/``named`` the dataclass of the table."""
    field: dataclasses.Field[Any]

    @property
    def rules(self) -> Mapping[str, Any]:
        """The limits from ``rules(...)`` (empty when none)."""
        return self.field.metadata

    def default(self) -> Any:
        """A fresh copy of the field's default value."""
        if self.field.default_factory is not dataclasses.MISSING:
            return self.field.default_factory()
        if self.field.default is not dataclasses.MISSING:
            return self.field.default
        if self.kind == "section":
            return self.hint()
        raise TypeError(f"field {self.name} has no default")


def schema(cls: type) -> dict[str, Key]:
    """The config keys of a dataclass, in declaration order (meta/derived fields left out)."""
    return _schema(cls)


@functools.cache
def _schema(cls: Any) -> dict[str, Key]:
    hints = typing.get_type_hints(cls)
    keys: dict[str, Key] = {}
    for f in dataclasses.fields(cls):
        if f.metadata.get("meta") or f.metadata.get("derived"):
            continue
        kind, hint = _kind(hints[f.name])
        keys[f.name] = Key(f.name, kind, hint, f)
    return keys


def derived_fields(cls: type) -> list[str]:
    """Names of the fields filled from the table's own name."""
    return [f.name for f in dataclasses.fields(cls) if f.metadata.get("derived")]


def _kind(hint: Any) -> tuple[str, Any]:
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return "section", hint
    if typing.get_origin(hint) is dict:
        value = typing.get_args(hint)[1]
        if isinstance(value, type) and dataclasses.is_dataclass(value):
            return "named", value
        return "table", hint
    return "leaf", hint


def dotted(parts: Iterable[str]) -> str:
    """``("providers", "local", "base_url")`` → ``providers.local.base_url``."""
    return ".".join(parts)


def bad_value(where: str, key: str, value: Any, want: str, secret: bool = False) -> ConfigError:
    """The one message shape for a wrong value: where, key, value, what was expected."""
    shown = mask(value) if secret else format_value(value)
    return ConfigError(f"{where}{key} = {shown}: expected {want}")


# --- keys ---------------------------------------------------------------------------


def unknown_key(where: str, parts: tuple[str, ...], name: str, valid: Iterable[str]) -> ConfigError:
    """Unknown key: name it, suggest the closest valid one, list them all."""
    import difflib

    valid = list(valid)
    close = difflib.get_close_matches(name.lower(), valid, n=1)
    hint = f' (did you mean "{dotted((*parts, close[0]))}"?)' if close else ""
    listed = ", ".join(valid)
    if not parts:
        return ConfigError(f'{where}unknown section "{name}"{hint}; valid sections: {listed}')
    full, table = dotted((*parts, name)), dotted(parts)
    return ConfigError(f'{where}unknown key "{full}"{hint}; valid keys in [{table}]: {listed}')


def _match(name: str, options: Iterable[str]) -> str | None:
    options = list(options)
    if name in options:
        return name
    return next((o for o in options if o.casefold() == name.casefold()), None)


@dataclass(frozen=True)
class Target:
    """Where a dotted key or env variable points: the canonical path and the field there."""

    parts: tuple[str, ...]
    key: Key
    inner: tuple[str, ...] = ()
    """For a free-form table: the entry path below the field (empty = the whole table)."""


def resolve(
    cls: type,
    parts: list[str],
    names: Callable[[tuple[str, ...]], Iterable[str]],
    *,
    where: str = "",
    lower_new: bool = False,
) -> Target:
    """Walk ``parts`` through the schema, matching key names case-insensitively.

    ``names(path)`` lists the existing entries of a named table so ``LOCAL`` finds
    ``local``; a new entry keeps its spelling, lower-cased when ``lower_new``.
    """
    done: tuple[str, ...] = ()
    rest = list(parts)
    while True:
        keys = schema(cls)
        if not rest:
            raise ConfigError(f"{where}{dotted(done)} is a table; set one of: {', '.join(keys)}")
        name = _match(rest[0], keys)
        if name is None:
            raise unknown_key(where, done, rest[0].lower() if lower_new else rest[0], keys)
        key, done, rest = keys[name], (*done, name), rest[1:]
        if key.kind == "leaf":
            if rest:
                raise ConfigError(f"{where}{dotted(done)} is a value, not a table")
            return Target(done, key)
        if key.kind == "table":
            inner = tuple(p.lower() if lower_new else p for p in rest)
            return Target((*done, *inner), key, inner)
        if key.kind == "named":
            if not rest or not rest[0]:
                table = dotted(done)
                raise ConfigError(f"{where}{table} needs a name: {table}.<name>.<key>")
            entry = _match(rest[0], names(done)) or (rest[0].lower() if lower_new else rest[0])
            done, rest = (*done, entry), rest[1:]
        cls = key.hint


# --- layers -------------------------------------------------------------------------

TABLE = object()
"""An assignment value meaning: this table exists (even when empty)."""

CLEAR = object()
"""An assignment value meaning: empty this free-form table before new entries arrive."""


@dataclass(frozen=True)
class Assign:
    """One value from one source, at a canonical path."""

    parts: tuple[str, ...]
    value: Any
    origin_key: str = ""
    """The dotted key its origin is recorded under ("" = no origin, a structural marker)."""


def flatten_file(cls: type, data: Any, where: str, parts: tuple[str, ...] = ()) -> Iterator[Assign]:
    """A parsed TOML table as assignments; unknown keys and non-tables are errors."""
    if not isinstance(data, dict):
        raise bad_value(where, dotted(parts), data, "a table")
    keys = schema(cls)
    for name, value in data.items():
        if name not in keys:
            raise unknown_key(where, parts, name, keys)
        key, path = keys[name], (*parts, name)
        if key.kind == "section":
            yield from flatten_file(key.hint, value, where, path)
        elif key.kind == "named":
            yield from _flatten_named(key, value, where, path)
        elif key.kind == "table":
            if not isinstance(value, dict):
                raise bad_value(where, dotted(path), value, "a table")
            yield Assign(path, TABLE)
            for entry, item in value.items():
                yield Assign((*path, entry), item, dotted((*path, entry)))
        else:
            yield Assign(path, value, dotted(path))


def _flatten_named(key: Key, value: Any, where: str, path: tuple[str, ...]) -> Iterator[Assign]:
    if isinstance(value, list):
        value = _array_to_named(key, value, where, path)
    if not isinstance(value, dict):
        raise bad_value(where, dotted(path), value, f"a table of named [{dotted(path)}.<name>]")
    yield Assign(path, TABLE)
    for entry, body in value.items():
        if not entry.strip():
            raise ConfigError(f"{where}{dotted(path)}: a table name must not be empty")
        yield Assign((*path, entry), TABLE)
        yield from flatten_file(key.hint, body, where, (*path, entry))


def _array_to_named(
    key: Key, items: list[Any], where: str, path: tuple[str, ...]
) -> dict[str, Any]:
    """``[[bots]]`` with ``name = …`` in each table, as the named tables ``[bots.<name>]``.

    People write lists of bots as arrays of tables; both spellings mean the same.
    """
    if "name" not in derived_fields(key.hint):
        raise bad_value(where, dotted(path), items, f"a table of named [{dotted(path)}.<name>]")
    named: dict[str, Any] = {}
    for index, item in enumerate(items, 1):
        label = f"{where}[[{dotted(path)}]] #{index}"
        if not isinstance(item, dict):
            raise ConfigError(f"{label}: expected a table, got {item!r}")
        body = dict(item)
        name = body.pop("name", None)
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f'{label}: needs a name, e.g. name = "Coder"')
        if name in named:
            raise ConfigError(f"{label}: the name {name!r} is used twice")
        named[name] = body
    return named


def instance_assigns(obj: Any, parts: tuple[str, ...]) -> Iterator[Assign]:
    """A dataclass instance's non-default values as assignments (to seed built-in tables)."""
    yield Assign(parts, TABLE)
    for name, key in schema(type(obj)).items():
        value = getattr(obj, name)
        if key.kind == "leaf" and value != key.default():
            yield Assign((*parts, name), value, dotted((*parts, name)))
        elif key.kind == "table":
            for entry, item in value.items():
                yield Assign((*parts, name, entry), item, dotted((*parts, name, entry)))


def put(tree: dict[str, Any], assign: Assign) -> None:
    """Apply one assignment to a nested plain dict."""
    node = tree
    for part in assign.parts[:-1]:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    last = assign.parts[-1]
    if assign.value is TABLE:
        if not isinstance(node.get(last), dict):
            node[last] = {}
    elif assign.value is CLEAR:
        node[last] = {}
    else:
        node[last] = assign.value


def to_plain(obj: Any) -> dict[str, Any]:
    """A section instance as a nested plain dict (named entries without their name field)."""
    out: dict[str, Any] = {}
    for name, key in schema(type(obj)).items():
        value = getattr(obj, name)
        if key.kind == "section":
            out[name] = to_plain(value)
        elif key.kind == "named":
            out[name] = {n: to_plain(v) for n, v in value.items()}
        elif isinstance(value, dict | list):
            out[name] = type(value)(value)
        else:
            out[name] = value
    return out


def seed_defaults(cls: type, tree: Mapping[str, Any]) -> Iterator[Assign]:
    """The built-in entries of every named table the config did not define itself.

    A named table given in a file replaces the built-in set; one left out keeps it, and
    env overrides and flags then merge into it.
    """
    for name, key in schema(cls).items():
        if key.kind == "named" and name not in tree:
            yield Assign((name,), TABLE)
            for entry, obj in key.default().items():
                yield from instance_assigns(obj, (name, entry))


# --- building -----------------------------------------------------------------------


@dataclass(frozen=True)
class Origin:
    """Where values came from: a label for people and the folder relative paths start at."""

    label: str
    anchor: Path


class Builder:
    """Turns the merged plain tree into dataclass instances, checking every value.

    ``origins`` maps dotted keys to the source that set them; ``found`` collects the
    origin label of every effective leaf (``default`` for values nobody set).
    """

    def __init__(self, origins: Mapping[str, Origin], default: Origin) -> None:
        self.origins = origins
        self.default = default
        self.found: dict[str, str] = {}

    def build(self, cls: type, tree: Mapping[str, Any], parts: tuple[str, ...] = ()) -> Any:
        """An instance of ``cls`` from ``tree`` (missing keys take the field default)."""
        kwargs: dict[str, Any] = {}
        for name, key in schema(cls).items():
            path, raw = (*parts, name), tree.get(name)
            if key.kind == "section":
                kwargs[name] = self.build(key.hint, raw or {}, path)
            elif key.kind == "named":
                entries = raw or {}
                kwargs[name] = {n: self.build(key.hint, b, (*path, n)) for n, b in entries.items()}
            elif key.kind == "table":
                kwargs[name] = dict(raw) if raw is not None else key.default()
                for entry in kwargs[name]:
                    self._note(dotted((*path, entry)))
                    if typing.get_args(key.hint)[1:] == (int,):  # a table of counts
                        entry_key = Key(key.name, "leaf", int, key.field)
                        value = kwargs[name][entry]
                        kwargs[name][entry] = self._leaf(entry_key, value, (*path, entry))
            else:
                kwargs[name] = self._leaf(key, raw, path) if name in tree else key.default()
                self._note(dotted(path))
        for name in derived_fields(cls):
            kwargs[name] = parts[-1]
        return cls(**kwargs)

    def _note(self, key: str) -> Origin:
        origin = self.origins.get(key, self.default)
        self.found[key] = origin.label
        return origin

    def _leaf(self, key: Key, raw: Any, path: tuple[str, ...]) -> Any:
        origin = self.origins.get(dotted(path), self.default)
        try:
            value = coerce(key.hint, key.rules, raw)
        except ValueError as exc:
            where = f"{origin.label}: "
            secret = key.rules.get("secret", False)
            raise bad_value(where, dotted(path), raw, str(exc), secret) from None
        if key.rules.get("path") and value:
            value = anchor_path(value, origin.anchor)
        return value


def anchor_path(value: str, anchor: Path) -> str:
    """A path from config: ``~`` expanded, a relative one joined to ``anchor``."""
    path = Path(value).expanduser()
    return os.path.normpath(path if path.is_absolute() else anchor / path)
