"""``tuibot ask``: one turn from a shell, for scripts and pipes.

The answer streams to stdout; status (tool calls, notices) goes to stderr, so
``tuibot ask … > answer.md`` captures only the answer. ``--json`` writes one JSON
object per line instead. When the bot delegates, ``ask`` waits until its chat has no
open work — the results come back as notices, each starting a turn, and the answer
that follows them is printed too — bounded by ``--max-time``, ``--max-steps`` and
``--max-usd``. Known secrets (API keys) are masked in everything printed, as in the
stored chat (see :mod:`tuibot.system.masking`). Exit codes: 0 answered, 1 the turn failed, 2
usage or config error, 3 the model server is unreachable or rejected the request, 4 the
work stopped at a limit or on a decision ``ask`` could not get, 130 interrupted. A chat
another tuibot is using is waited for (``--wait``, saying so on stderr), then exit 2.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from tuibot.approvals import Decision, Scope
from tuibot.approvals.request_text import answer_choices, chosen_grant, request_lines
from tuibot.delegation.tree_limits import RootLimits
from tuibot.engine import Engine, Outcome
from tuibot.events import (
    ApprovalRequested,
    ChatWaiting,
    CommandOutput,
    Event,
    TurnFinished,
)
from tuibot.frontends.ask_print import JsonPrinter, Printer, json_record
from tuibot.model_choice import ChoiceError, checked
from tuibot.slash import is_command
from tuibot.system.masking import Masked, mask_event
from tuibot.toolkit.threads import run_in_daemon_thread

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_MODEL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_STOPPED = 4
"""The work stopped at a limit, or on a human decision ``ask`` could not get."""
LIMIT_KINDS = ("delegations.continue", "delegations.tree_limit")
"""Requests to go past a limit: ``--yes`` alone does not allow them."""
__all__ = ["AskOptions", "JsonPrinter", "Printer", "json_record", "run_ask"]
"""The printers live in :mod:`tuibot.frontends.ask_print`; their old import path keeps working."""


@dataclass(frozen=True)
class AskOptions:
    """What the command line asked for."""

    prompt: str
    chat: str | None = None
    resume: bool = False
    """Continue the most recent direct chat (``-c``)."""
    bot: str | None = None
    """Pin the new chat to this bot."""
    json: bool = False
    yes: bool = False
    continue_at_limits: bool = False
    """With ``yes``: also allow delegated work to go past its limits."""
    max_time: float = 1800.0
    """Seconds for the whole ask, delegated work included."""
    max_steps: int = 100
    """Model calls of the ask's chat and all work below it."""
    max_micros: int = 5_000_000
    """Cost of the ask's chat and all work below it, in micro-USD."""
    wait: float = 300.0
    """Seconds to wait for a chat another process is using, before exit 2."""
    model: str | None = None
    """``--model``: switch the chat to it (checked, kept with the chat, like ``/model``)."""
    provider: str | None = None
    """``--provider``: likewise for the provider."""


def build_prompt(argument: str | None, stdin: TextIO) -> str:
    """The prompt from the argument and piped stdin (appended to it as context)."""
    # Bytes, decoded leniently: a stray Latin-1 byte must not crash ask or poison the chat.
    raw = getattr(stdin, "buffer", None)
    if stdin.isatty():
        piped = ""
    elif raw is not None:
        piped = raw.read().decode("utf-8", errors="replace")
    else:
        piped = stdin.read()
    parts = [part for part in (argument or "", piped.strip("\n")) if part.strip()]
    return "\n\n".join(parts)


def with_attachments(prompt: str, files: Sequence[str]) -> str:
    """The prompt with an ``@"FILE"`` mention per ``--attach`` (read when it is sent)."""
    if not files:  # the usual ask: the attachment modules stay unimported
        return prompt
    from tuibot.attachments.mentions import mention_for

    mentions = " ".join(mention_for(path) for path in files)
    return f"{prompt}\n\n{mentions}" if prompt.strip() and mentions else prompt or mentions


def exit_code(outcome: TurnFinished | CommandOutput) -> int:
    """The process exit code for how the turn ended."""
    if isinstance(outcome, CommandOutput):
        return EXIT_OK if outcome.ok else EXIT_FAILED
    if outcome.status == "completed":
        return EXIT_OK
    if outcome.status == "cancelled":
        return EXIT_INTERRUPTED
    if outcome.error_kind in ("unreachable", "rejected"):
        return EXIT_MODEL
    if outcome.error_kind in ("config", "busy", "attachment"):
        return EXIT_USAGE
    return EXIT_FAILED


