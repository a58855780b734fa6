"""Running turns: one at a time per chat, input waiting in the chat's inbox meanwhile.

Everything that decides *when* a chat's turn runs lives here: the per-chat state (lock,
inbox, running task, handles), the lock across processes, cancellation before and
during a turn, notes that must go in between turns, and finishing a turn (event,
trace, consolidation, delegation bookkeeping). *What* a turn sends is built by
:mod:`tuibot.engine.prepare`.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from tuibot.agent.loop import Turn, run_turn
from tuibot.attachments import AttachmentError
from tuibot.engine.prepare import TurnBuilder, redacted
from tuibot.events import CommandOutput, Notice, TurnFinished
from tuibot.settings import ConfigError
from tuibot.store.chat_lock import ChatInUse
from tuibot.store.chat_message import ChatMessage
from tuibot.store.chats import ChatNotFound
from tuibot.store.jsonl import StorageError

if TYPE_CHECKING:
    from tuibot.engine.prepare import TurnHost

log = logging.getLogger("tuibot.engine")

Outcome = TurnFinished | CommandOutput


class Cancellable(Protocol):
    """What a runner hands back: an asyncio Task, or a worker handle with ``cancel()``,
    ``wait()`` and ``add_done_callback()`` (see ``tuibot.tui.runner``)."""

    def cancel(self) -> Any:
        """Stop the work."""
        ...


Runner = Callable[[Coroutine[Any, Any, None], str, str], Cancellable]
"""(coroutine, group, description) -> a handle that can cancel it."""

Spawn = Callable[[Coroutine[Any, Any, Any], str], "asyncio.Task[Any]"]
"""(coroutine, name) -> a background task the engine cancels on close."""


async def ended(handle: Cancellable) -> None:
    """Wait for a cancelled handle to finish: an asyncio Task, or one with ``wait()``."""
    if isinstance(handle, asyncio.Task):
        await handle
    elif callable(wait := getattr(handle, "wait", None)):
        await wait()


@dataclass
class ChatState:
    """What the engine tracks for a chat while it runs."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    inbox: list[str] = field(default_factory=list)
    """Inputs waiting for the running turn to end, in order."""
    running: asyncio.Task[Any] | None = None
    """The task running the chat's current turn."""
    handles: set[Any] = field(default_factory=set)
    """Every started turn of the chat, running or waiting, so closing stops them all."""


