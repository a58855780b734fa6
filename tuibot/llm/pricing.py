"""What a model call cost, in micro-USD.

A ``price_input``/``price_output`` in provider config (USD per million tokens) wins;
litellm providers fall back to litellm's bundled price map; anything else costs 0.
USD per million tokens times tokens is exactly micro-USD, so no float scaling is needed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tuibot.settings import ProviderSettings


def cost_micros(
    provider: ProviderSettings, model: str, prompt_tokens: int, completion_tokens: int
) -> int:
    """The cost of one call, 0 when the model's price is unknown."""
    if provider.price_input is not None or provider.price_output is not None:
        return round(
            prompt_tokens * (provider.price_input or 0.0)
            + completion_tokens * (provider.price_output or 0.0)
        )
    if provider.kind == "litellm":
        from tuibot.llm.litellm_client import litellm_cost_micros

        return litellm_cost_micros(model, prompt_tokens, completion_tokens)
    return 0
