"""``kind = "llama-cpp"``: the SmolLM2 GGUF run in-process by the real engine (issue 15).

What must hold: the model loads lazily and answers through the stream; its window is
the ``n_ctx`` it was loaded with (the config's, else the trained length capped at 8192);
the prompt's count comes from the model's own tokenizer; a chat far over the window is
fitted; a missing file or a missing extra is a clear error, not a crash.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import ask, make_engine
from test_context_window import seed_big_result

pytestmark = pytest.mark.timeout(300)


def embedded(gguf: Path | str, **overrides: object):
    """An engine whose local provider runs the GGUF file in-process."""
    values = {
        "providers__local__kind": "llama-cpp",
        "providers__local__model_path": str(gguf),
        "agent__model": "smol",
        "agent__tools": ["read_file"],
        "agent__params": {"max_tokens": 24},
        **overrides,
    }
    return make_engine("", **values)


async def test_the_embedded_model_answers_with_its_own_window(smol_gguf: Path) -> None:
    engine = embedded(smol_gguf)
    assert engine.client_for(engine.settings.providers["local"])._llama is None  # lazy
    done = await ask(engine, engine.new_chat().id, "Say hello in three words.")
    window = engine.windows.lookup(engine.settings.providers["local"], "smol")
    await engine.close()
    assert done.status == "completed", done.error
    assert done.text.strip()
    assert (window.tokens, window.source) == (8192, "server")  # trained 8192, loaded so
    assert 0 < done.usage.prompt_tokens < 2048 and done.usage.completion_tokens > 0


async def test_a_big_chat_is_fitted_to_the_configured_n_ctx(smol_gguf: Path) -> None:
    engine = embedded(smol_gguf, providers__local__context_window=2048)
    chat = engine.new_chat().id
    seed_big_result(engine, chat)  # ~13k tokens of tool result
    done = await ask(engine, chat, "What did the file hold?")
    client = engine.client_for(engine.settings.providers["local"])
    n_ctx = client._llama.n_ctx()
    await engine.close()
    assert done.status == "completed", done.error
    assert n_ctx == 2048
    assert done.context is not None and done.context["window"] == 2048
    assert done.usage.prompt_tokens <= 2048


async def test_a_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    engine = embedded(tmp_path / "nope.gguf")
    done = await ask(engine, engine.new_chat().id, "hi")
    await engine.close()
    assert done.status == "failed"  # found while learning the window, before any call
    assert "nope.gguf does not exist" in (done.error or "")