class Approver:
    """Answers requests of the ask's chat: a terminal prompt, ``--yes``, or a clear denial.

    Requests from work delegated below the chat arrive under the chat too. ``--yes``
    allows tool calls and first delegations, but not going past a limit unless
    ``--continue-at-limits`` says so. A delegation request denied for want of a person
    stops that work, so ``ask`` then exits 4; a denied tool call is only a tool result
    the bot answers.
    """

    def __init__(
        self,
        engine: Engine,
        chat: str,
        *,
        yes: bool,
        interactive: bool,
        continue_at_limits: bool = False,
    ) -> None:
        self.engine, self.chat = engine, chat
        self.yes, self.interactive = yes, interactive
        self.continue_at_limits = continue_at_limits
        self.unanswered: list[str] = []
        """Kinds of requests denied because nobody could be asked."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._terminal = asyncio.Lock()
        """One prompt at a time: two readers of stdin would take each other's answers."""

    def __call__(self, event: Event) -> None:
        if isinstance(event, ApprovalRequested) and event.chat == self.chat:
            task = asyncio.get_running_loop().create_task(self._answer(event))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _answer(self, event: ApprovalRequested) -> None:
        # Going on after a restart is not going past a limit: --yes covers it.
        past_limit = event.kind in LIMIT_KINDS and event.details.get("limit") != "restart"
        permission = event.details.get("permission") or {}
        hidden = bool(permission.get("hidden"))  # --yes never covers what nobody could see
        if self.yes and (not past_limit or self.continue_at_limits) and not hidden:
            decision = Decision(True, reason="allowed by --yes")
        elif not self.interactive:
            if hidden:
                hint = (
                    "it contains hidden characters, which --yes does not allow; only a person "
                    "can allow it once, at a terminal or in the app"
                )
            elif past_limit:
                hint = "rerun with --yes --continue-at-limits to allow"
            elif permission.get("kind") == "network" and permission.get("grantKey"):
                hint = "rerun with --yes, or list the host in tools.allowed_hosts"
            else:
                hint = "rerun with --yes to allow"
            if event.kind.startswith("delegations."):  # that work stops: exit 4
                self.unanswered.append(event.kind)
            decision = Decision(False, reason=f"not confirmed: ask is not interactive ({hint})")
        else:
            async with self._terminal:
                if not self.engine.view.is_pending(event.request_id):
                    return  # decided or withdrawn while an earlier prompt was open
                decision = await self._ask_terminal(event)
        self.engine.decide(event.request_id, decision)

    async def _ask_terminal(self, event: ApprovalRequested) -> Decision:
        """The whole request on stderr, then the answer typed at the terminal."""
        lines = request_lines(event.kind, event.summary, event.details)
        question = "tuibot: " + "\n".join(lines) + f"\n  {answer_choices(event.details)}: "
        reply = await run_in_daemon_thread(_prompt, question)
        granted = bool((event.details.get("permission") or {}).get("grantKey", True))
        if reply == "y":
            return Decision(True, reason="allowed once")
        if reply in ("c", "a") and granted:
            scope: Scope = "chat" if reply == "c" else "lifetime"
            return Decision(True, scope, reason=f"allowed {_SCOPE_WORDS[scope]}")
        if reply == "p" and granted:
            typed = await run_in_daemon_thread(_prompt, PREFIX_QUESTION, False)
            key = chosen_grant(event.details, typed)
            if key is None:
                sys.stderr.write("  not a prefix or folder that can be allowed; allowed once\n")
                return Decision(True, reason="allowed once")
            return Decision(True, "chat", reason="allowed for this chat", grant=key)
        return Decision(False, reason="denied by the user")


_SCOPE_WORDS = {"chat": "for this chat", "lifetime": "always", "once": "once"}
PREFIX_QUESTION = "  prefix or folder to allow in this chat (Enter: the first offered): "


def _prompt(question: str, letter: bool = True) -> str:
    """Ask on the terminal; end of input counts as no. ``letter``: the first letter only."""
    sys.stderr.write(question)
    sys.stderr.flush()
    try:
        line = sys.stdin.readline().strip()
    except (OSError, ValueError):
        return ""
    return line.lower()[:1] if letter else line


async def run_ask(engine: Engine, options: AskOptions, out: TextIO, err: TextIO) -> int:
    """Run one input in a chat, wait for the work it gave, report it; returns the exit code."""
    try:
        chat = await _open_chat(engine, options, err)
    except ChoiceError as error:  # a new chat's --model/--provider: refused, no chat made
        return _refused(error, err)
    root = engine.view.root_chat(chat) if chat else chat
    """The person's chat at the top: a task chat's requests are asked there."""

    def in_tree(other: str) -> bool:
        return bool(chat) and engine.view.root_chat(other) == root

    printer = JsonPrinter(chat, out, in_tree) if options.json else Printer(chat, out, err, in_tree)
    engine.events.listen(Masked(printer))  # known secrets never printed, as in the chat file
    try:
        return await _answer(engine, options, chat, root, err)
    finally:
        printer.flush()  # the text of the last tick, whatever ended the run


async def _open_chat(engine: Engine, options: AskOptions, err: TextIO) -> str:
    """The chat the input goes to: named, the latest, none for a command, or a new one.

    A new chat's ``--model``/``--provider`` is checked first and written into the header
    the chat is created with (ChoiceError when refused: then no chat is made).
    """
    if options.chat:
        chat = engine.view.resolve(options.chat)
    elif options.resume:
        chat = _latest_chat(engine)
    elif is_command(options.prompt):
        chat = ""  # commands keep no history: no empty chat file for `ask /help`
    elif options.model is None and options.provider is None:
        chat = engine.new_chat(bot=options.bot).id
    else:
        draft = engine.draft_chat(bot=options.bot)
        model, provider, _ = await checked(engine, draft, options.model, options.provider)
        chat = engine.new_chat(bot=options.bot, model=model, provider=provider).id
    if not (options.chat or options.resume or is_command(options.prompt)):
        err.write(f"tuibot: chat {chat}\n")
        err.flush()
    return chat


