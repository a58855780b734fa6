"""Provider failures as one exception with a friendly message and a kind.

The kind decides what a front end does: ``unreachable`` and ``rejected`` make ``ask``
exit with 3; ``interrupted`` means the stream broke after it had started.
"""

from __future__ import annotations

from typing import Literal

ErrorKind = Literal["unreachable", "rejected", "timeout", "interrupted", "protocol"]


class ModelError(Exception):
    """A model call failed; ``str(error)`` is fit to show a person."""

    def __init__(
        self, message: str, kind: ErrorKind, status: int | None = None, empty: bool = False
    ) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.status = status
        self.empty = empty
        """The server took the request, then closed the stream before any answer (what
        llama-cpp-python does with a prompt over its window)."""


def describe_status(status: int, detail: str, where: str) -> str:
    """A one-line explanation of an HTTP error status from a model server."""
    detail = detail.strip()[:300]
    if status in (401, 403):
        why = "rejected the credentials (check `tuibot keys list` or the provider's env var)"
    elif status == 404:
        why = "does not know this model or endpoint (check the model name and base_url)"
    elif status == 429:
        why = "is rate limiting requests; try again later"
    elif status >= 500:
        why = f"had an internal error ({status})"
    else:
        why = f"rejected the request ({status})"
    return f"The model server at {where} {why}" + (f": {detail}" if detail else ".")


def unreachable(where: str) -> str:
    """What to say when nothing answers at the server's address (every client says it)."""
    return (
        f"Cannot reach the model server at {where}. Is it running? "
        "(Set the address with --base-url or providers.<name>.base_url.)"
    )


def from_openai_error(error: BaseException, where: str, started: bool) -> ModelError:
    """Map an ``openai`` (or litellm, which subclasses them) exception to a ModelError."""
    import openai

    if isinstance(error, openai.APITimeoutError):
        kind: ErrorKind = "interrupted" if started else "timeout"
        return ModelError(
            f"The model server at {where} went silent and the request timed out.", kind
        )
    if started:  # whatever broke — connection, garbage, litellm's mid-stream error
        broken = isinstance(error, openai.APIConnectionError) or not isinstance(
            error, openai.APIError
        )
        detail = "" if broken else _error_detail(error)
        if detail:
            return ModelError(
                f"The model server at {where} stopped mid-answer: {detail}", "interrupted"
            )
        return ModelError(f"The connection to {where} broke mid-answer.", "interrupted")
    if isinstance(error, openai.APIConnectionError):
        return ModelError(unreachable(where), "unreachable")
    if isinstance(error, openai.APIStatusError):
        detail = _error_detail(error)
        return ModelError(
            describe_status(error.status_code, detail, where), "rejected", error.status_code
        )
    if isinstance(error, openai.APIResponseValidationError | ValueError):
        return ModelError(
            f"The model server at {where} sent an answer tuibot cannot read.", "protocol"
        )
    return ModelError(
        f"The model call to {where} failed: {type(error).__name__}: {error}",
        "protocol",
    )


def _error_detail(error: BaseException) -> str:
    """The server's own error message, when it sent one."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    message = getattr(error, "message", "")
    return str(message) if message else ""
