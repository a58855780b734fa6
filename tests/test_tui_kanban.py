"""The task kanban: cards follow the board live, the cursor moves by key, Enter opens a chat."""

from __future__ import annotations

from scripted_server import ScriptedServer, error, text
from tui_helpers import SIZE, make_app, ready, until

from tuibot.tasks import Task
from tuibot.tui.messages import OpenChat
from tuibot.tui.widgets.kanban import TaskKanban


def column_of(kanban: TaskKanban, task: Task) -> str | None:
    """The state of the column whose cards hold the card of ``task``, if it is shown."""
    card = kanban.card_for(task.id)
    if card is None or card.parent is None or card.parent.parent is None:
        return None
    return str(card.parent.parent.id).removeprefix("column-")


async def test_a_message_becomes_a_card_in_doing_then_in_done(server: ScriptedServer) -> None:
    server.enqueue(text("Hello there, nice to meet you.", pieces=25, delay=0.04))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None
        kanban = app.query_one(TaskKanban)
        chat = engine.new_chat().id
        await engine.send(chat, "Say hello to me")

        await until(pilot, lambda: len(engine.tasks.board()) == 1)
        [task] = engine.tasks.board()
        await until(pilot, lambda: column_of(kanban, task) == "doing")
        card = kanban.card_for(task.id)
        assert card is not None and "Say hello to me" in str(card.render())
        assert engine.tasks.get(task.id).state == "doing"  # type: ignore[union-attr]

        await until(pilot, lambda: column_of(kanban, task) == "done")
        assert engine.tasks.get(task.id).state == "done"  # type: ignore[union-attr]
        done = kanban.card_for(task.id)
        assert done is not None and done is not card  # moved: a new card in the new column
        assert "1 call" in str(done.render()) and "Assistant" in str(done.render())
        assert card.parent is None  # the old card is gone from the doing column


async def test_the_cursor_moves_between_cards_and_enter_opens_the_tasks_chat(
    server: ScriptedServer,
) -> None:
    server.enqueue(text("One."), error(400, message="no such model"))
    app = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        engine = app.engine
        assert engine is not None
        kanban = app.query_one(TaskKanban)
        first, second = engine.new_chat().id, engine.new_chat().id
        await (await engine.send(first, "First question"))
        await (await engine.send(second, "Second question"))
        await until(pilot, lambda: {t.state for t in engine.tasks.board()} == {"done", "error"})
        done, failed = sorted(engine.tasks.board(), key=lambda t: t.state)
        assert (done.chat, failed.chat) == (first, second)
        await until(pilot, lambda: column_of(kanban, failed) == "error")
        app.post_message(OpenChat(second))
        await until(pilot, lambda: app.current_chat == second)

        await pilot.press("f4")  # the app's key for the task pane
        assert app.focused is kanban
        assert kanban.cursor == done.id  # the first card of the first column with cards
        await pilot.press("right")
        assert kanban.cursor == failed.id
        card = kanban.card_for(failed.id)
        assert card is not None and card.has_class("-cursor")
        await pilot.press("left")
        assert kanban.cursor == done.id and not card.has_class("-cursor")
        await pilot.press("down")  # stacked sections in the side pane: on into the next one
        assert kanban.cursor == failed.id
        await pilot.press("up")
        assert kanban.cursor == done.id

        await pilot.press("enter")
        await until(pilot, lambda: app.current_chat == first)
