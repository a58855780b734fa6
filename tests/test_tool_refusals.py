"""The book of servers that refused native tools: kept per server address, for a day."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tuibot.llm.tool_refusals import REMEMBERED_FOR, ToolRefusals
from tuibot.settings import ProviderSettings

M = "served-model"
VLLM = ProviderSettings(name="local", kind="openai", base_url="http://127.0.0.1:8000/v1")


def test_a_refusal_is_said_once_and_read_back_by_another_process(tmp_path: Path) -> None:
    path = tmp_path / "tool_refusals.json"
    book = ToolRefusals(path)
    assert not book.refused(VLLM, M)
    assert book.remember(VLLM, M) is True
    assert book.remember(VLLM, M) is False  # known: nothing to say again
    assert ToolRefusals(path).refused(VLLM, M)


def test_the_same_name_at_another_address_is_not_refused(tmp_path: Path) -> None:
    path = tmp_path / "tool_refusals.json"
    ToolRefusals(path).remember(VLLM, M)
    moved = ProviderSettings(name="local", kind="openai", base_url="http://127.0.0.1:9000/v1")
    assert not ToolRefusals(path).refused(moved, M)


def test_another_model_on_the_same_server_is_asked_natively(tmp_path: Path) -> None:
    """Ollama refuses tools per model (``gemma3:4b does not support tools``)."""
    path = tmp_path / "tool_refusals.json"
    ToolRefusals(path).remember(VLLM, "gemma3:4b")
    assert ToolRefusals(path).refused(VLLM, "gemma3:4b")
    assert not ToolRefusals(path).refused(VLLM, "qwen3:8b")


def test_a_refusal_older_than_a_day_is_tried_natively_again(tmp_path: Path) -> None:
    path = tmp_path / "tool_refusals.json"
    ToolRefusals(path).remember(VLLM, M)
    entries = json.loads(path.read_text(encoding="utf-8"))
    for entry in entries.values():
        entry["at"] = time.time() - REMEMBERED_FOR - 60
    path.write_text(json.dumps(entries), encoding="utf-8")
    assert not ToolRefusals(path).refused(VLLM, M)


def test_a_damaged_file_is_an_empty_book_and_is_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "tool_refusals.json"
    path.write_text('{"local|x": {"at": "yesterday"}, "oops": 3', encoding="utf-8")
    book = ToolRefusals(path)
    assert not book.refused(VLLM, M)
    assert book.remember(VLLM, M)
    assert ToolRefusals(path).refused(VLLM, M)
