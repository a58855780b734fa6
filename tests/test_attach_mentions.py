"""Which ``@words`` attach a file: the grammar alone, against a set of names that exist."""

from __future__ import annotations

import pytest

from tuibot.attachments.mentions import find_mentions, mention_for
from tuibot.attachments.request import content_with, split_images, takes_images

FILES = {"notes.md", "src/main.py", "my photo.png", "README"}


def paths(text: str) -> list[str]:
    return [m.path for m in find_mentions(text, FILES.__contains__).mentions]


@pytest.mark.parametrize(
    ("typed", "attached"),
    [
        ("see @notes.md", ["notes.md"]),
        ("see @notes.md.", ["notes.md"]),  # trailing punctuation is no part of the name
        ("(@src/main.py)", []),  # an @ inside a word is no mention
        ("@src/main.py, and @README!", ["src/main.py", "README"]),
        ('@"my photo.png" please', ["my photo.png"]),
        ("mail me@notes.md", []),
        ("@alice and @pytest.fixture", []),
        (
            "@../x and @/etc/passwd and @~/.ssh/id_rsa and @./gone",
            ["../x", "/etc/passwd", "~/.ssh/id_rsa", "./gone"],
        ),
        ("first line\n@notes.md", ["notes.md"]),
    ],
)
def test_which_words_attach(typed: str, attached: list[str]) -> None:
    assert paths(typed) == attached


def test_a_bare_path_that_names_nothing_is_reported_not_attached() -> None:
    found = find_mentions("install @types/node.", FILES.__contains__)
    assert found.mentions == [] and found.missing == ["types/node"]


def test_mention_for_quotes_and_refuses_what_cannot_be_written() -> None:
    assert mention_for("a b.txt") == '@"a b.txt"'
    assert paths(mention_for("my photo.png")) == ["my photo.png"]
    for bad in ('say "hi".txt', "two\nlines", " "):
        with pytest.raises(ValueError, match="cannot attach"):
            mention_for(bad)


def test_a_fence_is_longer_than_any_backtick_run_in_the_file() -> None:
    content = content_with("x", [{"kind": "text", "name": "a.md", "text": "`````\n"}])
    assert content == "x\n\nAttached file a.md:\n``````md\n`````\n``````"


def test_vision_patterns_match_case_insensitively() -> None:
    assert takes_images(False, ["LLaVA*"], "llava:13b")
    assert not takes_images(False, ["llava*"], "llama3.2")
    assert takes_images(True, [], "anything")


def test_split_images_gives_ollama_text_and_base64() -> None:
    parts = [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}},
    ]
    assert split_images(parts) == ("look", ["QUJD"])
    assert split_images("plain") == ("plain", [])
