"""``tuibot grants``: list the approvals kept as grants, and revoke them.

A grant is an earlier "always" answer (scope ``chat`` or ``lifetime``): while it is kept,
the same question is not asked again. Revoking one takes effect at once, also in a
running tuibot, which re-reads the file on its next check.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from tuibot.commands.output import emit, local_time
from tuibot.visible import visible

if TYPE_CHECKING:
    from tuibot.approvals.grants import Grant, GrantStore


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``tuibot grants [list|revoke ID]``."""
    parser = subparsers.add_parser(
        "grants",
        help="list or revoke kept approvals",
        description="List the approvals kept as grants (the default) or revoke one.",
    )
    actions = parser.add_subparsers(dest="grants_action", metavar="ACTION")
    listing = actions.add_parser("list", help="kept grants, oldest first")
    listing.add_argument("--json", action="store_true", help="one JSON object per grant")
    revoke = actions.add_parser("revoke", help="remove one grant, so its question is asked again")
    revoke.add_argument("grant", metavar="ID", help="a grant id or a unique prefix of one")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``grants list`` or ``grants revoke``; 0 ok, 1 unreadable file, 2 unknown id."""
    from tuibot.approvals.grants import GrantNotFound, GrantStore, GrantStoreError
    from tuibot.system.paths import DataPaths

    store = GrantStore(DataPaths.default().grants)
    try:
        if getattr(args, "grants_action", None) == "revoke":
            return _revoke(store, args.grant)
        return _list(store, bool(getattr(args, "json", False)))
    except GrantNotFound as exc:
        emit(sys.stderr, f"tuibot: {exc}")
        return 2
    except GrantStoreError as exc:
        emit(sys.stderr, f"tuibot: {exc}")
        return 1


def _list(store: GrantStore, as_json: bool) -> int:
    grants = store.all()
    if as_json:
        for grant in grants:
            emit(sys.stdout, json.dumps({**grant.as_dict(), "covers": grant.covers}))
        return 0
    if not grants:
        emit(sys.stdout, "No grants.")
        return 0
    rows = [("ID", "SCOPE", "CHAT", "CREATED", "REASON", "ALLOWS")]
    for g in grants:
        allows = visible(g.covers, keep_newlines=False)
        reason = visible(g.reason or "-", keep_newlines=False)
        rows.append((g.id, g.scope, g.chat or "-", local_time(g.created), reason, allows))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        emit(sys.stdout, "  ".join([*cells, row[5]]))
    return 0


def _revoke(store: GrantStore, wanted: str) -> int:
    grant = store.revoke(wanted)
    emit(sys.stdout, f"revoked {grant.id}: {_describe(grant)}")
    return 0


def _describe(grant: Grant) -> str:
    where = f"in chat {grant.chat}" if grant.scope == "chat" else "in every chat"
    return visible(f"{grant.covers} {where}", keep_newlines=False)
