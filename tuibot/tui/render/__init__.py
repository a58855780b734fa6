"""The drawing pipeline under the conversation, without widgets of its own.

Markdown cut into settled blocks, the rows a stored chat takes, where rows sit, and
garbage collections kept out of the way while drawing.
"""
