"""The ``@tool`` decorator: schemas from type hints and docstrings, and loud mistakes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

import pytest

from tuibot import Param, tool
from tuibot.toolkit import ToolSpec
from tuibot.toolkit.schema import parse_docstring


def meta(fn: Any) -> ToolSpec:
    return fn.__tool_meta__


def props(fn: Any) -> dict[str, Any]:
    return meta(fn).parameters["properties"]


def test_bare_decorator_builds_spec_and_keeps_function_callable() -> None:
    @tool
    def greet(name: str, times: int = 1) -> str:
        """Greet someone.

        Longer text for humans that the model does not need.
        """
        return f"hi {name}" * times

    spec = meta(greet)
    assert isinstance(spec, ToolSpec)
    assert greet("bo", times=2) == "hi bohi bo"
    assert spec.name == "greet"
    assert spec.description == "Greet someone."
    assert spec.func is greet
    assert spec.is_async is False
    assert spec.confirm is False and spec.timeout is None
    assert spec.source == "" and spec.path is None
    assert spec.parameters == {
        "type": "object",
        "properties": {"name": {"type": "string"}, "times": {"type": "integer", "default": 1}},
        "required": ["name"],
        "additionalProperties": False,
    }


def test_decorator_with_options() -> None:
    @tool(name="wipe-disk", description="Erase it.", confirm="Really erase?", timeout=5)
    async def wipe() -> None:
        """Ignored docstring."""

    spec = meta(wipe)
    assert (spec.name, spec.description) == ("wipe-disk", "Erase it.")
    assert spec.confirm == "Really erase?" and spec.needs_confirmation
    assert spec.timeout == 5.0 and spec.is_async
    assert spec.parameters == {"type": "object", "properties": {}, "additionalProperties": False}


def test_spec_is_frozen() -> None:
    @tool
    def f() -> None:
        """F."""

    with pytest.raises(AttributeError):
        meta(f).name = "g"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (list, {"type": "array"}),
        (list[str], {"type": "array", "items": {"type": "string"}}),
        (
            list[list[int]],
            {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
        ),
        (dict, {"type": "object"}),
        (dict[str, Any], {"type": "object"}),
        (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (Optional[int], {"type": ["integer", "null"]}),  # noqa: UP045 - the old spelling on purpose
        (str | None, {"type": ["string", "null"]}),
        (list[str] | None, {"type": ["array", "null"], "items": {"type": "string"}}),
        (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
        (Literal[1, 2], {"type": "integer", "enum": [1, 2]}),
        (Literal["a", 1], {"enum": ["a", 1]}),
        (Literal["a", "b"] | None, {"type": ["string", "null"], "enum": ["a", "b", None]}),
        (Annotated[str, "The path"], {"type": "string", "description": "The path"}),
        (
            Annotated[int, Param(description="Count", ge=1, le=9)],
            {"type": "integer", "description": "Count", "minimum": 1, "maximum": 9},
        ),
        (Annotated[float, Param(ge=0.5)], {"type": "number", "minimum": 0.5}),
        (
            Annotated[str, Param(min_length=1, max_length=5)],
            {"type": "string", "minLength": 1, "maxLength": 5},
        ),
        (
            Annotated[list[str], Param(min_length=1, max_length=3)],
            {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
        ),
        (Annotated[int, Param(ge=0)] | None, {"type": ["integer", "null"], "minimum": 0}),
        (Annotated[int | None, Param(le=3)], {"type": ["integer", "null"], "maximum": 3}),
    ],
)
def test_annotation_to_schema(annotation: Any, expected: dict[str, Any]) -> None:
    def f(x):
        """F."""

    f.__annotations__ = {"x": annotation}
    assert props(tool(f))["x"] == expected


def test_defaults_are_optional_and_shown() -> None:
    @tool
    def f(a: str, b: int = 3, c: list[str] | None = None, d: bool = False) -> None:
        """F."""

    schema = meta(f).parameters
    assert schema["required"] == ["a"]
    assert schema["properties"]["b"] == {"type": "integer", "default": 3}
    assert schema["properties"]["c"]["default"] is None
    assert schema["properties"]["d"] == {"type": "boolean", "default": False}


def test_none_default_makes_a_plain_type_nullable() -> None:
    @tool
    def f(limit: int = None) -> None:  # type: ignore[assignment]  # noqa: RUF013
        """F."""

    assert props(f)["limit"] == {"type": ["integer", "null"], "default": None}


def test_default_that_is_not_json_is_left_out() -> None:
    sentinel = object()

    def f(x):
        """F."""

    f.__annotations__ = {"x": str}
    f.__defaults__ = (sentinel,)
    assert props(tool(f))["x"] == {"type": "string"}
    assert meta(tool(f)).parameters.get("required") is None


def test_docstring_args_section_gives_descriptions() -> None:
    @tool
    def search(query: str, limit: int = 10, mode: Annotated[str, "From Annotated"] = "x") -> None:
        """Search the notes.

        Args:
            query: Words to look for. Quotes keep
                a phrase together.
            limit (int): How many hits at most.
            mode: Loses against the Annotated description.

        Returns:
            The hits.
        """

    p = props(search)
    assert meta(search).description == "Search the notes."
    assert p["query"]["description"] == "Words to look for. Quotes keep a phrase together."
    assert p["limit"]["description"] == "How many hits at most."
    assert p["mode"]["description"] == "From Annotated"


def test_description_is_first_paragraph_joined() -> None:
    summary, args = parse_docstring(
        """Read a file
        in pages.
        Args:
            path: Where.
        """
    )
    assert summary == "Read a file in pages."
    assert args == {"path": "Where."}


def test_no_docstring_gives_empty_description() -> None:
    @tool
    def bare(x: int) -> int:
        return x

    assert meta(bare).description == ""


@pytest.mark.parametrize(
    ("annotation", "fragment"),
    [
        (set[str], "unsupported type set[str]"),
        (int | str, "only X | None is supported"),
        (dict[int, str], "dict key type int"),
        (Literal[1.5], "unsupported Literal value 1.5"),
        (list[bytes], "unsupported type bytes"),
        (Annotated[str, Param(ge=1)], "needs an int or float"),
        (Annotated[int, Param(max_length=3)], "needs a str or list"),
    ],
)
def test_unsupported_annotation_names_tool_and_parameter(annotation: Any, fragment: str) -> None:
    def my_tool(x, y):
        """F."""

    my_tool.__annotations__ = {"x": int, "y": annotation}
    with pytest.raises(TypeError, match="tool 'my_tool', parameter 'y'") as info:
        tool(my_tool)
    assert fragment in str(info.value)


def test_missing_annotation_and_star_args_are_refused() -> None:
    def untyped(x):
        """F."""

    with pytest.raises(TypeError, match="parameter 'x': needs a type annotation"):
        tool(untyped)

    def star(*items: str) -> None:
        """F."""

    with pytest.raises(TypeError, match="parameter 'items': \\*args"):
        tool(star)


def test_unresolvable_string_annotation_is_a_clear_type_error() -> None:
    def f(x: NoSuchType) -> None:  # type: ignore[name-defined]  # noqa: F821
        """F."""

    with pytest.raises(TypeError, match="tool 'f': cannot resolve type hints"):
        tool(f)


def test_bad_options_and_names_fail_at_decoration() -> None:
    with pytest.raises(ValueError, match="tool name 'has space' is invalid"):
        tool(name="has space")(lambda: None)
    with pytest.raises(ValueError, match="timeout"):
        tool(timeout=0)
    with pytest.raises(TypeError, match="confirm"):
        tool(confirm="")

    def gen() -> Any:
        """F."""
        yield 1

    with pytest.raises(TypeError, match="generators are not supported"):
        tool(gen)


def test_import_tuibot_is_cheap() -> None:
    code = (
        "import sys\n"
        "from tuibot import tool, Param, resolve_in_workspace, __version__\n"
        "heavy = [m for m in ('openai', 'keyring', 'tomlkit', 'litellm', 'tuibot.engine',"
        " 'asyncio', 'textual') if m in sys.modules]\n"
        "assert __version__ == '0.1.0'\n"
        "print(heavy)\n"
    )
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout
    assert out.strip() == "[]"
