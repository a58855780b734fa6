"""`tuibot skills list`: show which skills exist, which are usable, and what is broken."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(subparsers: Any) -> None:
    """Register ``skills`` and its ``list`` subcommand."""
    parser = subparsers.add_parser("skills", help="list skills and their status")
    sub = parser.add_subparsers(metavar="ACTION")
    listing = sub.add_parser("list", help="list bundled and user skills")
    listing.set_defaults(handler=run)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print every skill (name, source, always, status, location) and every problem."""
    from tuibot.skills.loader import default_roots, load_skills

    skills, problems = load_skills(default_roots())
    if not skills and not problems:
        print("no skills found")
    for skill in skills:
        status = "available" if skill.available else f"unavailable ({', '.join(skill.missing)})"
        always = "  always" if skill.always else ""
        print(f"{skill.name}  [{skill.source}]{always}  {status}  {skill.path}")
    for problem in problems:
        print(f"tuibot: skipped {problem.path}:{problem.line}: {problem.reason}", file=sys.stderr)
    return 0
