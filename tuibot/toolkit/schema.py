"""Turn a Python function's signature and docstring into a JSON schema for the model.

A tool author writes an ordinary typed function; this module is why they never write
JSON schema by hand. It covers a deliberately small set of annotations — the ones the
validator in ``validate.py`` understands and local models handle well — and refuses
anything else at decoration time, so a tool that loads is a tool whose schema is right.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

JSONSchema = dict[str, Any]

_PRIMITIVES: dict[type, str] = {str: "string", bool: "boolean", int: "integer", float: "number"}
_LITERAL_TYPES: dict[type, str] = {str: "string", bool: "boolean", int: "integer"}
_SECTION = re.compile(r"^\s*(\w[\w ]*):\s*$")
_ARGS_HEADERS = {"args", "arguments", "parameters", "params"}
_ARG_LINE = re.compile(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


@dataclass(frozen=True)
class Param:
    """Extra facts about one parameter, given as ``Annotated[int, Param(ge=1)]``.

    A tiny stand-in for pydantic's ``Field`` so tool files need nothing but tuibot.
    Bounds become ``minimum``/``maximum`` (numbers) or ``minLength``/``maxLength``
    (strings; ``minItems``/``maxItems`` for lists) and are enforced before the tool runs.
    """

    description: str = ""
    ge: float | None = None
    le: float | None = None
    min_length: int | None = None
    max_length: int | None = None


class _Unsupported(TypeError):
    """An annotation the schema builder does not cover; re-raised naming the parameter."""


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """The first paragraph of ``doc`` and the Google-style ``Args:`` descriptions.

    The first paragraph is what the model reads as the tool's description; the rest of
    the docstring (examples, notes for humans) stays out of the prompt.
    """
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION.match(line):
            break
        summary.append(line.strip())
    return " ".join(summary), _parse_args_section(lines)


def _parse_args_section(lines: list[str]) -> dict[str, str]:
    """Descriptions from the ``Args:`` section; continuation lines are joined."""
    found: dict[str, str] = {}
    inside = False
    entry_indent: int | None = None
    current: str | None = None
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        header = _SECTION.match(line)
        if header and indent == 0:
            inside = header.group(1).strip().lower() in _ARGS_HEADERS
            entry_indent, current = None, None
            continue
        if not inside or not stripped:
            continue
        if entry_indent is None:
            entry_indent = indent
        match = _ARG_LINE.match(stripped)
        if indent <= entry_indent and match:
            current = match.group(1)
            found[current] = match.group(2).strip()
        elif current is not None and indent > entry_indent:
            found[current] = f"{found[current]} {stripped}".strip()
    return found


def schema_for_annotation(annotation: Any) -> JSONSchema:
    """The JSON schema for one annotation; raises ``TypeError`` when it is unsupported."""
    origin = get_origin(annotation)
    if origin is Annotated:
        base, *extras = get_args(annotation)
        schema = schema_for_annotation(base)
        for extra in extras:
            _apply_extra(schema, extra)
        return schema
    if annotation in _PRIMITIVES:
        return {"type": _PRIMITIVES[annotation]}
    if origin is Literal:
        return _literal_schema(get_args(annotation))
    if origin in (Union, types.UnionType):
        return _union_schema(get_args(annotation))
    if annotation is list or origin is list:
        return _list_schema(get_args(annotation))
    if annotation is dict or origin is dict:
        return _dict_schema(get_args(annotation))
    raise _Unsupported(f"unsupported type {_type_name(annotation)}")


def _literal_schema(values: tuple[Any, ...]) -> JSONSchema:
    """``Literal[...]`` → ``enum``, with a ``type`` when all values share one."""
    kinds: set[str] = set()
    for value in values:
        if value is None:
            kinds.add("null")
        elif type(value) in _LITERAL_TYPES:
            kinds.add(_LITERAL_TYPES[type(value)])
        else:
            raise _Unsupported(f"unsupported Literal value {value!r} (use str, int or bool)")
    schema: JSONSchema = {}
    if len(kinds) == 1:
        schema["type"] = kinds.pop()
    elif len(kinds) == 2 and "null" in kinds:
        schema["type"] = [next(k for k in kinds if k != "null"), "null"]
    schema["enum"] = list(values)
    return schema


def _union_schema(members: tuple[Any, ...]) -> JSONSchema:
    """Only ``X | None`` (``Optional[X]``) is supported: it becomes a nullable X."""
    others = [m for m in members if m is not type(None)]
    if len(others) != 1 or len(others) == len(members):
        names = " | ".join(_type_name(m) for m in members)
        raise _Unsupported(f"unsupported union {names} (only X | None is supported)")
    return make_nullable(schema_for_annotation(others[0]))


def make_nullable(schema: JSONSchema) -> JSONSchema:
    """Let ``schema`` also accept ``null``: a type list, and ``None`` added to an enum."""
    kind = schema.get("type")
    if isinstance(kind, str):
        schema["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        schema["type"] = [*kind, "null"]
    if "enum" in schema and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]
    return schema


def _list_schema(args: tuple[Any, ...]) -> JSONSchema:
    schema: JSONSchema = {"type": "array"}
    if args and args[0] is not Any:
        schema["items"] = schema_for_annotation(args[0])
    return schema


def _dict_schema(args: tuple[Any, ...]) -> JSONSchema:
    schema: JSONSchema = {"type": "object"}
    if not args:
        return schema
    key, value = args
    if key is not str:
        raise _Unsupported(f"unsupported dict key type {_type_name(key)} (JSON keys are str)")
    if value is not Any:
        schema["additionalProperties"] = schema_for_annotation(value)
    return schema


def _apply_extra(schema: JSONSchema, extra: Any) -> None:
    """Apply one piece of ``Annotated`` metadata: a description string or a ``Param``."""
    if isinstance(extra, str):
        schema["description"] = extra
    elif isinstance(extra, Param):
        if extra.description:
            schema["description"] = extra.description
        _apply_bounds(schema, extra)


def _apply_bounds(schema: JSONSchema, param: Param) -> None:
    """Translate ``Param`` bounds into the keywords that fit the parameter's type."""
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind}
    if param.ge is not None or param.le is not None:
        if not kinds & {"integer", "number"}:
            raise _Unsupported("Param(ge=..., le=...) needs an int or float parameter")
        if param.ge is not None:
            schema["minimum"] = param.ge
        if param.le is not None:
            schema["maximum"] = param.le
    if param.min_length is not None or param.max_length is not None:
        if "string" in kinds:
            low, high = "minLength", "maxLength"
        elif "array" in kinds:
            low, high = "minItems", "maxItems"
        else:
            raise _Unsupported("Param(min_length=..., max_length=...) needs a str or list")
        if param.min_length is not None:
            schema[low] = param.min_length
        if param.max_length is not None:
            schema[high] = param.max_length


