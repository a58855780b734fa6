"""``CLITool``: a tool made from a command template such as ``"ping -c 3 {host}"``.

The template is split with ``shlex`` once, when the tool is defined, so the argv shape is
fixed before any model-supplied value exists: a value is substituted *inside* one argv
element and can never add an argument, a pipe or a redirection, because nothing goes
through a shell. A value starting with ``-`` is refused where it would stand alone as an
argument (option injection, e.g. ``{host}`` = ``--help`` or ``-oProxyCommand=...``),
unless the parameter is declared in ``allow_options``. The process runs in its own
session so a timeout kills the whole group, not just the direct child.
"""

from __future__ import annotations

import os
import shlex
import signal
import string
import subprocess
from collections.abc import Collection, Iterable
from typing import Any

from tuibot.toolkit.decorator import _NAME, ToolSpec, _check_options
from tuibot.toolkit.gating import normalize_names
from tuibot.toolkit.workspace import current_workspace

OUTPUT_LIMIT = 50_000
"""Characters of output the model sees; the tail is kept (errors and summaries come last)."""

Piece = tuple[str, str | None]
"""One part of an argv element: literal text, then a placeholder name or None."""


class CLITool:
    """A command-template tool; a module-level instance in a tool file is picked up."""

    def __init__(
        self,
        name: str,
        template: str,
        *,
        description: str | None = None,
        params: dict[str, str] | None = None,
        allow_options: Collection[str] = (),
        timeout: float = 30,
        confirm: bool | str = False,
        platforms: Iterable[str] | None = None,
        requires: Iterable[str] | None = None,
    ) -> None:
        _check_options(confirm, timeout)
        self.template = template
        """The command as written."""
        self.argv = _split(name, template)
        """Each argv element as literal pieces and placeholders, fixed at definition."""
        self.placeholders = _placeholders(self.argv)
        """The names used in the template, in order of first use."""
        self.params = _check_params(name, params, self.placeholders)
        """Parameter name -> description shown to the model."""
        self.allow_options = frozenset(allow_options)
        """Parameters that may take a leading ``-`` even where they stand alone."""
        unknown = self.allow_options - set(self.placeholders)
        if unknown:
            raise ValueError(f"CLITool {name!r}: allow_options names unknown {sorted(unknown)}")
        self.timeout = float(timeout)
        """Seconds before the process group is killed."""
        self.__tool_meta__ = self._spec(name, description, confirm, platforms, requires)

    def _spec(
        self,
        name: str,
        description: str | None,
        confirm: bool | str,
        platforms: Iterable[str] | None,
        requires: Iterable[str] | None,
    ) -> ToolSpec:
        """The registry's view: a string parameter per placeholder, all required."""
        if not _NAME.match(name):
            raise ValueError(f"tool name {name!r} is invalid: use 1-64 letters, digits, '_' or '-'")
        properties = {p: {"type": "string", "description": d} for p, d in self.params.items()}
        return ToolSpec(
            name=name,
            description=description or f"Run `{self.template}`.",
            parameters={
                "type": "object",
                "properties": properties,
                "required": list(self.params),
                "additionalProperties": False,
            },
            func=self.run,
            confirm=self._confirm_rule if confirm is True else confirm,
            # only a backstop: our own timeout kills the process group first
            timeout=self.timeout + 5,
            platforms=normalize_names(platforms, "platforms"),
            requires=normalize_names(requires, "requires"),
        )

    def _confirm_rule(self, arguments: dict[str, Any]) -> str:
        """Show the exact command that will run."""
        return f"Run `{self.command_line(arguments)}`?"

    def build_argv(self, values: dict[str, Any]) -> list[str]:
        """The argv for ``values``; ``ValueError`` for a missing, NUL or option-like value."""
        argv: list[str] = []
        for element in self.argv:
            parts: list[str] = []
            for literal, field in element:
                parts.append(literal)
                if field is None:
                    continue
                value = values.get(field)
                if not isinstance(value, str):
                    raise ValueError(f"missing value for {{{field}}}")
                if "\0" in value:
                    raise ValueError(f"{field} contains a NUL byte")
                alone = len(element) == 1 and literal == ""
                if alone and value.startswith("-") and field not in self.allow_options:
                    raise ValueError(
                        f"{field} may not start with '-' (it would be read as an option)"
                    )
                parts.append(value)
            argv.append("".join(parts))
        return argv

    def command_line(self, values: dict[str, Any]) -> str:
        """The command as a human would type it, for confirmation prompts."""
        try:
            return shlex.join(self.build_argv(values))
        except ValueError:
            return self.template

    def run(self, **values: Any) -> str:
        """Run the command in the workspace; output (stdout+stderr) tail-capped."""
        try:
            argv = self.build_argv(values)
        except ValueError as exc:
            return f"Error: {exc}"
        return run_argv(argv, self.timeout)

    def __call__(self, **values: Any) -> str:
        return self.run(**values)


