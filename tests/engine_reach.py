"""How far the front ends reach into the engine: a count by reading the source (``ast``).

DESIGN.md says front ends use the engine's public methods, its read queries and its
event stream, and never reach past the engine to its parts. Every ``engine.a.b`` chain
in a front end is a place where a change inside the engine breaks a screen. This script
finds them, so the read API (issue 14) can be measured before and after. Run it to see
the list: ``python tests/engine_reach.py [--all]``. It follows names, not values: an
alias (``manager = engine.delegations``) counts as the one-part chain it was made from.

What counts as a chain: an attribute path starting at a name ``engine`` or at an
attribute ``.engine`` (``self.engine``, ``app.engine``; ``_engine`` as well), up to the
first call or non-attribute: ``engine.delegations.journal.all()`` is ``delegations.journal.all``.
``getattr(engine, "mcp", None)`` with a constant name is the chain ``mcp``: the same
reach, spelled so that an attribute walk would miss it.
A chain is *deep* when it has more than one part.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""The worktree: the front ends are read from here."""
FRONT_ENDS = (
    "tuibot/tui",
    "tuibot/frontends/ask.py",
    "tuibot/frontends/ask_print.py",
    "tuibot/commands",
    "tuibot/frontends/headless.py",
)
"""Where the front ends live (the CLI's ``commands`` build the engine for ``ask``)."""
ENGINE_NAMES = frozenset({"engine", "_engine"})
"""How front ends name the engine they were given."""
ALLOWED_DEEP = frozenset({"events.listen"})
"""Deep chains that are the engine's own public surface: listening to its events.

Chains under ``view.`` go through the read API (``engine.view``) and are not counted.
"""


@dataclass(frozen=True, order=True)
class Reach:
    """One ``engine.…`` chain in a front end's source."""

    path: Path
    line: int
    chain: str

    @property
    def deep(self) -> bool:
        """More than one part, and not through the read API or the event stream."""
        return (
            "." in self.chain
            and not self.chain.startswith("view.")
            and (self.chain not in ALLOWED_DEEP)
        )


def _is_engine(node: ast.expr) -> bool:
    """``engine`` or ``<anything>.engine``, also spelled ``_engine`` (a private attribute)."""
    return (isinstance(node, ast.Name) and node.id in ENGINE_NAMES) or (
        isinstance(node, ast.Attribute) and node.attr in ENGINE_NAMES
    )


def _getattr_name(node: ast.Call) -> str | None:
    """The name in ``getattr(<engine>, "name"[, default])``, else None."""
    if (
        not isinstance(node.func, ast.Name)
        or node.func.id != "getattr"
        or len(node.args) < 2
        or not _is_engine(node.args[0])
    ):
        return None
    name = node.args[1]
    return name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else None


def _chains(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Each outermost attribute chain rooted at an engine (or a ``getattr`` of one)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (name := _getattr_name(node)) is not None:
            yield node.lineno, name
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
            inner.add(id(node.value))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        parts: list[str] = []
        current: ast.expr = node
        while isinstance(current, ast.Attribute) and not _is_engine(current):
            parts.append(current.attr)
            current = current.value
        if parts and _is_engine(current):
            yield node.lineno, ".".join(reversed(parts))


def reaches(root: Path = ROOT) -> list[Reach]:
    """Every engine chain in the front ends, sorted by file and line."""
    found: list[Reach] = []
    for place in FRONT_ENDS:
        base = root / place
        files = sorted(base.rglob("*.py")) if base.is_dir() else [base]
        for path in files:
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            rel = path.relative_to(root)
            found.extend(Reach(rel, line, chain) for line, chain in _chains(tree))
    return sorted(found)


def summary(found: list[Reach]) -> str:
    """Distinct chains, and how many of them reach past the engine."""
    distinct = {reach.chain for reach in found}
    deep = {reach.chain for reach in found if reach.deep}
    return f"{len(distinct)} distinct engine chains, {len(deep)} deeper than one dot"


def main(argv: list[str]) -> int:
    """Print the deep chains (``--all``: every chain) and the summary."""
    found = reaches()
    for reach in found:
        if reach.deep or "--all" in argv:
            print(f"{reach.path}:{reach.line}: engine.{reach.chain}")
    print(summary(found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
