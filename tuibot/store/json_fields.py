"""Reading text fields out of a JSON record, with each record format's own error wording.

Tasks, delegation records and job records are JSON read back from disk (and edited by
people), so every field is checked before use. The checks were three near-copies that
differed only in the error type and the words; the words are part of what the person
reads (and what tests pin), so a :class:`FieldReader` keeps each format's wording while
the checking itself lives here once.

A wording is a ``str.format`` template with the fields ``where`` (the caller's prefix),
``key``, ``wanted`` ("a string", "a non-empty string", "a string or null"), ``kind``
(``null`` or the JSON value's Python type name) and ``shown`` (the value as the format
shows it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


def kind_of(value: object) -> str:
    """``null`` for None, else the value's type name: what a wrong value was."""
    return "null" if value is None else type(value).__name__


@dataclass(frozen=True)
class FieldReader:
    """How one record format checks its text fields and says what is wrong."""

    error: type[Exception]
    """Raised for a bad field, with the message as its only argument."""
    required: str
    """The wording when a required text field is wrong."""
    optional: str | None = None
    """The wording when an optional (nullable) one is wrong; ``required`` when None."""
    shown: Callable[[object], str] = repr
    """How the template's ``{shown}`` renders the bad value."""

    def text(
        self,
        fields: Mapping[str, Any],
        key: str,
        where: str,
        *,
        nonempty: bool = False,
        strip: bool = False,
        default: str | None = None,
    ) -> str:
        """``fields[key]`` as a string (``default`` when missing); else ``error``.

        ``nonempty`` refuses ``""``; with ``strip``, whitespace alone counts as empty.
        """
        value = fields.get(key, default)
        empty = isinstance(value, str) and not (value.strip() if strip else value)
        if not isinstance(value, str) or (nonempty and empty):
            wanted = "a non-empty string" if nonempty else "a string"
            raise self._bad(self.required, where, key, wanted, value)
        return value

    def optional_text(self, fields: Mapping[str, Any], key: str, where: str) -> str | None:
        """``fields[key]`` as a string or None (missing or ``null``); else ``error``."""
        value = fields.get(key)
        if value is not None and not isinstance(value, str):
            template = self.required if self.optional is None else self.optional
            raise self._bad(template, where, key, "a string or null", value)
        return value

    def _bad(self, template: str, where: str, key: str, wanted: str, value: object) -> Exception:
        message = template.format(
            where=where, key=key, wanted=wanted, kind=kind_of(value), shown=self.shown(value)
        )
        return self.error(message)
