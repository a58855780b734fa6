"""Argument validation: each rule, with the exact sentence the model will read."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest

from tuibot import Param, tool
from tuibot.toolkit import validate_arguments


@tool
def sample(
    path: str,
    limit: Annotated[int, Param(ge=1, le=100)] = 10,
    mode: Literal["a", "b"] = "a",
    ratio: float = 0.5,
    flag: bool = False,
    tags: list[str] | None = None,
    name: Annotated[str, Param(min_length=2, max_length=4)] = "ab",
    picks: Annotated[list[int], Param(min_length=1, max_length=2)] = [1],  # noqa: B006
    extra: dict[str, int] | None = None,
    choice: Literal["x", "y"] | None = None,
) -> None:
    """A tool with one parameter of every kind."""


SCHEMA: dict[str, Any] = sample.__tool_meta__.parameters  # type: ignore[attr-defined]


def check(**args: Any) -> list[str]:
    return validate_arguments({"path": "p", **args}, SCHEMA)


def test_valid_arguments_have_no_problems() -> None:
    assert check() == []
    assert check(limit=1, mode="b", ratio=2, flag=True, tags=["x"], name="abcd") == []
    assert check(tags=None, choice=None, extra={"k": 1}, picks=[1, 2]) == []


def test_missing_required() -> None:
    assert validate_arguments({}, SCHEMA) == ["missing required argument 'path'"]


def test_unknown_argument_lists_valid_ones() -> None:
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
        "additionalProperties": False,
    }
    assert validate_arguments({"pth": "x"}, schema) == [
        "unknown argument 'pth' (valid: path, limit)"
    ]


def test_unknown_argument_for_tool_without_parameters() -> None:
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    assert validate_arguments({"x": 1}, schema) == [
        "unknown argument 'x' (valid: none; this takes no arguments)"
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"limit": "ten"}, "argument 'limit' must be an integer, got \"ten\""),
        ({"limit": True}, "argument 'limit' must be an integer, got true"),
        ({"limit": 2.5}, "argument 'limit' must be an integer, got 2.5"),
        ({"ratio": "x"}, "argument 'ratio' must be a number, got \"x\""),
        ({"ratio": False}, "argument 'ratio' must be a number, got false"),
        ({"flag": 1}, "argument 'flag' must be a boolean, got 1"),
        ({"path": 3}, "argument 'path' must be a string, got 3"),
        ({"tags": "x"}, "argument 'tags' must be an array or null, got \"x\""),
        ({"extra": []}, "argument 'extra' must be an object or null, got []"),
        ({"path": None}, "argument 'path' must be a string, got null"),
    ],
)
def test_type_errors(args: dict[str, Any], message: str) -> None:
    assert check(**args) == [message]


def test_enum() -> None:
    assert check(mode="c") == ['argument \'mode\' must be one of ["a", "b"], got "c"']
    assert check(choice="z") == ['argument \'choice\' must be one of ["x", "y", null], got "z"']


def test_enum_does_not_confuse_true_with_one() -> None:
    schema = {"type": "object", "properties": {"n": {"enum": [1, 2]}}}
    assert validate_arguments({"n": True}, schema) == [
        "argument 'n' must be one of [1, 2], got true"
    ]


def test_minimum_and_maximum() -> None:
    assert check(limit=0) == ["argument 'limit' must be >= 1, got 0"]
    assert check(limit=101) == ["argument 'limit' must be <= 100, got 101"]


def test_string_length() -> None:
    assert check(name="a") == ["argument 'name' must be at least 2 characters, got \"a\""]
    assert check(name="abcde") == ["argument 'name' must be at most 4 characters, got 5 characters"]


def test_array_length_and_items() -> None:
    assert check(picks=[]) == ["argument 'picks' must have at least 1 item, got 0"]
    assert check(picks=[1, 2, 3]) == ["argument 'picks' must have at most 2 items, got 3"]
    assert check(tags=["ok", 5, None]) == [
        "argument 'tags[1]' must be a string, got 5",
        "argument 'tags[2]' must be a string, got null",
    ]


def test_dict_values_are_checked() -> None:
    assert check(extra={"a": 1, "b": "two"}) == [
        "argument 'extra.b' must be an integer, got \"two\""
    ]


def test_any_of_with_null() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}},
    }
    assert validate_arguments({"n": None}, schema) == []
    assert validate_arguments({"n": 3}, schema) == []
    assert validate_arguments({"n": -1}, schema) == ["argument 'n' must be >= 0, got -1"]
    assert validate_arguments({"n": "x"}, schema) == ["argument 'n' must be an integer, got \"x\""]


def test_any_of_several_branches() -> None:
    schema = {
        "type": "object",
        "properties": {"v": {"anyOf": [{"type": "integer"}, {"type": "string"}]}},
    }
    assert validate_arguments({"v": []}, schema) == [
        "argument 'v' must be an integer or a string, got []"
    ]


def test_all_problems_are_reported_together() -> None:
    problems = validate_arguments({"pth": "x", "limit": 0, "mode": "q"}, SCHEMA)
    assert problems == [
        "missing required argument 'path'",
        "unknown argument 'pth' (valid: path, limit, mode, ratio, flag, tags, name, picks,"
        " extra, choice)",
        "argument 'limit' must be >= 1, got 0",
        'argument \'mode\' must be one of ["a", "b"], got "q"',
    ]


def test_arguments_that_are_not_an_object() -> None:
    assert validate_arguments(["x"], SCHEMA) == [  # type: ignore[arg-type]
        'arguments must be a JSON object, got ["x"]'
    ]


def test_long_values_are_shortened_in_messages() -> None:
    (message,) = check(limit="y" * 500)
    assert message.endswith("…") and len(message) < 150
