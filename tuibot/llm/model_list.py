"""The models a provider serves, read defensively, and whether a model name is among them.

A server's model list is untrusted input like everything else a server sends: it may be
down, send something that is not a list, list nothing, or list ids with terminal escapes
in them. Every front end (the app's picker, ``/model``, ``tuibot ask --model``) reads it
through :func:`served_models`, so each failure is one :class:`ModelError` with a message
fit for one line, and the same name rules apply everywhere (:func:`check_model_name`).
"""

from __future__ import annotations

import asyncio
import unicodedata
from typing import TYPE_CHECKING

from tuibot.llm.errors import ModelError

if TYPE_CHECKING:
    from tuibot.llm.parts import ModelClient

LIST_TIMEOUT_S = 5.0
"""How long a model listing may take before the server counts as not answering."""
MAX_NAME = 200
"""The longest model name accepted (real ones are well under 100 characters)."""


def bad_name(name: object) -> str | None:
    """Why ``name`` cannot be a model name, or None when it can.

    Control and format characters (escapes, bidi overrides, zero-width) would act on the
    terminal or hide what the name says in the status bar; whitespace cannot be in an id.
    """
    if not isinstance(name, str) or not name:
        return "it is empty"
    if len(name) > MAX_NAME:
        return f"it is longer than {MAX_NAME} characters"
    for char in name:
        if char.isspace():
            return "it has whitespace in it"
        if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn"):
            return f"it has the control character U+{ord(char):04X} in it"
    return None


def check_model_name(name: str) -> str:
    """``name`` stripped, or ValueError saying why it is no model name."""
    name = name.strip()
    problem = bad_name(name)
    if problem is not None:
        raise ValueError(f"{ascii(name)[:60]} is not a model name: {problem}")
    return name


async def served_models(client: ModelClient, where: str) -> list[str]:
    """The ids the server lists, sorted, each a valid name; ModelError on any failure.

    Ids that are no valid name are dropped; a list with nothing usable (empty, or only
    such ids) is an error, since no chat could switch to anything on it.
    """
    try:
        async with asyncio.timeout(LIST_TIMEOUT_S):
            raw = await client.list_models()
    except ModelError:
        raise
    except TimeoutError:
        raise ModelError(
            f"The model server at {where} did not list its models in time.", "timeout"
        ) from None
    except Exception as error:  # a list the SDK could not read: missing ids, wrong shapes
        raise ModelError(
            f"The model server at {where} sent a model list tuibot cannot read "
            f"({type(error).__name__}).",
            "protocol",
        ) from error
    if not isinstance(raw, list):
        raise ModelError(
            f"The model server at {where} sent a model list tuibot cannot read.", "protocol"
        )
    names = sorted({name for name in raw if bad_name(name) is None})
    if not names:
        shown = "lists no models" if not raw else "lists no model with a usable name"
        raise ModelError(f"The model server at {where} {shown}.", "protocol")
    return names


def is_served(model: str, served: list[str]) -> bool:
    """Whether a request for ``model`` reaches a model on a server listing ``served``.

    Listed exactly, or by an Ollama name without its tag (``llama3`` for
    ``llama3:latest``). llama.cpp (and llama-cpp-python) list the one model they loaded,
    under its file name or alias, and answer requests for any name with it; so a
    single listed name without a tag serves every name. Ollama names carry a tag and
    refuse other names, so a single tagged name does not.
    """
    if model in served or any(name.split(":")[0] == model for name in served):
        return True
    return len(served) == 1 and ":" not in served[0]
