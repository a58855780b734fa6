"""The engine, delegation and jobs import no cycle, not even one for type hints only.

Collaborators see the engine through host protocols, so nothing below the engine needs
to import it; a ``from tuibot.engine import Engine`` under ``TYPE_CHECKING`` in a
collaborator would bring the old engine ↔ delegation ↔ jobs cycle back, and this test
names it. Function-level (lazy) imports are not module-level edges and do not count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import tuibot

ROOT = Path(tuibot.__file__).parent
SEAMED = ("tuibot.engine", "tuibot.delegation", "tuibot.jobs", "tuibot.toolkit.services")


def module_names() -> dict[str, Path]:
    """Every tuibot module by dotted name (a package by its ``__init__``)."""
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = ["tuibot", *path.relative_to(ROOT).with_suffix("").parts]
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def module_imports(path: Path, known: dict[str, Path]) -> set[str]:
    """The tuibot modules ``path`` imports at module level, ``TYPE_CHECKING`` included."""
    targets: set[str] = set()
    nodes = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while nodes:
        node = nodes.pop()
        if isinstance(node, ast.If):
            nodes.extend(node.body + node.orelse)
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                targets.add(name)
    return targets


def cycle_through(start: str, graph: dict[str, set[str]]) -> list[str] | None:
    """A path of imports from ``start`` back to itself, if there is one."""
    stack, seen = [(start, [start])], set()
    while stack:
        module, path = stack.pop()
        for target in graph.get(module, set()):
            if target == start:
                return [*path, start]
            if target not in seen:
                seen.add(target)
                stack.append((target, [*path, target]))
    return None


def test_no_import_cycle_runs_through_the_engine_delegation_or_jobs() -> None:
    known = module_names()
    graph = {name: module_imports(path, known) - {name} for name, path in known.items()}
    seamed = sorted(name for name in known if name.startswith(SEAMED))
    assert len(seamed) > 15  # the walk found the packages
    cycles = {name: cycle for name in seamed if (cycle := cycle_through(name, graph))}
    assert cycles == {}
