"""What ``tuibot ask`` imports at start, from ``python -X importtime``, and what it costs.

Why: start-up is most of a short ``ask``. Import times are CPU work in one process, so
they are less sensitive to the load of a shared machine than wall times; the report names
the modules a plain answer must not import (the list in tests/test_ask_lean.py) that it
did import, tuibot's own share of the start, and the heaviest of its modules.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from test_ask_lean import UNUSED_BY_A_PLAIN_ASK


@dataclass(frozen=True)
class Imported:
    """One line of ``-X importtime``: the module, its own and its cumulative µs, depth."""

    name: str
    self_us: int
    cumulative_us: int
    depth: int


def parse(stderr: str) -> list[Imported]:
    """The import lines of ``stderr`` (other lines are ignored)."""
    found = []
    for line in stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) != 3 or not parts[1].strip().isdigit():
            continue
        raw = parts[2].rstrip("\n")
        depth = (len(raw) - len(raw.lstrip()) - 1) // 2
        found.append(Imported(raw.strip(), int(parts[0]), int(parts[1]), depth))
    return found


def unused(imports: list[Imported]) -> list[str]:
    """The listed modules a plain answer must not import that were imported.

    An import that failed is logged too: tuibot blocks aiohttp while openai imports (a
    ``None`` in ``sys.modules``), which shows as a line of a few µs and no children.
    """
    blocked = {i.name for i in imports if i.name == "aiohttp" and i.cumulative_us < 200}
    names = {i.name for i in imports} - blocked
    return [
        bad
        for bad in UNUSED_BY_A_PLAIN_ASK
        if any(n == bad or n.startswith(bad + ".") for n in names)
    ]


def outermost_ms(imports: list[Imported], package: str) -> float:
    """Cumulative ms of the top-level imports of ``package`` (each counted once)."""
    total = sum(
        i.cumulative_us
        for i in imports
        if i.depth == 0 and (i.name == package or i.name.startswith(package + "."))
    )
    return total / 1000


def own_ms(imports: list[Imported], package: str) -> float:
    """The self ms of every module of ``package`` (not what they import elsewhere)."""
    mine = [i for i in imports if i.name == package or i.name.startswith(package + ".")]
    return sum(i.self_us for i in mine) / 1000


def report(stderr: str) -> tuple[bool, list[str]]:
    """Lines describing the imports; PASS when none of the unused modules was imported."""
    imports = parse(stderr)
    hits = unused(imports)
    tuibot = [i for i in imports if i.name.startswith("tuibot")]
    heaviest = sorted(tuibot, key=lambda i: i.self_us, reverse=True)[:6]
    lines = [
        f"{len(imports)} modules, {len(tuibot)} of them tuibot's; imported but unused by "
        f"this run: {', '.join(hits) if hits else 'none'}",
        f"tuibot's own modules {own_ms(imports, 'tuibot'):.0f} ms self; top-level imports "
        f"(cumulative): tuibot {outermost_ms(imports, 'tuibot'):.0f} ms, "
        f"openai {outermost_ms(imports, 'openai'):.0f} ms",
        "heaviest tuibot modules (self): "
        + ", ".join(f"{i.name} {i.self_us / 1000:.1f}" for i in heaviest),
    ]
    return not hits, lines
