"""The event stream: fan-out to listeners and subscribers, isolated from their failures."""

from __future__ import annotations

import asyncio

from tuibot.events import EventStream, Notice, TextDelta


def test_a_failing_listener_does_not_stop_the_others() -> None:
    stream = EventStream()
    seen: list[object] = []

    def broken(event: object) -> None:
        raise BrokenPipeError("stdout closed")

    stream.listen(broken)
    stream.listen(seen.append)
    stream.publish(Notice("c", "info", "hello"))

    assert seen == [Notice("c", "info", "hello")]


def test_stop_listening() -> None:
    stream = EventStream()
    seen: list[object] = []
    stop = stream.listen(seen.append)
    stream.publish(TextDelta("c", "t", "a"))
    stop()
    stream.publish(TextDelta("c", "t", "b"))
    assert [e.delta for e in seen] == ["a"]  # type: ignore[attr-defined]


async def test_subscribers_each_get_every_event_until_closed() -> None:
    stream = EventStream()

    async def collect() -> list[str]:
        return [e.delta async for e in stream.subscribe()]  # type: ignore[attr-defined]

    readers = [asyncio.create_task(collect()) for _ in range(2)]
    await asyncio.sleep(0)
    for piece in "abc":
        stream.publish(TextDelta("c", "t", piece))
    stream.close()
    assert await asyncio.gather(*readers) == [["a", "b", "c"], ["a", "b", "c"]]
