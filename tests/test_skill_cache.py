"""The frontmatter cache gives back exactly what PyYAML gave, or nothing."""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path

from tuibot.skills import load_skills

SKILL = """---
name: {name}
description: {description}
{extra}---
Do the thing.
"""


def write_skill(root: Path, name: str, description: str = "Does things.", extra: str = "") -> Path:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SKILL.format(name=name, description=description, extra=extra), "utf-8")
    return path


def test_a_second_load_comes_from_the_cache_and_matches(tmp_path: Path) -> None:
    roots = [("user", tmp_path / "skills")]
    write_skill(tmp_path / "skills", "alpha", extra="metadata: {tags: [a, b], level: 2}\n")
    cache = tmp_path / "cache" / "skills.json"

    first, _ = load_skills(roots, cache)
    stored = json.loads(cache.read_text("utf-8"))
    second, _ = load_skills(roots, cache)

    assert len(stored["entries"]) == 1
    assert second == first
    assert second[0].extra == {"metadata": {"tags": ["a", "b"], "level": 2}}


def test_values_json_would_change_are_never_cached(tmp_path: Path) -> None:
    roots = [("user", tmp_path / "skills")]
    write_skill(tmp_path / "skills", "dated", extra="released: 2024-05-01\n")
    write_skill(tmp_path / "skills", "numbered", extra="codes: {1: one, 2.5: two}\n")
    cache = tmp_path / "skills.json"

    load_skills(roots, cache)
    (dated, numbered), problems = load_skills(roots, cache)

    assert problems == []
    assert dated.extra == {"released": datetime.date(2024, 5, 1)}
    assert numbered.extra == {"codes": {1: "one", 2.5: "two"}}
    assert not cache.exists() or json.loads(cache.read_text("utf-8"))["entries"] == {}


def test_an_edit_with_the_same_size_and_time_is_seen(tmp_path: Path) -> None:
    roots = [("user", tmp_path / "skills")]
    path = write_skill(tmp_path / "skills", "alpha", description="Old words.")
    cache = tmp_path / "skills.json"
    load_skills(roots, cache)
    stamp = path.stat()

    path.write_text(path.read_text("utf-8").replace("Old words.", "New words."), "utf-8")
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert path.stat().st_size == stamp.st_size
    (skill,), _ = load_skills(roots, cache)

    assert skill.description == "New words."


def test_a_broken_cache_file_is_replaced_not_trusted(tmp_path: Path) -> None:
    roots = [("user", tmp_path / "skills")]
    write_skill(tmp_path / "skills", "alpha")
    cache = tmp_path / "skills.json"
    load_skills(roots, cache)
    stored = json.loads(cache.read_text("utf-8"))
    (key,) = stored["entries"]
    for bad in ("not json", '{"version": 1, "entries": []}', json.dumps(
        {"version": 1, "entries": {key: {"fields": {"name": "evil"}, "lines": {"name": "x"}}}}
    )):  # fmt: skip
        cache.write_text(bad, "utf-8")
        (skill,), _ = load_skills(roots, cache)
        assert skill.name == "alpha"
        assert json.loads(cache.read_text("utf-8")) == stored


def test_skills_removed_leave_the_cache(tmp_path: Path) -> None:
    roots = [("user", tmp_path / "skills")]
    write_skill(tmp_path / "skills", "alpha")
    gone = write_skill(tmp_path / "skills", "beta", description="Other things.")
    cache = tmp_path / "skills.json"
    load_skills(roots, cache)
    assert len(json.loads(cache.read_text("utf-8"))["entries"]) == 2

    gone.unlink()
    load_skills(roots, cache)

    assert len(json.loads(cache.read_text("utf-8"))["entries"]) == 1
