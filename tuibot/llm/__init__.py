"""Model clients: one streaming interface over the ``openai`` SDK and ``litellm``.

Both clients turn provider chunks into the same small :mod:`tuibot.llm.parts` records
and provider failures into :class:`~tuibot.llm.errors.ModelError`, so the agent loop
never sees which library is underneath.
"""
