"""Masking what front ends print: whole events, and secrets split across stream deltas."""

from __future__ import annotations

import pytest

from tuibot.events import ApprovalRequested, Event, Notice, TextDelta, TurnFinished
from tuibot.system.masking import Masked, StreamMask, mask_event
from tuibot.system.secrets import mask, remember_secret

SECRET = "tok-Hy7c0PzQ2mWx5kLs"


@pytest.fixture
def known() -> str:
    remember_secret(SECRET)
    return SECRET


def _stream(pieces: list[str]) -> list[str]:
    stream = StreamMask()
    shown = [stream.feed(piece) for piece in pieces]
    return [*shown, stream.flush()]


@pytest.mark.parametrize("cut", range(1, len(SECRET)))
def test_a_secret_split_at_any_point_is_masked(known: str, cut: int) -> None:
    shown = _stream(["key: " + known[:cut], known[cut:] + " end"])

    assert "".join(shown) == f"key: {mask(known)} end"
    assert all(known[: max(cut, 4)] not in piece for piece in shown)


def test_a_secret_one_character_per_delta_is_masked(known: str) -> None:
    shown = _stream(list(f"a{known}b"))

    assert "".join(shown) == f"a{mask(known)}b"
    assert not any(len(piece) > 1 and known.startswith(piece) for piece in shown)


def test_a_start_that_is_ruled_out_is_released_by_the_next_delta(known: str) -> None:
    stream = StreamMask()

    assert stream.feed("see tok-") == "see "  # could be the key: held back
    assert stream.feed("en.") == "tok-en."  # it was not
    assert stream.flush() == ""


def test_a_start_held_at_the_end_of_the_stream_is_shown_by_flush(known: str) -> None:
    stream = StreamMask()

    assert stream.feed("ends with tok-Hy") == "ends with "
    assert stream.flush() == "tok-Hy"


def test_masked_passes_events_through_and_flushes_before_the_next_event(known: str) -> None:
    seen: list[Event] = []
    masked = Masked(seen.append)

    for piece in ("The key ", known[:6], known[6:], " ok", " tok"):
        masked(TextDelta("c1", "t1", piece))
    masked(TurnFinished("c1", "t1", "completed", f"The key {known} ok tok"))

    deltas = [e.delta for e in seen if isinstance(e, TextDelta)]
    assert "".join(deltas) == f"The key {mask(known)} ok tok"
    assert isinstance(seen[-1], TurnFinished) and seen[-1].text == f"The key {mask(known)} ok tok"


def test_mask_event_masks_nested_fields_and_keeps_clean_events_as_they_are(known: str) -> None:
    request = ApprovalRequested(
        "c1", "r1", "tool", f"Run x? x(key={known})", {"arguments": {"key": [known, 1]}}
    )
    clean = Notice("c1", "info", "nothing here")

    masked = mask_event(request)

    assert known not in repr(masked)
    assert masked.details == {"arguments": {"key": [mask(known), 1]}}
    assert mask_event(clean) is clean


def test_with_no_secret_known_events_pass_through_uncopied(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tuibot.system import secrets

    monkeypatch.setattr(secrets, "_longest_first", ())  # as in a process that knows none
    seen: list[Event] = []
    delta, done = TextDelta("c1", "t1", "tok-"), TurnFinished("c1", "t1", "completed", "x")

    masked = Masked(seen.append)
    masked(delta)
    masked(done)

    assert seen == [delta, done] and seen[0] is delta and seen[1] is done
