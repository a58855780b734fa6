"""The fitter on its own: what is cut, in which order, and what is never broken."""

from __future__ import annotations

from typing import Any

from tuibot.agent.fit import Measure, fit_request
from tuibot.agent.tokens import START_RATIO, TokenCounter


def measure() -> Measure:
    return Measure(TokenCounter(), "m", "c")


def turn(n: int, result: str, answer: str = "ok") -> list[dict[str, Any]]:
    call = {"id": f"c{n}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    return [
        {"role": "user", "content": f"question {n}"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"c{n}", "name": "read_file", "content": result},
        {"role": "assistant", "content": answer},
    ]


def test_a_request_that_fits_is_sent_unchanged() -> None:
    history = turn(0, "small") + turn(1, "small")
    fitted = fit_request("sys", [], history, 200, 1000, measure())
    assert [m.get("content") or "" for m in fitted.messages[1:]] == [m["content"] for m in history]
    assert not fitted.changed


def test_old_results_are_cut_before_recent_ones_and_say_where_the_rest_is() -> None:
    history = turn(0, "A" * 6000) + turn(1, "B" * 1500) + turn(2, "C" * 1500)
    budget = int(5000 / START_RATIO)
    fitted = fit_request("sys", [], history, 200, budget, measure())
    results = [m["content"] for m in fitted.messages if m["role"] == "tool"]
    assert "the full result is in the chat file" in results[0]
    assert results[1:] == ["B" * 1500, "C" * 1500]  # the last two turns are whole
    assert fitted.tokens <= budget and not fitted.over


def test_left_out_turns_start_at_a_user_message_and_the_system_prompt_stays() -> None:
    history = [m for n in range(40) for m in turn(n, "x" * 900, "y" * 900)]
    fitted = fit_request("the system prompt", [], history, 500, 2000, measure())
    assert fitted.messages[0] == {"role": "system", "content": "the system prompt"}
    assert fitted.messages[1]["role"] == "user"
    assert fitted.over and fitted.dropped > 0 and fitted.tokens <= 2000
    ids = {c["id"] for m in fitted.messages for c in m.get("tool_calls") or ()}
    assert all(m["tool_call_id"] in ids for m in fitted.messages if m["role"] == "tool")


def test_one_message_bigger_than_the_window_is_cut_with_a_marker() -> None:
    history = [{"role": "user", "content": "Z" * 100_000}]
    fitted = fit_request("sys", [], history, 200, 1000, measure())
    [user] = fitted.messages[1:]
    assert "tuibot cut" in user["content"] and user["content"].startswith("ZZZ")
    assert fitted.tokens <= 1000 and fitted.cut_messages == 1
    assert history[0]["content"] == "Z" * 100_000  # the stored message is untouched


def test_history_limit_stays_a_second_cap() -> None:
    history = [m for n in range(10) for m in turn(n, "r")]
    fitted = fit_request("sys", [], history, 8, 100_000, measure())
    assert len(fitted.messages) == 1 + 8


def test_the_count_follows_the_servers_last_report() -> None:
    counter = TokenCounter()
    counter.report("m", "c", 10_000, 10, 2_000)  # 5 characters a token, said the server
    assert counter.count("m", "c", 10_000, 10) == 2_000
    grown = counter.count("m", "c", 11_000, 12)
    assert 2_000 + 150 < grown < 2_000 + 300  # the new 1000 characters at the learnt ratio


def test_a_report_of_only_the_uncached_part_is_not_learnt_from() -> None:
    counter = TokenCounter()
    counter.report("m", "c", 30_000, 10, 9_000)
    before = counter.count("m", "c", 40_000, 12)
    counter.report("m", "c", 40_000, 12, 200)  # Ollama counted only the new tokens
    assert counter.count("m", "c", 40_000, 12) == before


def photo(n: int) -> dict[str, Any]:
    return {"kind": "image", "name": f"p{n}.png", "path": f"p{n}.png", "sha256": "0" * 64}


def test_images_count_toward_the_request_size() -> None:
    """An attached image is ~1,024 tokens to the model (docs/context.md), not 0."""
    from tuibot.agent.tokens import IMAGE_TOKENS

    history = [{"role": "user", "content": "what is this?", "attachments": [photo(0)]}]
    fitted = fit_request("sys", [], history, 200, 100_000, measure())
    assert fitted.tokens >= IMAGE_TOKENS


def test_old_turns_with_images_are_left_out_when_the_images_do_not_fit() -> None:
    history = []
    for n in range(4):
        history += [
            {"role": "user", "content": f"and this one? {n}", "attachments": [photo(n)]},
            {"role": "assistant", "content": "a cat"},
        ]
    fitted = fit_request("sys", [], history, 200, 2500, measure())
    assert fitted.over and len(fitted.messages) - 1 <= 4  # two images at most fit 2,500


def test_attached_text_counts_before_it_is_expanded() -> None:
    ref = {"kind": "text", "name": "a.txt", "path": "a.txt", "sha256": "0", "text": "x" * 8000}
    history = [
        {"role": "user", "content": "old", "attachments": [ref]},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "new"},
    ]
    fitted = fit_request("sys", [], history, 200, 1500, measure())
    assert fitted.tokens <= 1500, fitted.tokens
    assert fitted.over and fitted.cut_messages == 0  # seen while choosing turns: left out, not cut


def test_cjk_text_counts_more_than_a_token_a_character() -> None:
    """Byte-level tokenizers spend 1-1.4 tokens a CJK character (SmolLM2 measured 1.3):
    counting characters as English would miss two thirds of them."""
    from tuibot.agent.tokens import message_chars

    text = "请用中文解释这个函数的作用，并给出一个例子。谢谢！"  # 25 characters
    tokens = TokenCounter().tokens("m", message_chars({"role": "user", "content": text}), 0)
    assert 1.0 * len(text) <= tokens <= 1.6 * len(text), tokens