def run_argv(argv: list[str], timeout: float) -> str:
    """Run ``argv`` (no shell) in its own session; kill the group on timeout."""
    try:
        proc = subprocess.Popen(
            argv,
            cwd=current_workspace(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=os.name == "posix",
        )
    except OSError as exc:
        return f"Error: cannot run {argv[0]}: {exc.strerror or exc}"
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, _ = proc.communicate()
        return f"Error: {argv[0]} timed out after {timeout:g} s\n{_tail(out)}".rstrip()
    text = _tail(out)
    if proc.returncode != 0:
        return f"Error: {argv[0]} exited with code {proc.returncode}\n{text}".rstrip()
    return text


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the process and everything it started (same session/group)."""
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass


def _tail(data: bytes | None) -> str:
    """Decoded output, keeping the last ``OUTPUT_LIMIT`` characters."""
    text = (data or b"").decode("utf-8", errors="replace")
    if len(text) <= OUTPUT_LIMIT:
        return text
    dropped = len(text) - OUTPUT_LIMIT
    return f"[... {dropped} characters cut ...]\n{text[-OUTPUT_LIMIT:]}"


def _split(name: str, template: str) -> list[list[Piece]]:
    """``template`` as argv elements, each parsed into literal/placeholder pieces."""
    try:
        words = shlex.split(template)
    except ValueError as exc:
        raise ValueError(f"CLITool {name!r}: bad template: {exc}") from exc
    if not words:
        raise ValueError(f"CLITool {name!r}: the template is empty")
    argv = [_parse_word(name, word) for word in words]
    if any(field is not None for _, field in argv[0]):
        raise ValueError(f"CLITool {name!r}: the program itself cannot be a placeholder")
    return argv


def _parse_word(name: str, word: str) -> list[Piece]:
    """One argv element split into pieces; only plain ``{identifier}`` placeholders."""
    try:
        parsed = list(string.Formatter().parse(word))
    except ValueError as exc:
        raise ValueError(f"CLITool {name!r}: bad placeholder in {word!r}: {exc}") from exc
    pieces: list[Piece] = []
    for literal, field, spec, conversion in parsed:
        if field is not None and (not field.isidentifier() or spec or conversion):
            raise ValueError(
                f"CLITool {name!r}: placeholder {{{field}}} in {word!r} must be a plain name"
                " inside one argument"
            )
        pieces.append((literal, field))
    return pieces


def _placeholders(argv: list[list[Piece]]) -> list[str]:
    names: list[str] = []
    for element in argv:
        for _, field in element:
            if field is not None and field not in names:
                names.append(field)
    return names


def _check_params(
    name: str, params: dict[str, str] | None, placeholders: list[str]
) -> dict[str, str]:
    """Descriptions per placeholder; declared params must match the template exactly."""
    if params is None:
        return {p: f"value for {{{p}}}" for p in placeholders}
    if set(params) != set(placeholders):
        raise ValueError(
            f"CLITool {name!r}: params {sorted(params)} do not match the template's"
            f" placeholders {placeholders}"
        )
    return {p: str(params[p]) for p in placeholders}
