"""Skills in the styles people actually write them, loaded from ``tests/data/skills``.

Each folder imitates a real-world source: Anthropic-style skills (long quoted
descriptions, ``license``, ``allowed-tools``), OpenClaw skills (a one-line JSON
``metadata`` holding ``requires``), block scalars, comments, Windows files with a BOM and
CRLF, quoted keys and escapes, non-ASCII names, and three broken files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tuibot.skills.frontmatter import FrontmatterError, parse_frontmatter
from tuibot.skills.loader import Skill, load_skills

CORPUS = Path(__file__).parent / "data" / "skills"


@pytest.fixture(scope="module")
def loaded() -> tuple[dict[str, Skill], dict[str, tuple[int, str]]]:
    skills, problems = load_skills([("user", CORPUS)])
    by_folder = {p.path.parent.name: (p.line, p.reason) for p in problems}
    return {s.name: s for s in skills}, by_folder


def test_every_good_file_loads_and_every_broken_one_is_reported(loaded) -> None:
    skills, problems = loaded
    assert set(skills) == {
        "docx",
        "release-notes",
        "github",
        "windows-notes",
        "shell-helper",
        "triage",
        "quoting",
        "日本語メモ",
    }
    assert problems == {
        "broken-tab": (4, "tabs are not allowed for indentation"),
        "broken-quote": (2, "unclosed double-quoted string"),
        "broken-flow": (3, "expected ',' in '{\"a\": [1, 2}'"),
    }


def test_anthropic_style_long_quoted_description_and_extras(loaded) -> None:
    docx = loaded[0]["docx"]
    assert docx.description.startswith("Comprehensive document creation")
    assert "(.docx files) for: (1) Creating" in docx.description
    assert docx.extra["license"] == "Proprietary. LICENSE.txt has complete terms"
    assert docx.extra["allowed-tools"] == ["Read", "Write", "Bash(python:*)"]
    assert docx.body.startswith("# DOCX creation")


def test_block_scalars_fold_and_keep(loaded) -> None:
    notes = loaded[0]["release-notes"]
    assert notes.description == (
        "Write release notes from a git log. Group changes by kind and lead with what "
        "users notice.\nNever invent changes."
    )
    assert (
        notes.extra["when_to_use"] == '- a tag is about to be cut\n- someone asks "what changed?"\n'
    )
    assert notes.always is True
    assert notes.extra["version"] == "1.0"  # stays text: "1.0" is not 1


def test_openclaw_metadata_requires_are_honoured(loaded) -> None:
    github = loaded[0]["github"]
    assert "`gh` CLI" in github.description
    assert github.extra["homepage"] == "https://cli.github.com/manual/#commands"
    meta = github.extra["metadata"]["openclaw"]
    assert meta["emoji"] == "🐙" and meta["install"][0]["formula"] == "gh"
    assert "binary no-such-gh-helper-zz" in github.missing and not github.available


def test_bom_and_crlf(loaded) -> None:
    windows = loaded[0]["windows-notes"]
    assert windows.description == "Saved on Windows, with a BOM and CRLF endings"
    assert windows.body == "Body line one.\nBody line two.\n"
    assert windows.missing == ("env TUIBOT_CORPUS_NO_SUCH_VAR",)


def test_comments_flow_lists_and_null(loaded) -> None:
    shell = loaded[0]["shell-helper"]
    assert shell.missing == ("binary no-such-tool-zz",)
    assert shell.extra["compatibility"] is None


def test_lists_of_maps(loaded) -> None:
    meta = loaded[0]["triage"].extra["metadata"]
    assert meta["author"] == "ops team"
    assert meta["tags"] == [{"name": "bugs", "weight": "2"}, {"name": "support"}]
    assert meta["links"] == ["https://example.com/runbook"]


def test_quoted_keys_and_escapes(loaded) -> None:
    quoting = loaded[0]["quoting"]
    assert quoting.description == """It's about quotes: "double", 'single' and colons: fine"""
    assert quoting.extra["argument-hint"] == "[path] [--fast]"
    assert quoting.extra["escapes"] == 'tab\tnew\nline "quoted"'
    assert quoting.extra["empty"] == ""


def test_non_ascii_names(loaded) -> None:
    assert loaded[0]["日本語メモ"].body == "要点を三つにまとめる。\n"


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("---\nkey:value\n---\n", 2, "expected 'key: value', got 'key:value'"),
        ("---\na: [1, 2\n---\n", 2, "expected ',' in '[1, 2'"),
        ("---\na: 'x\n---\n", 2, "unclosed single-quoted string"),
        ("---\na:\n  - x\n  y: 1\n---\n", 4, "mixed list and map"),
        ("---\n  a: 1\n---\n", 2, "unexpected indentation"),
        ('---\na: "x" y\n---\n', 2, "unexpected text after a value: '\"x\" y'"),
    ],
)
def test_malformed_frontmatter_names_the_line(text: str, line: int, reason: str) -> None:
    with pytest.raises(FrontmatterError) as caught:
        parse_frontmatter(text)
    assert (caught.value.line, caught.value.reason) == (line, reason)


def test_flow_values_nest() -> None:
    fields, body, start = parse_frontmatter(
        "---\nm: {a: [1, 'two', {b: true}], \"c d\": off, e: ~}\n---\nbody\n"
    )
    assert fields == {"m": {"a": ["1", "two", {"b": True}], "c d": False, "e": None}}
    assert body == "body\n" and start == 4
