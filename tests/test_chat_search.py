"""Searching chats: every word must be in the title or the text, and changes are seen.

The search keeps what it read of each file, so these check it notices appends, renames,
rewrites and deletions, and never matches the JSON around the text.
"""

from __future__ import annotations

import os
from pathlib import Path

from tuibot.store.chats import ChatStore
from tuibot.store.search import ChatSearch


def ids(search: ChatSearch, query: str) -> list[str]:
    return [hit.meta.id for hit in search.search(query)]


def test_every_word_must_match_in_title_or_text_case_insensitively(tmp_path: Path) -> None:
    store = ChatStore(tmp_path)
    trip = store.create(title="Trip to Kyoto")
    store.append(trip.id, [{"role": "user", "content": "Book the Ryokan, please"}])
    other = store.create(title="Other")
    store.append(other.id, [{"role": "assistant", "content": "Nothing about travel 東京タワー"}])
    search = ChatSearch(store)
    assert ids(search, "kyoto RYOKAN") == [trip.id]
    assert ids(search, "kyoto travel") == []
    assert ids(search, "東京") == [other.id]
    assert ids(search, "   ") == []
    [hit] = search.search("ryokan")
    assert hit.snippet == "Book the Ryokan, please" and hit.message == 0


def test_json_keys_and_roles_are_not_text(tmp_path: Path) -> None:
    store = ChatStore(tmp_path)
    chat = store.create(title="T")
    store.append(chat.id, [{"role": "assistant", "content": "plain"}])
    search = ChatSearch(store)
    assert ids(search, "content") == [] and ids(search, "assistant") == []
    assert ids(search, '"') == []


def test_appends_renames_and_deletes_are_seen(tmp_path: Path) -> None:
    store = ChatStore(tmp_path)
    chat = store.create(title="First")
    store.append(chat.id, [{"role": "user", "content": "alpha"}])
    search = ChatSearch(store)
    assert ids(search, "beta") == []
    store.append(chat.id, [{"role": "assistant", "content": "beta"}])
    assert ids(search, "beta") == [chat.id]
    store.set_title(chat.id, "Renamed")
    assert ids(search, "renamed") == [chat.id] and ids(search, "first") == []
    store.rewrite(chat.id, [{"role": "user", "content": "gamma"}])
    assert ids(search, "beta") == [] and ids(search, "gamma") == [chat.id]
    store.delete(chat.id)
    assert ids(search, "gamma") == []


def test_newest_first_and_a_bad_line_is_skipped(tmp_path: Path) -> None:
    store = ChatStore(tmp_path)
    old = store.create(title="x old")
    new = store.create(title="x new")
    store.append(new.id, [{"role": "user", "content": "hi"}])
    with open(store.path(old.id), "ab") as handle:
        handle.write(b'{"type":"message","message":{"ro\n')
    os.utime(store.path(old.id), (1_000_000, 1_000_000))
    assert ids(ChatSearch(store), "x") == [new.id, old.id]
