"""The ``@tool`` decorator and the ``ToolSpec`` it attaches to a function.

A tool is a plain function; decorating it only adds ``fn.__tool_meta__`` (a frozen
``ToolSpec``), so the function stays callable and testable as before. The loader finds
tools by that attribute, and the registry runs them from the spec alone.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

from tuibot.toolkit.gating import normalize_names, unavailable_reason
from tuibot.toolkit.schema import JSONSchema, build_parameters, parse_docstring

if TYPE_CHECKING:
    from tuibot.approvals.permissions import Permission

F = TypeVar("F", bound=Callable[..., Any])
ConfirmRule = bool | str | Callable[[dict[str, Any]], "bool | str | Permission | None"]
"""When a call needs a human's approval: always, never, or decided from its arguments
(a function may return a :class:`~tuibot.approvals.permissions.Permission` saying exactly what is
asked and what an "always" answer covers)."""

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""What OpenAI-compatible servers accept as a function name."""


@dataclass(frozen=True)
class ToolSpec:
    """Everything the registry needs to show a tool to the model and to run it."""

    name: str
    """The name the model calls (and ``/name`` runs directly)."""
    description: str
    """What the model reads to decide when to call the tool."""
    parameters: JSONSchema
    """JSON schema of the arguments (an ``object`` with ``additionalProperties: false``)."""
    func: Callable[..., Any]
    """The decorated function, called with the validated arguments as keywords."""
    confirm: ConfirmRule = False
    """Ask the human before running: ``True``, the question to show, or a function of the
    arguments returning either (so a write tool can ask only for protected paths)."""
    timeout: float | None = None
    """Seconds before the run is abandoned with an error result; ``None`` waits."""
    is_async: bool = False
    """Awaited on the event loop when true; otherwise run in a worker thread."""
    source: str = ""
    """Where the tool came from (``"bundled"``, ``"user"``…); set by the loader."""
    path: Path | None = None
    """The file that defined it; set by the loader."""
    platforms: tuple[str, ...] = ()
    """``sys.platform`` prefixes it runs on (``"linux"``, ``"darwin"``…); empty = all."""
    requires: tuple[str, ...] = ()
    """Programs that must be on ``PATH`` for it to run (``"nvidia-smi"``)."""
    availability: Callable[[], str | None] | None = None
    """Asked before every call: why the tool cannot run right now (its MCP server has
    failed), or None; the tool stays listed and refuses in one line meanwhile."""

    def unavailable_reason(self) -> str | None:
        """Why this tool cannot run on this machine now, or None when it can."""
        if self.availability is not None and (reason := self.availability()) is not None:
            return reason
        return unavailable_reason(self.platforms, self.requires)

    @property
    def needs_confirmation(self) -> bool:
        """Whether some calls may need a human's approval (a rule counts as yes)."""
        return bool(self.confirm)

    def confirmation_prompt(self, arguments: dict[str, Any]) -> str | None:
        """The question to ask before this call, or None when it may run unasked."""
        permission = self.permission(arguments)
        if permission is None:
            return None
        if permission.kind == "tool" or permission.subject in permission.question:
            return permission.question
        return f"{permission.question}\n  {permission.subject}\n"

    def permission(self, arguments: dict[str, Any]) -> Permission | None:
        """What this call asks a person for, or None when it may run unasked.

        A plain ``True`` or message asks with the tool-wide key ``tool:NAME``; a request
        hiding characters anywhere in its arguments can only be allowed once.
        """
        from tuibot.approvals.permissions import Permission

        try:
            rule = self.confirm(arguments) if callable(self.confirm) else self.confirm
        except Exception:  # a broken rule must fail safe: ask, and keep no grant
            return Permission(
                "tool",
                f"Run {self.name}? (its confirmation rule failed)",
                self.name,
                None,
                why_once="its confirmation rule failed",
            ).checked(arguments)
        if not rule:
            return None
        if isinstance(rule, Permission):
            return rule.checked(arguments)
        question = rule if isinstance(rule, str) else f"Run {self.name}?"
        return Permission(
            "tool", question, self.name, f"tool:{self.name}", f"every call of {self.name}"
        ).checked(arguments)


@overload
def tool(func: F, /) -> F: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    confirm: ConfirmRule = False,
    timeout: float | None = None,
    platforms: Iterable[str] | None = None,
    requires: Iterable[str] | None = None,
) -> Callable[[F], F]: ...


def tool(
    func: F | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    confirm: ConfirmRule = False,
    timeout: float | None = None,
    platforms: Iterable[str] | None = None,
    requires: Iterable[str] | None = None,
) -> F | Callable[[F], F]:
    """Mark a function as a tool: ``@tool`` or ``@tool(name=..., confirm=True, timeout=30)``.

    The schema comes from the type hints, the description from the docstring's first
    paragraph, parameter descriptions from ``Annotated`` or the docstring's ``Args:``.
    ``platforms``/``requires`` gate it (see ``gating``): it stays listed but refuses to run
    where they are not met. Mistakes (an unsupported annotation, a bad name) raise
    ``TypeError``/``ValueError`` here, when the tool file loads.
    """
    _check_options(confirm, timeout)
    gates = {
        "platforms": normalize_names(platforms, "platforms"),
        "requires": normalize_names(requires, "requires"),
    }

    def decorate(fn: F) -> F:
        fn.__tool_meta__ = make_spec(  # type: ignore[attr-defined]
            fn, name=name, description=description, confirm=confirm, timeout=timeout, **gates
        )
        return fn

    if func is not None:
        return decorate(func)
    return decorate


def make_spec(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    confirm: ConfirmRule = False,
    timeout: float | None = None,
    platforms: tuple[str, ...] = (),
    requires: tuple[str, ...] = (),
) -> ToolSpec:
    """Build the ``ToolSpec`` for ``fn`` without attaching it (the decorator's core)."""
    if not callable(fn) or isinstance(fn, type):
        raise TypeError(f"@tool decorates functions, got {fn!r}")
    tool_name = name if name is not None else getattr(fn, "__name__", "")
    if not _NAME.match(tool_name):
        raise ValueError(
            f"tool name {tool_name!r} is invalid: use 1-64 letters, digits, '_' or '-'"
        )
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise TypeError(f"tool {tool_name!r}: generators are not supported; return a value")
    summary, _ = parse_docstring(fn.__doc__)
    return ToolSpec(
        name=tool_name,
        description=description if description is not None else summary,
        parameters=build_parameters(fn, tool_name),
        func=fn,
        confirm=confirm,
        timeout=float(timeout) if timeout is not None else None,
        is_async=inspect.iscoroutinefunction(fn),
        platforms=platforms,
        requires=requires,
    )


def _check_options(confirm: object, timeout: object) -> None:
    """Reject option values that would only fail later, at call time."""
    if callable(confirm):
        return _check_timeout(timeout)
    if not isinstance(confirm, bool | str) or confirm == "":
        raise TypeError("@tool(confirm=...) takes True, False, a non-empty message or a function")
    _check_timeout(timeout)


def _check_timeout(timeout: object) -> None:
    """A timeout is a positive number of seconds, or None."""
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        raise ValueError(
            f"@tool(timeout=...) must be a positive number of seconds, got {timeout!r}"
        )
