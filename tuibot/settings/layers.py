"""Merging the config layers, and planning a one-key edit of a config file.

Why apart: this is the part of loading that does not depend on which sections exist.
It works for any root dataclass, so ``tuibot.settings`` stays a list of typed fields
plus two entry points, and tests can drive the merge rules with a toy schema.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tuibot.settings.schema import (
    CLEAR,
    TABLE,
    Assign,
    ConfigError,
    Origin,
    Target,
    bad_value,
    dotted,
    flatten_file,
    put,
    resolve,
    schema,
    seed_defaults,
)
from tuibot.settings.values import coerce, from_text

ENV_PREFIX = "TUIBOT_"
"""Env overrides are ``TUIBOT_<SECTION>__<KEY>``; the double underscore marks nesting."""


class Layers:
    """The merged plain tree and, per dotted key, the origin of the value set there."""

    def __init__(self, root: type, default: Origin) -> None:
        self.root = root
        self.default = default
        self.tree: dict[str, Any] = {}
        self.origins: dict[str, Origin] = {}

    @classmethod
    def from_file(cls, root: type, data: Mapping[str, Any], path: Path | None, cwd: Path) -> Layers:
        """Defaults, then one parsed config file (``None``: no file), built-in tables seeded."""
        layers = cls(root, Origin("default", cwd))
        if path is not None:
            origin = Origin(str(path), path.parent)
            layers.extend(flatten_file(root, dict(data), f"{path}: "), origin)
        layers.extend(seed_defaults(root, layers.tree), layers.default)
        return layers

    def extend(self, assigns: Iterable[Assign], origin: Origin) -> None:
        """Apply assignments from one source, in order."""
        for assign in assigns:
            if assign.value is CLEAR:
                prefix = dotted(assign.parts) + "."
                self.origins = {k: v for k, v in self.origins.items() if not k.startswith(prefix)}
            put(self.tree, assign)
            if assign.origin_key:
                self.origins[assign.origin_key] = origin

    def names(self, parts: tuple[str, ...]) -> list[str]:
        """Existing entries of the table at ``parts`` (to match names case-insensitively)."""
        node: Any = self.tree
        for part in parts:
            node = node.get(part) if isinstance(node, dict) else None
        return list(node) if isinstance(node, dict) else []

    def apply_env(self, env: Mapping[str, str], cwd: Path) -> None:
        """``TUIBOT_A__B=value`` variables; ones without ``__`` (TUIBOT_HOME) are not keys."""
        for var in sorted(env):
            rest = var[len(ENV_PREFIX) :]
            if var.startswith(ENV_PREFIX) and "__" in rest:
                origin = Origin(f"env {var}", cwd)
                self.apply_text(rest.split("__"), env[var], origin, lower_new=True)

    def apply_text(self, parts: list[str], value: Any, origin: Origin, *, lower_new: bool) -> None:
        """One value from the environment or a flag; text is parsed as a TOML value."""
        where = f"{origin.label}: "
        target = resolve(self.root, parts, self.names, where=where, lower_new=lower_new)
        self.extend(target_assigns(target, value, where), origin)


def target_assigns(target: Target, value: Any, where: str) -> list[Assign]:
    """Assignments for one override, the named tables on its way marked as existing."""
    assigns = [Assign(target.parts[:i], TABLE) for i in range(1, len(target.parts))]
    key, parts = target.key, target.parts
    if key.kind == "leaf" or target.inner:
        hint = key.hint if key.kind == "leaf" else Any
        parsed = from_text(hint, value) if isinstance(value, str) else value
        origin_key = dotted(parts[: len(parts) - len(target.inner) + 1])
        return [*assigns, Assign(parts, parsed, origin_key)]
    table = from_text(dict[str, Any], value) if isinstance(value, str) else value
    if not isinstance(table, dict):
        raise bad_value(where, dotted(parts), table, "a table")
    entries = [Assign((*parts, k), v, dotted((*parts, k))) for k, v in table.items()]
    return [*assigns, Assign(parts, CLEAR), *entries]


# --- editing one key of a file ------------------------------------------------------


def edit_document(
    root: type, doc: Any, dotted_key: str, value: Any, where: str
) -> tuple[Any, Target, Any, bool]:
    """Apply ``dotted_key = value`` to a tomlkit document (not yet written or checked).

    Returns the (maybe re-parsed) document, the resolved key, the value as stored, and
    whether it equalled the default, in which case the key was removed instead.
    """
    from tuibot.settings import config_io

    data = doc.unwrap()
    first = dotted_key.split(".")[0].lower()
    if isinstance(data.get(first), list):
        raise ConfigError(
            f"{where}: [[{first}]] is an array of tables; `config set` edits only "
            f"[{first}.<name>] tables, so change this one in the file itself"
        )
    target = resolve(root, dotted_key.split("."), lambda parts: _doc_names(root, data, parts))
    stored, is_default = _planned_value(target, value)
    first = target.parts[0]
    if schema(root)[first].kind == "named" and first not in data:
        doc = _seed_document(root, doc, first, where)
    if is_default:
        config_io.remove_value(doc, target.parts)
    else:
        doc = config_io.set_value(doc, target.parts, stored, where)
    return doc, target, stored, is_default


def _doc_names(root: type, data: Mapping[str, Any], parts: tuple[str, ...]) -> list[str]:
    """Entries of a named table in the file, or the built-in ones when the file has none."""
    node: Any = data
    for part in parts:
        node = node.get(part) if isinstance(node, Mapping) else None
    if node is None and len(parts) == 1:
        node = schema(root)[parts[0]].default()
    return list(node) if isinstance(node, Mapping) else []


def _planned_value(target: Target, value: Any) -> tuple[Any, bool]:
    """The value to write and whether it equals the default (so the key goes instead)."""
    key, name = target.key, dotted(target.parts)
    if target.inner:
        return (from_text(Any, value) if isinstance(value, str) else value), False
    hint = key.hint if key.kind == "leaf" else dict[str, Any]
    parsed = from_text(hint, value) if isinstance(value, str) else value
    try:
        checked = coerce(hint, key.rules, parsed)
    except ValueError as exc:
        raise bad_value("", name, parsed, str(exc)) from None
    return (parsed if key.rules.get("path") else checked), checked == key.default()


def _seed_document(root: type, doc: Any, name: str, where: str) -> Any:
    """Write the built-in entries of a named table into a file about to define it."""
    from tuibot.settings import config_io

    for entry, obj in schema(root)[name].default().items():
        values = {
            k: getattr(obj, k)
            for k, key in schema(type(obj)).items()
            if key.kind in ("leaf", "table") and getattr(obj, k) != key.default()
        }
        doc = config_io.append_table(doc, (name, entry), values, where)
    return doc
