"""Skills loader: real SKILL.md files in tmp folders, good and malformed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tuibot.skills.loader import load_skills


def _write(root: Path, folder: str, text: str) -> Path:
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_minimal_skill_name_defaults_to_folder(tmp_path: Path) -> None:
    _write(tmp_path, "tidy", "---\ndescription: Tidy things\n---\nDo it.\n")
    skills, problems = load_skills([("user", tmp_path)])
    assert problems == []
    assert skills[0].name == "tidy" and skills[0].body == "Do it.\n"
    assert skills[0].available and not skills[0].always


def test_unknown_fields_kept_raw(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "pdf",
        '---\nname: pdf\ndescription: "PDFs: read them"\nlicense: MIT\n'
        "allowed-tools: [read_file, run]\nmetadata:\n  author: me\n  version: '1.0'\n---\nB\n",
    )
    (skill,), problems = load_skills([("bundled", tmp_path)])
    assert problems == []
    assert skill.description == "PDFs: read them"
    assert skill.extra["license"] == "MIT"
    assert skill.extra["allowed-tools"] == ["read_file", "run"]
    assert skill.extra["metadata"] == {"author": "me", "version": "1.0"}


def test_requires_string_and_list(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("TUIBOT_NO_SUCH_ENV", raising=False)
    _write(tmp_path, "a", "---\ndescription: a\nrequires:\n  bins: sh\n---\n")
    _write(
        tmp_path,
        "b",
        "---\ndescription: b\nalways: true\nrequires:\n  bins:\n    - sh\n"
        "    - no-such-bin-xyz\n  env: [TUIBOT_NO_SUCH_ENV]\n---\n",
    )
    a, b = load_skills([("user", tmp_path)])[0]
    assert a.available
    assert b.always and not b.available
    assert b.missing == ("binary no-such-bin-xyz", "env TUIBOT_NO_SUCH_ENV")


def test_user_overrides_bundled(tmp_path: Path) -> None:
    _write(tmp_path / "b", "x", "---\ndescription: bundled one\n---\n")
    _write(tmp_path / "u", "x", "---\ndescription: user one\n---\n")
    (skill,), _ = load_skills([("bundled", tmp_path / "b"), ("user", tmp_path / "u")])
    assert skill.source == "user" and skill.description == "user one"


def test_malformed_reported_and_others_load(tmp_path: Path) -> None:
    _write(tmp_path, "good", "---\ndescription: fine\n---\n")
    _write(tmp_path, "nofm", "just text\n")
    _write(tmp_path, "unclosed", "---\ndescription: x\n")
    _write(tmp_path, "indent", "---\ndescription: x\n   bad: 1\n---\n")
    _write(tmp_path, "nodesc", "---\nname: nodesc\n---\n")
    skills, problems = load_skills([("user", tmp_path)])
    assert [s.name for s in skills] == ["good"]
    reasons = {p.path.parent.name: (p.line, p.reason) for p in problems}
    assert reasons["nofm"][1].startswith("no frontmatter")
    assert reasons["unclosed"][1].startswith("unclosed")
    assert reasons["indent"] == (
        3,
        "mapping values are not allowed here; quote a value that contains ': '",
    )
    assert reasons["nodesc"][1] == "missing description"


def test_skills_list_command(tmp_path: Path, monkeypatch, capsys) -> None:
    import os

    from tuibot.cli import main

    home = Path(os.environ["TUIBOT_HOME"])
    _write(home / "skills", "mine", "---\ndescription: mine\nrequires:\n  bins: [nope-xyz]\n---\n")
    _write(home / "skills", "broken", "no frontmatter\n")
    assert main(["skills", "list"]) == 0
    out, err = capsys.readouterr()
    assert "mine  [user]  unavailable (binary nope-xyz)" in out
    assert "broken/SKILL.md:1: no frontmatter" in err


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("---\nname: 2024\ndescription: d\n---\n", 2, "name must be text (quote it), got int 2024"),
        (
            "---\nname: n\ndescription:\n  - one\n---\n",
            3,
            "description must be text, got list ['one']",
        ),
        ("---\nname: n\ndescription: '  '\n---\n", 3, "missing description"),
        (
            "---\ndescription: d\nalways: 'true'\n---\n",
            3,
            "always must be true or false, got str 'true'",
        ),
        (
            "---\ndescription: d\nrequires: [gh]\n---\n",
            3,
            "requires must be a map with 'bins' and 'env', got list ['gh']",
        ),
        (
            "---\ndescription: d\nrequires:\n  bins: [gh, 3]\n---\n",
            3,
            "requires.bins must be a name or a list of names, got list ['gh', 3]",
        ),
        (
            '---\ndescription: d\nmetadata: {"openclaw": {"requires": {"env": {"A": 1}}}}\n---\n',
            3,
            "metadata.openclaw.requires.env must be a name or a list of names, got dict {'A': 1}",
        ),
        (
            '---\ndescription: d\nmetadata: {"openclaw": {"always": 1}}\n---\n',
            3,
            "metadata.openclaw.always must be true or false, got int 1",
        ),
    ],
)
def test_fields_tuibot_uses_are_checked_with_their_line(
    tmp_path: Path, text: str, line: int, reason: str
) -> None:
    _write(tmp_path, "bad", text)
    _write(tmp_path, "good", "---\ndescription: fine\n---\n")
    skills, problems = load_skills([("user", tmp_path)])
    assert [s.name for s in skills] == ["good"]
    assert [(p.line, p.reason) for p in problems] == [(line, reason)]


def test_yaml_is_imported_only_when_a_skill_is_read(tmp_path: Path) -> None:
    _write(tmp_path, "tidy", "---\ndescription: Tidy things\n---\n")
    code = (
        "import sys; import tuibot.engine, tuibot.skills.catalog\n"
        "assert 'yaml' not in sys.modules, 'imported at start-up'\n"
        "from tuibot.skills.loader import load_skills\n"
        f"skills, _ = load_skills([('user', __import__('pathlib').Path({str(tmp_path)!r}))])\n"
        "assert skills[0].name == 'tidy' and 'yaml' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