class TurnRunner:
    """Queues each chat's input and runs its turns one after another."""

    def __init__(self, host: TurnHost, runner: Runner, spawn: Spawn) -> None:
        self._host = host
        self._runner = runner
        self._spawn = spawn
        self._states: dict[str, ChatState] = {}
        self.builder = TurnBuilder(host)

    def state(self, chat: str) -> ChatState:
        """The chat's state, made on first use (its lock also guards ``/compact``)."""
        return self._states.setdefault(chat, ChatState())

    def post(self, chat: str, text: str, *, notice: bool = False) -> asyncio.Future[Outcome]:
        """Put input into the chat's inbox now (no await, so no gap in ``busy``)."""
        future: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        state = self.state(chat)
        state.inbox.append(text)
        coro = self._turn(chat, state, text, future, notice)
        handle = self._runner(coro, chat, f"turn: {text[:40]}")
        state.handles.add(handle)
        on_done = getattr(handle, "add_done_callback", None)
        if on_done is not None:  # a task cancelled before it ran never enters _turn
            on_done(lambda _: self._abandon(chat, state, text, future))
        future.add_done_callback(lambda _: state.handles.discard(handle))
        return future

    def queued(self, chat: str) -> list[str]:
        """Inputs of a chat still waiting for their turn."""
        state = self._states.get(chat)
        return list(state.inbox) if state else []

    def interrupt(self, chat: str) -> bool:
        """Cancel the chat's running turn; whether one was running."""
        state = self._states.get(chat)
        if state is None or state.running is None:
            return False
        state.running.cancel()
        return True

    def busy(self, chat: str) -> bool:
        """Whether the chat has a turn running or input waiting for one."""
        state = self._states.get(chat)
        return state is not None and (
            state.running is not None or bool(state.inbox) or state.lock.locked()
        )

    async def stop_chat(self, chat: str) -> None:
        """Cancel the chat's running and queued turns and wait until they have stopped."""
        state = self._states.get(chat)
        if state is None:
            return
        handles = list(state.handles)
        for handle in handles:
            handle.cancel()
        current = asyncio.current_task()  # a turn stopping its own chat must not wait on itself
        others = [h for h in handles if current not in (h, getattr(h, "task", None))]
        await asyncio.gather(*(ended(handle) for handle in others), return_exceptions=True)

    async def stop_all(self) -> None:
        """Cancel every chat's turns and let them store their partial answers."""
        handles = [handle for state in self._states.values() for handle in state.handles]
        for handle in handles:
            handle.cancel()
        await asyncio.gather(*(ended(handle) for handle in handles), return_exceptions=True)

    def note_in_history(self, chat: str, text: str) -> None:
        """Put a notice into a chat's history between turns: now when free, else later."""
        message: ChatMessage = {"role": "user", "content": text, "notice": True}
        state = self._states.get(chat)
        if state is None or not state.lock.locked():
            with self._host.chat_locks.hold_if_free(chat) as free:
                if free:
                    self._host.chats.append(chat, [message])
                    return
        self._spawn(self._note_between_turns(chat, message), f"{chat}: late notice")

    async def _note_between_turns(self, chat: str, message: ChatMessage) -> None:
        """Append ``message`` once the running turn (here or elsewhere) has ended."""
        state = self.state(chat)
        try:
            async with state.lock, self._host.chat_locks.hold(chat):
                self._host.chats.append(chat, [message])
        except (ChatInUse, ChatNotFound, StorageError) as error:
            self._host.events.publish(
                Notice(chat, "warning", f"a late notice was not stored: {error}")
            )

    # -- one turn --------------------------------------------------------------------

    async def _turn(
        self,
        chat: str,
        state: ChatState,
        text: str,
        future: asyncio.Future[Outcome],
        notice: bool = False,
    ) -> None:
        """Run one input's turn under the chat's lock and resolve its future."""
        try:
            await state.lock.acquire()
        except asyncio.CancelledError:
            self._abandon(chat, state, text, future)
            raise
        state.inbox.remove(text)
        state.running = asyncio.current_task()  # an interrupt also ends a wait for the chat
        try:
            async with self._host.chat_locks.hold(chat):  # and across processes
                await self._locked_turn(chat, state, text, future, notice)
        except ChatInUse as error:
            failed = self._failure(chat, "", str(error), "busy")
            self._finish(failed, None, text, time.time(), future)
        except asyncio.CancelledError:  # while waiting for another process: never started
            self._abandon(chat, state, text, future)
            raise
        finally:
            state.running = None
            state.lock.release()
            if not future.done():  # never leave a caller waiting, whatever happened
                future.set_exception(RuntimeError("the turn ended without a result"))

    def _abandon(
        self, chat: str, state: ChatState, text: str, future: asyncio.Future[Outcome]
    ) -> None:
        """Settle an input whose turn was cancelled before it began (queued, or unstarted)."""
        if future.done():
            return
        if text in state.inbox:
            state.inbox.remove(text)
        future.set_result(
            TurnFinished(chat, "", "cancelled", "", error="Cancelled before the turn started.")
        )

    async def _locked_turn(
        self,
        chat: str,
        state: ChatState,
        text: str,
        future: asyncio.Future[Outcome],
        notice: bool = False,
    ) -> None:
        """The turn itself; the caller holds the chat's lock."""
        state.running = asyncio.current_task()
        turn_id = f"t_{uuid.uuid4().hex[:10]}"
        started = time.time()
        turn: Turn | None = None
        try:
            turn = await self.prepare(chat, turn_id, text, notice)
            result = await run_turn(turn)
        except asyncio.CancelledError:
            text_so_far = turn.answer + turn.partial if turn else ""
            result = TurnFinished(
                chat,
                turn_id,
                "cancelled",
                text_so_far,
                error="Interrupted.",
                rounds=turn.rounds if turn else 0,
            )
            self._finish(result, turn, text, started, future)
            raise
        except ConfigError as error:
            result = self._failure(chat, turn_id, str(error), "config")
        except AttachmentError as error:  # nothing was stored: the input can be sent again
            result = self._failure(chat, turn_id, str(error), "attachment")
        except StorageError as error:
            result = self._failure(chat, turn_id, str(error), None)
        except Exception as error:  # a bug must not kill the engine: log, tell, go on
            log.exception("turn %s of chat %s failed", turn_id, chat)
            result = self._failure(chat, turn_id, f"Internal error: {error}", None)
        finally:
            state.running = None
        self._finish(result, turn, text, started, future)

    async def prepare(self, chat: str, turn_id: str, text: str, notice: bool = False) -> Turn:
        """Load the chat, make the user's message durable, pick the bot, bind the model."""
        return await self.builder.prepare(chat, turn_id, text, notice)

    def _failure(self, chat: str, turn_id: str, message: str, kind: str | None) -> TurnFinished:
        """A turn that could not run, as a notice and a result."""
        self._host.events.publish(Notice(chat, "error", message))
        return TurnFinished(chat, turn_id, "failed", "", error=message, error_kind=kind)

    def _finish(
        self,
        result: TurnFinished,
        turn: Turn | None,
        text: str,
        started: float,
        future: asyncio.Future[Outcome],
    ) -> None:
        """Publish the result, write the trace, resolve the caller's future."""
        host = self._host
        host.events.publish(result)
        record = {
            "type": "turn",
            "chat": result.chat,
            "turn": result.turn,
            "started": started,
            "finished": time.time(),
            "status": result.status,
            "input": text,
            "reply": result.text,
            "usage": result.usage.as_dict(),
            "error": result.error,
            **(turn.trace if turn else {}),
        }
        host.traces.write(redacted(record))
        if result.status == "completed" and turn is not None:
            offset = turn.context.offset if turn.context else 0
            host.memory.maybe_consolidate(result.chat, turn.bot, offset + len(turn.history))
        host.delegations.turn_finished(result)
        if not future.done():
            future.set_result(result)
