"""The YAML frontmatter of a SKILL.md, read by PyYAML so it means what YAML says.

Skills are written for many assistants and by hand, in every layout YAML allows (flow
maps that start on the next line, block lists at the key's indent, folded and literal
scalars, quoted scalars over several lines). A hand-written subset parser disagreed with
YAML on real files, so the frontmatter goes through ``yaml.SafeLoader`` (no tags, no
code). PyYAML is imported only when a skill's frontmatter is not in the cache
(:mod:`tuibot.skills.cache`), which keeps start-up fast. What YAML
refuses is reported with the file's line number, so one odd skill is skipped with a
reason instead of breaking the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tuibot.skills.cache import FrontmatterCache

HINTS = {
    "mapping values are not allowed here": "quote a value that contains ': '",
    "found character '\\t' that cannot start any token": "indent with spaces, not tabs",
}
"""Plain advice added to PyYAML's messages for the mistakes people make most."""


class FrontmatterError(ValueError):
    """A SKILL.md whose frontmatter can't be read; carries the 1-based line."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason


@dataclass(frozen=True)
class Frontmatter:
    """A split SKILL.md: the YAML fields, the body, and where things are in the file."""

    fields: dict[Any, Any]
    body: str
    body_line: int
    lines: dict[str, int] = field(default_factory=dict)
    """The 1-based file line of each top-level key, for problem reports about a field."""


def parse_frontmatter(text: str) -> tuple[dict[Any, Any], str, int]:
    """Split SKILL.md text into (fields, body, body start line); raise FrontmatterError."""
    front = read_frontmatter(text)
    return front.fields, front.body, front.body_line


def read_frontmatter(text: str, cache: FrontmatterCache | None = None) -> Frontmatter:
    """Split SKILL.md text (BOM and CRLF allowed) and load its frontmatter as YAML.

    With ``cache``, a frontmatter parsed before is taken from it and a new one added.
    """
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        raise FrontmatterError(1, "no frontmatter (the file must start with '---')")
    for end in range(1, len(lines)):
        if lines[end].rstrip() in ("---", "..."):
            break
    else:
        raise FrontmatterError(1, "unclosed frontmatter (no closing '---')")
    source = "".join(line + "\n" for line in lines[1:end])
    known = cache.get(source) if cache is not None else None
    if known is not None:
        fields, key_lines = known
    else:
        fields, key_lines = _load(source, last_line=end)
        if cache is not None:
            cache.put(source, fields, key_lines)
    body = "\n".join(lines[end + 1 :]).strip() + "\n"
    return Frontmatter(fields, body, end + 2, key_lines)


def _load(source: str, last_line: int) -> tuple[dict[Any, Any], dict[str, int]]:
    """The YAML mapping in ``source`` (file line 2 onwards) and each top key's line."""
    import yaml  # here, not at module level: start-up never pays for it

    loader = yaml.SafeLoader(source)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = max(2, min(mark.line + 2, last_line)) if mark is not None else 2
        raise FrontmatterError(line, _reason(exc)) from None
    except yaml.YAMLError as exc:  # e.g. a control character the reader refuses
        raise FrontmatterError(2, str(exc)) from None
    finally:
        loader.dispose()
    if data is None:
        return {}, {}
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else "a single value"
        raise FrontmatterError(2, f"the frontmatter must be 'key: value' lines, not {kind}")
    key_lines = {
        key.value: key.start_mark.line + 2 for key, _ in node.value if isinstance(key.value, str)
    }
    return data, key_lines


def _reason(exc: Any) -> str:
    """PyYAML's problem in one line, with what it was doing and a hint where one helps."""
    reason = str(exc.problem or exc.context or "not valid YAML")
    if exc.problem and exc.context:
        reason = f"{reason} ({exc.context})"
    hint = HINTS.get(str(exc.problem))
    return f"{reason}; {hint}" if hint else reason
