"""Skills in the styles people actually write them: a differential table and a folder.

``tests/frontmatter_cases.py`` holds frontmatter layouts taken from real public skills
(our own cases); for each, tuibot must read exactly what ``yaml.safe_load`` reads, and
each invalid one must be refused on the line YAML names. ``tests/data/skills`` holds
whole skill folders in the same styles: Anthropic-style skills (long quoted
descriptions, ``license``, ``allowed-tools``), OpenClaw skills (a JSON ``metadata`` on one
line or starting on the next line, holding ``requires``), block scalars, comments,
Windows files with a BOM and CRLF, quoted keys and escapes, non-ASCII names, and three
broken files.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from frontmatter_cases import INVALID, VALID

from tuibot.skills.frontmatter import FrontmatterError, parse_frontmatter
from tuibot.skills.loader import Skill, load_skills

CORPUS = Path(__file__).parent / "data" / "skills"


def _yaml_reference(text: str) -> object:
    """``yaml.safe_load`` of the lines between the opening and closing ``---``."""
    lines = text.removeprefix("\ufeff").splitlines()
    end = next(i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "..."))
    return yaml.safe_load("".join(line + "\n" for line in lines[1:end])) or {}


@pytest.mark.parametrize(("text"), [text for _, text in VALID], ids=[n for n, _ in VALID])
def test_frontmatter_reads_what_yaml_reads(text: str) -> None:
    fields, _, _ = parse_frontmatter(text)
    assert fields == _yaml_reference(text)


@pytest.mark.parametrize(
    ("text", "line"), [(t, n) for _, t, n in INVALID], ids=[name for name, _, _ in INVALID]
)
def test_frontmatter_yaml_refuses_is_refused_on_its_line(text: str, line: int) -> None:
    with pytest.raises(yaml.YAMLError):
        _yaml_reference(text)
    with pytest.raises(FrontmatterError) as caught:
        parse_frontmatter(text)
    assert caught.value.line == line


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
        "stocks",
    }
    assert problems == {
        "broken-tab": (
            4,
            "found character '\\t' that cannot start any token (while scanning for the next "
            "token); indent with spaces, not tabs",
        ),
        "broken-quote": (
            2,
            "found unexpected end of stream (while scanning a quoted scalar)",
        ),
        "broken-flow": (
            3,
            "expected ',' or ']', but got '}' (while parsing a flow sequence)",
        ),
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
    assert notes.extra["version"] == 1.0  # what YAML says; quote it to keep text


def test_openclaw_metadata_requires_are_honoured(loaded) -> None:
    github = loaded[0]["github"]
    assert "`gh` CLI" in github.description
    assert github.extra["homepage"] == "https://cli.github.com/manual/#commands"
    meta = github.extra["metadata"]["openclaw"]
    assert meta["emoji"] == "🐙" and meta["install"][0]["formula"] == "gh"
    assert "binary no-such-gh-helper-zz" in github.missing and not github.available


def test_openclaw_flow_map_starting_on_the_next_line(loaded) -> None:
    stocks = loaded[0]["stocks"]
    assert stocks.extra["metadata"]["openclaw"]["emoji"] == "📈"
    assert stocks.missing == ("binary no-such-stocks-helper-zz",)
    assert stocks.extra["tools"] == ["read", "grep"]  # a block list at its key's indent


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
    assert meta["tags"] == [{"name": "bugs", "weight": 2}, {"name": "support"}]
    assert meta["links"] == ["https://example.com/runbook"]


def test_quoted_keys_and_escapes(loaded) -> None:
    quoting = loaded[0]["quoting"]
    assert quoting.description == """It's about quotes: "double", 'single' and colons: fine"""
    assert quoting.extra["argument-hint"] == "[path] [--fast]"
    assert quoting.extra["escapes"] == 'tab\tnew\nline "quoted"'
    assert quoting.extra["empty"] is None


def test_non_ascii_names(loaded) -> None:
    assert loaded[0]["日本語メモ"].body == "要点を三つにまとめる。\n"


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        (
            "---\nname: x\ndescription: Use when: asked\n---\n",
            3,
            "mapping values are not allowed here; quote a value that contains ': '",
        ),
        ("---\n- a\n- b\n---\n", 2, "the frontmatter must be 'key: value' lines, not a list"),
        (
            "---\njust words\n---\n",
            2,
            "the frontmatter must be 'key: value' lines, not a single value",
        ),
        (
            "---\na: !!python/object:os.system ls\n---\n",
            2,
            "could not determine a constructor"
            " for the tag 'tag:yaml.org,2002:python/object:os.system'",
        ),
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
    assert fields == {"m": {"a": [1, "two", {"b": True}], "c d": False, "e": None}}
    assert body == "body\n" and start == 4