def _type_name(annotation: Any) -> str:
    """A readable name for an annotation in error messages."""
    if isinstance(annotation, type) and get_origin(annotation) is None:
        return annotation.__name__
    return repr(annotation).replace("typing.", "")


def _json_default(value: Any) -> tuple[bool, Any]:
    """Whether a default can be shown in the schema, and its JSON form."""
    if value is None or isinstance(value, bool | int | float | str):
        return True, value
    if isinstance(value, list | tuple):
        items = [_json_default(v) for v in value]
        return all(ok for ok, _ in items), [v for _, v in items]
    return False, None


def build_parameters(func: Callable[..., Any], tool_name: str) -> JSONSchema:
    """The ``parameters`` object schema for ``func``, as the OpenAI tools format wants it.

    Raises ``TypeError`` naming the tool and parameter when something cannot be
    expressed, so the author sees the problem when the file loads, not mid-conversation.
    """
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception as exc:
        raise TypeError(f"tool {tool_name!r}: cannot resolve type hints: {exc}") from exc
    _, arg_docs = parse_docstring(func.__doc__)
    properties: dict[str, JSONSchema] = {}
    required: list[str] = []
    for param in inspect.signature(func).parameters.values():
        properties[param.name] = _parameter_schema(param, hints, arg_docs, tool_name)
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
    schema: JSONSchema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def _parameter_schema(
    param: inspect.Parameter, hints: dict[str, Any], arg_docs: dict[str, str], tool_name: str
) -> JSONSchema:
    """The schema of one parameter, with its description and default."""
    where = f"tool {tool_name!r}, parameter {param.name!r}"
    if param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
        raise TypeError(f"{where}: *args, **kwargs and positional-only are not supported")
    if param.name not in hints:
        raise TypeError(f"{where}: needs a type annotation (e.g. str, int, list[str])")
    try:
        schema = schema_for_annotation(hints[param.name])
    except _Unsupported as exc:
        raise TypeError(f"{where}: {exc}") from None
    if "description" not in schema and param.name in arg_docs:
        schema["description"] = arg_docs[param.name]
    if param.default is not inspect.Parameter.empty:
        if param.default is None:
            make_nullable(schema)
        shown, value = _json_default(param.default)
        if shown:
            schema["default"] = value
    return schema