async def _answer(engine: Engine, options: AskOptions, chat: str, root: str, err: TextIO) -> int:
    """The run itself, once its printer listens: the turn, the work it gave, the exit code.

    The other listeners have nothing to do per token, so they skip the deltas.
    """
    existing = bool(options.chat or options.resume)
    if existing:  # a new chat was made with its choice
        refused = await _choose_model(engine, chat, options, err)
        if refused is not None:
            return refused
    engine.set_lock_wait(options.wait)
    if options.json:  # the JSON stream has the notice; a person watching stderr sees it too
        engine.events.listen(
            lambda e: _waiting_on(err, e) if e.chat == chat else None, deltas=False
        )
    approver = Approver(
        engine,
        root,
        yes=options.yes,
        interactive=sys.stdin.isatty() and err.isatty(),
        continue_at_limits=options.continue_at_limits,
    )
    engine.events.listen(lambda event: approver(mask_event(event)), deltas=False)  # printed
    last: list[TurnFinished] = []
    engine.events.listen(
        lambda event: (
            last.append(event) if isinstance(event, TurnFinished) and event.chat == chat else None
        ),
        deltas=False,
    )
    stopped: list[str] = []

    def at_limit(limit: str) -> None:
        stopped.append(limit)
        _note(engine, chat, f"ask's --max-{_FLAG[limit]} was reached; stopping all the work")
        engine.cancel(chat, delegations=True)

    if chat:
        engine.limit_tree(chat, RootLimits(options.max_steps, options.max_micros, at_limit))
    engine.load_tools(lazy_mcp=True)  # MCP servers start on their first call
    if existing and not is_command(options.prompt):
        engine.recover_delegations(chat)
    future = await engine.send(chat, options.prompt)
    try:
        async with asyncio.timeout(options.max_time):
            outcome = await asyncio.shield(future)
            if chat and isinstance(outcome, TurnFinished):
                await engine.wait_until_settled(chat)
    except TimeoutError:
        at_limit("time")
        await _wind_down(engine, chat, future)
    except asyncio.CancelledError:  # Ctrl+C: stop the turn and the work below, keep what streamed
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        engine.cancel(chat, delegations=bool(chat))
        await _wind_down(engine, chat, future)
        return EXIT_INTERRUPTED
    if stopped or approver.unanswered:
        return EXIT_STOPPED
    final = last[-1] if last else future.result()
    if chat and not existing and exit_code(final) != EXIT_OK:
        await _drop_unanswered(engine, chat, err)
    return exit_code(final)


async def _choose_model(engine: Engine, chat: str, options: AskOptions, err: TextIO) -> int | None:
    """Apply ``--model``/``--provider`` to an existing chat through the app's checked switch.

    Returns an exit code when refused (3: the server could not list its models; 2:
    otherwise).
    """
    if not chat or (options.model is None and options.provider is None):
        return None
    try:
        await engine.choose_model(chat, options.model, options.provider)
    except ChoiceError as error:
        return _refused(error, err)
    return None


def _refused(error: ChoiceError, err: TextIO) -> int:
    """Say why a model choice was refused; the exit code for it."""
    err.write(f"tuibot: {error}\n")
    return EXIT_MODEL if error.unreachable else EXIT_USAGE


def _latest_chat(engine: Engine) -> str:
    """The most recently updated direct chat, for ``-c``; ChatNotFound when there is none."""
    from tuibot.store.chats import ChatNotFound

    meta = engine.view.latest("direct")
    if meta is None:
        raise ChatNotFound("no chat to continue yet: ask without --continue to start one")
    return meta.id


async def _drop_unanswered(engine: Engine, chat: str, err: TextIO) -> None:
    """A chat this ask started whose turn failed before any answer is not kept: it would
    only fill the chat list with questions nobody answered."""
    messages = engine.view.transcript(chat).messages
    if any(message.get("role") != "user" for message in messages):
        return
    await engine.delete_chat(chat)
    err.write(f"tuibot: nothing was answered; chat {chat} not kept\n")


_FLAG = {"time": "time", "steps": "steps", "budget": "usd"}


def _waiting_on(err: TextIO, event: Event) -> None:
    """``--json``: the wait for a chat another process is using, said on stderr too."""
    if isinstance(event, ChatWaiting):
        err.write(f"tuibot: {event.message}\n")
        err.flush()


def _note(engine: Engine, chat: str, text: str) -> None:
    engine.notice(chat, "warning", text)


async def _wind_down(engine: Engine, chat: str, future: asyncio.Future[Outcome] | None) -> None:
    """After a stop, wait (briefly) for the cancelled turns and work to settle."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(10):
            if future is not None:
                await asyncio.shield(future)
            if chat:
                await engine.wait_until_settled(chat)
