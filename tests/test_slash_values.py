"""Slash-command values are typed by the tool's schema, not guessed from the text.

``/grep pattern=404`` must search for the string "404": a string parameter gets the
text as typed, while integer, number, boolean, array and object parameters are decoded.
A value that is not of its parameter's type is a clear error naming both.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ask_helpers import closed_port_url
from engine_helpers import make_engine

from tuibot.events import CommandOutput

TYPES_TOOL = '''
from tuibot import tool


@tool
def types(
    text: str = "",
    count: int = 0,
    ratio: float = 0.0,
    flag: bool = False,
    items: list[str] | None = None,
    options: dict[str, int] | None = None,
    maybe: str | None = None,
) -> str:
    """Say what each argument arrived as."""
    values = dict(text=text, count=count, ratio=ratio, flag=flag, items=items,
                  options=options, maybe=maybe)
    import json
    return json.dumps({k: [type(v).__name__, v] for k, v in values.items()})
'''


async def run(hermetic: Path, command: str) -> CommandOutput:
    """Run one slash command against a real engine with the ``types`` tool loaded."""
    (hermetic / "home" / "tools").mkdir(exist_ok=True)
    (hermetic / "home" / "tools" / "types.py").write_text(TYPES_TOOL)
    engine = make_engine(closed_port_url())
    try:
        output = await (await engine.send(engine.new_chat().id, command))
    finally:
        await engine.close()
    assert isinstance(output, CommandOutput)
    return output


async def arrived(hermetic: Path, command: str) -> dict[str, list]:
    output = await run(hermetic, command)
    assert output.ok, output.text
    return json.loads(output.text)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("text=404", "404"),
        ("text=true", "true"),
        ("text=[1]", "[1]"),
        ("text=null", "null"),
        ('text="a b"', "a b"),
        ("text='\"42\"'", '"42"'),
        ("text=", ""),
    ],
)
async def test_a_string_parameter_gets_the_text_as_typed(
    hermetic: Path, typed: str, expected: str
) -> None:
    assert (await arrived(hermetic, f"/types {typed}"))["text"] == ["str", expected]


async def test_numbers_booleans_lists_and_objects_are_decoded(hermetic: Path) -> None:
    got = await arrived(
        hermetic, '/types count=7 ratio=2.5 flag=true items=\'["a", "b c"]\' options=\'{"x": 1}\''
    )
    assert got["count"] == ["int", 7]
    assert got["ratio"] == ["float", 2.5]
    assert got["flag"] == ["bool", True]
    assert got["items"] == ["list", ["a", "b c"]]
    assert got["options"] == ["dict", {"x": 1}]


async def test_a_whole_number_is_a_number_too(hermetic: Path) -> None:
    assert (await arrived(hermetic, "/types ratio=3"))["ratio"] == ["int", 3]


async def test_a_nullable_string_still_gets_the_text(hermetic: Path) -> None:
    assert (await arrived(hermetic, "/types maybe=5"))["maybe"] == ["str", "5"]


@pytest.mark.parametrize(
    ("typed", "named"),
    [
        ("count=many", "count"),
        ("count=2.5", "count"),
        ("flag=yes", "flag"),
        ("items=a,b", "items"),
        ("options=[1]", "options"),
    ],
)
async def test_a_value_of_the_wrong_type_is_a_clear_error(
    hermetic: Path, typed: str, named: str
) -> None:
    output = await run(hermetic, f"/types {typed}")
    assert not output.ok
    assert named in output.text and "expected" in output.text
    assert typed.split("=", 1)[1] in output.text


async def test_grep_for_a_number_searches_for_it(hermetic: Path) -> None:
    (hermetic / "work" / "log.txt").write_text("GET /a 200\nGET /b 404\n")
    output = await run(hermetic, "/grep pattern=404")
    assert output.ok, output.text
    assert "GET /b 404" in output.text and "GET /a 200" not in output.text
