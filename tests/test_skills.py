"""Skills loader: real SKILL.md files in tmp folders, good and malformed."""

from __future__ import annotations

from pathlib import Path

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
    assert reasons["indent"] == (3, "unexpected indentation")
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
