"""The app's model and provider switch: palette pickers, and the status bar's model.

A mixin of :class:`~tuibot.tui.app.TuibotApp` (see :mod:`tuibot.tui.actions.chat_commands` for why
handlers are plain methods). Picking goes through the engine's ``choose_model``, the same
checked switch ``/model`` and ``tuibot ask --model`` use; a refusal (server down, a list
that is garbage or empty, a model the provider does not serve) is one notice, and the
chat keeps what it had.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work

if TYPE_CHECKING:
    from textual.app import App

    from tuibot.engine import Engine
    from tuibot.tui.widgets.status_bar import StatusBar

    _AppBase = App[int]
else:
    _AppBase = object

SWITCH_COMMANDS = ("/model", "/provider")
"""Slash commands after which the status bar's model is read again."""


class ModelCommands(_AppBase):
    """Model and provider switching for the app; expects the attributes declared below."""

    if TYPE_CHECKING:
        engine: Engine | None
        current_chat: str | None

        @property
        def status(self) -> StatusBar: ...

    def show_chat_model(self) -> None:
        """The status bar's model: the chat's choice, else its bot's (and a chosen provider)."""
        engine, chat = self.engine, self.current_chat
        if engine is None or not chat:
            return
        from tuibot.store.chats import ChatNotFound
        from tuibot.store.jsonl import StorageError

        try:
            meta = engine.view.chat(chat)
        except (ChatNotFound, StorageError):
            return
        model, _ = engine.model_of(meta)
        self.status.model = f"{model} ({meta.provider})" if meta.provider else model

    @work(group="dialogs", exclusive=True, exit_on_error=False)
    async def pick_model(self, provider: str | None = None) -> None:
        """List what the chat's provider serves and switch to the picked model."""
        from tuibot.model_choice import ChoiceError
        from tuibot.tui.screens.pick import PickScreen

        engine, chat = self.engine, self.current_chat
        if engine is None or not chat:
            self.notify("Open a chat first.", severity="warning")
            return
        try:
            found = await engine.chat_models(chat, provider)
        except ChoiceError as error:
            self._refused(str(error))
            return
        if not found.models:
            self.notify(f"{found.provider} has no model list: use /model NAME.", markup=False)
            return
        title = f"Model for this chat, from {found.provider}"
        picked = await self.push_screen_wait(PickScreen(title, found.models, found.current))
        if picked is not None:
            await self._switch(chat, picked, provider)

    @work(group="dialogs", exclusive=True, exit_on_error=False)
    async def pick_provider(self) -> None:
        """Switch the chat's provider; when it does not serve the chat's model, pick one."""
        from tuibot.tui.screens.pick import PickScreen

        engine, chat = self.engine, self.current_chat
        if engine is None or not chat:
            self.notify("Open a chat first.", severity="warning")
            return
        names = list(engine.view.settings.providers)
        current = engine.view.chat(chat).provider or None
        picked = await self.push_screen_wait(PickScreen("Provider for this chat", names, current))
        if picked is None:
            return
        if not await self._switch(chat, None, picked, quiet=True):
            self.pick_model(picked)  # its own worker: this one ends here

    async def _switch(
        self, chat: str, model: str | None, provider: str | None, *, quiet: bool = False
    ) -> bool:
        """One checked switch; a refusal is a notice (unless ``quiet``)."""
        from tuibot.model_choice import ChoiceError

        engine = self.engine
        if engine is None:
            return False
        try:
            message = await engine.choose_model(chat, model, provider)
        except ChoiceError as error:
            if not quiet:
                self._refused(str(error))
            return False
        self.notify(message, markup=False, timeout=3)
        self.show_chat_model()
        return True

    def _refused(self, why: str) -> None:
        self.notify(f"{why} Nothing was changed.", severity="error", markup=False)
